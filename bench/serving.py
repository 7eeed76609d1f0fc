"""The serving benchmark: a real server process, a local load generator, printed figures.

Measures what issue 4 asks for: start-up (views and index over the whole catalog),
t=search latency with one- and two-word queries taken from the catalog's own names,
t=get latency on 100-file releases, sustained searches per second with concurrent
clients, the server's memory, and how long a newly landed range takes to be searchable.
It passes 400 lines because each figure needs its own small driver (start-up, searches,
downloads, load, refresh) around one server process; the synthetic catalog it serves is
bench.synthetic_catalog.
"""

from __future__ import annotations

import json
import os
import random
import shutil
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

from bench.synthetic_catalog import GROUPS, write_synthetic_catalog
from pipelines.catalog.layout import table_glob
from serving import text
from serving.timing import parse_server_timing

KEY = "bench"


@dataclass
class BenchReport:
    releases_in_catalog: int = 0
    startup_seconds: float = 0.0
    restart_seconds: float = 0.0  # the same catalog and index folder: segments reused
    search_ms: dict[str, float] = field(default_factory=dict)
    search_cpu_ms: float = 0.0  # server CPU per search: wall time minus waiting for a core
    get_ms: dict[str, float] = field(default_factory=dict)
    get_cpu_ms: float = 0.0
    # Server-Timing stages (wall ms, "<stage> cpu" ms) of the median gets and the slowest tenth
    get_stages: dict[str, dict[str, float]] = field(default_factory=dict)
    searches_per_second: float = 0.0
    load_clients: int = 0
    workers: int = 1
    search_cache: int | None = None  # the server's --search-cache (None: its default)
    load_server_cpu: float = 0.0  # cores the server used during the load run
    machine_load: float = 0.0  # 1-minute load average when the run ended (2 cores)
    rss_mb: dict[str, dict[str, float]] = field(default_factory=dict)
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


def _tree(pid: int) -> list[int]:
    """The process and its descendants (the `--workers` builder and its workers)."""
    out = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split()
        for child in children:
            out += _tree(int(child))
    return out


def _tree_cpu(pid: int) -> float:
    return sum(_cpu_seconds(p) for p in _tree(pid))


def _memory(pid: int) -> dict[str, float]:
    """VmRSS / VmHWM, the anonymous part, and the mapped index files' resident pages by
    kind (file-backed: page cache the kernel can drop, shared with other readers)."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
            out[name] = round(int(value.split()[0]) / 1024, 1)
    mapped: dict[str, float] = {}
    current = ""
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5 and not line.startswith(("Rss", "Pss")):
            current = Path(head[5]).name if len(head) >= 6 and "seg-" in head[5] else ""
        elif line.startswith("Rss:") and current:
            kind = current.rsplit(".", 1)[0]
            mapped[kind] = mapped.get(kind, 0.0) + int(head[1]) / 1024
    out.update({f"index:{k}": round(v, 1) for k, v in sorted(mapped.items()) if v >= 1})
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
    # Distinct: the timed searches are then all answered by the index, not the cache.
    queries = list(dict.fromkeys(queries))
    # Not USING SAMPLE: it samples before the WHERE, and 100-file releases are rare.
    big = con.sql(
        f"SELECT release_key FROM read_parquet('{glob}') WHERE files >= 95 AND finished "
        "ORDER BY hash(release_key) LIMIT 200"
    ).fetchall()
    return queries, [bytes(k).hex() for (k,) in big]


def _timed(client: httpx.Client, url: str, params: dict[str, Any]) -> float:
    return _timed_response(client, url, params)[0]


def _timed_response(
    client: httpx.Client, url: str, params: dict[str, Any]
) -> tuple[float, httpx.Response]:
    start = time.perf_counter()
    r = client.get(url, params=params)
    elapsed = time.perf_counter() - start
    if r.status_code != 200 or b"<error" in r.content[:200]:
        raise RuntimeError(
            f"bench request failed: {url} {params} -> {r.status_code} {r.text[:200]}"
        )
    return elapsed, r


def _stage_split(timed: list[tuple[float, httpx.Response]]) -> dict[str, dict[str, float]]:
    """Mean Server-Timing stages of the middle fifth of the gets and of the slowest tenth:
    what the tail does that the median does not."""
    ranked = sorted(timed, key=lambda t: t[0])
    n = len(ranked)
    groups = {"median": ranked[2 * n // 5 : max(3 * n // 5, 2 * n // 5 + 1)],
              "slowest 10%": ranked[n - max(1, n // 10) :]}  # fmt: skip
    out = {}
    for label, members in groups.items():
        sums: dict[str, float] = {"total": 0.0}
        for elapsed, r in members:
            sums["total"] += elapsed * 1000
            for name, ms in parse_server_timing(r.headers.get("server-timing", "")).items():
                sums[name] = sums.get(name, 0.0) + ms
        out[label] = {name: round(v / len(members), 2) for name, v in sums.items()}
    return out


def _load(base: str, queries: list[str], seconds: float, clients: int) -> float:
    """Searches per second from `clients` keep-alive connections, each a thread sending
    ready-made requests over a raw socket and reading responses by Content-Length: the
    generator shares the machine with the server, so it must cost little per request
    (~30 us; `http.client` took ~10x that, which the server then lacked)."""
    from urllib.parse import urlencode, urlsplit

    split = urlsplit(base)
    address = (split.hostname or "127.0.0.1", split.port or 80)
    requests = [
        f"GET /api?{urlencode({'t': 'search', 'q': q, 'apikey': KEY})} HTTP/1.1\r\n"
        f"Host: {split.netloc}\r\n\r\n".encode()
        for q in queries
    ]
    stop = time.perf_counter() + seconds
    counts = [0] * clients

    def worker(i: int) -> None:
        rng = random.Random(i)
        with socket.create_connection(address, timeout=30) as sock:
            pending = bytearray()
            while time.perf_counter() < stop:
                sock.sendall(rng.choice(requests))
                status, ok, pending = _response(sock, pending)
                counts[i] += status == 200 and ok

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - start)


def _response(sock: socket.socket, pending: bytearray) -> tuple[int, bool, bytearray]:
    """Read one HTTP/1.1 response (with Content-Length); its status, whether its body is
    not a Newznab error (those come with status 200), and what follows it."""
    while (end := pending.find(b"\r\n\r\n")) < 0:
        chunk = sock.recv(1 << 16)
        if not chunk:
            raise RuntimeError("server closed the connection")
        pending += chunk
    head = bytes(pending[:end]).lower()
    found = head.find(b"content-length:")
    if found < 0:
        raise RuntimeError(f"response without Content-Length: {head[:200]!r}")
    line_end = head.find(b"\r\n", found)
    length = int(head[found + 15 : line_end if line_end >= 0 else len(head)])
    total = end + 4 + length
    while len(pending) < total:
        chunk = sock.recv(1 << 16)
        if not chunk:
            raise RuntimeError("server closed the connection")
        pending += chunk
    ok = b"<error" not in pending[end + 4 : min(total, end + 4 + 200)]
    return int(head[9:12]), ok, pending[total:]


def _start(
    catalog: str, index_dir: str, workers: int, search_cache: int | None = None
) -> tuple[subprocess.Popen, str, float]:
    """A `serve` process; returns once it answers caps (its index is built by then)."""
    port = _free_port()
    cmd = [sys.executable, "-m", "cli.main", "serve", "--catalog", catalog, "--port",
           str(port), "--api-key", KEY, "--refresh", "1", "--index-dir", index_dir,
           "--workers", str(workers)]  # fmt: skip
    if search_cache is not None:
        cmd += ["--search-cache", str(search_cache)]
    # No daily limits: the key's counters live in the index folder and survive restarts,
    # so a day of bench runs would end in "Request limit reached" errors.
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "USENET_INDEXER_DAILY_REQUESTS": "0",
           "USENET_INDEXER_DAILY_DOWNLOADS": "0"}  # fmt: skip
    start = time.perf_counter()
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=base, timeout=60) as c:
        while True:
            if server.poll() is not None:
                err = server.stderr.read().decode() if server.stderr else ""
                raise RuntimeError(f"server exited: {err[-2000:]}")
            try:
                if c.get("/api", params={"t": "caps"}).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
    return server, base, round(time.perf_counter() - start, 1)


def _stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


def run_bench(
    catalog: str,
    releases: int,
    searches: int = 400,
    seconds: float = 10.0,
    clients: int = 4,
    workers: int = 2,
    index_dir: str | None = None,
    search_cache: int | None = None,
) -> BenchReport:
    """With `index_dir`, segments left there by an earlier run are reused (start-up then
    measures a restart) and kept afterwards; otherwise a temp folder is built and removed."""
    ensure_catalog(catalog, releases)
    report = BenchReport(load_clients=clients, workers=workers, search_cache=search_cache)
    queries, big = _sample(catalog)
    keep = index_dir is not None
    index_dir = index_dir or tempfile.mkdtemp(prefix="bench-index-")
    try:
        server, base, report.startup_seconds = _start(catalog, index_dir, workers, search_cache)
        try:
            _measure(report, server, base, queries, big, searches, seconds, clients)
            report.delta_seconds, report.delta_releases = _delta(catalog, base)
        finally:
            _stop(server)
        # A restart on the same index folder reuses every segment: no rebuild.
        server, _, report.restart_seconds = _start(catalog, index_dir, workers)
        _stop(server)
    finally:
        if not keep:
            shutil.rmtree(index_dir, ignore_errors=True)
    return report


def _measure(report: BenchReport, server: subprocess.Popen, base: str, queries: list[str],
             big: list[str], searches: int, seconds: float, clients: int) -> None:  # fmt: skip
    with httpx.Client(base_url=base, timeout=60) as c:
        stats = c.get("/api", params={"t": "search", "apikey": KEY, "limit": 1}).text
        report.releases_in_catalog = int(stats.split('total="')[1].split('"')[0])
        for q in queries[:30]:  # warm the page cache like a running server has
            _timed(c, "/api", {"t": "search", "q": q, "apikey": KEY})
        cpu = _tree_cpu(server.pid)
        timings = [
            _timed(c, "/api", {"t": "search", "q": q, "apikey": KEY})
            for q in queries[30 : 30 + searches]
        ]
        report.search_cpu_ms = round((_tree_cpu(server.pid) - cpu) * 1000 / len(timings), 2)
        report.search_ms = _percentiles(timings)
        if big:
            cpu = _tree_cpu(server.pid)
            timed = [_timed_response(c, "/api", {"t": "get", "id": k, "apikey": KEY})
                     for k in big[:100]]  # fmt: skip
            report.get_cpu_ms = round((_tree_cpu(server.pid) - cpu) * 1000 / len(timed), 2)
            report.get_ms = _percentiles([t for t, _ in timed])
            report.get_stages = _stage_split(timed)
    cpu, wall = _tree_cpu(server.pid), time.perf_counter()
    report.searches_per_second = round(_load(base, queries, seconds, clients), 1)
    used = _tree_cpu(server.pid) - cpu
    report.load_server_cpu = round(used / (time.perf_counter() - wall), 2)
    report.machine_load = os.getloadavg()[0]
    report.rss_mb = {f"pid {pid}": _memory(pid) for pid in _tree(server.pid)}


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
    s, g = report.search_ms, report.get_ms
    cache = "default" if report.search_cache is None else report.search_cache
    lines = [
        ("releases in catalog", f"{report.releases_in_catalog:,}"),
        ("start-up (views + index)", f"{report.startup_seconds} s"),
        ("restart, index folder kept", f"{report.restart_seconds} s"),
        ("t=search latency", f"p50 {s.get('p50')} ms, p95 {s.get('p95')} ms, p99 {s.get('p99')} "
                             f"ms ({int(s.get('n', 0))} queries of 1-2 words, one client)"),
        ("server CPU per t=search", f"{report.search_cpu_ms} ms"),
    ]  # fmt: skip
    if g:
        lines += [
            (
                "t=get 100-file release",
                f"p50 {g['p50']} ms, p95 {g['p95']} ms ({int(g['n'])} NZBs)",
            ),
            ("server CPU per t=get", f"{report.get_cpu_ms} ms"),
        ]
        for label, stages in report.get_stages.items():
            # wall/CPU ms per stage (CPU of the serving thread)
            shown = ", ".join(
                f"{k} {v}" + (f"/{stages[k + ' cpu']}" if k + " cpu" in stages else "")
                for k, v in stages.items()
                if not k.endswith(" cpu")
            )
            lines.append((f"  t=get {label}", shown))
    lines += [
        ("sustained t=search", f"{report.searches_per_second}/s ({report.load_clients} clients, "
                               f"{report.workers} server workers, search cache {cache}, "
                               f"server busy {report.load_server_cpu} cores)"),
        ("server memory (MB)", str(report.rss_mb)),
        ("new range searchable after",
         f"{report.delta_seconds} s ({report.delta_releases:,} releases)"),
        ("machine load average", f"{report.machine_load} (2 cores, shared)"),
    ]  # fmt: skip
    for name, value in lines:
        print(f"{name:<28}{value}")
