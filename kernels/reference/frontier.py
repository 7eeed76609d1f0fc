"""Plain-Python reference of kernels.frontier.advance."""

from __future__ import annotations

import statistics

from kernels.frontier import PLAUSIBLE, RING


def _median(values: list[int]) -> int:
    return int(statistics.median(values))


def advance(state: dict, dates: list[int], ok: list[bool]) -> list[int]:
    """state: {"frontier", "ring" (oldest first, <= RING), "odd", "last_good"}; mutated."""
    frontier = state["frontier"]
    ring: list[int] = state["ring"]
    odd: list[int] = state["odd"]
    if frontier == 0:
        first = [d for d, good in zip(dates, ok, strict=True) if good][:RING]
        if first:
            frontier = _median(first)
    effective = []
    last_good = state.get("last_good", 0)
    for i, (d, good) in enumerate(zip(dates, ok, strict=True)):
        if not good or frontier == 0:
            effective.append(last_good or frontier)
            continue
        if abs(d - frontier) <= PLAUSIBLE:
            effective.append(d)
            last_good = d
            ring.append(d)
            del ring[:-RING]
            odd.clear()
        else:
            effective.append(last_good or frontier)
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
