"""Gathering the values of several binary columns into one.

The release_files writer builds each row group's message-ids from the range's batches,
each batch's ids a binary column of its own: they are gathered straight into the row
group's buffer, without first laying every batch's bytes end to end (a second copy of
the range's largest column at the range's memory peak).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels._jit import kernel
from kernels.bytes import HI, U, load_le64, store_le64


@kernel
def _locate(offsets, offsets_at, first, where, column, start, length):
    """Per place: its column, and its value's start and length in that column's data.
    offsets holds every column's offsets end to end, column c's from offsets_at[c]."""
    last = first.shape[0] - 1
    # a file's segments mostly sit in one batch, one after another: the column of the
    # value before is tried first
    c = 0
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
            lo_place = first[c]
            hi_place = first[c + 1] if c < last else np.int64(1) << 62
        k = offsets_at[c] + (w - lo_place)
        column[i] = c
        start[i] = offsets[k]
        length[i] = offsets[k + 1] - offsets[k]


@kernel
def _by_column(column, n_columns, order, bounds):
    """The places grouped by column, in their order within each (a counting sort)."""
    counts = np.zeros(n_columns + 1, np.int64)
    for i in range(column.shape[0]):
        counts[column[i] + 1] += 1
    for c in range(n_columns):
        counts[c + 1] += counts[c]
        bounds[c + 1] = counts[c + 1]
    for i in range(column.shape[0]):
        c = column[i]
        order[counts[c]] = i
        counts[c] += 1


@kernel
def _copy(src, rows, start, length, places, out):
    """Each row's value from src to its place in out, 8 bytes a step (message-ids run
    ~20-60 bytes), a value's last bytes as the 8 that end it (overlapping bytes copied
    already), a value shorter than 8 byte by byte. Never past a value's end, unlike
    `spans._copy_spans`: the places come in any order here, so a value written after its
    neighbour would overwrite it (`places` lays the values out by their lengths, so each
    fits its place). Returns whether every byte copied was ASCII: the bytes OR-ed
    together on the way (a string column of ASCII needs no UTF-8 check)."""
    seen = np.uint64(0)
    for j in range(rows.shape[0]):
        i = rows[j]
        k = start[i]
        end = k + length[i]
        o = places[i]
        if end - k >= 8:
            while end - k >= 8:
                word = load_le64(src, k)
                seen |= word
                store_le64(out, o, word)
                k += 8
                o += 8
            if k < end:
                word = load_le64(src, end - 8)
                seen |= word
                store_le64(out, o + (end - k) - 8, word)
            continue
        while k < end:
            byte = src[U(k)]
            seen |= np.uint64(byte)
            out[U(o)] = byte
            k += 1
            o += 1
    return (seen & HI) == 0


@dataclass(frozen=True)
class BinaryColumns:
    """Binary columns laid end to end, for gathering: column c holds values
    datas[c][offsets[c][k]:offsets[c][k + 1]], places first[c] onwards."""

    datas: list[np.ndarray]  # uint8 each
    offsets: np.ndarray  # int32 (int64 if any column's are): every column's, end to end
    offsets_at: np.ndarray  # int64 per column: where its offsets start in `offsets`
    first: np.ndarray  # int64 per column, and the total after the last

    def __len__(self) -> int:
        return int(self.first[-1])


def binary_columns(datas: list[np.ndarray], offsets: list[np.ndarray]) -> BinaryColumns:
    """The columns checked once (the kernels read them without bounds checks)."""
    if len(datas) != len(offsets):
        raise ValueError("one offsets array a column")
    for data, column in zip(datas, offsets, strict=True):
        if column.ndim != 1 or len(column) == 0 or column.dtype.kind not in "iu":
            raise ValueError("a column's offsets must be a non-empty 1-d integer array")
        if len(column) > 1 and (
            column[0] < 0 or column[-1] > len(data) or np.any(column[1:] < column[:-1])
        ):
            raise ValueError("a column's offsets do not fit its data")
    lengths = [len(o) for o in offsets]
    offsets_at = np.cumsum([0, *lengths])[:-1].astype(np.int64)
    # Arrow's binary offsets are int32: kept so (the range's end is its memory peak)
    wide = any(o.dtype.itemsize > 4 for o in offsets)
    kind = np.int64 if wide else np.int32
    all_offsets = np.concatenate([np.zeros(0, kind), *offsets]).astype(kind, copy=False)
    first = np.cumsum([0, *(n - 1 for n in lengths)]).astype(np.int64)
    contiguous = [np.ascontiguousarray(d, np.uint8) for d in datas]
    return BinaryColumns(contiguous, all_offsets, offsets_at, first)


def gather_values(columns: BinaryColumns, where: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """(places, data, ascii) of the values at places `where` of the columns, in Arrow's
    layout: value i is data[places[i]:places[i + 1]]; ascii says no byte is above 127."""
    where = np.ascontiguousarray(where, np.int64)
    if len(where) and (where.min() < 0 or where.max() >= len(columns)):
        raise ValueError("a place lies outside the columns")
    n = len(where)
    column = np.empty(n, np.int64)
    start = np.empty(n, np.int64)
    length = np.empty(n, np.int64)
    if n:
        _locate(
            columns.offsets, columns.offsets_at, columns.first[:-1], where, column, start, length
        )
    places = np.zeros(n + 1, np.int64)
    np.cumsum(length, out=places[1:])
    out = np.empty(int(places[-1]), np.uint8)
    ascii = True
    if n:
        # one copy a column, over its places: no list of columns crosses into the kernel
        # (a numba typed list compiled its methods anew in every process, ~1.7 s)
        n_columns = len(columns.datas)
        order = np.empty(n, np.int64)
        bounds = np.zeros(n_columns + 1, np.int64)
        _by_column(column, n_columns, order, bounds)
        for c in np.flatnonzero(np.diff(bounds)).tolist():
            rows = order[bounds[c] : bounds[c + 1]]
            ascii &= bool(_copy(columns.datas[c], rows, start, length, places, out))
    return places, out, ascii
