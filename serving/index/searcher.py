"""Queries over a snapshot of segments: all words must match, filters combined, newest first.

Per segment the rarest required term drives: its ordinals are the candidates, and
every other term only tests them, against a bitset (common words: one gather) or a
sorted posting list (binary search). Cost follows the rarest term, not the catalog
size. Ordinals are newest first, so a segment's first `offset + limit` matches are
all a page can need; pages merge across segments by posting date.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from serving import text
from serving.index.build import key_array
from serving.index.segment import Segment


@dataclass(frozen=True)
class SearchQuery:
    words: tuple[str, ...] = ()  # all must match (name or album member words)
    terms: tuple[str, ...] = ()  # other required terms: season/episode, poster
    categories: tuple[int, ...] = ()  # any of them (a parent id covers its children)
    groups: tuple[str, ...] = ()  # any of them
    min_posted: int | None = None
    min_bytes: int | None = None
    max_bytes: int | None = None
    offset: int = 0
    limit: int = 100


@dataclass
class LiveSegment:
    segment: Segment
    dead: np.ndarray  # bool per ordinal: a newer version lives in another segment
    dead_count: int = 0


@dataclass
class SearchResult:
    total: int
    rows: list[dict[str, Any]] = field(default_factory=list)


def _contains(sorted_values: np.ndarray, cand: np.ndarray) -> np.ndarray:
    if len(sorted_values) == 0:
        return np.zeros(len(cand), dtype=bool)
    pos = np.searchsorted(sorted_values, cand)
    pos[pos == len(sorted_values)] = 0
    return np.asarray(sorted_values[pos] == cand)


def _bits(bitset: np.ndarray, cand: np.ndarray) -> np.ndarray:
    return ((bitset[cand >> 3] >> (cand & 7).astype(np.uint8)) & 1).astype(bool)


def _test(seg: Segment, term_id: int, cand: np.ndarray) -> np.ndarray:
    bitset = seg.bitset_of(term_id)
    return _bits(bitset, cand) if bitset is not None else _contains(seg.postings_of(term_id), cand)


def _any_of(seg: Segment, q: SearchQuery) -> list[list[int]] | None:
    """Each OR-set's term ids; None when a set has none in this segment (no match)."""
    sets = []
    for terms in (
        [text.category_term(c) for c in q.categories],
        [text.group_term(g) for g in q.groups],
    ):
        if not terms:
            continue
        ids = [i for i in (seg.term_id(t) for t in terms) if i is not None]
        if not ids:
            return None
        sets.append(ids)
    return sets


def match(live: LiveSegment, q: SearchQuery) -> np.ndarray:
    """The ordinals of one segment that match q, ascending (newest first)."""
    seg = live.segment
    if seg.n == 0:
        return np.zeros(0, dtype=np.int64)
    required = [seg.term_id(t) for t in (*q.words, *q.terms)]
    if any(t is None for t in required):
        return np.zeros(0, dtype=np.int64)
    req = sorted((t for t in required if t is not None), key=seg.frequency)
    any_of = _any_of(seg, q)
    if any_of is None:
        return np.zeros(0, dtype=np.int64)
    horizon = seg.n if q.min_posted is None else seg.count_newer(q.min_posted)
    if req:
        cand = np.asarray(seg.postings_of(req[0]), dtype=np.int64)
        if horizon < seg.n:
            cand = cand[: int(np.searchsorted(cand, horizon))]
        for t in req[1:]:
            cand = cand[_test(seg, t, cand)]
    elif any_of:
        # No word to drive: the first OR-set's union, as a mask over the horizon.
        mask = np.zeros(horizon, dtype=bool)
        for t in any_of[0]:
            posting = np.asarray(seg.postings_of(t))
            mask[posting[posting < horizon]] = True
        cand = np.nonzero(mask)[0]
        any_of = any_of[1:]
    else:
        cand = np.arange(horizon, dtype=np.int64)
    for ids in any_of:
        keep = np.zeros(len(cand), dtype=bool)
        for t in ids:
            keep |= _test(seg, t, cand)
        cand = cand[keep]
    if live.dead_count:
        cand = cand[~live.dead[cand]]
    if q.min_bytes is not None:
        cand = cand[seg.bytes[cand] >= q.min_bytes]
    if q.max_bytes is not None:
        cand = cand[seg.bytes[cand] <= q.max_bytes]
    return cand


class Snapshot:
    """An immutable view of the index: the segments and their dead masks at one moment.

    Requests take the current snapshot and use it to the end; a refresh builds a new one
    and swaps the reference, so no request waits for a refresh or sees half of one.
    """

    def __init__(self, segments: list[LiveSegment], generation: int = 0) -> None:
        self.segments = segments
        self.generation = generation
        self._stats: dict[str, Any] | None = None

    def search(self, q: SearchQuery) -> SearchResult:
        want = q.offset + q.limit
        total = 0
        heads: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for i, live in enumerate(self.segments):
            found = match(live, q)
            total += len(found)
            head = found[:want]
            if len(head):
                posted = np.asarray(live.segment.posted[head])
                heads.append((posted, np.full(len(head), i), head))
        if not heads or q.offset >= total:
            return SearchResult(total)
        posted = np.concatenate([h[0] for h in heads])
        seg_of = np.concatenate([h[1] for h in heads])
        ords = np.concatenate([h[2] for h in heads])
        if len(heads) == 1:
            order = np.arange(len(ords))[q.offset : want]
        else:
            # Newest first, then by key: the order one segment would have given.
            keys = np.concatenate([self._keys(int(h[1][0]), h[2]) for h in heads])
            order = np.lexsort((keys, -posted))[q.offset : want]
        return SearchResult(total, self.rows(seg_of[order], ords[order]))

    def _keys(self, segment: int, ords: np.ndarray) -> np.ndarray:
        col = self.segments[segment].segment.rows.column("release_key").take(ords)
        return key_array(col)

    def rows(self, seg_of: np.ndarray, ords: np.ndarray) -> list[dict[str, Any]]:
        out: list[dict[str, Any] | None] = [None] * len(ords)
        for i in sorted(set(seg_of.tolist())):
            where = np.nonzero(seg_of == i)[0]
            table = self.segments[i].segment.rows.take(ords[where])
            for pos, row in zip(where.tolist(), table.to_pylist(), strict=True):
                out[pos] = row
        return [r for r in out if r is not None]

    def find(self, key: bytes) -> dict[str, Any] | None:
        """The newest version of one release, None when the index has no such key."""
        for live in self.segments:
            ord_ = live.segment.find(key)
            if ord_ is not None and not live.dead[ord_]:
                return live.segment.rows.take([ord_]).to_pylist()[0]
        return None

    def stats(self) -> dict[str, Any]:
        """Counts for the status and browse pages: releases, bytes, per category and group."""
        if self._stats is not None:
            return self._stats
        categories: dict[int, int] = {}
        groups: dict[str, int] = {}
        releases = 0
        total_bytes = 0
        newest = 0
        for live in self.segments:
            seg = live.segment
            if seg.n == 0:
                continue
            alive = ~live.dead
            releases += int(alive.sum())
            total_bytes += int(np.asarray(seg.bytes)[alive].sum())
            newest = max(newest, int(seg.posted[0]))
            cat_counts = np.bincount(np.asarray(seg.category)[alive])
            for c in np.nonzero(cat_counts)[0].tolist():
                categories[c] = categories.get(c, 0) + int(cat_counts[c])
            counts = np.bincount(np.asarray(seg.group)[alive], minlength=len(seg.groups))
            for g, k in zip(seg.groups, counts.tolist(), strict=True):
                groups[g] = groups.get(g, 0) + k
        self._stats = {
            "releases": releases,
            "bytes": total_bytes,
            "newest": newest,
            "categories": dict(sorted(categories.items())),
            "groups": dict(sorted(groups.items())),
            "segments": len(self.segments),
        }
        return self._stats


def resolve_versions(older: list[LiveSegment], new: LiveSegment) -> None:
    """Mark dead whichever of each key's versions is not the newest, across segments."""
    seg = new.segment
    if seg.n == 0:
        return
    for old in older:
        o = old.segment
        if o.n == 0:
            continue
        pos = np.searchsorted(o.keys, seg.keys)
        pos[pos == o.n] = 0
        same = np.asarray(o.keys[pos] == seg.keys)
        old_ord = np.asarray(o.key_order[pos[same]], dtype=np.int64)
        new_ord = np.asarray(seg.key_order[same], dtype=np.int64)
        newer = np.asarray(seg.rank[new_ord] >= o.rank[old_ord])
        old.dead[old_ord[newer]] = True
        new.dead[new_ord[~newer]] = True
        old.dead_count = int(old.dead.sum())
    new.dead_count = int(new.dead.sum())
