"""Article bodies for the probe tests: a file's first or last segment as a real yEnc part,
and the shared data's captured replies as the bodies BODY gives."""

from __future__ import annotations

from pathlib import Path

from pipelines.nntp.wire import unstuff
from pipelines.probe.yenc import encode_part

SEGMENT = 750_000  # a segment of today's posting tools


def first_part(data: bytes, name: str) -> bytes:
    """Part 1 of the file: its first SEGMENT bytes (the whole file when it is smaller)."""
    total = max(1, -(-len(data) // SEGMENT))
    return encode_part(data[:SEGMENT], name, file_size=len(data), total=total)


def last_part(data: bytes, name: str, keep: int = SEGMENT) -> bytes:
    """The file's last part: its last `keep` bytes, never its first 32 (a 7z's start
    header), so what it shows comes from the tail alone."""
    begin = max(32, len(data) - keep)
    total = max(2, -(-len(data) // SEGMENT))
    return encode_part(
        data[begin:], name, begin=begin, file_size=len(data), part=total, total=total
    )


def body_of(path: Path) -> bytes:
    """The body of a captured reply (222 BODY, 220 ARTICLE) or a stored article (.ntx)."""
    raw = path.read_bytes()
    if b"\r\n" not in raw:
        raw = raw.replace(b"\n", b"\r\n")  # the yEnc spec's samples have bare LF lines
    headers = True
    if raw[:3].isdigit():
        status, _, raw = raw.partition(b"\r\n")
        if raw.endswith(b"\r\n.\r\n") or raw == b".\r\n":
            raw = raw[:-3]
        raw = unstuff(raw)
        headers = status.startswith(b"220")
    if headers:
        _, sep, body = raw.partition(b"\r\n\r\n")
        return body if sep else raw
    return raw
