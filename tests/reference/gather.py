"""Plain-Python reference of kernels.gather."""

from __future__ import annotations


def gather_values(datas: list[bytes], offsets: list[list[int]], where: list[int]) -> list[bytes]:
    values = [
        data[column[k] : column[k + 1]]
        for data, column in zip(datas, offsets, strict=True)
        for k in range(len(column) - 1)
    ]
    return [values[w] for w in where]


def is_ascii(values: list[bytes]) -> bool:
    return all(value.isascii() for value in values)
