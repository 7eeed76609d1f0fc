"""Plain-Python reference of kernels.spans."""

from __future__ import annotations


def gather(buf: bytes, start: list[int], end: list[int]) -> tuple[bytes, list[int]]:
    pieces = [buf[s:e] if e > s else b"" for s, e in zip(start, end, strict=True)]
    offsets = [0]
    for p in pieces:
        offsets.append(offsets[-1] + len(p))
    return b"".join(pieces), offsets


def strip_angle_brackets(buf: bytes, start: list[int], end: list[int]) -> list[bytes]:
    return [
        buf[s:e].lstrip(b" <").rstrip(b" >") if e > s else b""
        for s, e in zip(start, end, strict=True)
    ]


def gather_stripped(buf: bytes, start: list[int], end: list[int]) -> tuple[bytes, list[int]]:
    stripped = strip_angle_brackets(buf, start, end)
    offsets = [0]
    for p in stripped:
        offsets.append(offsets[-1] + len(p))
    return b"".join(stripped), offsets


def gather_texts(columns: list[tuple[bytes, list[int], list[int]]]) -> list[list[bytes]]:
    return [
        [buf[s:e] if s >= 0 and e > s else b"" for s, e in zip(start, end, strict=True)]
        for buf, start, end in columns
    ]
