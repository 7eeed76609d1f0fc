"""The NZB 1.1 writer: a release's files and segments as the XML downloaders read.

Valid against the NZB 1.1 DTD (`nzb-1.1.dtd` beside this module, copied from the
newzBin spec). Strings come from Usenet headers, so anything XML 1.0 cannot carry
(control characters, lone surrogates) is dropped rather than failing the download.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

NZB_NAMESPACE = "http://www.newzbin.com/DTD/2003/nzb"
DTD_PATH = Path(__file__).with_name("nzb-1.1.dtd")
_DOCTYPE = (
    '<!DOCTYPE nzb PUBLIC "-//newzBin//DTD NZB 1.1//EN" '
    '"http://www.newzbin.com/DTD/nzb/nzb-1.1.dtd">'
)
# One translation table both escapes and drops what XML 1.0 cannot carry: C0 controls
# but tab, LF and CR; surrogates; U+FFFE and U+FFFF. (One `translate` per string: feeds
# escape ~2,500 strings a page.)
_TABLE: dict[int, str | None] = {c: None for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)}
_TABLE.update({c: None for c in range(0xD800, 0xE000)})
_TABLE.update({0xFFFE: None, 0xFFFF: None})
_TABLE.update({ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;", ord('"'): "&quot;"})


_DIRTY = re.compile('[&<>"\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')
_DROPPED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(value: object) -> str:
    """A string safe as XML text or a double-quoted attribute value."""
    text = str(value)
    # Most names and posters need nothing: a regex scan is ~10x cheaper than translate.
    if _DIRTY.search(text) is None:
        return text
    if _DROPPED.search(text) is None:
        # Only markup (yEnc subjects quote their file name): four C replaces beat
        # `translate`'s dict lookup per character ~5x.
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return text.replace('"', "&quot;")
    return text.translate(_TABLE)


@dataclass(frozen=True)
class NzbFile:
    """One file of a release: its header fields and its segments sorted by number."""

    subject: str
    poster: str
    date: int  # Unix time of the file's first segment
    groups: Sequence[str]
    numbers: np.ndarray  # segment (part) numbers, ascending and unique
    sizes: np.ndarray  # bytes of each segment
    message_ids: Sequence[str] | pa.Array | pa.ChunkedArray  # without angle brackets

    @property
    def bytes(self) -> int:
        return int(self.sizes.sum())


# The bytes `xml_text` leaves alone in UTF-8 text: all but markup characters and C0
# controls (tab, LF and CR stay). U+FFFE and U+FFFF, which it drops, are EF BF BE/BF;
# valid UTF-8 holds no surrogates.
_SAFE_BYTES = bytes(
    b for b in range(256) if (b >= 0x20 and b not in b'&<>"') or b in (0x09, 0x0A, 0x0D)
)


def utf8_needs_escape(data: pa.Buffer | bytes | memoryview | None) -> bool:
    """Whether UTF-8 text holds anything `xml_text` would change. Deleting the safe bytes
    is one C loop (~1 ns a byte); Python's `re` over a 150 kB buffer is ~20x slower."""
    if data is None:
        return False
    raw = bytes(data)
    if raw.translate(None, _SAFE_BYTES):
        return True
    return b"\xef\xbf\xbe" in raw or b"\xef\xbf\xbf" in raw


def _clean_ids(values: Sequence[str]) -> list[str]:
    return [xml_text(m.strip("<>")) for m in values]


def _contiguous(pieces: list[pa.Array]) -> pa.Array | None:
    """The pieces as one array without a copy when they are consecutive slices of one
    array (what `merge_file_rows` hands over); None otherwise."""
    if not pieces or any(p.null_count for p in pieces):
        return None
    first = pieces[0].buffers()
    if first[1] is None or first[2] is None:
        return None
    end = pieces[0].offset + len(pieces[0])
    for p in pieces[1:]:
        buffers = p.buffers()
        same = all(
            a is not None and b is not None and b.address == a.address
            for a, b in zip(first[1:], buffers[1:], strict=True)
        )
        if not same or p.offset != end:
            return None
        end += len(p)
    start = pieces[0].offset
    return pa.StringArray.from_buffers(end - start, first[1], first[2], None, 0, start)


def _message_ids(files: Sequence[NzbFile]) -> pa.Array:
    """All files' message-ids as one Arrow string array, brackets stripped and escaped
    where needed. Arrow input is checked once over its bytes (message-ids almost never
    need either); Python lists as before, per file."""
    pieces: list[pa.Array] = []
    raw: list[bool] = []  # which pieces are unchecked Arrow input
    for f in files:
        ids = f.message_ids
        if isinstance(ids, pa.ChunkedArray):
            ids = ids.combine_chunks()
        if isinstance(ids, pa.Array):
            if ids.null_count:
                ids = pc.fill_null(ids, "")
            pieces.append(ids if ids.type == pa.string() else ids.cast(pa.string()))
            raw.append(True)
            continue
        values = list(ids)
        joined = "".join(values)
        if "<" in joined or ">" in joined or _DIRTY.search(joined):
            values = _clean_ids(values)
        pieces.append(pa.array(values, pa.string()))
        raw.append(False)
    joined_ids = _contiguous(pieces) or pa.concat_arrays(pieces)
    if not any(raw) or not utf8_needs_escape(joined_ids.buffers()[2]):
        return joined_ids
    cleaned = [pa.array(_clean_ids(p.to_pylist()), pa.string()) if r else p
               for p, r in zip(pieces, raw, strict=True)]  # fmt: skip
    return pa.concat_arrays(cleaned)


def _segment_lines(files: Sequence[NzbFile]) -> tuple[memoryview, list[int]]:
    """Every file's `<segment>` lines in one UTF-8 buffer, and where each file's start
    (one Arrow join over all segments: ~30x faster than an f-string per segment)."""
    counts = [len(f.numbers) for f in files]
    if not any(counts):
        return memoryview(b""), [0] * (len(files) + 1)
    ids = _message_ids(files)
    numbers = pa.array(np.concatenate([np.asarray(f.numbers) for f in files]).astype(np.int64))
    sizes = pa.array(np.concatenate([np.asarray(f.sizes) for f in files]).astype(np.int64))
    lines = pc.binary_join_element_wise(
        '   <segment bytes="', pc.cast(sizes, pa.string()), '" number="',
        pc.cast(numbers, pa.string()), '">', ids, "</segment>\n", "",
    )  # fmt: skip
    offsets = np.frombuffer(lines.buffers()[1], np.int32)[lines.offset :]
    first = np.concatenate([[0], np.cumsum(counts)])
    data = lines.buffers()[2]
    return memoryview(data if data is not None else b""), offsets[first].tolist()


def write_nzb(files: Iterable[NzbFile], meta: Sequence[tuple[str, str]] = ()) -> bytes:
    """The NZB document: `meta` as head (type, value) pairs, then one `file` per file."""
    files = list(files)
    segments, bounds = _segment_lines(files)
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n', _DOCTYPE, "\n"]
    out.append(f'<nzb xmlns="{NZB_NAMESPACE}">\n')
    if meta:
        out.append(" <head>\n")
        for kind, value in meta:
            out.append(f'  <meta type="{xml_text(kind)}">{xml_text(value)}</meta>\n')
        out.append(" </head>\n")
    parts: list[bytes | memoryview] = []
    # A release's files share their poster and groups: each escaped once.
    poster_xml: dict[str, str] = {}
    groups_xml: dict[tuple[str, ...], str] = {}
    for i, f in enumerate(files):
        poster = poster_xml.get(f.poster)
        if poster is None:
            poster = poster_xml[f.poster] = xml_text(f.poster)
        groups = groups_xml.get(key := tuple(f.groups))
        if groups is None:
            groups = groups_xml[key] = "".join(f"   <group>{xml_text(g)}</group>\n" for g in key)
        out.append(
            f' <file poster="{poster}" date="{int(f.date)}" '
            f'subject="{xml_text(f.subject)}">\n  <groups>\n{groups}  </groups>\n  <segments>\n'
        )
        parts.append("".join(out).encode())
        parts.append(segments[bounds[i] : bounds[i + 1]])
        out = ["  </segments>\n </file>\n"]
    out.append("</nzb>\n")
    parts.append("".join(out).encode())
    return b"".join(parts)


_UNSAFE_NAME = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')


def nzb_file_name(release_name: str) -> str:
    """A download file name for a release: no path or header-breaking characters."""
    cleaned = _UNSAFE_NAME.sub("_", release_name).strip(" .") or "release"
    return f"{cleaned[:200]}.nzb"
