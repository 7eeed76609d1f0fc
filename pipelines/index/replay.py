"""Replay a corpus into a catalog: every complete range of the chosen groups, in order.

Groups in priority order, each group's ranges in article order with the window carried.
Which ranges are due is the scheduler's answer (`pipelines.index.schedule`), the one the
Dagster sensor gets: a second run resumes after the last done range, and a rule change
redoes the ranges it touches. A range that is not complete stops its group there (the
window cannot carry across a hole), and the summary says so. A done range whose snapshot
cannot be read back is indexed again when the range after it needs its window (from the
window of the range before it, and so on back).

A group found idle (nothing due, its tail with nothing new) is remembered with the stamp
of its corpus and catalog folders (`pipelines.catalog.changes`): while none of them moves,
later runs skip it without reading its manifests, range logs or tail window, so a cycle
with nothing new costs a `stat` per folder, not a read per range.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from tqdm import tqdm

from pipelines.catalog.changes import UNKNOWN, Seen, Stamps, table_folders
from pipelines.catalog.partitions import is_local
from pipelines.corpus.fs import open_fs
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.reader import CorpusReader, RangeInfo
from pipelines.index.backbones import CorpusBackbones, start_fill
from pipelines.index.range_indexer import RangeResult, index_range
from pipelines.index.rules import Rules
from pipelines.index.schedule import (
    RULES_FOLDER,
    GroupSchedule,
    OutOfOrder,
    RangeTotals,
    record_rules,
    start_window,
)
from pipelines.index.tail import TailResult, growing_range, index_tail, tail_lines
from pipelines.index.warm import compile_apart
from pipelines.index.window import Window


@dataclass
class ReplaySummary:
    totals: RangeTotals = field(default_factory=RangeTotals)
    ranges_resumed: int = 0
    stopped: list[str] = field(default_factory=list)
    tails: list[TailResult] = field(default_factory=list)
    seconds: float = 0.0
    results: list[RangeResult] = field(default_factory=list)
    filled: dict[str, int] = field(default_factory=dict)  # the fill's outcomes (fill.py)

    @property
    def ranges_indexed(self) -> int:
        return self.totals.ranges

    def add(self, r: RangeResult) -> None:
        self.totals.add(r)
        self.results.append(r)
        for outcome, n in r.filled.items():
            self.filled[outcome] = self.filled.get(outcome, 0) + n

    def text(self) -> str:
        t = self.totals
        rate = t.headers / self.seconds if self.seconds else 0.0
        drops = ", ".join(f"{k} {v:,}" for k, v in sorted(t.drops.items())) or "none"
        lines = [
            f"indexed {t.ranges} ranges ({self.ranges_resumed} already done) in "
            f"{self.seconds:.1f} s: {t.headers:,} headers ({rate:,.0f}/s)",
            f"releases: {t.releases_finished:,} finished, {t.releases_provisional:,} "
            f"provisional; {t.files:,} files, {t.segments:,} segments; "
            f"{t.pending:,} pending (no usable name)",
            f"dropped by rule: {drops}; bad lines {t.bad_lines:,}",
        ]
        if self.filled:
            fill = ", ".join(f"{k} {v:,}" for k, v in sorted(self.filled.items()))
            lines.append(f"from other backbones: {fill}")
        lines += [t.text() for t in self.tails]
        lines += [f"stopped: {s}" for s in self.stopped]
        return "\n".join(lines)


def plan(reader: CorpusReader, group: str) -> tuple[list[RangeInfo], str]:
    """The group's complete ranges up to the first that is not, and why it stopped there."""
    ranges: list[RangeInfo] = []
    for info in reader.ranges(group):
        if not info.complete:
            return ranges, f"{group} {info.ref.name}: {info.problem}"
        ranges.append(info)
    return ranges, ""


def replay(
    corpus: str,
    catalog: str,
    rules: Rules,
    groups: list[str] | None = None,
    progress: bool = True,
    out: TextIO | None = None,
    tail: bool = True,
) -> ReplaySummary:
    """Index the due complete ranges of the chosen groups; then (`tail`) the part stored so
    far of each group's growing newest range (`pipelines.index.tail`)."""
    backbones = CorpusBackbones(corpus)  # each group from its primary backbone
    corpus_groups = backbones.groups()
    priority = rules.priority(corpus_groups)
    chosen = [g for g in priority if g in corpus_groups and (not groups or g in groups)]
    missing = sorted(set(groups or ()) - set(corpus_groups))
    if missing:
        raise ValueError(f"no such group in the corpus: {', '.join(missing)}")
    summary = ReplaySummary()
    # a group none of whose corpus or catalog folders moved since a run found it idle is
    # idle still: its ranges' manifests and logs and its tail's window are not read again
    memos = Stamps(catalog, "replay")
    extra = f"{rules.fingerprint}|{tail}|{','.join(priority)}"
    readers = {g: backbones.reader(catalog, g) for g in chosen}
    seen = {g: _stamp(memos, backbones, catalog, g, extra) for g in chosen}
    plans = {g: plan(readers[g], g) for g in chosen if not seen[g].same}
    if any(ranges for ranges, _ in plans.values()):
        # a first pass after an install compiles the kernels apart (its peak memory)
        compile_apart(sys.stderr if progress else None)
    started = time.perf_counter()
    total = sum(_lines(i) for ranges, _ in plans.values() for i in ranges)
    bar = tqdm(total=total, unit="hdr", unit_scale=True, desc="replay", disable=not progress)
    if any(ranges for ranges, _ in plans.values()):
        record_rules(catalog, rules)
    for group in chosen:
        if seen[group].same:
            _replay_idle(summary, group, seen[group].memo)
            continue
        ranges, stopped = plans[group]
        reader, others = readers[group], backbones.others(catalog, group)
        indexed, waits = _replay_group(
            reader, catalog, rules, priority, ranges, summary, bar, others
        )
        resumed = [info for info in ranges if info.ref not in indexed]
        summary.ranges_resumed += len(resumed)
        bar.update(sum(_lines(info) for info in resumed))
        growing = growing_range(reader, group) if tail else None
        stop = ""
        done: TailResult | None = None
        if growing is not None and _follows(growing[1], ranges):
            # the group's newest range, still being filled: what is stored of it
            bar.total += tail_lines(catalog, growing[0])
            bar.refresh()
            try:
                done = index_tail(reader, catalog, rules, priority, group, on_chunk=bar.update)
            except OutOfOrder as exc:
                stop = f"tail {group}: {exc}"
            else:
                summary.tails.append(done)
        elif stopped:
            stop = stopped
        if stop:
            summary.stopped.append(stop)
        # a range waiting for another backbone is looked at again: a backbone that stalls
        # moves no folder, yet holds the range back only for a while
        if not indexed and not waits and (done is None or done.part is None):
            memos.record(seen[group], _idle_memo(len(resumed), stop, done))
        else:
            memos.forget(group)  # its own writes moved its stamp: looked at again next run
    memos.save()
    bar.close()
    summary.seconds = time.perf_counter() - started
    if out is not None:
        out.write(summary.text() + "\n")
    return summary


def _stamp(memos: Stamps, backbones: CorpusBackbones, catalog: str, group: str, extra: str) -> Seen:
    """The group's stamp: its corpus folders on every backbone and their range folders
    (capture's new chunks and manifests), its range logs, windows, rule counts, tail
    state, and the rule sets."""
    _, root = open_fs(catalog)
    reader = backbones.reader(catalog, group)
    if not is_local(reader.fs):
        return Seen(group, UNKNOWN)  # no folder times to go by: the group is looked at
    folders = table_folders(root, ("ranges", "_window", "rule_counts"), group)
    folders.append(f"{root.rstrip('/')}/{RULES_FOLDER}")
    trees = [
        f"{r.root.rstrip('/')}/{group}"
        for _, r in [("", reader), *backbones.others(catalog, group)]
    ]
    trees.append(f"{root.rstrip('/')}/_tail/{group}")
    return memos.check(group, folders, trees, extra)


def _idle_memo(resumed: int, stopped: str, done: TailResult | None) -> dict[str, object]:
    tail = None if done is None else [done.first, done.last, done.cursor, done.note]
    return {"resumed": resumed, "stopped": stopped, "tail": tail}


def _replay_idle(summary: ReplaySummary, group: str, memo: dict[str, Any]) -> None:
    """What a run that found the group idle said, said again."""
    summary.ranges_resumed += int(memo.get("resumed", 0))
    if memo.get("stopped"):
        summary.stopped.append(str(memo["stopped"]))
    tail = memo.get("tail")
    if isinstance(tail, list):
        first, last, cursor, note = tail
        summary.tails.append(TailResult(group, first, last, cursor=cursor, note=note))


def _replay_group(
    reader: CorpusReader,
    catalog: str,
    rules: Rules,
    priority: list[str],
    ranges: list[RangeInfo],
    summary: ReplaySummary,
    bar: tqdm,
    others: list[tuple[str, CorpusReader]] | None = None,
) -> tuple[set[RangeRef], bool]:
    """Index the group's due ranges in order, as the scheduler names them; which, and
    whether one waits for another backbone's capture."""
    schedule = GroupSchedule(catalog, [i.ref for i in ranges], rules)
    position = {info.ref: i for i, info in enumerate(ranges)}
    window: Window | None = None
    carried_from: RangeRef | None = None
    indexed: set[RangeRef] = set()
    while (due := schedule.next_due()) is not None:
        i = position[due.ref]
        before = ranges[i - 1].ref if i else None
        if before is None or carried_from != before:
            try:
                window = start_window(catalog, due.ref, before)
            except OutOfOrder as exc:
                if not exc.lost:
                    raise
                # Its window is lost: index that range again, from the one before it.
                bar.write(f"{exc.lost}: indexing {exc.before.group} {exc.before.name} again")
                schedule.indexed(exc.before)
                continue
        bar.set_postfix_str(f"{due.ref.group} {due.ref.name}")
        fill = start_fill(catalog, due.ref, before, others or [])
        if fill is not None and (waiting := fill.waiting()):
            summary.stopped.append(f"{due.ref.group} {due.ref.name} waits: {waiting}")
            return indexed, True
        result, window = index_range(
            reader, ranges[i], catalog, rules, priority, window, on_chunk=bar.update, fill=fill
        )
        summary.add(result)
        schedule.indexed(due.ref)
        carried_from = due.ref
        indexed.add(due.ref)
    return indexed, False


def _follows(before: RangeInfo | None, ranges: list[RangeInfo]) -> bool:
    """Does a growing range whose predecessor is `before` follow the complete `ranges`?"""
    if before is None:
        return not ranges
    return bool(ranges) and before.ref == ranges[-1].ref


def _lines(info: RangeInfo) -> int:
    return sum(c.lines for c in info.manifest.chunks) if info.manifest else 0
