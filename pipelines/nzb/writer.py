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


def xml_text(value: object) -> str:
    """A string safe as XML text or a double-quoted attribute value."""
    text = str(value)
    # Most names and posters need nothing: a regex scan is ~10x cheaper than translate.
    return text if _DIRTY.search(text) is None else text.translate(_TABLE)


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


def _segments_xml(f: NzbFile) -> str:
    """A file's `<segment>` lines. Plain f-strings: ~0.7 us a segment, faster than
    Arrow's string kernels at these sizes (their per-call cost dominates)."""
    ids = f.message_ids
    arrow = isinstance(ids, pa.Array | pa.ChunkedArray)
    id_list: list[str] = ids.to_pylist() if arrow else list(ids)  # type: ignore[union-attr]
    joined = "".join(id_list)
    # Checked once per file: message-ids almost never need brackets removed or escapes.
    if "<" in joined or ">" in joined or _DIRTY.search(joined):
        id_list = [xml_text(m.strip("<>")) for m in id_list]
    return "".join(
        [
            f'   <segment bytes="{b}" number="{n}">{m}</segment>\n'
            for n, b, m in zip(f.numbers.tolist(), f.sizes.tolist(), id_list, strict=True)
        ]
    )


def write_nzb(files: Iterable[NzbFile], meta: Sequence[tuple[str, str]] = ()) -> bytes:
    """The NZB document: `meta` as head (type, value) pairs, then one `file` per file."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n', _DOCTYPE, "\n"]
    out.append(f'<nzb xmlns="{NZB_NAMESPACE}">\n')
    if meta:
        out.append(" <head>\n")
        for kind, value in meta:
            out.append(f'  <meta type="{xml_text(kind)}">{xml_text(value)}</meta>\n')
        out.append(" </head>\n")
    for f in files:
        out.append(
            f' <file poster="{xml_text(f.poster)}" date="{int(f.date)}" '
            f'subject="{xml_text(f.subject)}">\n  <groups>\n'
        )
        out.extend(f"   <group>{xml_text(g)}</group>\n" for g in f.groups)
        out.append("  </groups>\n  <segments>\n")
        out.append(_segments_xml(f))
        out.append("  </segments>\n </file>\n")
    out.append("</nzb>\n")
    return "".join(out).encode("utf-8")


_UNSAFE_NAME = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')


def nzb_file_name(release_name: str) -> str:
    """A download file name for a release: no path or header-breaking characters."""
    cleaned = _UNSAFE_NAME.sub("_", release_name).strip(" .") or "release"
    return f"{cleaned[:200]}.nzb"
