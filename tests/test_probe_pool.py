"""The article pass over a real connection pool against serve-nntp: the same outcomes as
from the stored bodies, and a server that is gone ends the pass with its releases waiting
(never stuck), which a later run against a server that answers finishes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq

from pipelines.articles.store import open_bodies
from pipelines.generate import GenerateConfig
from pipelines.nntp.pool import ConnectionPool
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.ports import free_port
from pipelines.nntpserver.server import NNTPServer
from pipelines.probe.fetch import PoolSource, StoreSource
from pipelines.probe.run import probe_catalog
from tests.corpora import replayed

IGNORED = ("probed_at", "fetched")


def _outcomes(catalog: Path) -> list[dict[str, object]]:
    rows = [r for p in sorted((catalog / "release_probes").rglob("*.parquet"))
            for r in pq.read_table(p).to_pylist()]  # fmt: skip
    return sorted(({k: v for k, v in r.items() if k not in IGNORED} for r in rows),
                  key=lambda r: r["release_key"])  # type: ignore[arg-type,return-value]  # fmt: skip


def _pool(port: int) -> ConnectionPool:
    return ConnectionPool(Provider("127.0.0.1", port, connections=2, timeout=10, connect_timeout=2))


def test_over_the_pool_as_from_the_store_and_a_server_gone(tmp_path: Path) -> None:
    config = GenerateConfig(groups=2, articles=20_000, seed=5, range_size=10_000, chunk=2_500)
    gen, _ = replayed(tmp_path / "gen", tmp_path / "cat", config)
    by_store = shutil.copytree(tmp_path / "cat", tmp_path / "by_store")
    store = open_bodies(str(gen.out))
    assert store is not None
    probe_catalog(str(by_store), StoreSource(store))

    # nothing listens: every fetch fails, the pass gives up, every release waits
    pool = _pool(free_port())
    gone = probe_catalog(str(tmp_path / "cat"), PoolSource(pool))
    pool.close()
    assert gone.gave_up and gone.fetched == 0
    assert set(gone.outcomes) == {"waiting"}

    with NNTPServer(gen.corpus) as srv:
        pool = _pool(srv.port)
        summary = probe_catalog(str(tmp_path / "cat"), PoolSource(pool))
        pool.close()
    assert not summary.gave_up and summary.fetched > 0
    assert _outcomes(tmp_path / "cat") == _outcomes(by_store)
