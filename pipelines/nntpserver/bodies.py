"""Article bodies for `serve-nntp`: yEnc parts that match their overview line.

Only the overview is stored, so bodies are made up, deterministically: a segment's bytes
follow from its file name and part number, the name and `(k/N)` come from the subject,
the part size from `:bytes`. A client that decodes a body gets the name, the sizes and the
CRC-32 a real yEnc part carries, which is what the article pass checks.
"""

from __future__ import annotations

import hashlib
import random
import re
import zlib
from dataclasses import dataclass

from pipelines.articles.yenc import yenc_article

_QUOTED = re.compile(rb'"([^"]+)"')
_COUNTER = re.compile(rb"\((\d+)/(\d+)\)\s*$")
_BARE_NAME = re.compile(rb"([\w.\-+\[\]]+\.[A-Za-z0-9]{2,4})")
_YENC_OVERHEAD = 1.03  # ~2-3 % escapes and line ends
_HEADER_BYTES = 600  # what the headers of a binary post add to :bytes


@dataclass(frozen=True)
class Segment:
    name: str
    part: int
    total: int
    part_size: int

    @property
    def file_size(self) -> int:
        return self.part_size * self.total

    @property
    def begin(self) -> int:
        return (self.part - 1) * self.part_size + 1


def segment_of(fields: list[bytes]) -> Segment:
    """Name, part and sizes from the overview fields (number, subject, ..., :bytes, ...)."""
    subject = fields[1] if len(fields) > 1 else b""
    quoted = _QUOTED.search(subject)
    bare = _BARE_NAME.search(subject)
    raw = quoted.group(1) if quoted else bare.group(1) if bare else b""
    name = raw.decode("utf-8", "replace") or f"article-{fields[0].decode('ascii', 'replace')}.bin"
    counter = _COUNTER.search(subject)
    part, total = (int(counter.group(1)), int(counter.group(2))) if counter else (1, 1)
    if not 1 <= part <= max(total, 1):
        part, total = 1, 1
    try:
        article_bytes = int(fields[6])
    except (IndexError, ValueError):
        article_bytes = 4096
    size = max(16, int((article_bytes - _HEADER_BYTES) / _YENC_OVERHEAD))
    return Segment(name, part, max(total, 1), size)


def segment_data(seg: Segment) -> bytes:
    seed = hashlib.sha1(f"{seg.name}\0{seg.part}".encode()).digest()
    return random.Random(seed).randbytes(seg.part_size)


def yenc_body(seg: Segment) -> bytes:
    """The body: =ybegin, (=ypart,) the encoded lines, =yend with the part's CRC-32."""
    size = seg.file_size if seg.total > 1 else seg.part_size
    return yenc_article(segment_data(seg), seg.name, seg.part, seg.total, size, seg.begin)


def crc_of(seg: Segment) -> int:
    return zlib.crc32(segment_data(seg))


def article_head(fields: list[bytes], group: str) -> bytes:
    """Headers rebuilt from the overview fields (Subject, From, Date, Message-ID, ...)."""

    def field(i: int) -> bytes:
        return fields[i] if len(fields) > i else b""

    lines = [
        b"Path: serve-nntp!not-for-mail",
        b"From: " + field(2),
        b"Newsgroups: " + group.encode(),
        b"Subject: " + field(1),
        b"Date: " + field(3),
        b"Message-ID: " + field(4),
    ]
    if field(5):
        lines.append(b"References: " + field(5))
    lines.append(b"Lines: " + (field(7) or b"0"))
    xref = field(8)
    if xref:
        lines.append(xref if xref.lower().startswith(b"xref:") else b"Xref: " + xref)
    return b"\r\n".join(lines) + b"\r\n"
