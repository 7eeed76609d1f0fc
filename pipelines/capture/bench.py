"""The capture benchmark: throughput against N connections and the client's own CPU.

serve-nntp runs in a process of its own, paced like a provider, so the CPU measured here
is the capture's alone. Each run fetches for a fixed time and stops; throughput is the
lines stored over the run's wall time.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from pipelines.capture.planner import PlanSettings
from pipelines.capture.prefetch import Capture, CaptureSettings
from pipelines.capture.progress import CaptureSummary
from pipelines.capture.schedule import Limits
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.sample import write_sample_corpus

BENCH_GROUP = "alt.binaries.bench"


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
    module = "pipelines.commands.serve_nntp"
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


def run_once(port: int, connections: int, variant: str, seconds: float, chunk: int) -> BenchRun:
    root = tempfile.mkdtemp(prefix="bench-capture-")
    try:
        provider = Provider("127.0.0.1", port, connections=connections, compression=variant,
                            timeout=30.0)  # fmt: skip
        settings = CaptureSettings(
            plan=PlanSettings(range_size=10**9, chunk_size=chunk, headroom=0),
            limits=Limits(ranges_open=1),
        )
        capture = Capture(ProviderPools([provider]), root, [BENCH_GROUP], settings)
        timer = threading.Timer(seconds, capture.stop, ("benchmark time is up",))
        timer.start()
        try:
            summary = capture.run()
        finally:
            timer.cancel()
        return BenchRun(connections, summary)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def make_corpus(folder: str, lines: int, chunk: int) -> str:
    root = str(Path(folder) / f"corpus-{lines}-{chunk}")  # reused only when it fits
    if not Path(root, BENCH_GROUP).exists():
        write_sample_corpus(root, {BENCH_GROUP: (1, lines)}, 10**9, chunk)
    return root
