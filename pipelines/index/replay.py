"""Replay a corpus into a catalog: every complete range of the chosen groups, in order.

Groups in priority order, each group's ranges in article order with the window carried.
A range whose snapshot exists under the same rules is done: a second run resumes after
the last done range. A range that is not complete stops its group there (the window
cannot carry across a hole), and the summary says so. A done range whose snapshot
cannot be read back is indexed again when the range after it needs its window (from
the window of the range before it, and so on back).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TextIO

import pyarrow as pa
from tqdm import tqdm

from pipelines.catalog.layout import partition_path
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.corpus.reader import CorpusReader, RangeInfo
from pipelines.index.range_indexer import RangeResult, index_range
from pipelines.index.rules import Rules
from pipelines.index.snapshot import DamagedSnapshot, has_snapshot, load_window
from pipelines.index.window import Window


@dataclass
class ReplaySummary:
    ranges_indexed: int = 0
    ranges_resumed: int = 0
    headers: int = 0
    bad_lines: int = 0
    segments: int = 0
    releases_finished: int = 0
    releases_provisional: int = 0
    files: int = 0
    pending: int = 0
    drops: dict[str, int] = field(default_factory=dict)
    stopped: list[str] = field(default_factory=list)
    seconds: float = 0.0
    results: list[RangeResult] = field(default_factory=list)

    def add(self, r: RangeResult) -> None:
        self.ranges_indexed += 1
        self.headers += r.headers
        self.bad_lines += r.bad_lines
        self.segments += r.segments_kept
        self.releases_finished += r.releases_finished
        self.releases_provisional += r.releases_provisional
        self.files += r.files
        self.pending += r.pending
        for rule, n in r.drops.items():
            self.drops[rule] = self.drops.get(rule, 0) + n
        self.results.append(r)

    def text(self) -> str:
        rate = self.headers / self.seconds if self.seconds else 0.0
        drops = ", ".join(f"{k} {v:,}" for k, v in sorted(self.drops.items())) or "none"
        lines = [
            f"indexed {self.ranges_indexed} ranges ({self.ranges_resumed} already done) in "
            f"{self.seconds:.1f} s: {self.headers:,} headers ({rate:,.0f}/s)",
            f"releases: {self.releases_finished:,} finished, {self.releases_provisional:,} "
            f"provisional; {self.files:,} files, {self.segments:,} segments; "
            f"{self.pending:,} pending (no usable name)",
            f"dropped by rule: {drops}; bad lines {self.bad_lines:,}",
        ]
        lines += [f"stopped: {s}" for s in self.stopped]
        return "\n".join(lines)


def done_under(catalog: str, info: RangeInfo, version: str) -> bool:
    """The range was indexed (snapshot written) with this rule set."""
    ref = info.ref
    if not has_snapshot(catalog, ref.group, ref.first, ref.last):
        return False
    fs, root = open_fs(catalog)
    path = partition_path(root, "ranges", ref.group, ref.first, ref.last)
    if not fs.exists(path):
        return False
    try:
        stamped = read_parquet(fs, path, ["rules_version"]).column(0).to_pylist()
    except (OSError, pa.ArrowException):
        return False  # a damaged range log: the range is redone, which rewrites it
    return stamped == [version]


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
) -> ReplaySummary:
    reader = CorpusReader(corpus)
    corpus_groups = reader.groups()
    priority = rules.priority(corpus_groups)
    chosen = [g for g in priority if g in corpus_groups and (not groups or g in groups)]
    missing = sorted(set(groups or ()) - set(corpus_groups))
    if missing:
        raise ValueError(f"no such group in the corpus: {', '.join(missing)}")
    summary = ReplaySummary()
    started = time.perf_counter()
    version = rules.fingerprint
    plans = {g: plan(reader, g) for g in chosen}
    total = sum(_lines(i) for ranges, _ in plans.values() for i in ranges)
    bar = tqdm(total=total, unit="hdr", unit_scale=True, desc="replay", disable=not progress)
    for group in chosen:
        ranges, stopped = plans[group]
        window: Window | None = None
        redo: set[int] = set()  # done ranges whose snapshot turned out damaged
        i = 0
        while i < len(ranges):
            info = ranges[i]
            if i not in redo and done_under(catalog, info, version):
                summary.ranges_resumed += 1
                bar.update(_lines(info))
                window = None
                i += 1
                continue
            # the window a done range left, read only when the range after it is indexed
            if window is None and i > 0:
                prev = ranges[i - 1]
                try:
                    window = load_window(catalog, group, prev.ref.first, prev.ref.last)
                except DamagedSnapshot as exc:
                    # Its window is lost: index that range again, from the one before it.
                    bar.write(f"{exc}: indexing {group} {prev.ref.name} again")
                    summary.ranges_resumed -= 1
                    bar.update(-_lines(prev))
                    redo.add(i - 1)
                    i -= 1
                    continue
            bar.set_postfix_str(f"{group} {info.ref.name}")
            result, window = index_range(
                reader, info, catalog, rules, priority, window, on_chunk=bar.update
            )
            summary.add(result)
            i += 1
        if stopped:
            summary.stopped.append(stopped)
    bar.close()
    summary.seconds = time.perf_counter() - started
    if out is not None:
        out.write(summary.text() + "\n")
    return summary


def _lines(info: RangeInfo) -> int:
    return sum(c.lines for c in info.manifest.chunks) if info.manifest else 0
