"""Issue 20 on the generator's truth: a `--split-and-junk` corpus replayed, probed from its
stored bodies, merged, swept for health against serve-nntp with its taken-down articles
gone, judged, and scored (`pipelines/score/split_and_junk.py`), over three seeds added up.

- Merges: >= 99 % of the split uploads a par2 set describes (and the sidecar splits) are
  one release holding exactly their articles; no release holds two uploads.
- Verdicts: the fakes, taken-down, repeated, locked and unusable uploads get their
  verdict >= 99 % of the time; real uploads get a false one <= 0.5 % of the time.
"""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.articles.store import open_bodies
from pipelines.generate import GenerateConfig
from pipelines.health.sweep import DONE, SweepSettings, health_provider, sweep
from pipelines.judge.run import judge_catalog
from pipelines.merge.run import merge_catalog
from pipelines.nntp.pool import ConnectionPool
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from pipelines.probe.fetch import StoreSource
from pipelines.probe.run import probe_catalog
from pipelines.score.score import Score, combine, score_catalog
from tests.corpora import replayed

SEEDS = (2, 7, 11)


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Score:
    return combine([_scored(tmp_path_factory.mktemp(f"split_junk{seed}"), seed) for seed in SEEDS])


def _scored(tmp: Path, seed: int) -> Score:
    config = GenerateConfig(groups=2, articles=60_000, seed=seed, range_size=15_000,
                            chunk=2_500, mix="real", split_and_junk=True)  # fmt: skip
    gen, _ = replayed(tmp / "gen", tmp / "cat", config)
    catalog = str(tmp / "cat")
    store = open_bodies(str(gen.out))
    assert store is not None
    probe_catalog(catalog, StoreSource(store))
    merge_catalog(catalog)
    gone = frozenset(pq.read_table(gen.out / "truth" / "gone.parquet")["message_id"].to_pylist())
    assert gone
    now = int(time.time())
    with NNTPServer(str(gen.corpus), options=ServerOptions(gone=gone)) as server:
        settings = SweepSettings()
        pool = ConnectionPool(health_provider(Provider("127.0.0.1", server.port, connections=2),
                                              settings.stat_timeout))  # fmt: skip
        try:
            assert sweep(catalog, pool, settings, now=now).ended == DONE
        finally:
            pool.close()
    judge_catalog(catalog, now=now)
    score = score_catalog(gen.out, catalog)
    assert score.split_junk is not None
    return score


def test_split_uploads_are_joined_and_never_two_uploads(scored) -> None:
    s = scored.split_junk
    assert sum(t.uploads for t in s.joined.values()) >= 3, s.format()
    assert s.merge_share >= 0.99, s.format()
    assert scored.contaminated_releases == 0


def test_verdicts_follow_the_truth(scored) -> None:
    s = scored.split_junk
    judged = {rule: t.uploads for rule, t in s.verdicts.items()}
    assert judged["dead"] and judged["fake"] and judged["locked"], s.format()
    assert s.verdict_share >= 0.99, (s.format(), s.misjudged)
    assert s.false_share <= 0.005, (s.format(), s.misjudged)
