"""Plain-Python reference of kernels.frontier.advance."""

from __future__ import annotations

import statistics

from kernels.frontier import PLAUSIBLE, POSTER_SLOTS, RING

_MIX = 0x9E3779B97F4A7C15


def _median(values: list[int]) -> int:
    return int(statistics.median(values))


def _slot(poster: int) -> int:
    return ((poster * _MIX) % 2**64) >> (64 - POSTER_SLOTS.bit_length() + 1)


def advance(
    state: dict, dates: list[int], ok: list[bool], posters: list[int] | None = None
) -> list[int]:
    """state: {"frontier", "ring" (oldest first, <= RING), "odd", "last_good",
    "posters" (slot -> (poster, its last plausible date))}; mutated."""
    posters = posters if posters is not None else [0] * len(dates)
    table: dict[int, tuple[int, int]] = state.setdefault("posters", {})
    frontier = state["frontier"]
    ring: list[int] = state["ring"]
    odd: list[int] = state["odd"]
    if frontier == 0:
        first = [d for d, good in zip(dates, ok, strict=True) if good][:RING]
        if first:
            frontier = _median(first)
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
            ring.append(d)
            del ring[:-RING]
            odd.clear()
        else:
            effective.append(fallback(poster))
            odd.append(d)
            if len(odd) == RING:
                if max(odd) - min(odd) <= PLAUSIBLE:
                    ring[:] = odd
                    frontier = _median(odd)
                    for j in range(max(0, i - RING + 1), i + 1):
                        if ok[j]:
                            effective[j] = dates[j]
                    last_good = d
                odd.clear()
    if ring:
        frontier = _median(ring)
    state["frontier"] = frontier
    state["last_good"] = last_good
    return effective
