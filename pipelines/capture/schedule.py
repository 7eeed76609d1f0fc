"""The work list of one capture pass: open ranges, their missing chunks, retries, completion.

Every connection takes the next missing chunk of the oldest open range, so the chunks of
one range are fetched in parallel and ranges complete in order. A range's `range.json`
is written (through the corpus writer) once none of its chunks is pending or in flight:
complete when its chunks tile it, incomplete otherwise (the newest range of a group,
which the tail fills later).

The prefetch limits: a group opens its next range only while fewer than `ahead` of its
ranges are captured and not yet consumed (complete, not indexed) or open, and while all
groups' captured, unconsumed ranges hold fewer than `disk_cap` bytes; a group at its
limit lets the next group's ranges open. With a `consumed` callback (what the indexer has
taken, `indexed.IndexedRanges`) the complete ranges already in the corpus count too, so
the limit is a distance ahead of each group's index cursor; without one, only the ranges
this pass completed count.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from pipelines.capture.planner import missing_spans, usable_chunks
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.manifest import ChunkEntry, chunks_cover
from pipelines.corpus.reader import CorpusReader
from pipelines.corpus.writer import CorpusWriter
from pipelines.nntp.errors import NNTPError, TruncatedReply


@dataclass(frozen=True)
class Target:
    """One range to fill up to `limit` (the group's fetch limit), with the group's low mark."""

    ref: RangeRef
    low: int
    limit: int


@dataclass(frozen=True)
class ChunkTask:
    ref: RangeRef
    first: int
    last: int

    @property
    def articles(self) -> int:
        return self.last - self.first + 1


@dataclass
class _OpenRange:
    target: Target
    stored: list[ChunkEntry]
    pending: deque[ChunkTask] = field(default_factory=deque)
    in_flight: set[ChunkTask] = field(default_factory=set)

    @property
    def idle(self) -> bool:
        return not self.pending and not self.in_flight


@dataclass
class _GroupQueue:
    """One group's ranges still to open, and its ranges captured but not yet consumed."""

    targets: Iterator[Target]
    next: Target | None
    waiting: dict[RangeRef, int] = field(default_factory=dict)  # ref -> bytes
    open: int = 0
    incomplete: RangeRef | None = None  # `next`, known not to be complete yet


_SIZE_UNITS = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def parse_size(text: str) -> int:
    """`10G`, `512M`, `1.5T`, `2000` (bytes; decimal units)."""
    text = text.strip().upper().removesuffix("B")
    unit = text[-1] if text and text[-1] in _SIZE_UNITS else ""
    return int(float(text[: len(text) - len(unit)]) * _SIZE_UNITS[unit])


@dataclass
class Limits:
    ranges_open: int = 2  # ranges fetched at once
    ahead: int | None = None  # per group: captured ranges not yet consumed (and open), at most
    disk_cap: int | None = None  # all groups: bytes of captured ranges not yet consumed, at most
    max_attempts: int = 6  # per chunk, before the capture gives up
    cuts_before_split: int = 2  # a reply cut this often is asked for in two halves


class Schedule:
    def __init__(
        self,
        targets: Mapping[str, Iterable[Target]],
        writer: CorpusWriter,
        reader: CorpusReader,
        limits: Limits,
        chunk_size: int,
        server: str = "",
        consumed: Callable[[RangeRef], bool] | None = None,
        known_complete: dict[RangeRef, int] | None = None,
        on_plan: Callable[[int], None] | None = None,
    ) -> None:
        # per group, in fetch order; targets come lazily: a whole retention is millions of
        # ranges, planned as they open
        self._queues: dict[str, _GroupQueue] = {}
        for group, group_targets in targets.items():
            it = iter(group_targets)
            self._queues[group] = _GroupQueue(it, next(it, None))
        self.writer = writer
        self.reader = reader
        self.limits = limits
        self.chunk_size = chunk_size
        self.server = server
        self._count_stored = consumed is not None  # stored, unconsumed ranges count too
        self._consumed = consumed or (lambda ref: False)
        # complete ranges seen (ref -> stored bytes), kept by the capture across passes
        self.known_complete = known_complete if known_complete is not None else {}
        self._on_plan = on_plan or (lambda n: None)
        self._open: list[_OpenRange] = []
        self._attempts: dict[ChunkTask, int] = {}
        self._cuts: dict[ChunkTask, int] = {}
        self._cond = threading.Condition()
        self.stopped = ""  # why the pass stopped early
        self.error: BaseException | None = None
        self.completed: list[RangeRef] = []
        self.retries = 0
        self.truncated = 0
        self.splits = 0

    # -- for workers -----------------------------------------------------------------

    def next_task(self) -> ChunkTask | None:
        """The next chunk to fetch; None when the pass is over (done or stopped)."""
        with self._cond:
            while True:
                if self.stopped:
                    return None
                self._open_more()
                for rng in self._open:
                    if rng.pending:
                        task = rng.pending.popleft()
                        rng.in_flight.add(task)
                        return task
                if not self._open:
                    if self._left() and not self.stopped:
                        self.stopped = self._limit_reason()
                    return None
                self._cond.wait(0.5)

    def done(self, task: ChunkTask, entry: ChunkEntry) -> None:
        with self._cond:
            rng = self._find(task.ref)
            rng.in_flight.discard(task)
            rng.stored.append(entry)
            self._attempts.pop(task, None)
            self._cuts.pop(task, None)
            if rng.idle:
                self._finish(rng)
            self._cond.notify_all()

    def failed(self, task: ChunkTask, exc: NNTPError) -> float:
        """Put the chunk back (or its halves); the pause before the worker goes on."""
        with self._cond:
            rng = self._find(task.ref)
            rng.in_flight.discard(task)
            attempts = self._attempts.get(task, 0) + 1
            self._attempts[task] = attempts
            self.retries += 1
            if not exc.retryable or attempts >= self.limits.max_attempts:
                tries = f" after {attempts} attempts" if exc.retryable else ""
                self._stop(f"{task.ref.group} {task.first}-{task.last}{tries}: {exc}", exc)
                return 0.0
            if isinstance(exc, TruncatedReply):
                self.truncated += 1
                cuts = self._cuts.get(task, 0) + 1
                self._cuts[task] = cuts
                if cuts >= self.limits.cuts_before_split and task.first < task.last:
                    # the same bytes get cut the same way: other spans compress differently
                    mid = (task.first + task.last) // 2
                    rng.pending.appendleft(ChunkTask(task.ref, mid + 1, task.last))
                    rng.pending.appendleft(ChunkTask(task.ref, task.first, mid))
                    self.splits += 1
                    self._cond.notify_all()
                    return 0.0
            rng.pending.appendleft(task)
            self._cond.notify_all()
            return 0.0 if isinstance(exc, TruncatedReply) else min(0.1 * 2**attempts, 5.0)

    def fail_hard(self, reason: str, exc: BaseException) -> None:
        with self._cond:
            self._stop(reason, exc)

    def stop(self, reason: str) -> None:
        with self._cond:
            if not self.stopped:
                self.stopped = reason
            self._cond.notify_all()

    def flush(self) -> None:
        """Write the manifests of ranges left open by a stop (incomplete, whole chunks only)."""
        with self._cond:
            for rng in list(self._open):
                self._write_manifest(rng, complete=False)
            self._open.clear()

    # -- inside ------------------------------------------------------------------------

    def _stop(self, reason: str, exc: BaseException | None) -> None:
        if not self.stopped:
            self.stopped = reason
            self.error = exc
        self._cond.notify_all()

    def _find(self, ref: RangeRef) -> _OpenRange:
        for rng in self._open:
            if rng.target.ref == ref:
                return rng
        raise KeyError(ref)

    def _left(self) -> bool:
        return any(q.next is not None for q in self._queues.values())

    def _waiting_bytes(self) -> int:
        return sum(sum(q.waiting.values()) for q in self._queues.values())

    def _limit_reason(self) -> str:
        held = [f"{g} {len(q.waiting)}" for g, q in self._queues.items() if q.next is not None]
        return (
            f"prefetch limit reached (ranges not yet consumed: {', '.join(held)}; "
            f"{self._waiting_bytes() / 1e6:.1f} MB in all)"
        )

    def _forget_consumed(self) -> None:
        for q in self._queues.values():
            for ref in [r for r in q.waiting if self._consumed(r)]:
                del q.waiting[ref]

    def _room(self, q: _GroupQueue) -> bool:
        """Whether the group may open its next range under the prefetch limits."""
        ahead, cap = self.limits.ahead, self.limits.disk_cap
        if ahead is not None and len(q.waiting) + q.open >= ahead:
            return False
        return cap is None or self._waiting_bytes() < cap

    def _stored_complete(self, ref: RangeRef) -> int | None:
        """The stored bytes of a range already complete in the corpus; None: it is not."""
        if ref in self.known_complete:
            return self.known_complete[ref]
        if self._consumed(ref):  # only complete ranges are indexed: no manifest to read
            self.known_complete[ref] = 0
            return 0
        info = self.reader.range_info(ref)
        if not info.complete or info.manifest is None:
            return None
        stored = sum(c.bytes for c in info.manifest.chunks)
        self.known_complete[ref] = stored
        return stored

    def _skip_complete(self, q: _GroupQueue) -> None:
        """Move the group past its next ranges that are complete already; those not
        consumed yet count as waiting (with a `consumed` callback), until the limit."""
        while q.next is not None and q.next.ref != q.incomplete:
            ref = q.next.ref
            stored = self._stored_complete(ref)
            if stored is None:
                q.incomplete = ref  # not read again while the limit holds it back
                return
            if self._count_stored and not self._consumed(ref):
                if not self._room(q):
                    return  # the limit holds this one back: counted when there is room
                q.waiting[ref] = stored
            q.next = next(q.targets, None)

    def _open_more(self) -> None:
        self._forget_consumed()
        while len(self._open) < self.limits.ranges_open:
            queue = None
            for q in self._queues.values():
                self._skip_complete(q)
                if q.next is not None and self._room(q):
                    queue = q
                    break
            if queue is None:
                return
            target = queue.next
            assert target is not None
            queue.next = next(queue.targets, None)
            ref = target.ref
            stored = usable_chunks(self.writer.stored_chunks(ref), ref)
            spans = missing_spans(ref, stored, target.low, target.limit, self.chunk_size)
            rng = _OpenRange(target, stored, deque(ChunkTask(ref, a, b) for a, b in spans))
            self._on_plan(sum(b - a + 1 for a, b in spans))
            self._open.append(rng)
            queue.open += 1
            if rng.idle:
                self._finish(rng)

    def _finish(self, rng: _OpenRange) -> None:
        self._open.remove(rng)
        ref = rng.target.ref
        queue = self._queues[ref.group]
        queue.open -= 1
        stored = usable_chunks(rng.stored, ref)
        covered = chunks_cover(ref.first, ref.last, stored)
        self._write_manifest(rng, complete=covered)
        if covered:
            size = sum(c.bytes for c in stored)
            self.known_complete[ref] = size
            self.completed.append(ref)
            queue.waiting[ref] = size

    def _write_manifest(self, rng: _OpenRange, complete: bool) -> None:
        ref = rng.target.ref
        stored = usable_chunks(rng.stored, ref)
        if not stored and not complete:
            return
        self.writer.write_manifest(
            ref,
            stored,
            complete=complete,
            server=self.server or None,
            fetched_at=dt.datetime.now(dt.UTC).replace(microsecond=0),
        )
