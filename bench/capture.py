"""The capture benchmark: throughput against N connections and the client's own CPU.

serve-nntp runs in a process of its own, paced like a provider, so the CPU measured here
is the capture's alone. Each run fetches for a fixed time and stops; throughput is the
lines stored over the run's wall time.
"""

from __future__ import annotations

import bisect
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipelines.capture.planner import PlanSettings, missing_spans
from pipelines.capture.prefetch import Capture, CaptureSettings
from pipelines.capture.progress import CaptureSummary
from pipelines.capture.schedule import Limits
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.writer import CorpusWriter
from pipelines.generate import generate_range_lines
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider

BENCH_GROUP = "alt.binaries.bench"
BENCH_RANGE = 10**9  # one range: the runs measure connections, not range turnover


@dataclass
class BenchRun:
    connections: int
    summary: CaptureSummary

    @property
    def cpu_per_100k(self) -> float:
        """Percent of one core per 100 k lines/s captured."""
        s = self.summary
        if not s.seconds or not s.lines:
            return 0.0
        return 100.0 * (s.cpu_seconds / s.seconds) / (s.lines_per_second / 1e5)


def start_server(corpus: str, rate: float, extra: list[str]) -> tuple[subprocess.Popen[str], int]:
    module = "cli.commands.serve_nntp"
    cmd = [sys.executable, "-m", module, "serve-nntp", corpus, "--port", "0",
           "--lines-per-second", str(rate), *extra]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "listening on" not in line:
        proc.kill()
        raise RuntimeError(f"serve-nntp did not start: {line!r}")
    port = int(line.split("listening on ", 1)[1].split(";")[0].rsplit(":", 1)[1])
    return proc, port


def run_once(
    port: int, connections: int, variant: str, chunks_each: int, chunk: int, bounds: tuple[int, int]
) -> BenchRun:
    """Capture `chunks_each` chunks per connection, on connections opened beforehand.

    A real capture keeps its connections for hours, so their opening is left out: the
    clock and the CPU count start once all of them are logged in. Every connection gets
    the same work, so they also finish together.
    """
    root = tempfile.mkdtemp(prefix="bench-capture-")
    settings = bench_settings(connections, chunks_each, chunk, bounds)
    try:
        provider = Provider("127.0.0.1", port, connections=connections, compression=variant,
                            timeout=30.0)  # fmt: skip
        pools = ProviderPools([provider])
        log_in(pools)
        capture = Capture(pools, root, [BENCH_GROUP], settings)
        return BenchRun(connections, capture.run())
    finally:
        shutil.rmtree(root, ignore_errors=True)


def bench_settings(
    connections: int, chunks_each: int, chunk: int, bounds: tuple[int, int]
) -> CaptureSettings:
    """A run of `chunks_each` chunks a connection: the headroom stops it there."""
    low, high = bounds
    limit = (low // chunk) * chunk + connections * chunks_each * chunk - 1
    if limit > high:
        raise ValueError(f"the sample corpus ends at {high}, the run needs {limit}")
    return CaptureSettings(
        plan=PlanSettings(range_size=BENCH_RANGE, chunk_size=chunk, headroom=high - limit),
        limits=Limits(ranges_open=1),
    )


def log_in(pools: ProviderPools) -> None:
    """Every connection opened, logged in and in the group before the clock starts (a real
    capture keeps its connections for hours)."""
    held = [pool.acquire() for pool in pools.slots()]
    for client, pool in zip(held, pools.slots(), strict=True):
        client.group(BENCH_GROUP)
        pool.release(client)


def make_corpus(folder: str, lines: int, chunk: int) -> tuple[str, tuple[int, int]]:
    """A one-group corpus of generated lines (`pipelines.generate`), chunked on the grid the
    capture plans, so every request is exactly a stored chunk (a provider's cached reply)."""
    root = str(Path(folder) / f"corpus-{lines}-{chunk}")  # reused only when it fits
    done = Path(root, BENCH_GROUP, "bounds")
    if done.exists():
        low, high = (int(x) for x in done.read_text().split())
        return root, (low, high)
    text, first, last = generate_range_lines(lines, seed=0)
    arr = np.frombuffer(text, dtype=np.uint8)
    ends = np.flatnonzero(arr == 10) + 1
    starts = np.concatenate(([0], ends[:-1]))

    def number(i: int) -> int:
        at = int(starts[i])
        return int(text[at : text.index(b"\t", at)])

    writer = CorpusWriter(root)
    ref = RangeRef(BENCH_GROUP, 0, BENCH_RANGE - 1)
    entries, lo = [], 0
    for a, b in missing_spans(ref, [], first, last, chunk):
        hi = bisect.bisect_right(range(len(starts)), b, lo=lo, key=number)
        entries.append(
            writer.write_chunk(ref, a, b, text[starts[lo] : ends[hi - 1]] if hi > lo else b"")
        )
        lo = hi
    writer.write_manifest(ref, entries, complete=False)
    done.write_text(f"{first} {last}")
    return root, (first, last)
