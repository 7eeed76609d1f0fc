"""The PreDB as a stage of the live loop: pres imported before, a cycle captures and
indexes a group whose uploads carry them, and the same cycle's scan names them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.capture.indexed import IndexedRanges
from pipelines.capture.planner import PlanSettings
from pipelines.capture.prefetch import Capture, CaptureSettings
from pipelines.capture.schedule import Limits
from pipelines.generate import GenerateConfig
from pipelines.index.rules import Rules
from pipelines.live import Live
from pipelines.live_stages import StageSettings
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.server import NNTPServer
from pipelines.predb.importer import import_files
from pipelines.predb.store import read_batches
from tests.corpora import generate

pytestmark = pytest.mark.timeout(300)

RANGE, CHUNK = 3000, 750


def _live(port: int, root: Path, group: str, predb: bool) -> Live:
    provider = Provider("127.0.0.1", port, connections=2, timeout=5.0)
    settings = CaptureSettings(plan=PlanSettings(RANGE, CHUNK, headroom=0), limits=Limits())
    corpus, catalog = str(root / "corpus"), str(root / "catalog")
    capture = Capture(ProviderPools([provider]), corpus, [group], settings,
                      consumed=IndexedRanges(catalog))  # fmt: skip
    stages = StageSettings(probe=False, merge=False, health=False, judge=False, predb=predb)
    return Live(capture, corpus, catalog, Rules(), interval=0, stages=stages)


def test_a_live_cycle_names_the_pres_it_indexed(tmp_path: Path) -> None:
    config = GenerateConfig(groups=1, articles=14_000, seed=4, range_size=RANGE, chunk=CHUNK,
                            pres=True)  # fmt: skip
    gen = generate(tmp_path / "gen", config)
    group = gen.meta["groups"][0]["name"]
    for predb, root in ((True, tmp_path / "on"), (False, tmp_path / "off")):
        import_files(str(root / "catalog"), [str(gen.out / "truth" / "pres.jsonl")])
        with NNTPServer(gen.corpus) as srv:
            live = _live(srv.port, root, group, predb)
            cycle = live.cycle()
            live.capture.pools.close()
        links = read_batches(str(root / "catalog"), "pre_links")
        if predb:
            assert cycle.stages.predb is not None and cycle.stages.predb.renamed, cycle.text()
            methods = set(links["method"].to_pylist())
            assert "title:release" in methods and any(m.startswith("md5") for m in methods)
        else:
            assert cycle.stages.predb is None and links.num_rows == 0
