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


@dataclass(frozen=True)
class NzbFiles:
    """A release's files column-wise, as `write_nzb` writes them: per file its header
    fields, and its segments as positions into segment columns shared by all files
    (file i's are `source[bounds[i]:bounds[i + 1]]`), so no Python object is made per
    segment. Message-id k is the UTF-8 text `id_data[id_offsets[k]:id_offsets[k + 1]]`."""

    subjects: list[str]
    posters: list[str]
    dates: list[int]
    groups: list[tuple[str, ...]]
    bounds: np.ndarray  # n_files + 1, into source
    source: np.ndarray  # int64 positions into the segment columns
    numbers: np.ndarray  # int64 segment (part) numbers
    sizes: np.ndarray  # int64 bytes of each segment
    id_offsets: np.ndarray  # int64, len(numbers) + 1
    id_data: np.ndarray  # uint8

    def __len__(self) -> int:
        return len(self.subjects)

    @property
    def segments(self) -> int:
        return len(self.source)

    @classmethod
    def of(cls, files: Sequence[NzbFile]) -> NzbFiles:
        """From per-file objects (message-ids as Python strings or Arrow arrays)."""
        counts = [len(f.numbers) for f in files]
        offsets, data = _id_buffers([f.message_ids for f in files])
        if len(offsets) != sum(counts) + 1:
            raise ValueError("every file needs one message-id per segment number")
        total = len(offsets) - 1
        return cls(
            subjects=[f.subject for f in files],
            posters=[f.poster for f in files],
            dates=[int(f.date) for f in files],
            groups=[tuple(f.groups) for f in files],
            bounds=np.concatenate([[0], np.cumsum(counts, dtype=np.int64)]).astype(np.int64),
            source=np.arange(total, dtype=np.int64),
            numbers=_concat([f.numbers for f in files]),
            sizes=_concat([f.sizes for f in files]),
            id_offsets=offsets,
            id_data=data,
        )

    def files(self) -> list[NzbFile]:
        """One NzbFile per file, its message-ids a slice of one Arrow array (pages that
        list files; not the download path)."""
        taken = _string_array(self.id_offsets, self.id_data).take(pa.array(self.source))
        b = self.bounds.tolist()
        return [
            NzbFile(
                subject=self.subjects[i],
                poster=self.posters[i],
                date=self.dates[i],
                groups=list(self.groups[i]),
                numbers=self.numbers[self.source[b[i] : b[i + 1]]],
                sizes=self.sizes[self.source[b[i] : b[i + 1]]],
                message_ids=taken[b[i] : b[i + 1]],
            )
            for i in range(len(self))
        ]


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    if not parts:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([np.asarray(p, dtype=np.int64) for p in parts])


def _string_array(offsets: np.ndarray, data: np.ndarray) -> pa.Array:
    rebased = offsets - offsets[0]
    raw = pa.py_buffer(data[int(offsets[0]) : int(offsets[-1])].tobytes())
    return pa.LargeStringArray.from_buffers(len(offsets) - 1, pa.py_buffer(rebased), raw)


def string_buffers(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A string array's value offsets (int64, len + 1) and UTF-8 data as numpy views
    (the data without a copy); nulls read as empty strings."""
    if values.null_count:
        values = pc.fill_null(values, "")
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        values = values.cast(pa.string())
    _, offsets_buf, data_buf = values.buffers()
    wide = pa.types.is_large_string(values.type)
    count = len(values) + 1
    if offsets_buf is None:
        return np.zeros(count, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    offsets = np.frombuffer(offsets_buf, np.int64 if wide else np.int32)
    offsets = offsets[values.offset : values.offset + count].astype(np.int64)
    data = np.frombuffer(data_buf, np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    return offsets, data


def _id_buffers(
    pieces: list[Sequence[str] | pa.Array | pa.ChunkedArray],
) -> tuple[np.ndarray, np.ndarray]:
    """All files' message-ids as one offsets array and one UTF-8 buffer. Python strings
    are encoded with lone surrogates kept as bytes, which the kernel drops (malformed
    UTF-8) as `xml_text` drops the surrogates."""
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    for ids in pieces:
        if isinstance(ids, pa.ChunkedArray):
            ids = ids.combine_chunks() if ids.num_chunks else pa.array([], pa.string())
        if isinstance(ids, pa.Array):
            parts.append(string_buffers(ids))
            continue
        raw = [str(v).encode("utf-8", "surrogatepass") for v in ids]
        lengths = np.fromiter(map(len, raw), dtype=np.int64, count=len(raw))
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        parts.append((offsets, np.frombuffer(b"".join(raw), dtype=np.uint8)))
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    data = np.concatenate([d[int(o[0]) : int(o[-1])] for o, d in parts])
    lengths = np.concatenate([np.diff(o) for o, _ in parts])
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64), data


def load_kernel() -> None:
    """Compile (or load from numba's cache) the segment kernel for the argument types a
    download passes (a read-only uint8 buffer)."""
    from kernels.nzb_segments import segment_lines

    one = np.zeros(1, dtype=np.int64)
    segment_lines(one, one, one, np.array([0, 1]), np.frombuffer(b"m", np.uint8))


def write_nzb(files: Iterable[NzbFile] | NzbFiles, meta: Sequence[tuple[str, str]] = ()) -> bytes:
    """The NZB document: `meta` as head (type, value) pairs, then one `file` per file."""
    if not isinstance(files, NzbFiles):
        files = NzbFiles.of(list(files))
    # imported on first use: numba costs a process ~20 MB, and `serve`'s index-building
    # parent imports this module but writes no NZB
    from kernels.nzb_segments import segment_lines

    lines, ends = segment_lines(
        files.numbers, files.sizes, files.source, files.id_offsets, files.id_data
    )
    starts = np.concatenate([[0], ends]).astype(np.int64)[files.bounds].tolist()
    segments = lines.data  # a memoryview: the files slice it without copies
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
    for i, subject in enumerate(files.subjects):
        poster = poster_xml.get(files.posters[i])
        if poster is None:
            poster = poster_xml[files.posters[i]] = xml_text(files.posters[i])
        groups = groups_xml.get(key := files.groups[i])
        if groups is None:
            groups = groups_xml[key] = "".join(f"   <group>{xml_text(g)}</group>\n" for g in key)
        out.append(
            f' <file poster="{poster}" date="{files.dates[i]}" '
            f'subject="{xml_text(subject)}">\n  <groups>\n{groups}  </groups>\n  <segments>\n'
        )
        parts.append("".join(out).encode())
        parts.append(segments[starts[i] : starts[i + 1]])
        out = ["  </segments>\n </file>\n"]
    out.append("</nzb>\n")
    parts.append("".join(out).encode())
    return b"".join(parts)


_UNSAFE_NAME = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')


def nzb_file_name(release_name: str) -> str:
    """A download file name for a release: no path or header-breaking characters."""
    cleaned = _UNSAFE_NAME.sub("_", release_name).strip(" .") or "release"
    return f"{cleaned[:200]}.nzb"
