"""The lookup keys of a pre's title and of the names found in the catalog.

A pre is found by its exact title, or by a hash of it that an obfuscating tool posted
as the release or file name: MD5, MD5 of the MD5's hex, SHA-1 and SHA-256, each of the
title and of its lowercase (the eight `VARIANTS`). Both sides reduce to one 64-bit key:
a title to `blake2b-64("t" + title)`, a hash to its digest's first 8 bytes (a digest is
uniform already), so a name in the catalog that is 32, 40 or 64 hex digits is looked up
by the digest it spells. The
digest's length tells MD5 from SHA-1 from SHA-256; MD5 and MD5-of-MD5 differ in value.
64 bits: among 10 M pres (90 M keys) and 100 M names, a chance collision is ~1 in 2,000
(birthday bound over the pairs that could meet), and a collision still has to pass the
size gate and the verification of `verify` (the title or digest recomputed).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable

import numpy as np
import pyarrow as pa

from kernels.file_stems import ending_code, gather, stem_ends
from kernels.name_keys import name_keys as kernel_name_keys
from pipelines.nzb.writer import string_buffers

TITLE = 0  # variant 0: the title itself
# variant -> (method recorded on a link, the digest of a title's text)
VARIANTS: dict[int, tuple[str, Callable[[str], bytes]]] = {
    1: ("md5", lambda t: hashlib.md5(t.encode()).digest()),
    2: ("md5_md5", lambda t: hashlib.md5(hashlib.md5(t.encode()).hexdigest().encode()).digest()),
    3: ("sha1", lambda t: hashlib.sha1(t.encode()).digest()),
    4: ("sha256", lambda t: hashlib.sha256(t.encode()).digest()),
    5: ("md5_lower", lambda t: hashlib.md5(t.lower().encode()).digest()),
    6: (
        "md5_md5_lower",
        lambda t: hashlib.md5(hashlib.md5(t.lower().encode()).hexdigest().encode()).digest(),
    ),
    7: ("sha1_lower", lambda t: hashlib.sha1(t.lower().encode()).digest()),
    8: ("sha256_lower", lambda t: hashlib.sha256(t.lower().encode()).digest()),
}
REQUEST = 1 + len(VARIANTS)  # variant 9: the request id a pre was filled for, with its group
N_KEYS = 2 + len(VARIANTS)
NO_KEY = 0  # a pre without a request id: a key no name gives (one in 2^64 would)
_HEX = re.compile(r"[0-9a-fA-F]{32}(?:[0-9a-fA-F]{8})?(?:[0-9a-fA-F]{24})?")
_DIGEST_LENGTHS = (32, 40, 64)
# a file name's endings taken away to reach its stem: an extension, a volume or part
# number (`.part01.rar`, `.vol03+04.par2`, `.r00`, `.7z.001`); a title's own dotted
# words are none of these
_EXTENSIONS = frozenset({
    "rar", "par2", "zip", "7z", "nfo", "sfv", "srr", "srs", "nzb", "jpg", "jpeg", "png", "txt",
    "mkv", "mp4", "m4v", "avi", "wmv", "ts", "iso", "bin", "cue", "img", "epub", "pdf", "mobi",
    "azw3", "cbr", "cbz", "mp3", "flac", "m4a", "ogg", "wav", "exe", "dmg",
})  # fmt: skip
# ASCII only, as the column kernel reads bytes (Unicode case folding would take `ſ` for
# `s` and Unicode digits for `\d`)
_VOLUME = re.compile(
    r"part\d{1,4}|vol\d{1,5}[+-]\d{1,5}|r\d{2,3}|s\d{2}|\d{3}", re.IGNORECASE | re.ASCII
)
MAX_SUFFIXES = 3
# what a name is stripped of at either end: ASCII blanks, as the scan strips a column
# (`pyarrow.compute.utf8_trim`; Python's own `strip()` takes Unicode spaces too)
BLANKS = " \t\n\r\x0b\x0c"
_ENDING_CODES = np.array(sorted(ending_code(e.encode()) for e in _EXTENSIONS), np.int64)


def _key(tag: bytes, payload: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(tag + payload, digest_size=8).digest(), "little")


def title_key(title: str) -> int:
    return _key(b"t", title.encode("utf-8", "surrogateescape"))


def digest_key(digest: bytes) -> int:
    return int.from_bytes(digest[:8], "little")


def pre_keys(title: str) -> list[int]:
    """The title's `N_KEYS` keys, variant by variant (a variant equal to an earlier one,
    a title already lowercase, repeats its key). The same digests as `VARIANTS`, each text
    encoded once: an import of 10 M pres spends most of its time here."""
    raw = title.encode("utf-8", "surrogateescape")
    low = title.lower().encode("utf-8", "surrogateescape")
    out = [_key(b"t", raw)]
    for text in (raw, low):
        md5 = hashlib.md5(text)
        out.append(int.from_bytes(md5.digest()[:8], "little"))
        out.append(int.from_bytes(hashlib.md5(md5.hexdigest().encode()).digest()[:8], "little"))
        out.append(int.from_bytes(hashlib.sha1(text).digest()[:8], "little"))
        out.append(int.from_bytes(hashlib.sha256(text).digest()[:8], "little"))
    return out


def request_key(group: str, request_id: int) -> int:
    """A request (`[12345]` in a subject) in its group: what a request's pre was filled for."""
    return _key(b"r", f"{group}:{request_id}".encode())


def pre_key_matrix(
    titles: Iterable[str], requests: Iterable[tuple[str | None, int | None]] | None = None
) -> np.ndarray:
    """`pre_keys` of many titles and each pre's request key (`NO_KEY` without one) as an
    (n, N_KEYS) uint64 array; `requests`: (group, id) per title."""
    rows = [pre_keys(t) for t in titles]
    asks = list(requests) if requests is not None else [(None, None)] * len(rows)
    for row, (group, rid) in zip(rows, asks, strict=True):
        row.append(request_key(group, rid) if group and rid else NO_KEY)
    return np.array(rows, dtype=np.uint64).reshape(-1, N_KEYS)


def name_keys(name: str, stems: bool = True) -> list[int]:
    """The keys a catalog name is looked up by: a file name's stem (`_stems`: without
    its extension and volume number; the name when it has none), and that stem's digest
    when it spells one. `stems` False: the name as it is (a release's name has no file
    ending to take away; its dotted words are the title's)."""
    out: list[int] = []
    for text in _stems(name.strip(BLANKS))[-1:] if stems else [name.strip(BLANKS)]:
        out.append(title_key(text))
        if len(text) in _DIGEST_LENGTHS and _HEX.fullmatch(text):
            out.append(digest_key(bytes.fromhex(text)))
    return out


def file_stems(names: pa.Array | pa.ChunkedArray) -> pa.Array:
    """`file_stem` of every name of a column at once (a null name's stem is empty): one
    kernel pass over the column's bytes (`kernels.file_stems`)."""
    n, data, offsets = _column_bytes(names)
    ends = stem_ends(data, offsets, _ENDING_CODES, MAX_SUFFIXES)
    values, out_offsets = gather(data, offsets, ends)
    return pa.LargeStringArray.from_buffers(n, pa.py_buffer(out_offsets), pa.py_buffer(values))


def column_keys(
    names: pa.Array | pa.ChunkedArray, request: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`name_keys(name, stems=False)` of every name of a column at once: each one's title
    key, and the digest key it spells with whether it spells one; `request`: the names
    are `group:id` and their keys `request_key`s (`kernels.name_keys`)."""
    _, data, offsets = _column_bytes(names)
    return kernel_name_keys(data, offsets, ord("r" if request else "t"), not request)


def _column_bytes(names: pa.Array | pa.ChunkedArray) -> tuple[int, np.ndarray, np.ndarray]:
    """A string column's length, values and offsets (a null is empty)."""
    arr = names.combine_chunks() if isinstance(names, pa.ChunkedArray) else names
    offsets, data = string_buffers(arr)
    return len(arr), data, offsets


def file_stem(name: str) -> str:
    """A file name without its extension and volume number (`_stems`)."""
    return _stems(name)[-1]


def verify(title: str, variant: int, name: str) -> bool:
    """Whether a name really is the pre's title (variant 0) or its variant's digest: the
    64-bit key said so; this recomputes it. `name` is the stem or name that matched."""
    stems = _stems(name.strip(BLANKS))
    if variant == TITLE:
        return title in stems
    digest = VARIANTS[variant][1](title).hex()
    return any(s.lower() == digest for s in stems)


def _stems(text: str) -> list[str]:
    """A file name and its base: without its extension and its volume or part number
    (`x.part01.rar`, `x.vol03+04.par2`, `x.r00`, `x.7z.001` -> `x`), so a set's files
    share one stem; a name with no known ending is its own stem."""
    base = text
    for _ in range(MAX_SUFFIXES):
        dot = base.rfind(".")
        if dot <= 0:
            break
        ending = base[dot + 1 :]
        known = ending.isascii() and ending.lower() in _EXTENSIONS
        if not known and not _VOLUME.fullmatch(ending):
            break
        base = base[:dot]
    return [text, base] if base and base != text else [text]


def method_of(variant: int, where: str) -> str:
    """The match method recorded on a link: `title` or the hash kind, and where the name
    was found (`release`, `file`, `inner`); `request` for a request id in its group."""
    if variant == REQUEST:
        return "request"
    base = "title" if variant == TITLE else VARIANTS[variant][0]
    return f"{base}:{where}"
