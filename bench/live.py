"""The live bench: how soon a new upload answers a search, and what following costs.

A generated group is served by `serve-nntp --grow`: its articles become visible at a set
rate, as a group being posted to, a share of them there from the start (history).
`usenet-indexer live` runs against it with its defaults (a cycle a minute) and serves the
catalog; this process knows when each article became visible (the growth's start and
rate) and, every two seconds, searches by name (`t=search&q=`) for each upload whose
last article is visible and that has not answered yet. An upload's *delay* is from its
last article's visibility to its release (found by its key among the answers) answering;
one that answered before that, while still provisional, counts 0. The uploads are the
releases of a batch replay of the same corpus.

It also reads the live process's CPU (user + system, from /proc): per 100 k lines
captured, while idle between cycles, and up to its first cycle (the start-up: the history
there at the start, captured and indexed).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pipelines.nntpserver.ports import free_port, wait_port

POLL = 2.0  # seconds between searches for the uploads not found yet


@dataclass
class LiveFigures:
    uploads: int
    found: int
    delays: list[float]
    interval: float
    rate: float
    lines_captured: int = 0
    cpu_seconds: float = 0.0
    startup_seconds: float = 0.0
    startup_cpu: float = 0.0
    idle_cpu_share: float = 0.0
    missing: list[str] = field(default_factory=list)

    def text(self) -> str:
        d = np.array(self.delays) if self.delays else np.zeros(1)
        per_100k = self.cpu_seconds / max(self.lines_captured, 1) * 100_000
        lines = [
            f"uploads: {self.uploads} (articles visible at {self.rate:,.0f}/s, live cycles "
            f"every {self.interval:.0f} s); answered t=search by name: {self.found}",
            f"delay from an upload's last article to its search answer: p50 "
            f"{np.percentile(d, 50):.1f} s, p95 {np.percentile(d, 95):.1f} s, max {d.max():.1f} s",
            f"live process CPU: {self.cpu_seconds:.1f} s for {self.lines_captured:,} lines "
            f"captured = {per_100k:.2f} CPU-s per 100 k new lines; between cycles "
            f"{100 * self.idle_cpu_share:.2f} % of a core",
            f"start-up (to the end of the first cycle, with the history there): "
            f"{self.startup_seconds:.1f} s, {self.startup_cpu:.1f} CPU-s",
        ]
        if self.missing:
            lines.append(f"never answered: {len(self.missing)} (first: {self.missing[0]})")
        return "\n".join(lines)


def _cpu(pid: int) -> float:
    """User + system CPU-seconds of a process (Linux)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _uploads(corpus: str, catalog: str) -> tuple[list[tuple[bytes, str, int]], int, int]:
    """(release key, name, last article) of every readable release a batch replay makes,
    and the group's low and high article, as the news server reports them."""
    from pipelines.catalog.views import CatalogViews
    from pipelines.index.replay import replay
    from pipelines.index.rules import Rules
    from pipelines.nntpserver.served import ServedCorpus

    replay(corpus, catalog, Rules(), progress=False)
    views = CatalogViews(catalog)
    views.refresh()
    try:
        rows = views.query(
            "SELECT release_key, name, last_article FROM releases ORDER BY last_article"
        ).to_pylist()
    finally:
        views.close()
    ups = [(r["release_key"], r["name"], int(r["last_article"])) for r in rows if r["name"]]
    (group,) = ServedCorpus(corpus).groups.values()
    return ups, group.low, group.high


def _answers(port: int, name: str) -> set[str]:
    query = urllib.parse.urlencode({"t": "search", "q": name, "o": "json", "limit": "100"})
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api?{query}", timeout=10) as r:
        doc: dict[str, Any] = json.loads(r.read())
    items = doc.get("channel", {}).get("item") or []
    return {str(item.get("guid", "")) for item in items}


def run_bench(
    articles: int = 60_000,
    rate: float = 200.0,
    history: float = 0.3,
    interval: float = 60.0,
    seed: int = 3,
    out: Any = sys.stdout,
) -> LiveFigures:
    from pipelines.generate import GenerateConfig, generate_corpus

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print(f"generating a group of {articles:,} articles ...", file=out, flush=True)
        config = GenerateConfig(groups=1, articles=articles, seed=seed, mix="real",
                                range_size=20_000, chunk=5_000)  # fmt: skip
        generate_corpus(str(root / "served"), config, progress=False)
        served = str(root / "served" / "corpus")
        ups, low, high = _uploads(served, str(root / "batch"))
        start = int(history * (high - low + 1))
        nntp_port, web_port = free_port(), free_port()
        nntp = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "serve-nntp", served, "--port", str(nntp_port),
             "--grow", str(rate), "--grow-from", str(start)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, process_group=0,
        )  # fmt: skip
        live: subprocess.Popen[str] | None = None
        try:
            wait_port(nntp_port, 60)
            grown_at = time.monotonic()  # the growth starts as the server listens
            group = json.loads((root / "served" / "generate.json").read_text())["groups"][0]
            print(f"serving {group['name']}: {start:,} articles there, {rate:,.0f}/s more; "
                  f"live every {interval:.0f} s", file=out, flush=True)  # fmt: skip
            started = time.monotonic()
            live = subprocess.Popen(
                [sys.executable, "-m", "cli.main", "live", "--server",
                 f"127.0.0.1:{nntp_port}", "--group", group["name"], "--corpus",
                 str(root / "corpus"), "--catalog", str(root / "catalog"), "--port",
                 str(web_port), "--interval", str(interval), "--range-size", "20000",
                 "--chunk-size", "5000"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, process_group=0,
                env=dict(os.environ, PYTHONUNBUFFERED="1"),
            )  # fmt: skip
            figures = _follow(live, ups, low, start, rate, grown_at, started, interval,
                              web_port, high, out)  # fmt: skip
        finally:
            for proc in (live, nntp):
                if proc is not None and proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGINT)
                    try:
                        proc.wait(30)
                    except subprocess.TimeoutExpired:
                        proc.kill()
        return figures


def _follow(
    live: subprocess.Popen[str],
    ups: list[tuple[bytes, str, int]],
    low: int,
    start: int,
    rate: float,
    grown_at: float,
    started: float,
    interval: float,
    port: int,
    high: int,
    out: Any,
) -> LiveFigures:
    """Search for each visible upload until it answers; read the live process's CPU."""
    cycles: list[tuple[float, float, int]] = []  # (time, CPU, lines captured so far)
    lines_total = [0]

    def read() -> None:
        assert live.stdout is not None
        for line in live.stdout:
            if line.startswith("cycle "):
                now = time.monotonic()
                captured = int(line.split("captured ", 1)[1].split(" ", 1)[0].replace(",", ""))
                lines_total[0] += captured
                cycles.append((now, _cpu(live.pid), lines_total[0]))
                out.write("  " + line)
                out.flush()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def visible_at(article: int) -> float:
        return grown_at + max(0, article - (low - 1 + start)) / rate

    pending = {key: (name, last) for key, name, last in ups}
    delays: list[float] = []
    done_at = visible_at(high) + 2 * interval + 30
    while pending and time.monotonic() < done_at and live.poll() is None:
        now = time.monotonic()
        for key, (name, last) in list(pending.items()):
            if visible_at(last) > now:
                continue
            try:
                answered = any(key.hex() in guid for guid in _answers(port, name))
            except OSError:
                break  # the server is not up yet
            if answered:
                delays.append(max(0.0, time.monotonic() - visible_at(last)))
                del pending[key]
        time.sleep(POLL)
    cpu = _cpu(live.pid) if live.poll() is None else 0.0
    first = cycles[0] if cycles else (time.monotonic(), cpu, 0)
    figures = LiveFigures(len(ups), len(delays), delays, interval, rate)
    figures.lines_captured = cycles[-1][2] if cycles else 0
    figures.cpu_seconds = (cycles[-1][1] - first[1]) if len(cycles) > 1 else cpu
    figures.lines_captured -= first[2] if len(cycles) > 1 else 0
    figures.startup_seconds = first[0] - started
    figures.startup_cpu = first[1]
    # CPU between cycles: a second after the next cycle's end, for part of the wait
    seen, deadline = len(cycles), time.monotonic() + interval + 60
    while len(cycles) == seen and time.monotonic() < deadline and live.poll() is None:
        time.sleep(0.2)
    time.sleep(1.0)
    figures.idle_cpu_share = _idle_share(live.pid, interval) if live.poll() is None else 0.0
    figures.missing = [name for name, _ in pending.values()]
    return figures


def _idle_share(pid: int, interval: float) -> float:
    """The live process's CPU share over a part of one wait between cycles."""
    span = min(10.0, interval / 3)
    before, t0 = _cpu(pid), time.monotonic()
    time.sleep(span)
    return (_cpu(pid) - before) / (time.monotonic() - t0)
