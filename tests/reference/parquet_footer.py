"""Plain-Python reference of kernels.parquet_footer: a recursive Thrift compact walk."""

from __future__ import annotations


class Malformed(ValueError):
    pass


def _byte(buf: bytes, i: int) -> int:
    if i >= len(buf):
        raise Malformed("past the end")
    return buf[i]


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while shift < 70:
        b = _byte(buf, i)
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i
    raise Malformed("varint too long")


MAX_DEPTH = 64  # containers open at once


def _skip(buf: bytes, i: int, kind: int, depth: int = 0) -> int:
    if kind in (9, 10, 11, 12) and depth >= MAX_DEPTH:
        raise Malformed("too deep")
    if kind in (1, 2):
        return i
    if kind == 3:
        return i + 1
    if kind in (4, 5, 6):
        return _varint(buf, i)[1]
    if kind == 7:
        return i + 8
    if kind == 8:
        length, i = _varint(buf, i)
        if i + length > len(buf):
            raise Malformed("binary past the end")
        return i + length
    if kind in (9, 10):
        h = _byte(buf, i)
        i += 1
        count, elem = h >> 4, h & 15
        if count == 15:
            count, i = _varint(buf, i)
        for _ in range(count):
            i = i + 1 if elem in (1, 2) else _skip(buf, i, elem, depth + 1)
            if i > len(buf):
                raise Malformed("list past the end")
        return i
    if kind == 11:
        count, i = _varint(buf, i)
        if count == 0:
            return i
        h = _byte(buf, i)
        i += 1
        for _ in range(count):
            for t in (h >> 4, h & 15):
                i = i + 1 if t in (1, 2) else _skip(buf, i, t, depth + 1)
                if i > len(buf):
                    raise Malformed("map past the end")
        return i
    if kind == 12:
        while True:
            h = _byte(buf, i)
            i += 1
            if h == 0:
                return i
            if h >> 4 == 0:
                _, i = _varint(buf, i)
            i = _skip(buf, i, h & 15, depth + 1)
            if i > len(buf):
                raise Malformed("struct past the end")
    raise Malformed(f"unknown type {kind}")


def row_group_spans(footer: bytes) -> tuple[int, int, list[tuple[int, int]]]:
    i = field = 0
    while True:
        h = _byte(footer, i)
        i += 1
        if h == 0:
            raise Malformed("no row groups")
        if h >> 4:
            field += h >> 4
        else:
            z, i = _varint(footer, i)
            field = (z >> 1) ^ -(z & 1)
        if field == 4 and h & 15 == 9:
            head = i
            h = _byte(footer, i)
            i += 1
            count = h >> 4
            if count == 15:
                count, i = _varint(footer, i)
            if h & 15 != 12 and count:
                raise Malformed("row groups are not structs")
            spans = []
            for _ in range(count):
                start = i
                i = _skip(footer, i, 12)
                spans.append((start, i))
            return head, i, spans
        i = _skip(footer, i, h & 15)
        if i > len(footer):
            raise Malformed("past the end")
