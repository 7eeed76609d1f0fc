"""Plain-Python reference of kernels.frontier.advance."""

from __future__ import annotations

import statistics

from kernels.frontier import PLAUSIBLE, POSTER_SLOTS, POSTER_WEIGHT, RING

_MIX = 0x9E3779B97F4A7C15


def _median(values: list[int]) -> int:
    return int(statistics.median(values))


def _posters_median(entries: list[tuple[int, int]]) -> int:
    """The median of (date, poster) entries, each poster's dates as their median counted
    at most POSTER_WEIGHT times."""
    by_poster: dict[int, list[int]] = {}
    for date, poster in entries:
        by_poster.setdefault(poster, []).append(date)
    votes = []
    for dates in by_poster.values():
        votes += [_median(dates)] * min(len(dates), POSTER_WEIGHT)
    return _median(votes)


def _slot(poster: int) -> int:
    return ((poster * _MIX) % 2**64) >> (64 - POSTER_SLOTS.bit_length() + 1)


def advance(
    state: dict, dates: list[int], ok: list[bool], posters: list[int] | None = None
) -> list[int]:
    """state: {"frontier", "ring" and "odd" ((date, poster), oldest first, <= RING each),
    "last_good", "posters" (slot -> (poster, its last plausible date))}; mutated."""
    posters = posters if posters is not None else [0] * len(dates)
    table: dict[int, tuple[int, int]] = state.setdefault("posters", {})
    frontier = state["frontier"]
    ring: list[tuple[int, int]] = state["ring"]
    odd: list[tuple[int, int]] = state["odd"]
    if frontier == 0:
        rows = zip(dates, ok, posters, strict=True)
        first = [(d, p) for d, good, p in rows if good][:RING]
        if first:
            frontier = _posters_median(first)
    effective = []
    last_good = state.get("last_good", 0)

    def fallback(poster: int) -> int:
        # the poster's last plausible date, when its slot is still its and still plausible
        key, date = table.get(_slot(poster), (0, 0))
        if key == poster and date and abs(date - frontier) <= PLAUSIBLE:
            return date
        return last_good or frontier

    for i, (d, good, poster) in enumerate(zip(dates, ok, posters, strict=True)):
        if not good or frontier == 0:
            effective.append(fallback(poster))
            continue
        if abs(d - frontier) <= PLAUSIBLE:
            effective.append(d)
            last_good = d
            table[_slot(poster)] = (poster, d)
            ring.append((d, poster))
            del ring[:-RING]
            odd.clear()
        else:
            effective.append(fallback(poster))
            odd.append((d, poster))
            if len(odd) == RING:
                odd_dates = [x for x, _ in odd]
                if max(odd_dates) - min(odd_dates) <= PLAUSIBLE:
                    ring[:] = odd
                    frontier = _median(odd_dates)
                    for j in range(max(0, i - RING + 1), i + 1):
                        if ok[j]:
                            effective[j] = dates[j]
                    last_good = d
                odd.clear()
    if ring:
        frontier = _posters_median(ring)
    state["frontier"] = frontier
    state["last_good"] = last_good
    return effective
