"""A release_files row group's segment lists, file by file, from the range's segment store.

The output keeps each written file's new segments as spans of places in the store (the
range's batches end to end); a row group's files take their spans in file order. Here
the spans are laid out, each file's segments put in part-number order and their part
numbers, sizes and the file's bytes read, in one pass: as numpy steps it was a place
array, two gathers, a key array, a stable sort of the whole row group, three reorders
and a reduce, ~8 passes over ~35 k segments a row group. A file's segments mostly come
in part order already (posted in order, read in article order), so only a file that
does not is sorted.
"""

from __future__ import annotations

import numpy as np

from kernels._jit import kernel


@kernel
def _file_segments(
    numbers, sizes, span_start, span_length, file_length, where, seg_numbers, seg_sizes, file_bytes
):
    p = 0
    for s in range(span_start.shape[0]):
        a = span_start[s]
        for k in range(span_length[s]):
            where[p] = a + k
            seg_numbers[p] = numbers[a + k]
            p += 1
    lo = 0
    for f in range(file_length.shape[0]):
        hi = lo + file_length[f]
        ordered = True
        for i in range(lo + 1, hi):
            if seg_numbers[i] < seg_numbers[i - 1]:
                ordered = False
                break
        if not ordered:
            # stable, as the parts of a repeated number keep their reading order
            order = np.argsort(seg_numbers[lo:hi], kind="mergesort")
            places = where[lo:hi][order]
            parts = seg_numbers[lo:hi][order]
            where[lo:hi] = places
            seg_numbers[lo:hi] = parts
        total = 0
        for i in range(lo, hi):
            size = sizes[where[i]]
            seg_sizes[i] = size  # int32, as the catalog stores a segment's size
            total += size
        file_bytes[f] = total
        lo = hi


def file_segments(
    numbers: np.ndarray,
    sizes: np.ndarray,
    span_start: np.ndarray,
    span_length: np.ndarray,
    file_length: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(places, part numbers, sizes, bytes per file) of a row group's files.

    numbers and sizes are the store's, a value per place; the spans (start place and
    length) are the files' segments in file order, file f taking the next
    file_length[f] of them. Each file's segments come out by part number (equal numbers
    in span order), sizes as int32, a file's bytes summed in int64.
    """
    numbers = np.ascontiguousarray(numbers, np.int32)
    sizes = np.ascontiguousarray(sizes, np.int64)
    span_start = np.ascontiguousarray(span_start, np.int64)
    span_length = np.ascontiguousarray(span_length, np.int64)
    file_length = np.ascontiguousarray(file_length, np.int64)
    if len(numbers) != len(sizes):
        raise ValueError("one size a part number")
    if len(span_start) != len(span_length):
        raise ValueError("one length a span start")
    if len(span_length) and (
        span_length.min() < 0
        or span_start.min() < 0
        or (span_start + span_length).max() > len(numbers)
    ):
        raise ValueError("a span lies outside the store")
    if len(file_length) and file_length.min() < 0:
        raise ValueError("a file's length is negative")
    total = int(span_length.sum())
    if int(file_length.sum()) != total:
        raise ValueError("the files' lengths do not add up to their spans'")
    where = np.empty(total, np.int64)
    seg_numbers = np.empty(total, np.int32)
    seg_sizes = np.empty(total, np.int32)
    file_bytes = np.empty(len(file_length), np.int64)
    _file_segments(
        numbers, sizes, span_start, span_length, file_length, where, seg_numbers, seg_sizes,
        file_bytes,
    )  # fmt: skip
    return where, seg_numbers, seg_sizes, file_bytes
