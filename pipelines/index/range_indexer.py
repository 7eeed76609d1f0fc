"""Index one (group, range): its chunks, with the window carried from the previous range.

The stage every caller shares: the `replay` CLI, the Dagster assets and the benchmark.
It reads the range, feeds the window, writes the range's partitions of every catalog
table, and writes the window snapshot last.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pyarrow as pa

from pipelines.catalog import schema
from pipelines.catalog.compact import uncompact_range
from pipelines.catalog.probe_outputs import drop_probe_outputs
from pipelines.catalog.tail import TailPart, drop_tail_partitions
from pipelines.catalog.writer import write_partition
from pipelines.collector import fewer_collections
from pipelines.corpus.reader import CorpusReader, RangeInfo, RangeReport
from pipelines.index.catalog_rows import CatalogRows
from pipelines.index.fill import Fill
from pipelines.index.parse import RULE_BAD_LINE, Drops, group_context, parse_chunk
from pipelines.index.rule_rows import rule_counts, rule_hits, rule_samples
from pipelines.index.rules import Rules
from pipelines.index.snapshot import save_window
from pipelines.index.window import Window
from pipelines.merge.store import drop_merge_outputs
from pipelines.process import set_up_process
from pipelines.rules.current import catalog_rules

# the stages of a range's CPU, in the order they run
STAGES = (
    "setup",
    "read, inflate, scan",
    "parse",
    "window",
    "hand-out",
    "tables, Parquet",
    "range log, snapshot",
)


class _StageClock:
    """CPU-seconds since the last tick, added to a stage: a clock read per stage and
    chunk (~1 us), cheap beside a chunk's ~100 ms."""

    def __init__(self, started: float) -> None:
        self.spent = dict.fromkeys(STAGES, 0.0)
        self.last = started

    def tick(self, stage: str) -> None:
        now = time.process_time()
        self.spent[stage] += now - self.last
        self.last = now


@dataclass
class RangeResult:
    group: str
    first: int
    last: int
    rules_version: str
    headers: int = 0
    bad_lines: int = 0
    segments_kept: int = 0
    releases_finished: int = 0
    releases_provisional: int = 0
    files: int = 0
    pending: int = 0
    drops: dict[str, int] = field(default_factory=dict)
    crossposts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    bytes_written: dict[str, int] = field(default_factory=dict)
    report: RangeReport | None = None
    # CPU-seconds by stage (STAGES), what the benchmark prints beside the whole pass
    stage_cpu: dict[str, float] = field(default_factory=dict)
    # the fill from other backbones (pipelines/index/fill.py): its counts, by outcome
    filled: dict[str, int] = field(default_factory=dict)

    @property
    def adds_up(self) -> bool:
        return self.headers == self.segments_kept + sum(self.drops.values()) + self.bad_lines

    @property
    def headers_per_second(self) -> float:
        return self.headers / self.seconds if self.seconds else 0.0


@fewer_collections()
def index_range(
    reader: CorpusReader,
    info: RangeInfo,
    catalog: str,
    rules: Rules,
    priority: list[str],
    window: Window | None,
    on_chunk: Callable[[int], None] | None = None,
    tail: TailPart | None = None,
    fill: Fill | None = None,
) -> tuple[RangeResult, Window]:
    """Index one range; `window` is the state the group's previous range left (None: first).

    `tail`: only the part of a growing range stored past what its tail indexed before
    (`pipelines.index.tail`), from the window that tail left: the part's rows go to tail
    partitions, with no range log and no range snapshot (the tail keeps its own window).
    A range indexed whole removes the tail partitions of its span.

    `fill`: the articles the group's other backbones hold and this one lacks are put
    into its chunks (`pipelines.index.fill`); its state is recorded before the snapshot.
    """
    set_up_process()  # before the clock: a one-off setting of the process
    started, cpu_started = time.perf_counter(), time.process_time()
    ref = info.ref
    # the span the rows are written for: the range, or the tail's part of it
    first, last = (tail.first, tail.last) if tail else (ref.first, ref.last)
    rules = catalog_rules(catalog, rules, record=True)  # with the catalog's operator rules
    version = rules.fingerprint
    window = window if window is not None else Window(rules)
    window.rules = rules
    if tail is None:
        # a redone range's old rows may sit in compact files: take them out first
        uncompact_range(catalog, ref.group, ref.first, ref.last)
    ctx = group_context(ref.group, priority, rules)
    out = CatalogRows(ref.group, first, version)
    drops = Drops()
    report = RangeReport(ref.group, first, last)
    kept = 0
    clock = _StageClock(cpu_started)
    clock.tick("setup")
    after = tail.first - 1 if tail else None
    chunks = reader.read_range(info, report, after)
    if fill is not None:
        chunks = fill.chunks(chunks, report)
    for chunk in chunks:
        if tail and chunk.first > tail.last:
            break
        clock.tick("read, inflate, scan")
        parsed = parse_chunk(chunk, ctx, rules, window.frontier, drops)
        kept += len(parsed.number)
        clock.tick("parse")
        window.add(parsed)
        parsed.slim()
        handed = window.finish_due()
        clock.tick("window")
        out.take(handed, True, window.is_batch_total)
        clock.tick("hand-out")
        if on_chunk is not None:
            on_chunk(len(chunk.lines))
        # this chunk's text and line index (~30 MB) go before the next one is inflated,
        # not when the loop rebinds its names: two chunks alive at once set the peak.
        # Not right after the parse: the window's and the hand-out's allocations then
        # split the chunk's freed block, the next chunk's text no longer fit in it and
        # the heap grew (peak 427-429 against 400-418 MB, two runs each)
        del chunk, parsed, handed
    clock.tick("read, inflate, scan")  # the end of the range's last chunk
    handed = window.carry()
    clock.tick("window")
    out.take(handed, False, window.is_batch_total)
    clock.tick("hand-out")

    result = RangeResult(ref.group, first, last, version, report=report)
    result.headers = report.lines
    result.segments_kept = kept
    for (rule, detail), n in sorted(drops.counts.items()):
        if rule == RULE_BAD_LINE:
            result.bad_lines += n
        elif rule == "crosspost":
            result.crossposts[detail] = result.crossposts.get(detail, 0) + n
            result.drops[rule] = result.drops.get(rule, 0) + n
        else:
            result.drops[rule] = result.drops.get(rule, 0) + n
    result.releases_finished = out.finished
    result.releases_provisional = out.provisional
    result.files = out.files.written
    result.pending = len(out.releases.pending)

    tables = out.tables()
    tables["rule_counts"] = rule_counts(ref.group, first, last, version, drops)
    tables["rule_samples"] = rule_samples(ref.group, first, drops)
    tables["rule_hits"] = rule_hits(ref.group, first, last, version, drops)
    for name, table in tables.items():
        result.bytes_written[name] = write_partition(
            catalog, name, ref.group, first, last, table, tail=tail is not None
        )
    result.seconds = time.perf_counter() - started
    clock.tick("tables, Parquet")
    result.cpu_seconds = clock.last - cpu_started
    result.stage_cpu = clock.spent
    if tail is not None:
        return result, window
    # the range's own rows replace what its tail wrote of it, what the article pass made
    # of its old candidates (it probes the range again) and the merges holding its
    # releases (they are merged again)
    drop_tail_partitions(catalog, ref.group, ref.first, ref.last)
    drop_probe_outputs(catalog, ref.group, ref.first, ref.last)
    drop_merge_outputs(catalog, ref.group, ref.first, ref.last)
    if fill is not None:  # before the snapshot: a done range has its fill's state
        result.bytes_written["_fill"] = fill.save(catalog)
        result.filled = dict(fill.counts)
    # the range log, then the snapshot: the snapshot marks the range done
    result.bytes_written["ranges"] = write_partition(
        catalog, "ranges", ref.group, ref.first, ref.last, _range_row(result)
    )
    result.bytes_written["_window"] = save_window(
        catalog, ref.group, ref.first, ref.last, window, version
    )
    # again once the range is done: a tail run of the range that wrote a part after the
    # first removal (it began while the range was still growing) finds the snapshot
    # after its write and removes its part itself, or is removed here
    drop_tail_partitions(catalog, ref.group, ref.first, ref.last)
    # after the range log, which holds the CPU-seconds up to its own write: the stage
    # times (stage_cpu, the same dict) count the whole range
    clock.tick("range log, snapshot")
    return result, window


def _range_row(r: RangeResult) -> pa.Table:
    row = {
        "group": r.group,
        "range_first": r.first,
        "range_last": r.last,
        "rules_version": r.rules_version,
        "headers": r.headers,
        "bad_lines": r.bad_lines,
        "segments_kept": r.segments_kept,
        "releases_finished": r.releases_finished,
        "releases_provisional": r.releases_provisional,
        "files": r.files,
        "pending": r.pending,
        "seconds": round(r.seconds, 3),
        "indexed_at": int(time.time()),
    }
    return pa.Table.from_pylist([row], schema.RANGES)
