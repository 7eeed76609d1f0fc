"""How a run indexes its ranges: each group's in article order, groups side by side.

What a Dagster run (one partition or a backfill of many) does with its ranges: each
group's ranges in article order, carrying the window from one to the next; the first
starts from the window the group's previous range left (`schedule.start_window`), and a
group whose previous range is not indexed (or whose window is lost) is refused.

A group is read from its primary backbone and filled in from the others, as `replay`
does (`pipelines.index.backbones`, docs/BACKBONES.md); a range that must wait for another
backbone's capture stops its group there (`RangeWaits`): skipped, not failed, and asked
for again later. A corpus of one backbone reads exactly as before.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from pipelines.corpus.layout import RangeRef
from pipelines.index.backbones import CorpusBackbones, start_fill
from pipelines.index.range_indexer import RangeResult, index_range
from pipelines.index.rules import Rules
from pipelines.index.schedule import (
    NotInCorpus,
    OutOfOrder,
    previous_range,
    record_rules,
    start_window,
)
from pipelines.index.warm import compile_apart
from pipelines.index.window import Window


@dataclass(frozen=True)
class GroupJob:
    corpus: str
    catalog: str
    rules: Rules
    group: str
    refs: tuple[RangeRef, ...]


class RangeWaits(Exception):
    """A range that waits for another backbone's capture (`Fill.waiting`): its group stops
    there, with the ranges indexed before it; not a failure."""

    def __init__(self, ref: RangeRef, why: str, results: list[RangeResult]) -> None:
        super().__init__(ref, why, results)  # the args pickle: it crosses worker processes
        self.ref, self.why, self.results = ref, why, results

    def __str__(self) -> str:
        return f"{self.ref.group} {self.ref.name} waits: {self.why}"


def index_group(
    job: GroupJob, on_range: Callable[[RangeResult], None] | None = None
) -> list[RangeResult]:
    """Index job.refs (one group, article order), carrying the window from range to range;
    RangeWaits when one must wait for another backbone."""
    backbones = CorpusBackbones(job.corpus)  # the group from its primary backbone
    reader = backbones.reader(job.catalog, job.group)
    others = backbones.others(job.catalog, job.group) if backbones.holders(job.group) else []
    priority = job.rules.priority(backbones.groups())
    record_rules(job.catalog, job.rules)
    compile_apart()  # a first run after an install compiles the kernels apart
    results: list[RangeResult] = []
    window: Window | None = None
    carried_from: RangeRef | None = None
    for ref in sorted(job.refs, key=lambda r: r.first):
        info, prev = previous_range(reader, ref)
        before = prev.ref if prev else None
        if prev is None or carried_from != prev.ref:
            window = start_window(job.catalog, ref, before)
        fill = start_fill(job.catalog, ref, before, others)
        if fill is not None and (waiting := fill.waiting()):
            raise RangeWaits(ref, waiting, results)
        result, window = index_range(
            reader, info, job.catalog, job.rules, priority, window, fill=fill
        )
        carried_from = ref
        results.append(result)
        if on_range is not None:
            on_range(result)
    return results


# what stops a group's run; the other groups go on (a RangeWaits is no failure)
GROUP_FAILURES = (OutOfOrder, NotInCorpus, ValueError, RangeWaits)


def index_groups(
    jobs: list[GroupJob],
    workers: int,
    on_range: Callable[[RangeResult], None] | None = None,
) -> tuple[list[RangeResult], list[tuple[str, Exception]]]:
    """Run the groups' jobs, up to `workers` groups at once in worker processes.

    A group that fails stops at its failing range; the others go on. Returns the results
    and, per stopped group, the group and what stopped it (a RangeWaits: the ranges it
    indexed before the range that waits are among the results).
    """
    results: list[RangeResult] = []
    failures: list[tuple[str, Exception]] = []
    compile_apart()  # once, before the workers (each would compile them on its own)
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            try:
                results.extend(index_group(job, on_range))
            except GROUP_FAILURES as exc:
                if isinstance(exc, RangeWaits):
                    results.extend(exc.results)  # each already told to on_range
                failures.append((job.group, exc))
        return results, failures
    # spawn, not fork: the parent runs threads (Dagster's), which fork would copy mid-lock
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=context) as pool:
        futures = [(job, pool.submit(index_group, job)) for job in jobs]
        for job, future in futures:
            try:
                done = future.result()
            except GROUP_FAILURES as exc:
                failures.append((job.group, exc))
                if not isinstance(exc, RangeWaits):
                    continue
                done = exc.results
            results.extend(done)
            if on_range is not None:
                for r in done:
                    on_range(r)
    return results, failures
