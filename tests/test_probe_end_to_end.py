"""The article pass on the generator's truth: real bodies (par2 sets, RAR/7z/ZIP volumes,
NFOs) read by the real readers, over several seeds.

- Naming: >= 97 % of the obfuscated uploads whose probed articles carry a name (the
  truth's `inner_name`) enter the catalog under it, as exactly one release holding
  exactly their articles; none enters with a wrong name; those with no name stay pending
  and end exhausted or discarded.
- Passwords: every probed passworded upload is found passworded, no unencrypted one is.
- No side effects: readable releases come out as before; a second probe fetches nothing.
One seed also goes through serve-nntp and the connection pool, with a 430 and a server
that drops connections.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from pipelines.articles.store import open_bodies
from pipelines.catalog.partitions import list_table
from pipelines.corpus.fs import open_fs
from pipelines.generate import GenerateConfig
from pipelines.probe.fetch import StoreSource
from pipelines.probe.run import probe_catalog
from pipelines.probe.source import OnResult
from tests.catalogs import shown_releases
from tests.corpora import replayed

SEEDS = (3, 5, 11)


def _build(tmp: Path, seed: int) -> tuple[Path, Path]:
    # the classic mix: its share of obfuscated uploads gives each seed enough to count
    config = GenerateConfig(groups=2, articles=40_000, seed=seed, range_size=10_000,
                            chunk=2_500)  # fmt: skip
    gen, _ = replayed(tmp / "gen", tmp / "cat", config)
    return gen.out, tmp / "cat"


def _rows(catalog: Path, table: str) -> list[dict[str, Any]]:
    fs, root = open_fs(str(catalog))
    return [r for p in list_table(fs, root, table, stat=False)
            for r in pq.read_table(p.path).to_pylist()]  # fmt: skip


class Counting:
    """A store source that counts what it was asked."""

    def __init__(self, inner: StoreSource) -> None:
        self.inner = inner
        self.asked = 0

    @property
    def gave_up(self) -> bool:
        return self.inner.gave_up

    def fetch(self, message_ids: Iterable[str], on_result: OnResult) -> None:
        mids = list(message_ids)
        self.asked += len(mids)
        self.inner.fetch(mids, on_result)


@pytest.fixture(scope="module", params=SEEDS)
def probed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp(f"e2e{request.param}")
    out, catalog = _build(tmp, request.param)
    before, _ = shown_releases(catalog)
    store = open_bodies(str(out))
    assert store is not None and len(store) > 0
    source = Counting(StoreSource(store))
    summary = probe_catalog(str(catalog), source)
    return out, catalog, before, summary, source


def _candidate_ids(catalog: Path) -> set[str]:
    return {r["message_id"] for r in _rows(catalog, "probe_candidates")}


def test_obfuscated_uploads_enter_under_their_inner_name(probed):
    out, catalog, _, _, _ = probed
    truth = pq.read_table(out / "truth" / "uploads.parquet").to_pylist()
    releases, segments = shown_releases(catalog)
    files: dict[bytes, set[tuple[str, int]]] = {}
    for s in segments:
        files.setdefault(s["release_key"], set()).add((s["name"], s["n"]))
    named = [r for r in releases if r["source"] in ("par2", "archive", "7z", "yenc", "nfo")]
    by_name: dict[str, list[dict[str, Any]]] = {}
    for r in named:
        by_name.setdefault(r["name"], []).append(r)
    candidates = _candidate_ids(catalog)
    nameable = [
        u for u in truth
        if u["pending"] and u["inner_name"] and u["complete"]
        and any(m in candidates for f in u["files"] for m in f["message_ids"])
    ]  # fmt: skip
    assert len(nameable) >= 3  # few but large: 40 k articles hold a handful a seed
    right = 0
    for u in nameable:
        hits = by_name.get(u["inner_name"], [])
        want = {(f["name"], k + 1) for f in u["files"] for k in range(len(f["message_ids"]))}
        if len(hits) == 1 and files.get(hits[0]["release_key"]) == want:
            right += 1
    assert right / len(nameable) >= 0.97, (right, len(nameable))
    hidden = {u["inner_name"] for u in truth if u["inner_name"]}
    wrong = [r["name"] for r in named if r["name"] not in hidden]
    assert not wrong, wrong[:10]


def test_uploads_without_a_name_stay_pending(probed):
    out, catalog, _, _, _ = probed
    truth = pq.read_table(out / "truth" / "uploads.parquet").to_pylist()
    unnamed_ids = {m for u in truth if u["pending"] and not u["inner_name"]
                   for f in u["files"] for m in f["message_ids"]}  # fmt: skip
    keys = {r["release_key"] for r in _rows(catalog, "release_files")
            if set(r["seg_ids"]) & unnamed_ids}  # fmt: skip
    rows = [r for r in _rows(catalog, "release_probes") if r["pending"]]
    probed_unnamed = [r for r in rows if r["release_key"] in keys]
    assert probed_unnamed
    assert {r["outcome"] for r in probed_unnamed} <= {"exhausted", "discarded"}


def test_passwords_follow_the_truth(probed):
    out, catalog, _, _, _ = probed
    truth = pq.read_table(out / "truth" / "uploads.parquet").to_pylist()
    owner = {m: u for u in truth for f in u["files"] for m in f["message_ids"]}
    cands = _rows(catalog, "probe_candidates")
    key_upload = {
        c["release_key"]: owner[c["message_id"]] for c in cands if c["message_id"] in owner
    }
    checked = {True: 0, False: 0}
    for r in _rows(catalog, "release_probes"):
        u = key_upload.get(r["release_key"])
        if u is None or r["password"] is None:
            continue
        checked[u["passworded"]] += 1
        assert (r["password"] == 1) == u["passworded"], (u["name"], r["password"])
    assert checked[True] > 0 and checked[False] > 0


def test_no_side_effects_and_a_second_probe_fetches_nothing(probed):
    _, catalog, before, summary, source = probed
    after, _ = shown_releases(catalog)
    old = {r["release_key"]: r for r in before}
    for r in after:
        if r["release_key"] in old:
            assert r == old[r["release_key"]]
    assert len(after) - len(before) == summary.outcomes.get("named", 0)
    asked = source.asked
    again = probe_catalog(str(catalog), source)
    assert again.releases == 0 and source.asked == asked
