"""The live loop's stages after the header pass (`pipelines.live_stages`): the article
pass, merges, health and the judge run on what each cycle brought, over capture's
connections, and a stage the network fails is taken up again the next cycle."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.capture.indexed import IndexedRanges
from pipelines.capture.planner import PlanSettings
from pipelines.capture.prefetch import Capture, CaptureSettings
from pipelines.capture.schedule import Limits
from pipelines.catalog.probe_outputs import output_paths
from pipelines.generate import GenerateConfig
from pipelines.index.rules import Rules
from pipelines.live import Cycle, Live
from pipelines.live_stages import StageSettings
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from pipelines.probe.spans import due, spans
from tests.corpora import Generated, generate
from tests.live_catalogs import stage_outputs

pytestmark = pytest.mark.timeout(300)

RANGE, CHUNK = 3000, 750
CONFIG = GenerateConfig(groups=1, articles=14_000, seed=2, range_size=RANGE, chunk=CHUNK,
                        mix="classic", split_and_junk=True)  # fmt: skip
CONNECTIONS = 2


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return generate(tmp_path_factory.mktemp("live_stages") / "gen", CONFIG)


def _server(gen: Generated) -> NNTPServer:
    gone = frozenset(pq.read_table(gen.out / "truth" / "gone.parquet")["message_id"].to_pylist())
    return NNTPServer(gen.corpus, options=ServerOptions(gone=gone))


def _live(port: int, root: Path, group: str) -> Live:
    provider = Provider("127.0.0.1", port, connections=CONNECTIONS, timeout=5.0)
    settings = CaptureSettings(plan=PlanSettings(RANGE, CHUNK, headroom=0), limits=Limits())
    corpus, catalog = str(root / "corpus"), str(root / "catalog")
    capture = Capture(ProviderPools([provider]), corpus, [group], settings,
                      consumed=IndexedRanges(catalog))  # fmt: skip
    return Live(capture, corpus, catalog, Rules(), interval=0,
                stages=StageSettings(health_share=None))  # fmt: skip


@dataclass
class Run:
    """Two cycles over the whole group: what they did, and the server's connection peak."""

    catalog: Path
    first: Cycle
    second: Cycle
    peak: int  # connections open at once at the server


@pytest.fixture(scope="module")
def undisturbed(generated: Generated, tmp_path_factory: pytest.TempPathFactory) -> Run:
    root = tmp_path_factory.mktemp("undisturbed")
    with _server(generated) as srv:
        live = _live(srv.port, root, generated.meta["groups"][0]["name"])
        first = live.cycle()
        second = live.cycle()
        live.capture.pools.close()
        return Run(root / "catalog", first, second, srv.stats.peak)


def test_capture_probes_and_health_never_exceed_the_account_s_connections(
    undisturbed: Run,
) -> None:
    s = undisturbed.first.stages
    assert s.probe and s.probe.fetched and s.health and s.health.checked, undisturbed.first.text()
    # capture, then probes, then health took turns on one pool
    peak = undisturbed.peak
    assert peak <= CONNECTIONS, f"{peak} connections at once, the account has {CONNECTIONS}"


def test_every_stage_runs_and_a_cycle_with_nothing_new_does_nothing(undisturbed: Run) -> None:
    first, second = undisturbed.first, undisturbed.second
    s = first.stages
    assert s.probe and s.merge and s.health and s.judge, first.text()
    assert sum(s.judge.verdicts.values()), first.text()
    outputs = stage_outputs(undisturbed.catalog)
    assert outputs.named and outputs.merges and outputs.verdicts and outputs.health
    # nothing new: the stages after the header pass did nothing, and said so
    t = second.stages
    assert second.captured == 0 and t.probe is not None and not t.probe.spans, second.text()
    assert t.merge is None and t.health is None and t.judge is None, second.text()
    for said in ("probed nothing new", "merged nothing new", "health resting", "judged nothing"):
        assert said in second.text()


def test_a_stage_the_network_fails_is_taken_up_next_cycle(
    generated: Generated, undisturbed: Run, tmp_path: Path
) -> None:
    group = generated.meta["groups"][0]["name"]
    with _server(generated) as srv:
        live = _live(srv.port, tmp_path, group)
        srv.options.faults.article_drop_every = 1  # every BODY and STAT: the line drops
        failed = live.cycle()
        srv.options.faults.article_drop_every = 0
        assert failed.stages.problems, failed.text()
        assert any(due(str(tmp_path / "catalog"), s) for s in spans(str(tmp_path / "catalog")))
        again = live.cycle()
        live.capture.pools.close()
    assert again.stages.probe is not None and again.stages.probe.fetched, again.text()
    assert not again.stages.problems, again.text()
    assert live.summary.stage_problems and "probe" in live.summary.format()
    # the same names, merges, health verdicts and verdicts as a run the network never failed
    assert stage_outputs(tmp_path / "catalog") == stage_outputs(undisturbed.catalog)


def test_a_tail_part_is_probed_the_cycle_it_is_written(
    generated: Generated, tmp_path: Path
) -> None:
    """Freshness: a pending release the window hands out finished in a tail part is
    climbed in the cycle that wrote the part, not when its range completes."""
    group = generated.meta["groups"][0]["name"]
    catalog = str(tmp_path / "catalog")
    climbed = finished = 0
    with _server(generated) as srv:
        served = srv.corpus.groups[group]
        live = _live(srv.port, tmp_path, group)
        for tenth in range(1, 10):  # cycles each ending inside a growing range
            served.visible_high = served.low + tenth * (served.high - served.low) // 10
            cycle = live.cycle()
            parts = [t.part for t in cycle.replay.tails if t.part is not None]
            tails = [s for s in spans(catalog) if (s.first, s.last) in parts]
            assert len(tails) == len(parts), cycle.text()
            assert not any(due(catalog, s) for s in tails), cycle.text()
            for s in tails:
                pending = pq.read_table(_sibling(s.candidates, "pending_releases"))
                finished += sum(pending["finished"].to_pylist())
                probes = pq.read_table(output_paths(catalog, s.group, s.first, s.last)[0])
                climbed += sum(probes["pending"].to_pylist())
        live.capture.pools.close()
    assert finished, "no pending release finished in a tail part"
    assert climbed == finished


def _sibling(path: str, table: str) -> str:
    """A tail part's partition of another table."""
    return path.replace("/probe_candidates/", f"/{table}/")
