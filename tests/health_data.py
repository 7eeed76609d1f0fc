"""A generated, replayed catalog for the health tests, what each of its releases samples,
and a sweep of it against an in-process serve-nntp.

`health_world(tmp)` generates one group and indexes it (`tests.corpora.replayed`);
`copy_catalog` gives a test its own copy (sweeps write into it); `releases_of` lists the
catalog's releases with their segments as the sweep sees them; `run_sweep` sweeps a
catalog over a pool of `connections` to a server, and closes the pool.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines.catalog.views import CatalogViews
from pipelines.generate import GenerateConfig
from pipelines.health.cadence import DEFAULT
from pipelines.health.candidates import due_candidates, segments_of
from pipelines.health.sample import ReleaseSegments
from pipelines.health.store import latest_health
from pipelines.health.sweep import SweepSettings, SweepSummary, health_provider, sweep
from pipelines.nntp.pool import ConnectionPool
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.server import NNTPServer
from tests.corpora import replayed

CONFIG = GenerateConfig(groups=1, articles=3_000, seed=3, range_size=2_000, chunk=1_000)


@dataclass(frozen=True)
class World:
    corpus: str
    catalog: Path
    now: int  # three days after the newest release: every release is young and due


def health_world(tmp: Path) -> World:
    gen, _ = replayed(tmp / "gen", tmp / "cat", CONFIG)
    views = CatalogViews(str(tmp / "cat"))
    try:
        newest = views.query("SELECT max(posted_last) AS t FROM releases").column("t")[0]
    finally:
        views.close()
    return World(gen.corpus, tmp / "cat", int(newest.as_py()) + 3 * 86_400)


def copy_catalog(world: World, to: Path) -> str:
    shutil.copytree(world.catalog, to)
    return str(to)


def releases_of(catalog: str, now: int) -> dict[bytes, ReleaseSegments]:
    """Every release of the catalog with its segments, as a sweep at `now` reads them."""
    views = CatalogViews(catalog)
    try:
        todo = due_candidates(views, latest_health(catalog + "/nowhere"), now, DEFAULT)
        return segments_of(views, todo)
    finally:
        views.close()


def run_sweep(
    catalog: str, server: NNTPServer, now: int, connections: int = 3, **settings: Any
) -> SweepSummary:
    """One sweep of `catalog` against `server` at `now` (`settings`: SweepSettings')."""
    chosen = SweepSettings(**settings)
    provider = Provider("127.0.0.1", server.port, connections=connections)
    pool = ConnectionPool(health_provider(provider, chosen.stat_timeout))
    try:
        return sweep(catalog, pool, chosen, now=now)
    finally:
        pool.close()


def verdicts(catalog: str) -> dict[bytes, str | None]:
    """Each checked release's current verdict (None: stamped)."""
    rows = latest_health(catalog).to_pylist()
    return {bytes(r["release_key"]): r["verdict"] for r in rows}
