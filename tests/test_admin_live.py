"""status.json's `live`: what the live loop's last cycle did, read from the catalog."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pipelines.capture.indexed import IndexedRanges
from pipelines.capture.planner import PlanSettings
from pipelines.capture.prefetch import Capture, CaptureSettings
from pipelines.capture.schedule import Limits
from pipelines.generate import GenerateConfig
from pipelines.index.replay import ReplaySummary
from pipelines.index.rules import Rules
from pipelines.live import Cycle, Live
from pipelines.live_stages import StageCycle, StageSettings
from pipelines.live_status import PROBLEMS_KEPT, LiveStatus, read_status
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.server import NNTPServer
from serving.app import create_app
from serving.settings import Settings
from tests.corpora import generate

pytestmark = pytest.mark.timeout(300)
RANGE = 3000
CONFIG = GenerateConfig(groups=1, articles=7000, seed=5, range_size=RANGE, chunk=500, days=10)


def test_a_live_cycle_is_kept_for_status_json(tmp_path: Path) -> None:
    gen = generate(tmp_path / "gen", CONFIG)
    group = gen.meta["groups"][0]["name"]
    corpus, catalog = tmp_path / "corpus", tmp_path / "catalog"
    assert read_status(str(catalog)) is None
    with NNTPServer(gen.corpus) as srv:
        provider = Provider("127.0.0.1", srv.port, connections=2, timeout=5.0)
        settings = CaptureSettings(plan=PlanSettings(RANGE, 500, headroom=0), limits=Limits())
        capture = Capture(ProviderPools([provider]), str(corpus), [group], settings,
                          consumed=IndexedRanges(str(catalog)))  # fmt: skip
        live = Live(capture, str(corpus), str(catalog), Rules(), interval=0,
                    stages=StageSettings.header_only())  # fmt: skip
        cycle = live.cycle()
        capture.pools.close()
    kept = read_status(str(catalog))
    assert kept is not None
    assert (kept["cycle"], kept["captured"], kept["text"]) == (1, cycle.captured, cycle.text())
    assert kept["indexed"] == {"ranges": cycle.replay.totals.ranges,
                               "headers": cycle.replay.totals.headers}  # fmt: skip
    assert kept["indexed"]["ranges"] >= 1 and kept["problems"] == []
    assert kept["stages"]["probe"] is None  # not run: the header pass alone
    app = create_app(Settings(catalog=str(catalog), admin_keys=["adm"], build_in_process=True,
                              admin_log=str(tmp_path / "a.jsonl")), background=False)  # fmt: skip
    with TestClient(app) as client:
        body = client.get("/admin/status.json", headers={"Authorization": "Bearer adm"}).json()
    assert body["live"]["cycle"] == 1 and body["live"]["text"] == cycle.text()


def test_the_newest_problems_are_kept_with_their_time(tmp_path: Path) -> None:
    status = LiveStatus(str(tmp_path / "catalog"))
    for n in range(PROBLEMS_KEPT + 5):
        stages = StageCycle(problems=[f"probe: timeout {n}"])
        status.record(Cycle(n + 1, 0, ReplaySummary(), 0.1, f"server down {n}", stages))
    kept = read_status(str(tmp_path / "catalog"))
    assert kept is not None and kept["cycle"] == PROBLEMS_KEPT + 5
    whats = [p["what"] for p in kept["problems"]]
    last = PROBLEMS_KEPT + 4
    assert len(whats) == PROBLEMS_KEPT
    assert whats[-2:] == [f"capture: server down {last}", f"probe: timeout {last}"]
    assert all(p["at"] > 0 for p in kept["problems"])
