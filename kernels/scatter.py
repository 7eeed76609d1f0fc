"""Copying byte spans of one buffer to given places of another.

The release_files writer builds each row group's message-ids from the range's batches:
the ids of one batch go to their places in the row group's buffer, batch by batch,
without first laying every batch's bytes end to end (a second copy of the range's
largest column at the range's memory peak).
"""

from __future__ import annotations

import numpy as np

from kernels._jit import kernel

_U = np.uint64  # unsigned indexes: no wraparound checks in the byte loop


@kernel
def _scatter(src, start, end, dst, place):
    for i in range(start.shape[0]):
        o = place[i]
        for k in range(start[i], end[i]):
            dst[_U(o)] = src[_U(k)]
            o += 1


def scatter_spans(
    src: np.ndarray, start: np.ndarray, end: np.ndarray, dst: np.ndarray, place: np.ndarray
) -> None:
    """dst[place[i]:place[i] + end[i] - start[i]] = src[start[i]:end[i]] for every i."""
    start = np.ascontiguousarray(start, np.int64)
    end = np.ascontiguousarray(end, np.int64)
    place = np.ascontiguousarray(place, np.int64)
    if not (len(start) == len(end) == len(place)):
        raise ValueError("start, end and place differ in length")
    if not len(start):
        return
    length = end - start
    # the kernel reads and writes without bounds checks: every span is checked here
    if length.min() < 0 or start.min() < 0 or end.max() > len(src):
        raise ValueError("a source span lies outside the source buffer")
    if place.min() < 0 or (place + length).max() > len(dst):
        raise ValueError("a span's place lies outside the destination buffer")
    _scatter(src, start, end, dst, place)
