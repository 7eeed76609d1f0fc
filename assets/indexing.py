"""How a run calls the header pass: a group's ranges in article order, groups side by side.

Glue between a run's partition keys and `pipelines.index.range_indexer.index_range`: it
loads the window the group's previous range left, refuses when that range is not
indexed yet, and takes a redone range out of compacted files first. No indexing logic.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from pipelines.corpus.layout import RangeRef
from pipelines.corpus.reader import CorpusReader, RangeInfo
from pipelines.index.range_indexer import RangeResult, index_range
from pipelines.index.rules import Rules
from pipelines.index.snapshot import DamagedSnapshot, has_snapshot, load_window
from pipelines.index.window import Window


class OutOfOrder(Exception):
    """A range was asked for before the group's previous range was indexed (or when that
    range's window can no longer be read back)."""


class NotInCorpus(Exception):
    """A partition names a range the corpus does not hold (complete)."""


@dataclass(frozen=True)
class GroupJob:
    corpus: str
    catalog: str
    rules: Rules
    group: str
    refs: tuple[RangeRef, ...]


def previous_range(reader: CorpusReader, ref: RangeRef) -> tuple[RangeInfo, RangeInfo | None]:
    """The range's corpus info and the group's range before it (None: the first)."""
    infos = reader.ranges(ref.group)
    for i, info in enumerate(infos):
        if info.ref == ref:
            if not info.complete:
                raise NotInCorpus(f"{ref.group} {ref.name} is not complete: {info.problem}")
            return info, (infos[i - 1] if i else None)
    raise NotInCorpus(f"the corpus has no range {ref.group} {ref.name}")


def index_group(
    job: GroupJob, on_range: Callable[[RangeResult], None] | None = None
) -> list[RangeResult]:
    """Index job.refs (one group, article order), carrying the window from range to range."""
    reader = CorpusReader(job.corpus)
    priority = job.rules.priority(reader.groups())
    results = []
    window: Window | None = None
    carried_from: RangeRef | None = None
    for ref in sorted(job.refs, key=lambda r: r.first):
        info, prev = previous_range(reader, ref)
        if prev is not None and carried_from != prev.ref:
            window = _window_after(job.catalog, prev.ref, ref)
        elif prev is None:
            window = None
        result, window = index_range(reader, info, job.catalog, job.rules, priority, window)
        carried_from = ref
        results.append(result)
        if on_range is not None:
            on_range(result)
    return results


def _window_after(catalog: str, p: RangeRef, ref: RangeRef) -> Window:
    if not has_snapshot(catalog, p.group, p.first, p.last):
        raise OutOfOrder(
            f"cannot index {ref.group}|{ref.name}: the group's previous range, partition "
            f"{p.group}|{p.name}, is not materialized yet; materialize it first "
            "(a group's ranges run in article order, each carrying the window of the one before)"
        )
    try:
        window = load_window(catalog, p.group, p.first, p.last)
    except DamagedSnapshot as exc:
        raise OutOfOrder(
            f"cannot index {ref.group}|{ref.name}: {exc}; materialize partition "
            f"{p.group}|{p.name} again first (it writes a new one)"
        ) from exc
    assert window is not None  # has_snapshot said it exists
    return window


def index_groups(
    jobs: list[GroupJob],
    workers: int,
    on_range: Callable[[RangeResult], None] | None = None,
) -> tuple[list[RangeResult], list[str]]:
    """Run the groups' jobs, up to `workers` groups at once in worker processes.

    A group that fails stops at its failing range; the others go on. Returns the results
    and one message per failed group.
    """
    results: list[RangeResult] = []
    failures: list[str] = []
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            try:
                results.extend(index_group(job, on_range))
            except (OutOfOrder, NotInCorpus, ValueError) as exc:
                failures.append(f"{job.group}: {exc}")
        return results, failures
    # spawn, not fork: the parent runs threads (Dagster's), which fork would copy mid-lock
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=context) as pool:
        futures = [(job, pool.submit(index_group, job)) for job in jobs]
        for job, future in futures:
            try:
                done = future.result()
            except (OutOfOrder, NotInCorpus, ValueError) as exc:
                failures.append(f"{job.group}: {exc}")
                continue
            results.extend(done)
            if on_range is not None:
                for r in done:
                    on_range(r)
    return results, failures
