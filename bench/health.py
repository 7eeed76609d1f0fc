"""The health sweep's bench: a generated corpus, indexed, served by a paced `serve-nntp`,
swept over N connections `rounds` times (each round's clock 100 days after the last, so
every release is due again).

Prints STATs a second per connection (the sweeps' rate, catalog reads and writes
included), releases checked a second, the sweeping process's CPU per STAT, and what one
more sweep at the last round's clock found due (nothing: the cadence holds every release
checked a moment ago). The server answers each article command after
`lag` seconds (its `alag` fault): a provider's STAT is a lookup in its spool, a few
milliseconds each, done one after another on a connection, and that wait, not the wire,
sets the rate.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.served import indexed_corpus, serve_nntp

DAY = 86_400


@dataclass
class HealthFigures:
    connections: int
    lines_per_second: float
    lag: float
    releases: int
    stats: int
    seconds: float
    cpu_seconds: float
    second_candidates: int
    ended: str

    def text(self) -> str:
        per_conn = self.stats / self.seconds / self.connections if self.seconds else 0.0
        per_s = self.releases / self.seconds if self.seconds else 0.0
        cpu_us = 1e6 * self.cpu_seconds / self.stats if self.stats else 0.0
        pace = f"{self.lines_per_second:,.0f} lines/s" if self.lines_per_second else "unpaced"
        return "\n".join([
            f"health bench: {self.connections} connections, serve-nntp {pace}, "
            f"{1000 * self.lag:.1f} ms a STAT",
            f"  {self.stats:,} STATs for {self.releases:,} releases in {self.seconds:.2f} s: "
            f"{per_conn:,.1f} STATs/s per connection, {per_s:,.1f} releases/s",
            f"  CPU {self.cpu_seconds:.2f} s: {cpu_us:.0f} us per STAT",
            f"  ended: {self.ended}; a second sweep found {self.second_candidates:,} due",
        ])  # fmt: skip


def run_bench(
    articles: int = 20_000,
    connections: int = 4,
    lines_per_second: float = 25_000.0,
    lag: float = 0.005,
    seed: int = 3,
    rounds: int = 5,
    out: Any = sys.stdout,
) -> HealthFigures:
    from pipelines.generate import GenerateConfig
    from pipelines.health.sweep import SweepSettings, health_provider, sweep
    from pipelines.nntp.pool import ConnectionPool
    from pipelines.nntp.provider import Provider

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        catalog = str(root / "catalog")
        config = GenerateConfig(groups=1, articles=articles, seed=seed)
        corpus = indexed_corpus(root / "gen", catalog, config, say=out)
        paced = ("--lines-per-second", str(lines_per_second), "--faults", f"alag={lag}")
        with serve_nntp(corpus, *paced) as port:
            settings = SweepSettings()
            provider = Provider("127.0.0.1", port, connections=connections)
            pool = ConnectionPool(health_provider(provider, settings.stat_timeout))
            held = [pool.acquire() for _ in range(connections)]  # opened before the clock
            for client in held:
                pool.release(client)
            print(f"sweeping over {connections} connections ...", file=out, flush=True)
            # each round's clock 100 days on: every release (years old) is due again
            now = int(time.time())
            clocks = [now + 100 * DAY * r for r in range(rounds)]
            started, cpu = time.perf_counter(), time.process_time()
            done = [sweep(catalog, pool, settings, now=clock) for clock in clocks]
            seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
            second = sweep(catalog, pool, settings, now=clocks[-1])
            pool.close()
    return HealthFigures(
        connections=connections,
        lines_per_second=lines_per_second,
        lag=lag,
        releases=sum(d.checked + d.stamped for d in done),
        stats=sum(d.stats for d in done),
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        second_candidates=second.candidates,
        ended=", ".join(sorted({d.ended for d in done})),
    )
