"""The window's frontier: a robust "now" of a group's posting time, from untrusted Dates.

The frontier is the median of the last RING plausible dates, each poster's taken as their
median and counted at most POSTER_WEIGHT times (a burst of one poster, whose clock may be
hours off, cannot make the median); a date is plausible when it lies within PLAUSIBLE
seconds of the frontier. RING implausible dates in a row that agree among themselves (the
group paused, or its history jumped) move it. Each line gets an *effective date*: its own
when plausible, else its poster's last plausible date (when that is still plausible), else
the last plausible date before it (the frontier while there is none), so a skewed clock or
a bogus year can neither hold a release open nor close it early, nor tear a file in two.

Why poster by poster: an upload's articles come from one poster seconds apart, while a
noise burst of 676 articles under one From whose clock ran 14 hours ahead made the plain
median of the last 1,024 dates, closed an upload of a poster whose clock was 12 hours
behind while its last file was still coming, and split the upload (generated, seed 29);
and the line before a bogus date is often another poster's: taking its date moved a part
of an upload 7 hours on and split that upload too (seed 22). The posters' last dates are a
direct-mapped table of POSTER_SLOTS slots, carried like the rings: a poster whose slot
another took falls back to the line before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernels._jit import kernel

RING = 1024
PLAUSIBLE = 7 * 86400
POSTER_SLOTS = 4096  # ~a chunk's distinct posters; a slot taken over costs only a fallback
POSTER_WEIGHT = 64  # the most lines of one poster the frontier's median counts
_SLOT_MIX = np.uint64(0x9E3779B97F4A7C15)
# a slot is the top bits of the multiplied hash: as many as POSTER_SLOTS (a power of two) takes
_SLOT_SHIFT = np.uint64(64 - (POSTER_SLOTS.bit_length() - 1))


@dataclass
class FrontierState:
    """The carried state: the two rings and the frontier (0 = not established yet)."""

    frontier: int = 0
    ring: np.ndarray = field(default_factory=lambda: np.zeros(RING, np.int64))
    ring_len: int = 0
    ring_pos: int = 0
    ring_posters: np.ndarray = field(default_factory=lambda: np.zeros(RING, np.uint64))
    odd: np.ndarray = field(default_factory=lambda: np.zeros(RING, np.int64))
    odd_posters: np.ndarray = field(default_factory=lambda: np.zeros(RING, np.uint64))
    odd_len: int = 0  # implausible dates in a row so far
    last_good: int = 0  # the last plausible date read
    # per slot: a poster's From hash and its last plausible date (0: none yet)
    poster_keys: np.ndarray = field(default_factory=lambda: np.zeros(POSTER_SLOTS, np.uint64))
    poster_dates: np.ndarray = field(default_factory=lambda: np.zeros(POSTER_SLOTS, np.int64))


@kernel
def _poster_slot(poster):
    return np.int64((poster * _SLOT_MIX) >> _SLOT_SHIFT)


@kernel
def _fallback(poster, keys, dates, last_good, frontier, plausible):
    """The effective date of a line whose own is bad: its poster's last plausible date if
    still plausible, else the last plausible date read, else the frontier."""
    slot = _poster_slot(poster)
    if keys[slot] == poster and dates[slot] != 0 and abs(dates[slot] - frontier) <= plausible:
        return dates[slot]
    return last_good if last_good != 0 else frontier


@kernel
def _posters_median(dates, posters, n):
    """The median of dates[:n] with each poster's dates as its median, at most
    POSTER_WEIGHT times: a burst of one poster (noise posts 30-1,500 articles under one
    From) weighs no more than POSTER_WEIGHT lines, whatever its clock says."""
    order = np.argsort(posters[:n], kind="mergesort")
    votes = np.empty(n, np.int64)
    m = 0
    a = 0
    while a < n:
        p = posters[order[a]]
        b = a
        while b < n and posters[order[b]] == p:
            b += 1
        own = np.empty(b - a, np.int64)
        for k in range(a, b):
            own[k - a] = dates[order[k]]
        median = np.int64(np.median(own))
        for _ in range(min(b - a, POSTER_WEIGHT)):
            votes[m] = median
            m += 1
        a = b
    return np.int64(np.median(votes[:m]))


@kernel
def _advance(
    dates, ok, poster, frontier, ring, ring_len, ring_pos, ring_posters, odd, odd_posters,
    odd_len, last_good, plausible, poster_keys, poster_dates,
):  # fmt: skip
    n = dates.shape[0]
    size = ring.shape[0]
    effective = np.empty(n, np.int64)
    if frontier == 0:
        # not established: from the first dated lines (up to a ring's worth)
        first = np.empty(min(n, size), np.int64)
        first_posters = np.empty(min(n, size), np.uint64)
        k = 0
        for i in range(n):
            if ok[i] and k < first.shape[0]:
                first[k] = dates[i]
                first_posters[k] = poster[i]
                k += 1
        if k > 0:
            frontier = _posters_median(first, first_posters, k)
    for i in range(n):
        if not ok[i] or frontier == 0:
            effective[i] = _fallback(
                poster[i], poster_keys, poster_dates, last_good, frontier, plausible
            )
            continue
        d = dates[i]
        if abs(d - frontier) <= plausible:
            effective[i] = d
            last_good = d
            slot = _poster_slot(poster[i])
            poster_keys[slot] = poster[i]
            poster_dates[slot] = d
            ring[ring_pos] = d
            ring_posters[ring_pos] = poster[i]
            ring_pos += 1
            if ring_pos == size:  # not `% size`: a division a line, half this loop's cost
                ring_pos = 0
            if ring_len < size:
                ring_len += 1
            odd_len = 0
        else:
            effective[i] = _fallback(
                poster[i], poster_keys, poster_dates, last_good, frontier, plausible
            )
            odd[odd_len] = d
            odd_posters[odd_len] = poster[i]
            odd_len += 1
            if odd_len == size:
                lo = odd.min()
                hi = odd.max()
                if hi - lo <= plausible:
                    # they agree: the group moved; start again from them
                    ring[:] = odd
                    ring_posters[:] = odd_posters
                    ring_len = size
                    ring_pos = 0
                    frontier = np.int64(np.median(odd))
                    for j in range(max(0, i - size + 1), i + 1):
                        if ok[j]:
                            effective[j] = dates[j]
                    last_good = d
                odd_len = 0
    if ring_len > 0:
        frontier = _posters_median(ring, ring_posters, ring_len)
    return effective, frontier, ring_len, ring_pos, odd_len, last_good


def advance(
    state: FrontierState, dates: np.ndarray, ok: np.ndarray, poster: np.ndarray | None = None
) -> np.ndarray:
    """Read one chunk's dates (article order) and its lines' posters (From hashes; none:
    one poster for all): effective dates out, the state moved on.

    The frontier used for plausibility is the one from the chunk's start; it is
    recomputed from the ring at the chunk's end (once a chunk, as the median costs).
    """
    dates = np.ascontiguousarray(dates, np.int64)
    ok = np.ascontiguousarray(ok, np.bool_)
    if poster is None:
        poster = np.zeros(len(dates), np.uint64)
    poster = np.ascontiguousarray(poster, np.uint64)
    if not len(dates) == len(ok) == len(poster):
        raise ValueError(f"{len(dates)} dates, {len(ok)} flags and {len(poster)} posters")
    effective, frontier, ring_len, ring_pos, odd_len, last_good = _advance(
        dates,
        ok,
        poster,
        np.int64(state.frontier),
        state.ring,
        state.ring_len,
        state.ring_pos,
        state.ring_posters,
        state.odd,
        state.odd_posters,
        state.odd_len,
        np.int64(state.last_good),
        np.int64(PLAUSIBLE),
        state.poster_keys,
        state.poster_dates,
    )
    state.frontier = int(frontier)
    state.ring_len, state.ring_pos, state.odd_len = int(ring_len), int(ring_pos), int(odd_len)
    state.last_good = int(last_good)
    return effective
