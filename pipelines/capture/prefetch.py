"""The capture: every connection of every provider fetches chunks all the time.

One worker thread per connection slot pulls chunks from the pass's `Schedule`, fetches
them on a pooled connection, and stores them with the corpus writer. A failure of one
connection costs that chunk one more attempt on a fresh connection; wrong credentials, an
unknown group or a server that keeps failing stop the whole capture cleanly: workers
finish, the manifests of what is stored are written, nothing half-written is listed.

A pass covers a part of each group (`CaptureSettings.part`): `all` from the low mark to
the fetch limit (the CLI: history, then with `--tail` the same pass again); or, when
history and tail are separate runs that may overlap in time (Dagster's jobs), `tail`
from the group's tail mark up (`tail.py`; the first tail pass sets it) and `history`
below it (nothing for a group the tail has not marked yet: the tail goes first).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from pipelines.capture.planner import PlanSettings, fetch_limit, group_ranges
from pipelines.capture.progress import CaptureSummary, Progress
from pipelines.capture.schedule import ChunkTask, Limits, Schedule, Target
from pipelines.capture.tail import TailMark, read_tail, write_tail
from pipelines.corpus.layout import RangeRef, plan_ranges
from pipelines.corpus.reader import CorpusReader
from pipelines.corpus.writer import CorpusWriter
from pipelines.nntp.client import GroupInfo
from pipelines.nntp.errors import NNTPError
from pipelines.nntp.pool import ConnectionPool, ProviderPools

log = logging.getLogger(__name__)


class CaptureError(Exception):
    """The capture stopped before its work was done; the corpus holds what was stored."""

    def __init__(self, message: str, summary: CaptureSummary) -> None:
        super().__init__(message)
        self.summary = summary


PARTS = ("all", "history", "tail")


def run_threads(threads: list[threading.Thread], interrupted: Callable[[], None]) -> None:
    """Start the threads and wait for them all. On Ctrl-C (which only this thread sees)
    call `interrupted` so they finish what they hold, wait for them, and raise it on."""
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
    except KeyboardInterrupt:
        interrupted()
        for thread in threads:
            thread.join()
        raise


@dataclass
class CaptureSettings:
    plan: PlanSettings = field(default_factory=PlanSettings)
    limits: Limits = field(default_factory=Limits)
    storage_options: dict[str, object] | None = None
    part: str = "all"  # "all", "history" (below the tail mark) or "tail" (from it)

    def __post_init__(self) -> None:
        if self.part not in PARTS:
            raise ValueError(f"part must be one of {PARTS}, not {self.part!r}")


class Capture:
    def __init__(
        self,
        pools: ProviderPools,
        root: str,
        groups: list[str],
        settings: CaptureSettings | None = None,
        progress: Progress | None = None,
        consumed: Callable[[RangeRef], bool] | None = None,
    ) -> None:
        if not groups:
            raise ValueError("no group to capture")
        self.pools = pools
        self.groups = groups
        self.settings = settings or CaptureSettings()
        self.writer = CorpusWriter(root, storage_options=self.settings.storage_options)
        self.reader = CorpusReader(root, storage_options=self.settings.storage_options)
        slots = pools.slots()
        self.progress = progress or Progress(
            [f"{p.provider.label}#{i}" for i, p in enumerate(slots)], show=False
        )
        self.consumed = consumed
        self.known_complete: dict[RangeRef, int] = {}  # complete ranges seen: stored bytes
        self.high_water: dict[str, int] = {}  # per group, the fetch limit of the last pass
        self.bounds_seen: dict[str, GroupInfo] = {}  # per group, GROUP's answer at that pass
        self.tails: dict[str, TailMark] = {}  # per group, its tail mark (parts tail, history)
        self._stop = threading.Event()
        self._schedule: Schedule | None = None

    def stop(self, reason: str = "stopped by request") -> None:
        self._stop.set()
        if self._schedule is not None:
            self._schedule.stop(reason)

    # -- a pass --------------------------------------------------------------------------

    def bounds(self) -> dict[str, GroupInfo]:
        pool = self.pools.pools[0]
        out = {}
        with pool.connection() as client:
            for group in self.groups:
                out[group] = client.group(group)
        return out

    def targets(self, bounds: dict[str, GroupInfo]) -> dict[str, Iterator[Target]]:
        """Each group's ranges of the pass's part in fetch order, made as they are asked for."""
        plan = self.settings.plan
        out = {}
        self.bounds_seen.update(bounds)
        for group in self.groups:
            info = bounds[group]
            limit = fetch_limit(info.high, plan)
            if not info.count or limit < info.low:
                continue
            self.high_water[group] = limit
            span = self._part_span(group, info.low, limit)
            if span is not None:
                out[group] = self._group_targets(group, info.low, *span)
        return out

    def _group_targets(self, group: str, low: int, first: int, limit: int) -> Iterator[Target]:
        for ref in group_ranges(group, first, limit, self.settings.plan):
            yield Target(ref, low, limit)

    def _part_span(self, group: str, low: int, limit: int) -> tuple[int, int] | None:
        """The articles the pass covers in the group: (first, limit), or None."""
        part = self.settings.part
        if part == "all":
            return low, limit
        fs, root = self.writer.fs, self.writer.root
        mark = read_tail(fs, root, group)
        if part == "history":
            if mark is None:
                log.info("capture: %s has no tail mark yet: the tail goes first", group)
                return None
            self.tails[group] = mark
            last = min(limit, mark.first - 1)
            return (low, last) if last >= low else None
        if mark is None:  # the group's first tail pass: its range from the limit on
            first = plan_ranges(limit, limit, self.settings.plan.range_size)[0][0]
            mark = TailMark(group, first, first)
            write_tail(fs, root, mark)  # before anything is fetched: history keeps below
        self.tails[group] = mark
        return max(low, mark.resume), limit

    def _advance_tails(self) -> None:
        """After a tail pass: each mark's `resume` past the ranges the tail completed."""
        if self.settings.part != "tail":
            return
        for group, mark in list(self.tails.items()):
            limit = self.high_water.get(group)
            if limit is None:
                continue
            resume = mark.resume
            for first, last in plan_ranges(mark.resume, limit, self.settings.plan.range_size):
                ref = RangeRef(group, first, last)
                if ref not in self.known_complete and not self.reader.range_info(ref).complete:
                    break
                resume = last + 1
            if resume != mark.resume:
                mark = TailMark(group, mark.first, resume)
                write_tail(self.writer.fs, self.writer.root, mark)
                self.tails[group] = mark

    def run_pass(self) -> Schedule:
        """Fetch everything missing up to each group's current limit; returns the schedule."""
        try:
            bounds = self.bounds()
        except NNTPError as exc:
            schedule = self._new_schedule({})
            schedule.fail_hard(f"cannot read group bounds: {exc}", exc)
            return schedule
        schedule = self._new_schedule(self.targets(bounds))
        self._schedule = schedule
        if self._stop.is_set():
            schedule.stop("stopped by request")
        workers = [
            threading.Thread(target=self._work, args=(i, pool, schedule), daemon=True)
            for i, pool in enumerate(self.pools.slots())
        ]
        try:
            run_threads(workers, lambda: schedule.stop("interrupted"))
        finally:
            schedule.flush()
            self.progress.count("ranges_completed", len(schedule.completed))
            self.progress.count("retries", schedule.retries)
            self.progress.count("truncated", schedule.truncated)
            self.progress.count("splits", schedule.splits)
        try:
            self._advance_tails()
        except OSError as exc:  # only a shortcut for the next pass: it starts lower
            log.warning("capture: cannot move the tail marks on: %s", exc)
        return schedule

    def _new_schedule(self, targets: dict[str, Iterator[Target]]) -> Schedule:
        return Schedule(
            targets,
            self.writer,
            self.reader,
            self.settings.limits,
            self.settings.plan.chunk_size,
            server=",".join(p.provider.label for p in self.pools.pools),
            consumed=self.consumed,
            known_complete=self.known_complete,
            on_plan=self.progress.plan,
        )

    def _work(self, slot: int, pool: ConnectionPool, schedule: Schedule) -> None:
        while True:
            try:
                task = schedule.next_task()  # may read a range's stored chunks
            except Exception as exc:
                schedule.fail_hard(f"planning from the stored corpus: {exc}", exc)
                return
            if task is None:
                return
            try:
                self._fetch(slot, pool, schedule, task)
            except NNTPError as exc:
                pause = schedule.failed(task, exc)
                if pause:
                    self._stop.wait(pause)
            except Exception as exc:  # a disk that fails: stop, never guess
                schedule.fail_hard(f"storing {task.ref.group} {task.first}-{task.last}: {exc}", exc)

    def _fetch(self, slot: int, pool: ConnectionPool, schedule: Schedule, task: ChunkTask) -> None:
        with pool.connection() as client:
            if client.group_name != task.ref.group:
                client.group(task.ref.group)
            before = client.bytes_in
            started = time.monotonic()
            reply = client.over(task.first, task.last)
            busy = time.monotonic() - started
            wire = client.bytes_in - before
        entry = self.writer.write_compressed_chunk(
            task.ref, task.first, task.last, reply.payload, reply.lines, reply.codec
        )
        self.progress.chunk(
            slot, task.articles, reply.lines, wire, entry.bytes, busy, reply.recompressed
        )
        schedule.done(task, entry)

    # -- history and tail ------------------------------------------------------------------

    def run(
        self, tail: bool = False, interval: float = 300.0, passes: int | None = None
    ) -> CaptureSummary:
        """History first; with `tail`, then a pass every `interval` seconds (or `passes` times).

        Ctrl-C ends the run like a stop: workers finish their chunks, the manifests of what
        is stored are written, and the summary says "interrupted".
        """
        done = 0
        stopped = ""
        error: BaseException | None = None
        try:
            while True:
                schedule = self.run_pass()
                done += 1
                stopped, error = schedule.stopped, schedule.error
                if tail and isinstance(error, NNTPError) and error.retryable:
                    # a provider down for a while does not end a tail: the next pass retries
                    log.warning("capture: pass %d failed, retrying in %.0f s: %s",
                                done, interval, stopped)  # fmt: skip
                    error = None
                elif error is not None or (stopped and not tail):
                    break
                if self._stop.is_set() or not tail or (passes is not None and done >= passes):
                    break
                if self._stop.wait(interval):
                    break
        except KeyboardInterrupt:
            stopped = "interrupted"
        finally:
            self.pools.close()
        summary = self.progress.finish(stopped)
        if error is not None:
            raise CaptureError(stopped, summary) from error
        return summary
