"""An NZB's bytes read into its files, segments, groups and meta, or the reason they
cannot be.

Read with the standard library's expat (2.4+ refuses entity expansion bombs; no external
DTD is fetched). Namespaced (`newzbin.com/DTD/2003/nzb`) and bare NZBs read alike. What
is wrong inside a file that is otherwise an NZB (a segment with no number, a file with
no segments) is dropped and counted, not fatal: only input that is no NZB at all raises
`MalformedNzb`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass, field

# a gzipped NZB inflates to at most this (a 100 k-segment NZB is ~15 MB)
MAX_NZB_BYTES = 256 << 20
GZIP_MAGIC = b"\x1f\x8b"


class MalformedNzb(ValueError):
    """The bytes are no NZB: `reason` is one word for the import log."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass(slots=True)
class NzbSegment:
    number: int
    nbytes: int
    message_id: str  # without angle brackets


@dataclass
class NzbFile:
    poster: str
    date: int  # epoch seconds, 0 when absent or unreadable
    subject: str
    groups: list[str]
    segments: list[NzbSegment]


@dataclass
class NzbDocument:
    meta: dict[str, str]  # type -> the first value of that type (lower-case types)
    files: list[NzbFile]
    bad_segments: int = 0  # segments without a number or message-id, dropped
    passwords: list[str] = field(default_factory=list)


def inflate(data: bytes) -> bytes:
    """The NZB's bytes, gunzipped when gzipped (up to MAX_NZB_BYTES)."""
    if not data.startswith(GZIP_MAGIC):
        return data
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(data, MAX_NZB_BYTES)
    except zlib.error as e:
        raise MalformedNzb("bad_gzip", str(e)) from e
    if d.unconsumed_tail:
        raise MalformedNzb("too_large", f"inflates past {MAX_NZB_BYTES} bytes")
    if not d.eof:
        raise MalformedNzb("bad_gzip", "truncated gzip stream")
    return out


def read_nzb(data: bytes) -> NzbDocument:
    """The document in these bytes (an NZB, or a gzipped one)."""
    data = inflate(data)
    if len(data) > MAX_NZB_BYTES:
        raise MalformedNzb("too_large", f"{len(data)} bytes")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        raise MalformedNzb("not_xml" if _no_markup(data) else "broken_xml", str(e)) from e
    if _local(root.tag) != "nzb":
        raise MalformedNzb("not_nzb", f"root element <{_local(root.tag)}>")
    doc = NzbDocument(meta={}, files=[])
    for child in root:
        tag = _local(child.tag)
        if tag == "head":
            _read_head(child, doc)
        elif tag == "file":
            f = _read_file(child, doc)
            if f is not None:
                doc.files.append(f)
    return doc


def _read_head(head: ET.Element, doc: NzbDocument) -> None:
    for meta in head:
        if _local(meta.tag) != "meta":
            continue
        kind = (meta.get("type") or "").strip().lower()
        value = (meta.text or "").strip()
        if not kind or not value:
            continue
        if kind == "password":
            doc.passwords.append(value)
        doc.meta.setdefault(kind, value)


def _read_file(node: ET.Element, doc: NzbDocument) -> NzbFile | None:
    groups: list[str] = []
    segments: list[NzbSegment] = []
    for part in node:
        tag = _local(part.tag)
        if tag == "groups":
            groups += [g.text.strip() for g in part if g.text and g.text.strip()]
        elif tag == "segments":
            for s in part:
                seg = _segment(s)
                if seg is None:
                    doc.bad_segments += 1
                else:
                    segments.append(seg)
    if not segments:
        return None
    return NzbFile(
        poster=node.get("poster") or "",
        date=_int(node.get("date")) or 0,
        subject=node.get("subject") or "",
        groups=groups,
        segments=segments,
    )


def _segment(s: ET.Element) -> NzbSegment | None:
    # the hot path of a big NZB (a call a segment): plain lookups, one int() each
    text = s.text
    if not text:
        return None
    message_id = text.strip()
    if message_id[:1] == "<":
        message_id = message_id.strip("<>").strip()
    attrib = s.attrib
    try:
        number = int(attrib["number"])
    except (KeyError, ValueError):
        return None
    if number < 1 or not message_id or " " in message_id:
        return None
    try:
        nbytes = int(attrib.get("bytes") or 0)
    except ValueError:
        nbytes = 0
    return NzbSegment(number, max(nbytes, 0), message_id)


def _int(text: str | None) -> int | None:
    try:
        return int((text or "").strip())
    except ValueError:
        return None


def _local(tag: object) -> str:
    """A tag without its namespace (`{ns}file` -> `file`); comments have no str tag."""
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _no_markup(data: bytes) -> bool:
    """Bytes that do not even start like XML (after a BOM and white space)."""
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    return not head.startswith(b"<")
