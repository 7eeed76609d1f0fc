"""Live indexing from two backbones: a capture per backbone each cycle, the header pass
filling the primary from the other; a backbone that cannot go on is left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.backbone_split import SplitSettings, split_corpus
from pipelines.capture.filled import consumed_by_backbone
from pipelines.capture.planner import PlanSettings
from pipelines.capture.prefetch import Capture, CaptureSettings
from pipelines.capture.schedule import Limits
from pipelines.catalog.views import CatalogViews
from pipelines.corpus.backbones import backbone_root, write_order
from pipelines.corpus.fs import open_fs
from pipelines.corpus.reader import CorpusReader
from pipelines.generate import GenerateConfig
from pipelines.index.replay import replay
from pipelines.index.rules import Rules
from pipelines.live import Live
from pipelines.live_stages import StageSettings
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from tests.corpora import generate

pytestmark = pytest.mark.timeout(300)
RANGE, CHUNK = 3000, 500
SPLIT = SplitSettings(offset=70_001, retention=400, range_size=RANGE, chunk_size=CHUNK)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    out = tmp_path_factory.mktemp("live-backbones")
    gen = generate(out / "gen", GenerateConfig(groups=1, articles=7000, seed=9,
                                               range_size=RANGE, chunk=CHUNK, days=10))  # fmt: skip
    split_corpus(gen.corpus, str(out / "split"), SPLIT)
    return str(out / "split"), gen.meta["groups"][0]["name"]


def _captures(
    corpus: Path, catalog: Path, group: str, ports: dict[str, int], **account: object
) -> list[Capture]:
    """A capture per backbone (the order of `ports`), as `live --providers` makes them."""
    settings = CaptureSettings(plan=PlanSettings(RANGE, CHUNK, headroom=0), limits=Limits())
    fs, root = open_fs(str(corpus))
    write_order(fs, root, list(ports))
    consumed = consumed_by_backbone(str(catalog), list(ports))
    captures = []
    for name, port in ports.items():
        provider = Provider("127.0.0.1", port, connections=2, timeout=5.0, connect_timeout=2.0,
                            backbone=name, **account)  # type: ignore[arg-type]  # fmt: skip
        root = backbone_root(str(corpus), name)
        pools = ProviderPools([provider])
        captures.append(Capture(pools, root, [group], settings, consumed=consumed(name)))
    return captures


def _lines(root: str, group: str) -> bytes:
    reader = CorpusReader(root)
    return b"".join(c.data for i in reader.ranges(group) for c in reader.read_range(i))


def _releases(catalog: Path) -> dict[bytes, object]:
    views = CatalogViews(str(catalog))
    views.refresh()
    try:
        rows = views.query("SELECT release_key, finished, segments FROM releases").to_pylist()
    finally:
        views.close()
    return {r["release_key"]: (r["finished"], r["segments"]) for r in rows}


def test_live_captures_each_backbone_and_fills_the_primary(served, tmp_path: Path) -> None:
    split, group = served
    corpus, catalog = tmp_path / "corpus", tmp_path / "catalog"
    with NNTPServer(backbone_root(split, "a")) as a, NNTPServer(backbone_root(split, "b")) as b:
        first, other = _captures(corpus, catalog, group, {"a": a.port, "b": b.port})
        live = Live(first, str(corpus), str(catalog), Rules(), interval=0,
                    stages=StageSettings.header_only(), others=[other])  # fmt: skip
        one = live.cycle()
        live.cycle()
        first.pools.close()
        other.pools.close()
    assert one.replay.filled.get("filled", 0) > SPLIT.retention // 2
    for name in ("a", "b"):  # each backbone's corpus as its provider serves it
        assert _lines(backbone_root(str(corpus), name), group) == _lines(
            backbone_root(split, name), group
        )
    batch = tmp_path / "batch"
    replay(str(corpus), str(batch), Rules(), progress=False)
    assert _releases(catalog) == _releases(batch)


def test_a_backbone_refusing_the_credentials_is_left_out_and_live_goes_on(
    served, tmp_path: Path
) -> None:
    split, group = served
    corpus, catalog = tmp_path / "corpus", tmp_path / "catalog"
    wrong = ServerOptions(user="u", password="other")
    with NNTPServer(backbone_root(split, "a"), options=ServerOptions(user="u", password="pw")
                    ) as a, NNTPServer(backbone_root(split, "b"), options=wrong) as b:  # fmt: skip
        first, other = _captures(corpus, catalog, group, {"a": a.port, "b": b.port},
                                 user="u", password="pw")  # fmt: skip
        live = Live(first, str(corpus), str(catalog), Rules(), interval=0,
                    stages=StageSettings.header_only(), others=[other])  # fmt: skip
        one = live.cycle()
        two = live.cycle()
        first.pools.close()
    assert one.captured > 0 and one.replay.totals.ranges > 0
    assert live.others == [] and len(live.summary.problems) == 1
    assert "backbone b" in live.summary.problems[0] and "left out" in live.summary.problems[0]
    assert two.problem == ""
