"""Gathering the values of several binary columns into one.

The release_files writer builds each row group's message-ids from the range's batches,
each batch's ids a binary column of its own: they are gathered straight into the row
group's buffer, without first laying every batch's bytes end to end (a second copy of
the range's largest column at the range's memory peak).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import types
from numba.typed import List

from kernels._jit import kernel
from kernels.hashing import load_le64, store_le64

_U = np.uint64  # unsigned indexes: no wraparound checks in the byte loop
_BYTES = types.Array(types.uint8, 1, "C", readonly=True)  # Arrow buffers: read-only
_OFFSETS = types.Array(types.int32, 1, "C", readonly=True)


@kernel
def _locate(offsets, first, where, batch, start, length):
    last = first.shape[0] - 1
    # a file's segments mostly sit in one batch, one after another: the column of the
    # value before is tried first (a typed list's item costs more than a few compares)
    c = 0
    column = offsets[0]
    lo_place = first[0]
    hi_place = first[1] if last > 0 else np.int64(1) << 62
    for i in range(where.shape[0]):
        w = where[i]
        if w < lo_place or w >= hi_place:
            # the last column whose first place is at or before w: a few dozen a range
            lo = 0
            hi = last
            while lo < hi:
                mid = (lo + hi + 1) >> 1
                if first[mid] <= w:
                    lo = mid
                else:
                    hi = mid - 1
            c = lo
            column = offsets[c]
            lo_place = first[c]
            hi_place = first[c + 1] if c < last else np.int64(1) << 62
        k = w - lo_place
        batch[i] = c
        start[i] = column[k]
        length[i] = column[k + 1] - column[k]


@kernel
def _gather(datas, batch, start, length, places, out):
    size = out.shape[0]
    c = -1
    src = datas[0]
    for i in range(batch.shape[0]):
        if batch[i] != c:
            c = batch[i]
            src = datas[c]
        k = start[i]
        end = k + length[i]
        o = places[i]
        # 8 bytes a step while both sides have them (ids run ~20-60 bytes), then bytes
        while end - k >= 8 and o + 8 <= size:
            store_le64(out, o, load_le64(src, k))
            k += 8
            o += 8
        while k < end:
            out[_U(o)] = src[_U(k)]
            k += 1
            o += 1


@dataclass(frozen=True)
class BinaryColumns:
    """Binary columns laid end to end, for gathering: column c holds values
    datas[c][offsets[c][k]:offsets[c][k + 1]], places first[c] onwards."""

    datas: Any  # numba typed List of uint8 arrays
    offsets: Any  # numba typed List of int32 arrays (Arrow's binary offsets)
    first: np.ndarray  # int64 per column, and the total after the last

    def __len__(self) -> int:
        return int(self.first[-1])


def binary_columns(datas: list[np.ndarray], offsets: list[np.ndarray]) -> BinaryColumns:
    """The columns checked once (the kernels read them without bounds checks)."""
    if len(datas) != len(offsets):
        raise ValueError("one offsets array a column")
    typed_datas, typed_offsets = List.empty_list(_BYTES), List.empty_list(_OFFSETS)
    for data, column in zip(datas, offsets, strict=True):
        if column.dtype != np.int32 or column.ndim != 1 or len(column) == 0:
            raise ValueError("a column's offsets must be a non-empty 1-d int32 array")
        column = np.ascontiguousarray(column)
        if len(column) > 1 and (
            column[0] < 0 or column[-1] > len(data) or np.any(column[1:] < column[:-1])
        ):
            raise ValueError("a column's offsets do not fit its data")
        typed_datas.append(np.ascontiguousarray(data, np.uint8))
        typed_offsets.append(column)
    first = np.cumsum([0, *(len(o) - 1 for o in offsets)]).astype(np.int64)
    return BinaryColumns(typed_datas, typed_offsets, first)


def gather_values(columns: BinaryColumns, where: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(places, data) of the values at places `where` of the columns, in Arrow's layout:
    value i is data[places[i]:places[i + 1]]."""
    where = np.ascontiguousarray(where, np.int64)
    if len(where) and (where.min() < 0 or where.max() >= len(columns)):
        raise ValueError("a place lies outside the columns")
    n = len(where)
    batch = np.empty(n, np.int64)
    start = np.empty(n, np.int64)
    length = np.empty(n, np.int64)
    if n:
        _locate(columns.offsets, columns.first[:-1], where, batch, start, length)
    places = np.zeros(n + 1, np.int64)
    np.cumsum(length, out=places[1:])
    out = np.empty(int(places[-1]), np.uint8)
    if n:
        _gather(columns.datas, batch, start, length, places, out)
    return places, out
