"""The article pass's bench: a generated corpus with its bodies, served by a paced
`serve-nntp`, indexed, then probed over N connections.

Prints articles fetched a second per connection, the probing process's CPU per fetched
article (fetch, decode, parse, the ladder), the probes per release (pending and catalog
ones apart), the share of nameable pending uploads named under the truth's name, and
what a second run fetched (nothing, when the cache works).
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from bench.served import indexed_corpus, serve_nntp


@dataclass
class ProbeFigures:
    connections: int
    lines_per_second: float
    releases: int
    pending: int
    named: int
    nameable: int
    named_right: int
    named_wrong: int
    fetched: int
    seconds: float
    cpu_seconds: float
    pending_probes: float
    catalog_probes: float
    second_fetched: int

    def text(self) -> str:
        per_conn = self.fetched / self.seconds / self.connections if self.seconds else 0.0
        cpu_ms = 1000 * self.cpu_seconds / self.fetched if self.fetched else 0.0
        right = self.named_right / self.nameable if self.nameable else 1.0
        pace = f"{self.lines_per_second:,.0f} lines/s" if self.lines_per_second else "unpaced"
        return "\n".join([
            f"probe bench: {self.connections} connections, serve-nntp {pace}",
            f"  {self.fetched:,} articles fetched in {self.seconds:.1f} s: "
            f"{per_conn:,.1f} articles/s per connection",
            f"  CPU {self.cpu_seconds:.2f} s: {cpu_ms:.2f} ms per fetched article",
            f"  probes per release: {self.pending_probes:.2f} pending, "
            f"{self.catalog_probes:.2f} catalog ({self.releases:,} releases, "
            f"{self.pending:,} pending)",
            f"  named {self.named:,}; nameable by the truth {self.nameable:,}, under its "
            f"name {self.named_right:,} ({100 * right:.1f} %), wrong {self.named_wrong:,}",
            f"  a second run fetched {self.second_fetched:,}",
        ])  # fmt: skip


def run_bench(
    articles: int = 60_000,
    connections: int = 4,
    lines_per_second: float = 25_000.0,
    seed: int = 3,
    out: Any = sys.stdout,
) -> ProbeFigures:
    from pipelines.generate import GenerateConfig
    from pipelines.nntp.pool import ConnectionPool
    from pipelines.nntp.provider import Provider
    from pipelines.probe.fetch import PoolSource
    from pipelines.probe.run import probe_catalog
    from pipelines.probe.spans import spans

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        catalog = str(root / "catalog")
        config = GenerateConfig(groups=2, articles=articles, seed=seed, mix="real")
        corpus = indexed_corpus(root / "gen", catalog, config, say=out)
        paced = ("--lines-per-second", str(lines_per_second)) if lines_per_second else ()
        with serve_nntp(corpus, *paced) as port:
            pool = ConnectionPool(Provider("127.0.0.1", port, connections=connections))
            print(f"probing over {connections} connections ...", file=out, flush=True)
            started, cpu = time.perf_counter(), time.process_time()
            first = probe_catalog(catalog, PoolSource(pool))
            seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
            second = probe_catalog(catalog, PoolSource(pool))
            # a second run finds nothing due; asking every span again reads the cache only
            again = probe_catalog(catalog, PoolSource(pool), only=spans(catalog))
            pool.close()
        return _figures(root, catalog, connections, lines_per_second, first, seconds,
                        cpu_seconds, second.fetched + again.fetched)  # fmt: skip


def _figures(
    root: Path, catalog: str, connections: int, lines_per_second: float, first: Any,
    seconds: float, cpu_seconds: float, second_fetched: int,
) -> ProbeFigures:  # fmt: skip
    rows = [r for p in (Path(catalog) / "release_probes").rglob("*.parquet")
            for r in pq.read_table(p).to_pylist()]  # fmt: skip
    pending = [r for r in rows if r["pending"]]
    catalog_rows = [r for r in rows if not r["pending"]]
    truth = pq.read_table(root / "gen" / "truth" / "uploads.parquet").to_pylist()
    hidden = {u["inner_name"] for u in truth if u["pending"] and u.get("inner_name")}
    named = [r["name"] for r in pending if r["outcome"] == "named"]
    climbed = [r for r in pending if r["outcome"] != "discarded"]
    return ProbeFigures(
        connections=connections,
        lines_per_second=lines_per_second,
        releases=len(rows),
        pending=len(pending),
        named=len(named),
        nameable=len(hidden),
        named_right=len(hidden & set(named)),
        named_wrong=len([n for n in named if n not in hidden]),
        fetched=first.fetched,
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        pending_probes=sum(r["probes"] for r in climbed) / max(len(climbed), 1),
        catalog_probes=sum(r["probes"] for r in catalog_rows) / max(len(catalog_rows), 1),
        second_fetched=second_fetched,
    )
