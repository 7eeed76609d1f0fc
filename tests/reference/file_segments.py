"""Plain-Python reference of kernels.file_segments."""

from __future__ import annotations


def _int32(value: int) -> int:
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


def file_segments(
    numbers: list[int],
    sizes: list[int],
    span_start: list[int],
    span_length: list[int],
    file_length: list[int],
) -> tuple[list[int], list[int], list[int], list[int]]:
    places = [a + k for a, n in zip(span_start, span_length, strict=True) for k in range(n)]
    where: list[int] = []
    file_bytes = []
    lo = 0
    for n in file_length:
        mine = sorted(places[lo : lo + n], key=lambda w: numbers[w])  # stable
        where.extend(mine)
        file_bytes.append(sum(sizes[w] for w in mine))
        lo += n
    return (
        where,
        [numbers[w] for w in where],
        [_int32(sizes[w]) for w in where],
        file_bytes,
    )
