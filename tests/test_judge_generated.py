"""The judge over a generated corpus, indexed and probed: its verdicts against the truth.

The classic mix holds passworded and obfuscated uploads (no fakes, repeats or taken-down
articles): real releases get no verdict, a release the article pass found passworded with
no password is locked, and an unnamed obfuscated upload is unusable, nothing else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from pipelines.articles.store import open_bodies
from pipelines.catalog.partitions import list_table
from pipelines.corpus.fs import open_fs
from pipelines.generate import GenerateConfig
from pipelines.judge import facts
from pipelines.judge.run import judge_catalog
from pipelines.judge.store import current_verdicts
from pipelines.probe.fetch import StoreSource
from pipelines.probe.run import probe_catalog
from tests.corpora import replayed


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("judged")
    config = GenerateConfig(groups=2, articles=40_000, seed=3, range_size=10_000, chunk=2_500)
    gen, _ = replayed(tmp / "gen", tmp / "cat", config)
    store = open_bodies(str(gen.out))
    assert store is not None
    probe_catalog(str(tmp / "cat"), StoreSource(store))
    judge_catalog(str(tmp / "cat"))
    return gen.out, tmp / "cat"


def _uploads_by_key(out: Path, catalog: Path) -> dict[bytes, dict[str, Any]]:
    truth = pq.read_table(out / "truth" / "uploads.parquet").to_pylist()
    owner = {m: u for u in truth for f in u["files"] for m in f["message_ids"]}
    fs, root = open_fs(str(catalog))
    found: dict[bytes, dict[str, Any]] = {}
    for p in list_table(fs, root, "release_files", stat=False):
        for r in pq.read_table(p.path, columns=["release_key", "seg_ids"]).to_pylist():
            u = next((owner[m] for m in r["seg_ids"] if m in owner), None)
            if u is not None:
                found[r["release_key"]] = u
    return found


def test_verdicts_follow_the_truth(judged: tuple[Path, Path]) -> None:
    out, catalog = judged
    uploads = _uploads_by_key(out, catalog)
    c = facts.load(str(catalog), facts.listing(str(catalog)), set())
    verdicts = {r["release_key"]: r["rule"] for r in current_verdicts(str(catalog)).to_pylist()}
    assert set(verdicts.values()) <= {"locked", "unusable"}
    real = false = locked = 0
    for key in c.live.keys:
        u = uploads[key]
        rule = verdicts.get(key)
        probe = c.probe_rows.get(key)
        if rule == "locked":
            assert u["passworded"], u["name"]
            locked += 1
        elif rule == "unusable":
            assert u["pending"] and (probe is None or probe["outcome"] != "named"), u["name"]
        elif u["passworded"] and probe is not None and probe["password"] == 1:
            pytest.fail(f"passworded, probed as such, not locked: {u['name']}")
        if not u["passworded"] and not u["pending"]:
            real += 1
            false += rule is not None
    assert locked > 0 and real > 100
    assert false <= 0.005 * real, (false, real)
