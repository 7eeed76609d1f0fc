"""The header pass's benchmark: one generated range, indexed whole, against its floors.

Prints headers/s per core (lines / CPU seconds of the pass: inflate to Parquet written),
peak RSS of the indexing process, bytes on disk per header and per kept segment, and the
floors measured on the same data in the same run: inflate plus one newline scan (time),
and the kept segments' bare message-ids, one a line in posting order, compressed with
zstd -19 (segment storage). Also the least any pass of this shape does, on the same
data: inflate, the field scan and the kept message-ids' column written as release_files
writes it (the shape floor): what the pass spends beyond it is all the parsing,
grouping and the other columns.
"""

from __future__ import annotations

import multiprocessing as mp
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import zstandard

from pipelines.index.warm import compile_apart, warm_up, write_range

RANGE_SIZE = 1 << 62  # one range holds the whole generated span


@dataclass
class BenchFigures:
    lines: int
    cpu_seconds: float
    wall_seconds: float
    peak_rss_mb: float
    floor_cpu_seconds: float
    segments: int
    release_files_bytes: int
    releases_bytes: int
    catalog_bytes: int
    floor_segment_bytes: int
    pass_cpu_runs: list[float] = field(default_factory=list)
    floor_cpu_runs: list[float] = field(default_factory=list)
    stage_cpu: dict[str, float] = field(default_factory=dict)  # of the counted run
    # minor page faults of the counted run: pages the kernel mapped and zeroed for it
    # (pipelines/process.py keeps them few; many say its settings did not apply)
    page_faults: int = 0
    shape_floor_cpu_seconds: float = 0.0

    def text(self) -> str:
        rate = self.lines / self.cpu_seconds
        floor_rate = self.lines / self.floor_cpu_seconds
        per_seg = self.release_files_bytes / max(self.segments, 1)
        floor_seg = self.floor_segment_bytes / max(self.segments, 1)
        runs = []
        if len(self.pass_cpu_runs) > 1:
            runs.append(
                f"best of {len(self.pass_cpu_runs)} runs; pass CPU-s "
                + ", ".join(f"{c:.2f}" for c in self.pass_cpu_runs)
                + "; floor CPU-s "
                + ", ".join(f"{c:.2f}" for c in self.floor_cpu_runs)
            )
        return "\n".join(
            [
                f"headers: {self.lines:,}; kept segments: {self.segments:,}",
                *runs,
                f"header pass: {rate:,.0f} headers/s per core "
                f"({self.cpu_seconds:.2f} CPU-s, {self.wall_seconds:.2f} s wall)",
                *self._stages(),
                f"floor (inflate + newline scan): {floor_rate:,.0f} lines/s per core "
                f"({self.floor_cpu_seconds:.2f} CPU-s); pass / floor time: "
                f"{self.cpu_seconds / self.floor_cpu_seconds:.2f}x",
                *self._shape(),
                f"peak RSS of the indexing process: {self.peak_rss_mb:,.0f} MB; "
                f"page faults of the pass: {self.page_faults:,}",
                f"release_files: {self.release_files_bytes:,} B = {per_seg:.2f} B/segment; "
                f"floor (message-ids, zstd -19): {self.floor_segment_bytes:,} B = "
                f"{floor_seg:.2f} B/segment; ratio {per_seg / max(floor_seg, 1e-9):.2f}x",
                f"releases: {self.releases_bytes / self.lines:.3f} B/header; whole catalog "
                f"{self.catalog_bytes / self.lines:.2f} B/header",
            ]
        )

    def _shape(self) -> list[str]:
        if not self.shape_floor_cpu_seconds:
            return []
        shape = self.shape_floor_cpu_seconds
        return [
            f"shape floor (inflate + field scan + message-id column): {shape:.2f} CPU-s = "
            f"{shape / self.floor_cpu_seconds:.2f}x the floor; the pass beyond it "
            f"(parse, window, hand-out, other columns): {self.cpu_seconds - shape:.2f} CPU-s"
        ]

    def _stages(self) -> list[str]:
        if not self.stage_cpu:
            return []
        return [
            "  by stage (CPU-s): "
            + "; ".join(f"{stage} {cpu:.2f}" for stage, cpu in self.stage_cpu.items())
        ]


def _index_child(corpus: str, catalog: str, rules_spec: tuple[int, bool], queue: Any) -> None:
    from bench.rule_set import set_up_rules
    from pipelines.corpus.reader import CorpusReader
    from pipelines.index.range_indexer import index_range
    from pipelines.index.rules import Rules

    if rules_spec[0] or rules_spec[1]:  # the operator's rules (docs/RULES.md), stored first
        set_up_rules(catalog, *rules_spec)
    reader = CorpusReader(corpus)
    group = reader.groups()[0]
    info = reader.complete_ranges(group)[0]
    rules = Rules()
    warm_up()  # the kernels loaded from the cache before the clock
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    result, _ = index_range(reader, info, catalog, rules, [group], None)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    queue.put(
        (
            result.headers,
            result.segments_kept,
            # every stage, the range log and the window's snapshot written after the
            # range's own count (result.cpu_seconds) too
            sum(result.stage_cpu.values()),
            result.seconds,
            _peak_kb(),
            result.stage_cpu,
            faults,
        )
    )


_Pass = tuple[int, int, float, float, int, dict[str, float], int]


def _result_of(child: Any, queue: Any) -> Any:
    """The child's figures; a child that dies without sending them (a crash, the OOM
    killer) is an error, not a wait forever."""
    import queue as queues

    while True:
        try:
            result = queue.get(timeout=1.0)
            break
        except queues.Empty:
            if not child.is_alive():
                raise RuntimeError(
                    f"the measuring process died without its figures (exit code {child.exitcode})"
                ) from None
    child.join()
    if child.exitcode:
        raise RuntimeError(f"the measuring process failed ({child.exitcode})")
    return result


def _peak_kb() -> int:
    """This process's own peak RSS. Not ru_maxrss: Linux carries that across exec, so a
    child would report its parent's peak (the generated range it holds)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _floor_child(corpus: str, queue: Any) -> None:
    """CPU-s of the time floor: inflate every chunk and count its lines, in a process of
    its own set up as the pass's (the same allocator settings, nothing else held)."""
    from kernels.scan import _count_lines
    from pipelines.corpus.codec import inflate
    from pipelines.process import set_up_process

    set_up_process()
    payloads = [p.read_bytes() for p in sorted(Path(corpus).rglob("*.xover.*"))]
    _count_lines(np.zeros(1, np.uint8))
    started = time.process_time()
    for payload in payloads:
        _count_lines(np.frombuffer(inflate(payload).data, np.uint8))
    queue.put(time.process_time() - started)


def _shape_child(corpus: str, catalog: str, queue: Any) -> None:
    """CPU-s of the shape floor: every chunk inflated and scanned into line and field
    offsets (`scan_chunk`, as the pass does), and the kept message-ids written as
    release_files' `seg_ids` column with its layout. Best of 3, in a process of its own."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from kernels.scan import scan_chunk
    from pipelines.catalog.reader import read_parquet
    from pipelines.catalog.writer import LAYOUT
    from pipelines.corpus.codec import inflate
    from pipelines.corpus.fs import open_fs
    from pipelines.corpus.reader import CorpusReader
    from pipelines.process import set_up_process

    set_up_process()
    reader = CorpusReader(corpus)
    info = reader.complete_ranges(reader.groups()[0])[0]
    assert info.manifest is not None
    folder = info.ref.path(corpus)
    chunks = [(Path(folder, e.file).read_bytes(), e.first, e.last) for e in info.manifest.chunks]
    fs, _ = open_fs(catalog)
    ids = pa.concat_tables(
        read_parquet(fs, str(p), ["seg_ids"]) for p in Path(catalog).glob("release_files/*/*")
    )
    layout = LAYOUT["release_files"]
    options = {
        "compression_level": layout["compression_level"],
        "use_dictionary": False,
        "write_statistics": False,
        "column_encoding": {"seg_ids.list.element": "PLAIN"},
    }
    scan_chunk(b"1\tx\n", 1, 1)  # compiled or loaded before the clock starts
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        for payload, first, last in chunks:
            scan_chunk(inflate(payload).data, first, last)
        with pq.ParquetWriter(pa.BufferOutputStream(), ids.schema, compression="zstd",
                              **options) as writer:  # fmt: skip
            writer.write_table(ids, row_group_size=layout["row_group_size"])
        best = min(best, time.process_time() - started)
    queue.put(best)


def _child_cpu(ctx: Any, target: Any, *args: str) -> float:
    queue = ctx.Queue()
    child = ctx.Process(target=target, args=(*args, queue))
    child.start()
    cpu: float = _result_of(child, queue)
    return cpu


def _floor_bytes(corpus: Path, catalog: Path) -> int:
    """Bytes of the segment floor: the kept message-ids, one a line in posting order,
    compressed with zstd -19 (the same for every run of one range: measured once)."""
    from pipelines.catalog.reader import read_parquet
    from pipelines.corpus.codec import inflate
    from pipelines.corpus.fs import open_fs

    fs, _ = open_fs(str(catalog))
    kept = set()
    for path in catalog.glob("release_files/*/*.parquet"):
        for ids in read_parquet(fs, str(path), ["seg_ids"]).column(0).to_pylist():
            kept.update(ids)
    ordered = []
    for path in sorted(corpus.rglob("*.xover.*")):
        for line in inflate(path.read_bytes()).data.split(b"\r\n"):
            fields = line.split(b"\t")
            if len(fields) > 4:
                mid = fields[4].strip(b"<> ").decode("utf-8", "replace")
                if mid in kept:
                    ordered.append(mid)
    body = "\n".join(ordered).encode() + b"\n"
    return len(zstandard.ZstdCompressor(level=19).compress(body))


def run_bench(
    n_lines: int = 2_000_000,
    seed: int = 1,
    chunk: int = 100_000,
    repeat: int = 1,
    operator_rules: int = 0,
    nzedb: bool = False,
) -> BenchFigures:
    """The figures of one generated range; with repeat > 1 the pass (each time in a fresh
    process, into a fresh catalog) and the floor alternate that many times and the least
    CPU of each counts: on a shared machine the other load only ever adds time. With
    `operator_rules` (and `nzedb`), the catalog holds that rule set (`bench.rule_set`)."""
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        print(f"generating a range of {n_lines:,} lines ...", flush=True)
        write_range(corpus, n_lines, seed, chunk)
        ctx = mp.get_context("spawn")
        # kernels compiled into the cache by a process of their own: compiling in the
        # measured child (the first run after an upgrade) put LLVM's memory in its peak
        print("compiling or loading the kernels ...", flush=True)
        compile_apart(sys.stdout)
        passes: list[_Pass] = []
        floors: list[float] = []
        for attempt in range(repeat):
            catalog = Path(tmp) / f"catalog-{attempt}"
            print(f"indexing it in a fresh process ({attempt + 1}/{repeat}) ...", flush=True)
            queue = ctx.Queue()
            spec = (operator_rules, nzedb)
            child = ctx.Process(target=_index_child, args=(str(corpus), str(catalog), spec, queue))
            child.start()
            passes.append(_result_of(child, queue))
            print(f"measuring the time floor ({attempt + 1}/{repeat}) ...", flush=True)
            floors.append(_child_cpu(ctx, _floor_child, str(corpus)))
            if attempt:  # the catalogs are byte for byte the same: one is measured below
                shutil.rmtree(catalog)
        headers, segments, cpu, wall, _, stages, faults = min(passes, key=lambda p: p[2])
        catalog = Path(tmp) / "catalog-0"
        print("measuring the segment floor and the shape floor ...", flush=True)
        floor_bytes = _floor_bytes(corpus, catalog)
        shape = _child_cpu(ctx, _shape_child, str(corpus), str(catalog))
        size = {
            t: sum(p.stat().st_size for p in catalog.glob(f"{t}/*/*.parquet"))
            for t in ("release_files", "releases")
        }
        total = sum(p.stat().st_size for p in catalog.rglob("*") if p.is_file())
        return BenchFigures(
            lines=headers,
            cpu_seconds=cpu,
            wall_seconds=wall,
            # the highest peak of the runs: memory is what the worst one needed
            peak_rss_mb=max(p[4] for p in passes) / 1024,
            floor_cpu_seconds=min(floors),
            segments=segments,
            release_files_bytes=size["release_files"],
            releases_bytes=size["releases"],
            catalog_bytes=total,
            floor_segment_bytes=floor_bytes,
            pass_cpu_runs=[p[2] for p in passes],
            floor_cpu_runs=floors,
            stage_cpu=stages,
            page_faults=faults,
            shape_floor_cpu_seconds=shape,
        )
