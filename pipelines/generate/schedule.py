"""Article numbers: each group numbers the articles it carries in arrival order.

A group's numbers start at a base of a few million (not aligned to any range) and
skip now and then: expired and cancelled articles leave gaps, mostly small, rarely
thousands wide. A crossposted article has a number in each of its groups, and its
Xref names them all, in its Newsgroups order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipelines.generate.segments import Segments

XREF_HOST = "news.usenet-indexer.example"
GAP_RATE = 0.02  # share of articles followed by a few expired ones
HOLE_RATE = 0.0001  # share followed by a long expired stretch


@dataclass(frozen=True)
class GroupArticles:
    """One group's articles in number order: segment indexes and their numbers."""

    name: str
    segments: np.ndarray  # int64 indexes into Segments
    numbers: np.ndarray  # int64, ascending

    def __len__(self) -> int:
        return len(self.segments)


def number_groups(
    segments: Segments, names: list[str], rng: np.random.Generator
) -> tuple[list[GroupArticles], dict[int, str]]:
    """Every group's articles and numbers, and the Xref of each crossposted segment."""
    n_sources = len(segments.sources)
    groups: list[GroupArticles] = []
    for g, name in enumerate(names):
        member = np.fromiter((g in s.groups for s in segments.sources), bool, n_sources)
        idx = np.nonzero(member[segments.source])[0]
        order = idx[np.argsort(segments.times[idx], kind="stable")]
        groups.append(GroupArticles(name, order, _numbers(rng, len(order))))
    return groups, _xrefs(segments, names, groups)


def _numbers(rng: np.random.Generator, n: int) -> np.ndarray:
    base = int(rng.integers(1_000_000, 9_000_000))
    if base % 1000 == 0:
        base += 137
    steps = np.ones(n, dtype=np.int64)
    gaps = rng.random(n) < GAP_RATE
    steps[gaps] += rng.integers(1, 20, size=int(gaps.sum()))
    holes = rng.random(n) < HOLE_RATE
    steps[holes] += rng.integers(200, 5000, size=int(holes.sum()))
    if n:
        steps[0] = 0
    return base + np.cumsum(steps)


def _xrefs(segments: Segments, names: list[str], groups: list[GroupArticles]) -> dict[int, str]:
    """Built column-wise: one number array a group, then one f-string pass per Newsgroups
    order (a handful of distinct orders), instead of a dict of dicts per segment."""
    n_sources = len(segments.sources)
    multi = np.fromiter((len(s.groups) > 1 for s in segments.sources), bool, n_sources)
    # every segment of a multi-group source is crossposted, and carried by each of its groups
    segs = np.nonzero(multi[segments.source])[0]
    numbers = np.zeros((len(groups), len(segs)), dtype=np.int64)  # [group, crossed segment]
    for g, arts in enumerate(groups):
        mask = multi[segments.source[arts.segments]]
        numbers[g, np.searchsorted(segs, arts.segments[mask])] = arts.numbers[mask]
    # each crossposted segment's Newsgroups order, as an index into the distinct orders
    orders: dict[tuple[int, ...], int] = {}
    order_of = np.array(
        [
            orders.setdefault(s.groups, len(orders)) if m else -1
            for s, m in zip(segments.sources, multi, strict=True)
        ],
        dtype=np.int64,
    )
    seg_order = order_of[segments.source[segs]] if len(segs) else segs
    xrefs: dict[int, str] = {}
    for order, o in orders.items():
        at = np.nonzero(seg_order == o)[0]
        these = segs[at]
        if not len(at):
            continue
        # names are group words (no braces), so the template only holds the number slots
        template = f"Xref: {XREF_HOST} " + " ".join(f"{names[g]}:{{}}" for g in order)
        refs = map(template.format, *(numbers[g, at].tolist() for g in order))
        xrefs.update(zip(these.tolist(), refs, strict=True))
    return xrefs
