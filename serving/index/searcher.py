"""Queries over a snapshot of segments: all words must match, filters combined, newest first.

Per segment the rarest required term drives: its ordinals are the candidates, and
every other term only tests them, against a bitset (common words: one gather) or a
sorted posting list (binary search). Cost follows the rarest term, not the catalog
size. Ordinals are newest first, so a segment's first `offset + limit` matches are
all a page can need; pages merge across segments by posting date. The module passes 400
lines because the query plan, the per-segment scan and the merge share the segment's
ordinal arrays: split, each half would reach into the other's.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pyarrow as pa

from serving import text
from serving.index.judgments import JudgedState
from serving.index.segment import Segment


@dataclass(frozen=True)
class SearchQuery:
    words: tuple[str, ...] = ()  # all must match (name or album member words)
    terms: tuple[str, ...] = ()  # other required terms: season/episode, poster
    categories: tuple[int, ...] = ()  # any of them (a parent id covers its children)
    groups: tuple[str, ...] = ()  # any of them
    ids: tuple[tuple[str, int], ...] = ()  # any of them (kind, value): one film or show
    min_posted: int | None = None
    min_bytes: int | None = None
    max_bytes: int | None = None
    passworded: bool = True  # False (`password=0`): passworded releases left out
    judged: bool = False  # True (show all): releases a verdict hides are listed too
    offset: int = 0
    limit: int = 100


@dataclass
class Unlisted:
    """What a query leaves out of one segment: a bool per ordinal, how many, and the
    same packed like the term bitsets (made when first asked for)."""

    mask: np.ndarray
    count: int
    _bits: np.ndarray | None = None

    @property
    def bits(self) -> np.ndarray:
        if self._bits is None:
            self._bits = np.packbits(self.mask, bitorder="little")
        return self._bits


@dataclass
class LiveSegment:
    segment: Segment
    dead: np.ndarray  # bool per ordinal: a newer version lives in another segment
    dead_count: int = 0
    _dead_bits: np.ndarray | None = None
    # the ordinals (sorted) a verdict hides (judged) and of dead releases, never listed
    # (gone): `index.judgments`; None until laid over. Few: kept sparse, not per release
    judged: np.ndarray | None = None
    gone: np.ndarray | None = None
    _unlisted: dict[bool, Unlisted] | None = None

    @classmethod
    def of(cls, segment: Segment) -> LiveSegment:
        """A new segment's live view: only its tombstones (merged releases) are dead."""
        dead = np.array(segment.hidden, dtype=bool)
        return cls(segment, dead, int(dead.sum()))

    def copy(self) -> LiveSegment:
        """The same, its masks copied: a new snapshot changes them, the old one not."""

        # judged and gone are replaced, never changed in place: shared, not copied
        return LiveSegment(self.segment, self.dead.copy(), self.dead_count,
                           judged=self.judged, gone=self.gone)  # fmt: skip

    def changed(self) -> None:
        """Its masks were changed (before its snapshot is served): forget what was
        derived from them."""
        self.dead_count = int(self.dead.sum())
        self._dead_bits = None
        self._unlisted = None

    @property
    def dead_bits(self) -> np.ndarray:
        """`dead` packed like the term bitsets (computed once; snapshots never change it)."""
        if self._dead_bits is None:
            self._dead_bits = np.packbits(self.dead, bitorder="little")
        return self._dead_bits

    def unlisted(self, judged: bool) -> Unlisted:
        """What searches leave out: dead versions and dead releases, and (unless
        `judged`, show all) the releases a verdict hides."""
        if self._unlisted is None:
            self._unlisted = {}
        found = self._unlisted.get(judged)
        if found is None:
            hide = [a for a in (self.gone, None if judged else self.judged)
                    if a is not None and len(a)]  # fmt: skip
            if not hide:
                found = Unlisted(self.dead, self.dead_count, self._dead_bits)
            else:
                mask = self.dead.copy()
                for ords in hide:
                    mask[ords] = True
                found = Unlisted(mask, int(mask.sum()))
            self._unlisted[judged] = found
        return found


_NONE = np.zeros(0, dtype=np.int64)


class SearchResult:
    """A page of matches: the total, and the page's (segment, ordinal) pairs, read on
    demand as prepared feed items (`items`), Arrow rows (`table`) or dicts (`rows`)."""

    def __init__(self, total: int, snapshot: Snapshot | None = None,
                 seg_of: np.ndarray = _NONE, ords: np.ndarray = _NONE) -> None:  # fmt: skip
        self.total = total
        self._snapshot = snapshot
        self._seg_of = seg_of
        self._ords = ords

    @cached_property
    def items(self) -> list[str]:
        if self._snapshot is None:
            return []
        return self._snapshot.items(self._seg_of, self._ords)

    @cached_property
    def table(self) -> pa.Table:
        if self._snapshot is None:
            return _EMPTY_PAGE
        return self._snapshot.rows(self._seg_of, self._ords)

    @cached_property
    def rows(self) -> list[dict[str, Any]]:
        return self.table.to_pylist()


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
        [text.id_term(k, v) for k, v in q.ids],
    ):
        if not terms:
            continue
        ids = [i for i in (seg.term_id(t) for t in terms) if i is not None]
        if not ids:
            return None
        sets.append(ids)
    # the rarest set first: without a word it drives the candidates (`match`), and an id's
    # few releases must not wait for a whole category's
    return sorted(sets, key=lambda ids: sum(seg.frequency(i) for i in ids))


# What a result list shows (feeds and pages); a single release (find) gets every column.
LISTED_COLUMNS = [
    "release_key", "name", "poster", "group", "posted_first", "files", "file_total",
    "bytes", "complete", "category", "finished", "password", "source",
]  # fmt: skip
# and the ids (serving/index/ids.py): the JSON feed's attributes
PAGE_COLUMNS = [*LISTED_COLUMNS, "imdb", "tvdb", "tvmaze", "tvrage", "tmdb", "ids_title",
                "ids_year", "ids_season", "ids_episode", "ids_kind"]  # fmt: skip
RESULT_CACHE = 512  # results kept per snapshot (a page is ~30 kB of Arrow rows)
_EMPTY_PAGE = pa.table({c: pa.array([], pa.null()) for c in PAGE_COLUMNS})


def count_and_head(live: LiveSegment, q: SearchQuery, want: int) -> tuple[int, np.ndarray]:
    """How many releases of one segment match q, and the first `want` of them.

    When every term is common (all have bitsets) the answer comes from ANDing bitsets and
    counting bits, whatever the number of matches; otherwise from the candidates of the
    rarest term, which is then rare (under 1/32 of the rows).
    """
    seg = live.segment
    if seg.n == 0:
        return 0, _NONE
    required = [seg.term_id(t) for t in (*q.words, *q.terms)]
    if any(t is None for t in required):
        return 0, _NONE
    req = sorted((t for t in required if t is not None), key=seg.frequency)
    any_of = _any_of(seg, q)
    if any_of is None:
        return 0, _NONE
    horizon = seg.n if q.min_posted is None else seg.count_newer(q.min_posted)
    sized = q.min_bytes is not None or q.max_bytes is not None
    locked = _locked(live, q)
    out = live.unlisted(q.judged)
    if not req and not any_of and not sized and locked is not None:  # ~6 ms per 10 M rows
        alive = ~(out.mask[:horizon] | np.unpackbits(locked, count=horizon, bitorder="little")
                  .astype(bool))  # fmt: skip
        return int(alive.sum()), _first_true(alive, want)
    if not req and not any_of and not sized:
        if not out.count:
            return horizon, np.arange(min(want, horizon), dtype=np.int64)
        if horizon == seg.n:  # the count is known: only the page's prefix is scanned
            return seg.n - out.count, _first_true(out.mask, want, invert=True)
        alive = ~out.mask[:horizon]
        return int(alive.sum()), _first_true(alive, want)
    acc = None if sized else _bitset_and(live, q, req, any_of, horizon)
    if acc is not None and locked is not None:
        np.bitwise_and(acc, ~locked, out=acc)
    if acc is not None:
        return int(np.bitwise_count(acc).sum()), first_set_bits(acc, want)
    cand = match(live, q, req, any_of, horizon)
    return len(cand), cand[:want]


def _locked(live: LiveSegment, q: SearchQuery) -> np.ndarray | None:
    """The passworded bits a query must leave out; None when none need to be."""
    seg = live.segment
    return None if q.passworded or not seg.passworded_count else seg.passworded


def first_set_bits(bits: np.ndarray, want: int) -> np.ndarray:
    """Positions of the first `want` set bits (little bit order), scanning only a prefix."""
    found: list[np.ndarray] = []
    got, start, step = 0, 0, max(want, 512)
    while start < len(bits) and got < want:
        chunk = np.asarray(bits[start : start + step])
        rows = np.flatnonzero(chunk)
        if len(rows):
            r, c = np.nonzero(np.unpackbits(chunk[rows][:, None], axis=1, bitorder="little"))
            found.append((rows[r].astype(np.int64) + start) * 8 + c)
            got += len(r)
        start += step
        step *= 4
    return np.concatenate(found)[:want] if found else _NONE


def _first_true(mask: np.ndarray, want: int, invert: bool = False) -> np.ndarray:
    """Positions of the first `want` true values (false ones, `invert`), scanning only a
    prefix."""
    found: list[np.ndarray] = []
    got, start, step = 0, 0, max(want * 2, 4096)
    while start < len(mask) and got < want:
        chunk = mask[start : start + step]
        hits = np.flatnonzero(~chunk if invert else chunk) + start
        found.append(hits)
        got += len(hits)
        start += step
        step *= 4
    return np.concatenate(found)[:want] if found else _NONE


def _bitset_and(
    live: LiveSegment, q: SearchQuery, req: list[int], any_of: list[list[int]], horizon: int
) -> np.ndarray | None:
    """The AND of the terms' bitsets (OR within each OR-set); None unless all have one."""
    seg = live.segment
    acc: np.ndarray | None = None
    for t in req:
        bits = seg.bitset_of(t)
        if bits is None:
            return None
        acc = np.array(bits) if acc is None else np.bitwise_and(acc, bits, out=acc)
    for ids in any_of:
        found = [seg.bitset_of(t) for t in ids]
        sets = [b for b in found if b is not None]
        if len(sets) < len(found):
            return None
        union = np.array(sets[0])
        for b in sets[1:]:
            np.bitwise_or(union, b, out=union)
        acc = union if acc is None else np.bitwise_and(acc, union, out=acc)
    if acc is None:
        return None
    out = live.unlisted(q.judged)
    if out.count:
        np.bitwise_and(acc, ~out.bits, out=acc)
    if horizon < seg.n:
        acc[(horizon + 7) // 8 :] = 0
        if horizon % 8:
            acc[horizon // 8] &= (1 << (horizon % 8)) - 1
    return acc


def match(
    live: LiveSegment, q: SearchQuery, req: list[int], any_of: list[list[int]], horizon: int
) -> np.ndarray:
    """Every matching ordinal of one segment, ascending (newest first), from candidates."""
    seg = live.segment
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
    out = live.unlisted(q.judged)
    if out.count:
        cand = cand[~out.mask[cand]]
    locked = _locked(live, q)
    if locked is not None:
        cand = cand[~_bits(locked, cand)]
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

    def __init__(
        self, segments: list[LiveSegment], generation: int = 0, cache_size: int = RESULT_CACHE,
        judged: JudgedState | None = None,
    ) -> None:  # fmt: skip
        self.segments = segments
        self.generation = generation
        # each release's current verdict and health (`index.judgments`), for what shows
        self.judged = judged or JudgedState.empty()
        self._stats: dict[str, Any] | None = None
        # Recent results by query. Clients poll the same feeds and searches; the cache
        # lives and dies with the snapshot, so a refresh can never serve a stale page.
        self.cache_size = cache_size
        self.cache_hits = 0
        self._results: OrderedDict[SearchQuery, SearchResult] = OrderedDict()
        self._results_lock = threading.Lock()

    def search(self, q: SearchQuery) -> SearchResult:
        """The page of matches `q` asks for and the total (from the cache when recent)."""
        if not self.cache_size:
            return self._search(q)
        with self._results_lock:
            hit = self._results.get(q)
            if hit is not None:
                self._results.move_to_end(q)
                self.cache_hits += 1
                return hit
        result = self._search(q)
        with self._results_lock:
            self._results[q] = result
            while len(self._results) > self.cache_size:
                self._results.popitem(last=False)
        return result

    def _search(self, q: SearchQuery) -> SearchResult:
        want = q.offset + q.limit
        total = 0
        heads: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for i, live in enumerate(self.segments):
            count, head = count_and_head(live, q, want)
            total += count
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
            order = np.lexsort((self._tie_keys(posted, seg_of, ords), -posted))[q.offset : want]
        return SearchResult(total, self, seg_of[order], ords[order])

    def _tie_keys(self, posted: np.ndarray, seg_of: np.ndarray, ords: np.ndarray) -> np.ndarray:
        """Release keys where a posting time repeats, zeros elsewhere: only ties need the
        key, and reading keys costs an Arrow take per segment."""
        keys = np.zeros(len(ords), dtype="S20")
        ordered = np.sort(posted)
        repeated = ordered[1:][ordered[1:] == ordered[:-1]]
        if len(repeated) == 0:
            return keys
        tied = np.isin(posted, repeated)
        for i in np.unique(seg_of[tied]).tolist():
            where = np.nonzero(tied & (seg_of == i))[0]
            keys[where] = self.segments[i].segment.keys_at(ords[where])
        return keys

    def rows(self, seg_of: np.ndarray, ords: np.ndarray) -> pa.Table:
        """The listed columns of (segment, ordinal) pairs, in the order given."""
        parts = []
        positions = []
        for i in sorted(set(seg_of.tolist())):
            where = np.nonzero(seg_of == i)[0]
            parts.append(self.segments[i].segment.take(ords[where], PAGE_COLUMNS))
            positions.append(where)
        if len(parts) == 1:
            return parts[0]
        table = pa.concat_tables(parts)
        return table.take(pa.array(np.argsort(np.concatenate(positions), kind="stable")))

    def items(self, seg_of: np.ndarray, ords: np.ndarray) -> list[str]:
        """The prepared feed items of (segment, ordinal) pairs, in the order given."""
        out: list[str] = [""] * len(ords)
        for i in sorted(set(seg_of.tolist())):
            where = np.nonzero(seg_of == i)[0]
            taken = self.segments[i].segment.items_at(ords[where])
            for pos, item in zip(where.tolist(), taken, strict=True):
                out[pos] = item
        return out

    def _locate(self, key: bytes) -> tuple[int, int] | None:
        for i, live in enumerate(self.segments):
            ord_ = live.segment.find(key)
            if ord_ is not None and not live.dead[ord_]:
                return i, ord_
        return None

    def lookup(self, key: bytes) -> SearchResult | None:
        """The newest version of one release as a one-item result, None when the index
        has no such key (or only a dead version of it)."""
        found = self._locate(key)
        if found is None:
            return None
        return SearchResult(1, self, np.array([found[0]]), np.array([found[1]]))

    def find(self, key: bytes, columns: list[str] | None = None) -> dict[str, Any] | None:
        """The newest version of one release (every column, or only `columns`), None when
        absent. Each column is a page or two of a mapped file to touch, perhaps from disk:
        a download asks only for the few it needs."""
        found = self._locate(key)
        if found is None:
            return None
        return self.segments[found[0]].segment.take(np.array([found[1]]), columns).to_pylist()[0]

    def name_of(self, key: bytes) -> str | None:
        """The name of the release's newest shown version, live or not (a release merged
        into another is a tombstone now; its earlier versions keep its name)."""
        best: tuple[int, str] | None = None
        for live in self.segments:
            seg = live.segment
            ord_ = seg.find(key)
            if ord_ is None or seg.hidden[ord_]:
                continue
            rank = int(seg.rank[ord_])
            if best is None or rank >= best[0]:
                best = (rank, seg.take(np.array([ord_]), ["name"]).column(0)[0].as_py())
        return None if best is None else best[1]

    def download_row(self, key: bytes) -> dict[str, Any] | None:
        """The newest version's fields an NZB download needs (`Segment.download_row`),
        None when absent."""
        found = self._locate(key)
        if found is None:
            return None
        row = self.segments[found[0]].segment.download_row(found[1])
        row["release_key"] = key
        return row

    def stats(self) -> dict[str, Any]:
        """Counts for the status and browse pages: releases, bytes, per category and group."""
        if self._stats is not None:
            return self._stats
        categories: dict[int, int] = {}
        groups: dict[str, int] = {}
        releases = 0
        total_bytes = 0
        newest = 0
        ids: set[str] = set()  # the id kinds some release carries (caps lists them)
        for live in self.segments:
            seg = live.segment
            if seg.n == 0:
                continue
            ids.update(seg.summary.get("ids", ()))
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
            "ids": sorted(ids),
        }
        return self._stats


def resolve_versions(older: list[LiveSegment], new: LiveSegment) -> None:
    """Mark dead whichever of each key's versions is not the newest, across segments:
    `new` added after `older`."""
    resolve_keys([*older, new], new.segment.keys)


def resolve_keys(lives: list[LiveSegment], keys: np.ndarray) -> None:
    """Settle which version of each of these keys lives, across the segments: the one of
    the highest rank (`versions.version_rank`; of equal ranks, the later segment's), unless
    it is a tombstone; every other version is dead. A segment holds one version of a key,
    so this depends only on the versions of `keys` in `lives`, not on how the segments
    came to be: a new segment resolves its keys, and dropping or replacing segments
    resolves the keys they held (sorted, distinct `keys`; masks are changed in place)."""
    if len(keys) == 0:
        return
    best = np.full(len(keys), -1, dtype=np.int64)  # every rank is >= 0
    owner = np.full(len(keys), -1, dtype=np.int64)
    found: list[tuple[int, np.ndarray, np.ndarray]] = []
    for i, live in enumerate(lives):
        seg = live.segment
        if seg.n == 0:
            continue
        if keys is seg.keys:  # a segment's own keys (`resolve_versions`): all there, in order
            which = np.arange(seg.n)
            ords = np.asarray(seg.key_order, dtype=np.int64)
        else:
            pos = np.searchsorted(seg.keys, keys)
            pos[pos == seg.n] = 0
            which = np.nonzero(np.asarray(seg.keys[pos] == keys))[0]
            if len(which) == 0:
                continue
            ords = np.asarray(seg.key_order[pos[which]], dtype=np.int64)
        ranks = np.asarray(seg.rank[ords], dtype=np.int64)
        newer = ranks >= best[which]  # later segments come later: they win ties
        best[which[newer]] = ranks[newer]
        owner[which[newer]] = i
        found.append((i, which, ords))
    for i, which, ords in found:
        live = lives[i]
        live.dead[ords] = (owner[which] != i) | np.asarray(live.segment.hidden[ords])
        live.changed()
