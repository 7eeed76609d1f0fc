"""Gathering byte spans out of a chunk into one contiguous buffer (Arrow's binary layout)."""

from __future__ import annotations

import numpy as np

from kernels._jit import kernel


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
            data[o] = buf[k]
            o += 1
    return data, offsets


def gather(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The spans buf[start[i]:end[i]] one after another, and their n+1 offsets."""
    if len(start) != len(end):
        raise ValueError("start and end differ in length")
    return _gather(buf, np.asarray(start, np.int64), np.asarray(end, np.int64))


@kernel
def _strip_angle(buf, start, end):
    s = start.copy()
    e = end.copy()
    for i in range(s.shape[0]):
        while s[i] < e[i] and (buf[s[i]] == 32 or buf[s[i]] == 60):  # space, <
            s[i] += 1
        while e[i] > s[i] and (buf[e[i] - 1] == 32 or buf[e[i] - 1] == 62):  # space, >
            e[i] -= 1
    return s, e


def strip_angle_brackets(
    buf: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Message-id spans without their `<` `>` (NZBs and the catalog store them bare)."""
    return _strip_angle(buf, np.asarray(start, np.int64), np.asarray(end, np.int64))
