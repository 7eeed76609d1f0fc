"""Plain-Python reference of kernels.scatter."""

from __future__ import annotations


def scatter_spans(
    src: bytes, start: list[int], end: list[int], dst: bytearray, place: list[int]
) -> None:
    for a, z, o in zip(start, end, place, strict=True):
        dst[o : o + z - a] = src[a:z]
