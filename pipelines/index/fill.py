"""The header pass's fill: articles the primary backbone lacks, from the other backbones.

A group is read from one backbone, its primary: the catalog's article numbers are the
primary's. Each chunk of the primary is read as always; before it is parsed, the other
backbones' lines of the same articles are read in step (`fill_stream`, each backbone
once, forward, from where the last range left it) and matched by message-id (the
kernels' 64-bit hash):

- a line whose message-id is in the primary's chunk is an *anchor*: the same article on
  both; its two numbers give the offset between the backbones' numbering there;
- a line whose message-id the primary has not (nor in its chunk before, nor filled
  already) is an article the primary lacks (its retention is shorter, or a take-down):
  it takes the primary's number the offset gives, the number the primary left free for
  it, and joins the chunk in article order. So a release missing a part on the primary
  is whole when another backbone has it, and the catalog is the one a provider holding
  everything would give;
- the other backbone is read up to the first line whose number falls past the chunk:
  what follows belongs to the next chunk.

Counted, never raised: a line whose number falls before the chunk (the other backbone
sends it later than the primary did: `late`), or on a number the primary holds
(numbering drifted between anchors: `unplaced`); an article the primary sends after it
was filled is not indexed again (`filled_earlier`); a backbone not captured as far as
the chunk (`behind`). The first anchor of a backbone is found in its lines at the cursor
or, once a range, by a search forward bounded by twice the range's size (a backbone
with a longer retention starts far before the primary).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Iterator

import numpy as np

from kernels import scan as sc
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.reader import Chunk, CorpusReader, RangeReport
from pipelines.index.fill_merge import merge, recount
from pipelines.index.fill_state import FillState, SourceState, load_state, save_state
from pipelines.index.fill_stream import (
    BackboneStream,
    Batch,
    message_id_hashes,
    stored_end,
)

_NONE = np.zeros(0, np.uint64)
STALLED_AFTER = 3600.0  # seconds without a stored chunk: a backbone no range waits for


class Fill:
    """One range's fill from the other backbones (priority order) of its group."""

    def __init__(
        self, ref: RangeRef, sources: list[tuple[str, CorpusReader]], state: FillState
    ) -> None:
        self.ref = ref
        self.state = state
        self.readers = dict(sources)
        self.streams = {
            name: BackboneStream(reader, ref.group, state.source(name).cursor)
            for name, reader in sources
        }
        self.filled_before = state.filled  # the previous range's fills (sorted)
        self.filled_now: list[np.ndarray] = []
        self.counts: Counter[str] = Counter()
        self._searched: set[str] = set()

    @classmethod
    def start(
        cls,
        catalog: str,
        ref: RangeRef,
        before: RangeRef | None,
        sources: list[tuple[str, CorpusReader]],
    ) -> Fill:
        """The fill of `ref`, from the state the range `before` it left."""
        state = None
        if before is not None:
            state = load_state(catalog, before.group, before.first, before.last)
        return cls(ref, sources, state or FillState())

    def waiting(self, stalled_after: float | None = None) -> str:
        """Why the range should wait (empty: it need not): an other backbone, its offset
        known, whose capture has not stored past the range's end yet and stored something
        within `stalled_after` seconds. Indexed now, the range would lack what that
        backbone brings next; a backbone that stalled (down for long, or a corpus no
        longer captured) holds nothing back."""
        for name, reader in self.readers.items():
            offset = self.state.source(name).offset
            if offset is None:
                continue
            stored = stored_end(reader, self.ref.group)
            if stored is None or stored[0] + offset >= self.ref.last:
                continue
            age = time.time() - stored[1] if stored[1] is not None else None
            if age is not None and age < (stalled_after or STALLED_AFTER):
                return (
                    f"backbone {name} is stored to its {stored[0]} (the primary's "
                    f"{stored[0] + offset}), short of {self.ref.last}: captured {age:.0f} s ago"
                )
        return ""

    def save(self, catalog: str) -> int:
        """Record where the fill stands after the range (before its window snapshot)."""
        self.state.filled = np.sort(np.concatenate([_NONE, *self.filled_now]))
        for name, stream in self.streams.items():
            self.state.source(name).cursor = stream.cursor
            self.counts[f"chunks_read:{name}"] += stream.report.chunks_read
        self.state.counts = dict(self.counts)
        return save_state(catalog, self.ref.group, self.ref.first, self.ref.last, self.state)

    def chunks(self, chunks: Iterable[Chunk], report: RangeReport) -> Iterator[Chunk]:
        """The primary's chunks with the other backbones' articles it lacks put in."""
        held: list[Chunk] = []  # empty chunks before the first with lines, while unseeded
        for chunk in chunks:
            if not held and not self._unseeded():
                yield self._fill_chunk(chunk, report)
                continue
            if not (chunk.lines.status == sc.OK).any():
                held.append(chunk)  # nothing to match yet (below a shorter retention)
                continue
            primary = _primary_of(chunk)
            for name in self._unseeded():
                self._seed(name, primary)
            for empty in held:
                yield self._fill_chunk(empty, report)
            held = []
            yield self._fill_chunk(chunk, report)
        for empty in held:
            yield self._fill_chunk(empty, report)

    def _unseeded(self) -> list[str]:
        return [n for n in self.streams if self.state.source(n).offset is None]

    # -- one chunk -------------------------------------------------------------------

    def _fill_chunk(self, chunk: Chunk, report: RangeReport) -> Chunk:
        primary = _primary_of(chunk)
        filled = np.sort(np.concatenate([self.filled_before, *self.filled_now]))
        again = _member(filled, primary.hashes)  # filled from another backbone before
        fills: dict[int, bytes] = {}
        taken: set[int] = set()  # the hashes filled into this chunk
        if chunk.whole:
            for name in list(self.streams):
                self._from_source(name, primary, filled, fills, taken)
        self.state.recent = primary.hashes
        if not fills and not again.any():
            return chunk
        self.counts["filled"] += len(fills)
        self.counts["filled_earlier"] += int(again.sum())
        self.filled_now.append(np.fromiter(taken, np.uint64, len(taken)))
        merged = merge(chunk, set(primary.rows[again].tolist()), fills)
        recount(report, chunk.lines, merged.lines)
        return merged

    def _from_source(
        self,
        name: str,
        primary: _Primary,
        filled: np.ndarray,
        fills: dict[int, bytes],
        taken: set[int],
    ) -> None:
        src = self.state.source(name)
        if src.offset is None and not self._seed(name, primary):
            return
        stream = self.streams[name]
        while (batch := stream.peek()) is not None:
            done = self._take(src, batch, primary, filled, fills, taken)
            stream.take(done)
            if batch.left:
                return  # the rest belongs to a later chunk
        self.counts[f"behind:{name}"] = 1  # not stored as far as this chunk yet

    def _take(
        self,
        src: SourceState,
        batch: Batch,
        primary: _Primary,
        filled: np.ndarray,
        fills: dict[int, bytes],
        taken: set[int],
    ) -> int:
        """Place the batch's lines up to the first past the chunk; how many it took."""
        assert src.offset is not None
        numbers = batch.number[batch.pos :]
        hashes = batch.hashes[batch.pos :]
        at, anchor = primary.find(hashes)
        offsets = primary.number_at(at) - numbers
        last = np.maximum.accumulate(np.where(anchor, np.arange(len(numbers)), -1))
        offsets = np.where(last >= 0, offsets[np.maximum(last, 0)], src.offset)
        target = numbers + offsets
        past = np.flatnonzero(target > primary.last)
        stop = int(past[0]) if len(past) else len(numbers)
        if anchor[:stop].any():
            src.offset = int(offsets[np.flatnonzero(anchor[:stop])[-1]])
        # the few lines the primary's chunk lacks: known from its chunk before, or filled?
        candidates = np.flatnonzero(~anchor[:stop])
        known = _member(self.state.recent, hashes[candidates])
        known |= _member(filled, hashes[candidates])
        candidates = candidates[~known]
        held = primary.holds(target[candidates])
        chosen: list[int] = []
        for i, on_primary in zip(candidates.tolist(), held.tolist(), strict=True):
            number, h = int(target[i]), int(hashes[i])
            if h in taken:
                continue  # the same message-id twice on that backbone, or on two of them
            if number < primary.first:
                self.counts["late"] += 1
            elif on_primary or number in fills:
                self.counts["unplaced"] += 1
            else:
                fills[number] = b""
                taken.add(h)
                chosen.append(i)
        picked = np.asarray(chosen, np.int64)
        numbers_now = target[picked].tolist()
        lines = batch.lines(batch.pos + picked, numbers_now)
        for number, line in zip(numbers_now, lines, strict=True):
            fills[number] = line
        return stop

    # -- the offset between the backbones ---------------------------------------------

    def _seed(self, name: str, primary: _Primary) -> bool:
        """Find the backbone's first anchor: in its lines at the cursor, else (once a
        range) searching forward. Its lines before the range's first article are skipped:
        no primary number is left for them."""
        if not len(primary.hashes):
            return False
        stream, src = self.streams[name], self.state.source(name)
        offset = _first_anchor(stream.peek(), primary)
        if offset is None and name not in self._searched:
            self._searched.add(name)
            offset, src.seek = self._search(name, max(stream.cursor, src.seek or 0), primary)
        if offset is None:
            return False
        src.offset, src.seek = offset, None
        start = self.ref.first - offset
        if start > stream.cursor:
            self.counts[f"chunks_read:{name}"] += stream.report.chunks_read
            self.streams[name] = BackboneStream(self.readers[name], self.ref.group, start)
        return True

    def _search(self, name: str, start: int, primary: _Primary) -> tuple[int | None, int]:
        scan = BackboneStream(self.readers[name], self.ref.group, start)
        offset, reach = None, None
        while (batch := scan.peek()) is not None:
            if reach is None:  # twice the range's size of the backbone's own numbers
                reach = int(batch.number[batch.pos]) + 2 * (self.ref.last - self.ref.first + 1)
            elif scan.cursor > reach:
                break
            offset = _first_anchor(batch, primary)
            if offset is not None:
                break
            scan.take(batch.left)
        self.counts[f"chunks_read:{name}"] += scan.report.chunks_read
        return offset, scan.cursor


class _Primary:
    """The primary chunk's good lines by message-id hash."""

    def __init__(
        self, rows: np.ndarray, hashes: np.ndarray, number: np.ndarray, first: int, last: int
    ) -> None:
        self.rows = rows  # the good lines' indices, in the order of their hashes
        self.hashes, self.number, self.first, self.last = hashes, number, first, last
        self._held = np.sort(number)

    def find(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where each hash is among the primary's (clipped) and whether it is there."""
        if not len(self.hashes):
            return np.zeros(len(hashes), np.int64), np.zeros(len(hashes), np.bool_)
        at = np.minimum(np.searchsorted(self.hashes, hashes), len(self.hashes) - 1)
        return at, self.hashes[at] == hashes

    def number_at(self, at: np.ndarray) -> np.ndarray:
        return self.number[at] if len(self.number) else np.zeros(len(at), np.int64)

    def holds(self, numbers: np.ndarray) -> np.ndarray:
        """Whether the primary's chunk holds each of these article numbers."""
        return _member(self._held, numbers)


def _member(ordered: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Whether each value is in the sorted array (a binary search each: np.isin sorts
    both sides every call)."""
    if not len(ordered):
        return np.zeros(len(values), np.bool_)
    at = np.minimum(np.searchsorted(ordered, values), len(ordered) - 1)
    return ordered[at] == values


def _primary_of(chunk: Chunk) -> _Primary:
    idx = chunk.lines
    ok = np.flatnonzero(idx.status == sc.OK)
    hashes = message_id_hashes(chunk, ok)
    order = np.argsort(hashes, kind="stable")
    rows = ok[order]
    return _Primary(rows, hashes[order], idx.number[rows], chunk.first, chunk.last)


def _first_anchor(batch: Batch | None, primary: _Primary) -> int | None:
    """The offset at the batch's first line the primary's chunk also holds."""
    if batch is None:
        return None
    at, anchor = primary.find(batch.hashes[batch.pos :])
    hits = np.flatnonzero(anchor)
    if not len(hits):
        return None
    i = int(hits[0])
    return int(primary.number[at[i]]) - int(batch.number[batch.pos + i])
