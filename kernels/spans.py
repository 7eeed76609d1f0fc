"""Gathering byte spans out of a chunk into one contiguous buffer (Arrow's binary layout)."""

from __future__ import annotations

import numpy as np

from kernels._jit import kernel

# Unsigned indexes spare numba its negative-index (wraparound) code in the byte loops;
# no index here is negative.
_U = np.uint64


@kernel
def _gather(buf, start, end):
    n = start.shape[0]
    offsets = np.empty(n + 1, np.int64)
    offsets[0] = 0
    for i in range(n):
        offsets[i + 1] = offsets[i] + max(end[i] - start[i], 0)
    data = np.empty(offsets[n], np.uint8)
    for i in range(n):
        o = offsets[i]
        for k in range(start[i], end[i]):
            data[_U(o)] = buf[_U(k)]
            o += 1
    return data, offsets


def gather(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The spans buf[start[i]:end[i]] one after another, and their n+1 offsets."""
    if len(start) != len(end):
        raise ValueError("start and end differ in length")
    start, end = np.asarray(start, np.int64), np.asarray(end, np.int64)
    _check_bounds(buf, start, end)
    return _gather(buf, start, end)


@kernel
def _strip_angle(buf, start, end):
    s = start.copy()
    e = end.copy()
    for i in range(s.shape[0]):
        a = s[i]
        z = e[i]
        while a < z and (buf[_U(a)] == 32 or buf[_U(a)] == 60):  # space, <
            a += 1
        while z > a and (buf[_U(z - 1)] == 32 or buf[_U(z - 1)] == 62):  # space, >
            z -= 1
        s[i] = a
        e[i] = z
    return s, e


def strip_angle_brackets(
    buf: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Message-id spans without their `<` `>` (NZBs and the catalog store them bare)."""
    start, end = np.asarray(start, np.int64), np.asarray(end, np.int64)
    _check_bounds(buf, start, end)
    return _strip_angle(buf, start, end)


def _check_bounds(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> None:
    # the kernels read without bounds checks: a span outside the buffer is refused here
    if len(start) and (start.min() < 0 or max(start.max(), end.max()) > len(buf)):
        raise ValueError("a span lies outside the buffer")
