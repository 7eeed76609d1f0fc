"""Keys under attack, measured: a right key's searches while one address floods wrong keys.

Starts `serve` (one worker) on a synthetic catalog, times a right key's searches from
one address alone, then again while `--attackers` threads send wrong keys from another
address as fast as the server takes them, and counts how the flood was answered (error
100, then 500 once slowed) and the log lines it cost. Addresses come as
`X-Forwarded-For`, which the server trusts from 127.0.0.1 (a local reverse proxy's).
Also the guard's own cost per request, in process.
"""

from __future__ import annotations

import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.serving import KEY, _percentiles, _start, _stop, ensure_catalog
from serving.limits import KeyLimits
from serving.wrong_keys import WrongKeys

USER, ATTACKER = "198.51.100.7", "203.0.113.9"


@dataclass
class KeysReport:
    releases: int
    alone_ms: dict[str, float] = field(default_factory=dict)
    flooded_ms: dict[str, float] = field(default_factory=dict)
    flood: dict[str, int] = field(default_factory=dict)
    flood_per_second: float = 0.0
    log_lines: int = 0
    guard_us: dict[str, float] = field(default_factory=dict)


def run_bench(catalog: str, releases: int, searches: int, attackers: int) -> KeysReport:
    ensure_catalog(catalog, releases)
    report = KeysReport(releases)
    with tempfile.TemporaryDirectory() as index_dir:
        server, base, _ = _start(catalog, index_dir, workers=1)
        try:
            report.alone_ms = _percentiles(_searches(base, searches))
            report.flooded_ms, report.flood, report.flood_per_second = _flooded(
                base, searches, attackers
            )
        finally:
            _stop(server)
        err = server.stderr.read().decode(errors="replace") if server.stderr else ""
        report.log_lines = sum(ATTACKER in line for line in err.splitlines())
    report.guard_us = guard_cost()
    return report


def _searches(base: str, n: int) -> list[float]:
    times = []
    with httpx.Client(base_url=base, headers={"X-Forwarded-For": USER}, timeout=60) as c:
        for i in range(n):
            start = time.perf_counter()
            r = c.get("/api", params={"t": "search", "q": f"the {i % 10}", "apikey": KEY})
            times.append(time.perf_counter() - start)
            assert b"<error" not in r.content[:300], r.text[:300]
    return times


def _flooded(base: str, n: int, attackers: int) -> tuple[dict[str, float], dict[str, int], float]:
    stop = threading.Event()
    codes: dict[str, int] = {}
    lock = threading.Lock()

    def flood(k: int) -> None:
        with httpx.Client(base_url=base, headers={"X-Forwarded-For": ATTACKER}, timeout=60) as c:
            i = 0
            while not stop.is_set():
                r = c.get("/api", params={"t": "search", "apikey": f"guess-{k}-{i}"})
                code = r.text.split('code="', 1)[1][:3] if 'code="' in r.text else "feed"
                with lock:
                    codes[code] = codes.get(code, 0) + 1
                i += 1

    threads = [threading.Thread(target=flood, args=(k,), daemon=True) for k in range(attackers)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    time.sleep(0.5)  # the flood under way, the address slowed
    times = _searches(base, n)
    stop.set()
    for t in threads:
        t.join(timeout=30)
    elapsed = time.perf_counter() - start
    return _percentiles(times), codes, round(sum(codes.values()) / elapsed, 1)


def guard_cost(n: int = 200_000) -> dict[str, float]:
    """Microseconds a request pays for the guard: the wrong-key check of an address with
    none (in the shared buckets file), and the anonymous per-address count in the shared
    counters file."""
    with tempfile.TemporaryDirectory() as d:
        wrong = WrongKeys(10, 6.0, shared=f"{d}/wrong-keys.bin")  # as `serve` keeps them
        start = time.perf_counter()
        for i in range(n // 10):
            wrong.wait(f"10.0.{i % 250}.{i % 200}")
        looked = (time.perf_counter() - start) / (n // 10) * 1e6
        wrong.close()
        limits = KeyLimits([KEY], True, 0, 0, shared=f"{d}/c.bin", anonymous_requests=10**9)
        start = time.perf_counter()
        for i in range(n // 10):
            limits.count_request(None, f"10.0.{i % 250}.{i % 200}")
        counted = (time.perf_counter() - start) / (n // 10) * 1e6
        limits.close()
    return {"wrong_key_check": round(looked, 2), "anonymous_count_in_file": round(counted, 2)}


def print_report(r: KeysReport) -> None:
    def ms(d: dict[str, Any]) -> str:
        return f"p50 {d['p50']} ms, p95 {d['p95']} ms, p99 {d['p99']} ms ({int(d['n'])})"

    print(f"catalog: {r.releases:,} releases; one server worker")
    print(f"right key, alone:        {ms(r.alone_ms)}")
    print(f"right key, under flood:  {ms(r.flooded_ms)}")
    total = sum(r.flood.values())
    print(f"flood: {total:,} wrong-key requests at {r.flood_per_second:,.0f}/s, answered "
          + ", ".join(f"{k}: {v:,}" for k, v in sorted(r.flood.items())))  # fmt: skip
    print(f"server log lines naming the flooding address: {r.log_lines}")
    print(f"guard per request: wrong-key check {r.guard_us['wrong_key_check']} µs, anonymous "
          f"count in the shared file {r.guard_us['anonymous_count_in_file']} µs")  # fmt: skip
