"""The serving benchmark: a real server process, a local load generator, printed figures.

Measures what issue 4 asks for: start-up (views and index over the whole catalog),
t=search latency with one- and two-word queries taken from the catalog's own names,
t=get latency on 100-file releases, sustained searches per second with concurrent
clients, the server's memory, and how long a newly landed range takes to be searchable.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import httpx
import numpy as np

from pipelines.catalog.layout import table_glob
from pipelines.catalog.synthetic import GROUPS, write_synthetic_catalog
from serving import text

KEY = "bench"


@dataclass
class BenchReport:
    releases_in_catalog: int = 0
    startup_seconds: float = 0.0
    search_ms: dict[str, float] = field(default_factory=dict)
    search_cpu_ms: float = 0.0  # server CPU per search: wall time minus waiting for a core
    get_ms: dict[str, float] = field(default_factory=dict)
    searches_per_second: float = 0.0
    load_clients: int = 0
    load_server_cpu: float = 0.0  # cores the server used during the load run
    machine_load: float = 0.0  # 1-minute load average when the run ended (2 cores)
    rss_mb: dict[str, float] = field(default_factory=dict)
    delta_seconds: float | None = None
    delta_releases: int = 0


def _percentiles(samples: list[float]) -> dict[str, float]:
    a = np.array(samples) * 1000
    return {
        "n": float(len(a)),
        "p50": round(float(np.percentile(a, 50)), 2),
        "p95": round(float(np.percentile(a, 95)), 2),
        "p99": round(float(np.percentile(a, 99)), 2),
        "max": round(float(a.max()), 2),
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _memory(pid: int) -> dict[str, float]:
    """VmRSS / VmHWM and the anonymous part (the mapped index pages are file-backed)."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            out[name] = round(int(value.split()[0]) / 1024, 1)
    return out


def ensure_catalog(catalog: str, releases: int) -> None:
    """Reuse a catalog that has releases partitions; otherwise write a synthetic one."""
    if list(Path(catalog).glob("releases/*/*.parquet")):
        return
    from tqdm import tqdm

    with tqdm(total=releases, unit="release", desc="synthetic catalog") as bar:
        done = [0]

        def progress(n: int) -> None:
            bar.update(n - done[0])
            done[0] = n

        write_synthetic_catalog(catalog, releases, groups=12, per_range=100_000, progress=progress)


def _sample(catalog: str) -> tuple[list[str], list[str]]:
    """Queries from real names (1 or 2 of their words) and keys of 100-file releases."""
    con = duckdb.connect()
    glob = table_glob(catalog, "releases")
    names = con.sql(
        f"SELECT name FROM read_parquet('{glob}') USING SAMPLE 4000 ROWS (reservoir, 7)"
    ).fetchall()
    rng = random.Random(7)
    queries = []
    for (name,) in names:
        words = [w for w in text.words(name) if len(w) > 1]
        if not words:
            continue
        k = 1 if rng.random() < 0.5 or len(words) < 2 else 2
        queries.append(" ".join(rng.sample(words, k)))
    # Not USING SAMPLE: it samples before the WHERE, and 100-file releases are rare.
    big = con.sql(
        f"SELECT release_key FROM read_parquet('{glob}') WHERE files >= 95 AND finished "
        "ORDER BY hash(release_key) LIMIT 200"
    ).fetchall()
    return queries, [bytes(k).hex() for (k,) in big]


def _timed(client: httpx.Client, url: str, params: dict[str, Any]) -> float:
    start = time.perf_counter()
    r = client.get(url, params=params)
    elapsed = time.perf_counter() - start
    if r.status_code != 200 or b"<error" in r.content[:200]:
        raise RuntimeError(
            f"bench request failed: {url} {params} -> {r.status_code} {r.text[:200]}"
        )
    return elapsed


def _load(base: str, queries: list[str], seconds: float, clients: int) -> float:
    stop = time.perf_counter() + seconds
    counts = [0] * clients

    def worker(i: int) -> None:
        rng = random.Random(i)
        with httpx.Client(base_url=base, timeout=30) as c:
            while time.perf_counter() < stop:
                q = rng.choice(queries)
                c.get("/api", params={"t": "search", "q": q, "apikey": KEY})
                counts[i] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - start)


def run_bench(
    catalog: str, releases: int, searches: int = 400, seconds: float = 10.0, clients: int = 4
) -> BenchReport:
    ensure_catalog(catalog, releases)
    report = BenchReport(load_clients=clients)
    queries, big = _sample(catalog)
    port = _free_port()
    index_dir = tempfile.mkdtemp(prefix="bench-index-")
    cmd = [sys.executable, "-m", "pipelines.cli", "serve", "--catalog", catalog, "--port",
           str(port), "--api-key", KEY, "--refresh", "1", "--index-dir", index_dir]  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    start = time.perf_counter()
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=60) as c:
            while True:
                if server.poll() is not None:
                    raise RuntimeError(f"server exited: {server.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
                try:
                    if c.get("/api", params={"t": "caps"}).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.2)
            report.startup_seconds = round(time.perf_counter() - start, 1)
            stats = c.get("/api", params={"t": "search", "apikey": KEY, "limit": 1}).text
            report.releases_in_catalog = int(stats.split('total="')[1].split('"')[0])
            for q in queries[:30]:  # warm the page cache like a running server has
                _timed(c, "/api", {"t": "search", "q": q, "apikey": KEY})
            cpu = _cpu_seconds(server.pid)
            timings = [
                _timed(c, "/api", {"t": "search", "q": q, "apikey": KEY})
                for q in queries[30 : 30 + searches]
            ]
            report.search_cpu_ms = round((_cpu_seconds(server.pid) - cpu) * 1000 / len(timings), 2)
            report.search_ms = _percentiles(timings)
            if big:
                gets = [_timed(c, "/api", {"t": "get", "id": k, "apikey": KEY}) for k in big[:100]]
                report.get_ms = _percentiles(gets)
        cpu, wall = _cpu_seconds(server.pid), time.perf_counter()
        report.searches_per_second = round(_load(base, queries, seconds, clients), 1)
        used = _cpu_seconds(server.pid) - cpu
        report.load_server_cpu = round(used / (time.perf_counter() - wall), 2)
        report.machine_load = os.getloadavg()[0]
        report.rss_mb = _memory(server.pid)
        report.delta_seconds, report.delta_releases = _delta(catalog, base)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    return report


def _delta(catalog: str, base: str) -> tuple[float | None, int]:
    """Land one new range and time until the running server finds its releases."""
    group = GROUPS[-1]
    n = 100_000
    with tempfile.TemporaryDirectory() as tmp:
        # Written aside, then moved in: the server sees the partitions whole.
        stats = write_synthetic_catalog(tmp, n, groups=1, first_group=len(GROUPS) - 1,
                                        first_range=9000, per_range=n, seed=99)  # fmt: skip
        landed = []
        for path in stats.paths:
            rel = Path(path).relative_to(tmp)
            target = Path(catalog) / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
            landed.append(target)
        start = time.perf_counter()
        seconds = None
        with httpx.Client(base_url=base, timeout=60) as c:
            while time.perf_counter() - start < 120:
                r = c.get("/api", params={"t": "search", "group": group, "apikey": KEY, "limit": 1})
                if 'total="0"' not in r.text and "<error" not in r.text:
                    seconds = round(time.perf_counter() - start, 2)
                    break
                time.sleep(0.05)
    for target in landed:  # leave the catalog as it was
        target.unlink(missing_ok=True)
    return seconds, n


def print_report(report: BenchReport, as_json: bool) -> None:
    if as_json:
        print(json.dumps(asdict(report)))
        return
    print(f"releases in catalog        {report.releases_in_catalog:,}")
    print(f"start-up (views + index)   {report.startup_seconds} s")
    s, g = report.search_ms, report.get_ms
    print(f"t=search latency           p50 {s.get('p50')} ms, p95 {s.get('p95')} ms, "
          f"p99 {s.get('p99')} ms ({int(s.get('n', 0))} queries, 1-2 words)")  # fmt: skip
    if g:
        print(
            f"t=get 100-file release     p50 {g['p50']} ms, p95 {g['p95']} ms ({int(g['n'])} NZBs)"
        )
    print(
        f"sustained t=search         {report.searches_per_second}/s ({report.load_clients} clients)"
    )
    print(f"server memory              {report.rss_mb}")
    print(
        f"new range searchable after {report.delta_seconds} s ({report.delta_releases:,} releases)"
    )
