"""Where each row group's metadata lies in a Parquet footer (Thrift compact protocol).

An NZB download reads one row group of one `release_files` partition. Parsing the
partition's whole footer costs ~3.4 ms (158 row groups), and keeping every partition's
parsed footer costs ~1.9 MB each (the server's memory budget cannot hold 100 of them
per worker). The raw footer is ~260 kB; knowing where each row group's `RowGroup`
struct starts and ends in it, a request builds a footer of just its row group (the
bytes before the list, a one-element list header, that struct, the bytes after) and
parses that in a fraction of the time: the column chunks' file offsets are absolute,
so the rows are read from the original file as before.

The compact protocol is walked with an explicit stack (no recursion), checking every
read against the buffer's end: a malformed footer gives an error code, not a crash.
"""

from __future__ import annotations

import numpy as np

from kernels._jit import leaf_kernel as kernel

# Thrift compact types
_BOOL_TRUE, _BOOL_FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY = 1, 2, 3, 4, 5, 6, 7, 8
_LIST, _SET, _MAP, _STRUCT = 9, 10, 11, 12
_ROW_GROUPS = 4  # FileMetaData's field id of `row_groups: list<RowGroup>`
MAX_DEPTH = 64  # Parquet's metadata nests ~6 deep
MALFORMED = -1  # error codes (negative positions)
NO_ROW_GROUPS = -2
TOO_DEEP = -3


@kernel
def _varint(buf, i):
    """(value, position after it); position MALFORMED past the end or over 10 bytes."""
    n = buf.shape[0]
    value = np.int64(0)
    shift = 0
    while i < n and shift < 70:
        b = buf[i]
        i += 1
        value |= np.int64(b & 0x7F) << shift  # int64 in Python mode too (no uint8 shift)
        shift += 7
        if b < 0x80:
            return value, i
    return 0, MALFORMED


@kernel
def _field_header(buf, i, last_id):
    """(type, field id, position after the header) of a struct field; type 0 is the end."""
    if i >= buf.shape[0]:
        return 0, 0, MALFORMED
    h = buf[i]
    i += 1
    if h == 0:
        return 0, 0, i
    kind = h & 15
    if kind == 0:  # only the whole zero byte ends a struct
        return 0, 0, MALFORMED
    delta = h >> 4
    if delta:
        return kind, last_id + delta, i
    z, i = _varint(buf, i)
    return kind, (z >> 1) ^ -(z & 1), i


@kernel
def _skip(buf, i, kind, kinds, counts, elems, values):
    """The position after one value of `kind` starting at i (or an error code). Lists,
    maps and structs are pushed on the stack arrays and walked iteratively."""
    n = buf.shape[0]
    sp = 0
    while True:
        if i < 0 or i > n:
            return MALFORMED
        # consume one value of `kind` (struct field bools carry no payload)
        if kind == _BYTE:
            i += 1
        elif kind == _I16 or kind == _I32 or kind == _I64:  # noqa: SIM109 (numba)
            _, i = _varint(buf, i)
        elif kind == _DOUBLE:
            i += 8
        elif kind == _BINARY:
            length, i = _varint(buf, i)
            if i < 0 or length > n:
                return MALFORMED
            i += length
        elif kind == _LIST or kind == _SET or kind == _MAP or kind == _STRUCT:  # noqa: SIM109
            if sp == MAX_DEPTH:
                return TOO_DEEP
            count = 0
            if kind == _STRUCT:
                kinds[sp] = _STRUCT
            elif kind == _MAP:
                count, i = _varint(buf, i)
                if count and i >= 0:
                    if i >= n:
                        return MALFORMED
                    elems[sp] = buf[i] >> 4
                    values[sp] = buf[i] & 15
                    i += 1
                kinds[sp] = _MAP
                count *= 2
            else:
                if i >= n:
                    return MALFORMED
                h = buf[i]
                i += 1
                count = h >> 4
                elems[sp] = h & 15
                if count == 15:
                    count, i = _varint(buf, i)
                kinds[sp] = _LIST
            if i < 0 or count > n:  # every element takes a byte at least
                return MALFORMED
            counts[sp] = count
            sp += 1
        elif kind != _BOOL_TRUE and kind != _BOOL_FALSE:
            return MALFORMED
        if i < 0 or i > n:
            return MALFORMED
        # the next value to consume, from the innermost open container
        while True:
            if sp == 0:
                return i
            top = sp - 1
            if kinds[top] == _STRUCT:
                kind, _, i = _field_header(buf, i, 0)
                if i < 0:
                    return MALFORMED
                if kind == 0:
                    sp -= 1
                    continue
                break
            if counts[top] == 0:
                sp -= 1
                continue
            key = kinds[top] == _MAP and counts[top] % 2 == 0
            counts[top] -= 1
            kind = elems[top] if kinds[top] == _LIST or key else values[top]
            if kind == _BOOL_TRUE or kind == _BOOL_FALSE:  # noqa: SIM109
                kind = _BYTE  # in containers a bool is a byte
            break


@kernel
def _find_row_groups(buf, kinds, counts, elems, values, out):
    """out = [list header position, row group count, first element position] of the
    FileMetaData's row group list; returns 0 or an error code."""
    i = 0
    last = 0
    while True:
        kind, field, i = _field_header(buf, i, last)
        if i < 0:
            return MALFORMED
        if kind == 0:
            return NO_ROW_GROUPS
        last = field
        if field == _ROW_GROUPS and kind == _LIST:
            if i >= buf.shape[0]:
                return MALFORMED
            head = i
            h = buf[i]
            i += 1
            count = h >> 4
            if count == 15:
                count, i = _varint(buf, i)
                if i < 0:
                    return MALFORMED
            if (h & 15) != _STRUCT and count:
                return MALFORMED
            out[0] = head
            out[1] = count
            out[2] = i
            return 0
        i = _skip(buf, i, kind, kinds, counts, elems, values)
        if i < 0:
            return i


@kernel
def _row_group_spans(buf, start, kinds, counts, elems, values, spans):
    i = start
    for g in range(spans.shape[0]):
        spans[g, 0] = i
        i = _skip(buf, i, _STRUCT, kinds, counts, elems, values)
        if i < 0:
            return i
        spans[g, 1] = i
    return i


def row_group_spans(footer: np.ndarray) -> tuple[int, int, np.ndarray]:
    """(position of the row group list's header, position after the list, and each
    row group's [start, end) as an (n, 2) int64 array) in a Parquet footer (the
    FileMetaData bytes, without the length and magic). ValueError when malformed."""
    buf = np.ascontiguousarray(footer, dtype=np.uint8)
    stack = [np.zeros(MAX_DEPTH, dtype=np.int64) for _ in range(4)]
    found = np.zeros(3, dtype=np.int64)
    code = _find_row_groups(buf, *stack, found)
    if code < 0:
        raise ValueError(f"not a Parquet footer with row groups (code {code})")
    head, count, first = (int(v) for v in found)
    if count > len(buf):
        raise ValueError("malformed Parquet footer: row group count past its end")
    spans = np.zeros((count, 2), dtype=np.int64)
    end = _row_group_spans(buf, first, *stack, spans)
    if end < 0:
        raise ValueError(f"malformed Parquet footer (code {end})")
    return head, int(end), spans
