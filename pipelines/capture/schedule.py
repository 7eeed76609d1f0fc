"""The work list of one capture pass: open ranges, their missing chunks, retries, completion.

Every connection takes the next missing chunk of the oldest open range, so the chunks of
one range are fetched in parallel and ranges complete in order. A range's `range.json`
is written (through the corpus writer) once none of its chunks is pending or in flight:
complete when its chunks tile it, incomplete otherwise (the newest range of a group,
which the tail fills later).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import deque
from collections.abc import Callable, Iterable
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
class Limits:
    ranges_open: int = 2  # ranges fetched at once
    ahead: int | None = None  # captured ranges not yet consumed, at most
    disk_cap: int | None = None  # bytes of captured ranges not yet consumed, at most
    max_attempts: int = 6  # per chunk, before the capture gives up
    cuts_before_split: int = 2  # a reply cut this often is asked for in two halves


class Schedule:
    def __init__(
        self,
        targets: Iterable[Target],
        writer: CorpusWriter,
        reader: CorpusReader,
        limits: Limits,
        chunk_size: int,
        server: str = "",
        consumed: Callable[[RangeRef], bool] | None = None,
        known_complete: set[RangeRef] | None = None,
        on_plan: Callable[[int], None] | None = None,
    ) -> None:
        # targets come lazily: a whole retention is millions of ranges, planned as they open
        self._targets = iter(targets)
        self._next: Target | None = next(self._targets, None)
        self.writer = writer
        self.reader = reader
        self.limits = limits
        self.chunk_size = chunk_size
        self.server = server
        self._consumed = consumed or (lambda ref: False)
        self.known_complete = known_complete if known_complete is not None else set()
        self._on_plan = on_plan or (lambda n: None)
        self._open: list[_OpenRange] = []
        self._awaiting: dict[RangeRef, int] = {}  # captured, not consumed: ref -> bytes
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
                    if self._next is not None and not self.stopped:
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

    def _limit_reason(self) -> str:
        return (
            f"prefetch limit reached ({len(self._awaiting)} ranges, "
            f"{sum(self._awaiting.values()) / 1e6:.1f} MB not yet consumed)"
        )

    def _room(self) -> bool:
        for ref in [r for r in self._awaiting if self._consumed(r)]:
            del self._awaiting[ref]
        if len(self._open) >= self.limits.ranges_open:
            return False
        ahead = len(self._awaiting) + len(self._open)
        if self.limits.ahead is not None and ahead >= self.limits.ahead:
            return False
        return not (
            self.limits.disk_cap is not None
            and sum(self._awaiting.values()) >= self.limits.disk_cap
        )

    def _open_more(self) -> None:
        while self._next is not None and self._room():
            target = self._next
            self._next = next(self._targets, None)
            ref = target.ref
            if ref in self.known_complete:
                continue
            info = self.reader.range_info(ref)
            if info.complete:
                self.known_complete.add(ref)
                continue
            stored = usable_chunks(self.writer.stored_chunks(ref), ref)
            spans = missing_spans(ref, stored, target.low, target.limit, self.chunk_size)
            rng = _OpenRange(target, stored, deque(ChunkTask(ref, a, b) for a, b in spans))
            self._on_plan(sum(b - a + 1 for a, b in spans))
            self._open.append(rng)
            if rng.idle:
                self._finish(rng)

    def _finish(self, rng: _OpenRange) -> None:
        self._open.remove(rng)
        ref = rng.target.ref
        stored = usable_chunks(rng.stored, ref)
        covered = chunks_cover(ref.first, ref.last, stored)
        self._write_manifest(rng, complete=covered)
        if covered:
            self.known_complete.add(ref)
            self.completed.append(ref)
            self._awaiting[ref] = sum(c.bytes for c in stored)

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
