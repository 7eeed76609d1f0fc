"""The window's frontier: a robust "now" of a group's posting time, from untrusted Dates.

The frontier is the median of the last RING plausible dates; a date is plausible when
it lies within PLAUSIBLE seconds of the frontier. RING implausible dates in a row that
agree among themselves (the group paused, or its history jumped) move it. Each line gets
an *effective date*: its own when plausible, else the last plausible date before it (the
frontier while there is none), so a skewed clock or a bogus year can neither hold a
release open nor close it early, nor tear a file in two.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernels._jit import kernel

RING = 1024
PLAUSIBLE = 7 * 86400


@dataclass
class FrontierState:
    """The carried state: the two rings and the frontier (0 = not established yet)."""

    frontier: int = 0
    ring: np.ndarray = field(default_factory=lambda: np.zeros(RING, np.int64))
    ring_len: int = 0
    ring_pos: int = 0
    odd: np.ndarray = field(default_factory=lambda: np.zeros(RING, np.int64))
    odd_len: int = 0  # implausible dates in a row so far
    last_good: int = 0  # the last plausible date read


@kernel
def _advance(dates, ok, frontier, ring, ring_len, ring_pos, odd, odd_len, last_good, plausible):
    n = dates.shape[0]
    size = ring.shape[0]
    effective = np.empty(n, np.int64)
    if frontier == 0:
        # not established: the median of the first dated lines (up to a ring's worth)
        first = np.empty(min(n, size), np.int64)
        k = 0
        for i in range(n):
            if ok[i] and k < first.shape[0]:
                first[k] = dates[i]
                k += 1
        if k > 0:
            frontier = np.int64(np.median(first[:k]))
    for i in range(n):
        if not ok[i] or frontier == 0:
            effective[i] = last_good if last_good != 0 else frontier
            continue
        d = dates[i]
        if abs(d - frontier) <= plausible:
            effective[i] = d
            last_good = d
            ring[ring_pos] = d
            ring_pos += 1
            if ring_pos == size:  # not `% size`: a division a line, half this loop's cost
                ring_pos = 0
            if ring_len < size:
                ring_len += 1
            odd_len = 0
        else:
            effective[i] = last_good if last_good != 0 else frontier
            odd[odd_len] = d
            odd_len += 1
            if odd_len == size:
                lo = odd.min()
                hi = odd.max()
                if hi - lo <= plausible:
                    # they agree: the group moved; start again from them
                    ring[:] = odd
                    ring_len = size
                    ring_pos = 0
                    frontier = np.int64(np.median(odd))
                    for j in range(max(0, i - size + 1), i + 1):
                        if ok[j]:
                            effective[j] = dates[j]
                    last_good = d
                odd_len = 0
    if ring_len > 0:
        frontier = np.int64(np.median(ring[:ring_len]))
    return effective, frontier, ring_len, ring_pos, odd_len, last_good


def advance(state: FrontierState, dates: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Read one chunk's dates (article order): effective dates out, the state moved on.

    The frontier used for plausibility is the one from the chunk's start; it is
    recomputed from the ring at the chunk's end (once a chunk, as the median costs).
    """
    dates = np.ascontiguousarray(dates, np.int64)
    ok = np.ascontiguousarray(ok, np.bool_)
    effective, frontier, ring_len, ring_pos, odd_len, last_good = _advance(
        dates,
        ok,
        np.int64(state.frontier),
        state.ring,
        state.ring_len,
        state.ring_pos,
        state.odd,
        state.odd_len,
        np.int64(state.last_good),
        np.int64(PLAUSIBLE),
    )
    state.frontier = int(frontier)
    state.ring_len, state.ring_pos, state.odd_len = int(ring_len), int(ring_pos), int(odd_len)
    state.last_good = int(last_good)
    return effective
