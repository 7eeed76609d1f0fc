"""Every article the header pass names as a probe candidate of a `--split-and-junk` corpus
has a stored body (unless it is taken down): the article pass reads real first bytes of
each per_file file, track, sidecar, fake and repeated file, and the merge matches them to
their par2 set by the MD5 of their first 16 KiB. A missing body would read as taken down."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from pipelines.articles.store import BodyStore, open_bodies, segment_bytes
from pipelines.generate import GenerateConfig
from pipelines.generate.contents.names import first_volume, rar_volume, suffix_of
from pipelines.probe.par2 import read_par2
from pipelines.probe.rar import read_rar
from tests.corpora import replayed

CONFIGS = {
    "real": GenerateConfig(
        groups=1, articles=12_000, seed=3, range_size=20_000, chunk=4_000, mix="real",
        split_and_junk=True,
    ),
    "classic": GenerateConfig(
        groups=2, articles=10_000, seed=5, range_size=20_000, chunk=4_000, split_and_junk=True
    ),
}  # fmt: skip
HASH_16K = 16 * 1024


class Replayed:
    def __init__(self, root: Path, catalog: Path) -> None:
        self.uploads = pq.read_table(root / "truth" / "uploads.parquet").to_pylist()
        self.gone = set(pq.read_table(root / "truth" / "gone.parquet").column(0).to_pylist())
        store = open_bodies(str(root))
        assert store is not None
        self.bodies: BodyStore = store
        self.candidates = duckdb.sql(
            "select kind, file_name, message_id, segment "
            f"from read_parquet('{catalog}/probe_candidates/*/*.parquet')"
        ).fetchall()
        self.upload_of = {m: u for u in self.uploads for f in u["files"] for m in f["message_ids"]}

    def head(self, message_id: str) -> bytes:
        row = self.bodies.row(message_id)
        assert row is not None, message_id
        return segment_bytes(row)


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def corpus(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Replayed:
    tmp: Path = tmp_path_factory.mktemp(f"probes-{request.param}")
    replayed(tmp / "gen", tmp / "cat", CONFIGS[request.param])
    return Replayed(tmp / "gen", tmp / "cat")


def test_every_probe_candidate_has_a_body_unless_taken_down(corpus: Replayed) -> None:
    kinds: Counter[str] = Counter()
    splits: Counter[str] = Counter()
    missing = []
    for kind, name, message_id, segment in corpus.candidates:
        mid = message_id.strip("<>")
        if mid in corpus.gone:
            continue
        kinds[kind] += 1
        u = corpus.upload_of[mid]
        splits[
            u["split_by"] or u["fake"] or ("repeated" if u["repeat_of"] is not None else "")
        ] += 1
        row = corpus.bodies.row(mid)
        if row is None:
            missing.append((kind, name, segment, u["split_by"], u["kind"]))
            continue
        assert row["name"] == name and row["part"] == segment, (row, name, segment)
    assert not missing, missing[:20]
    assert {"archive_first", "par2_index", "lone_random"} <= set(kinds)
    # split and junk uploads are read (which of them, the header pass says)
    assert splits["per_file"] and len(set(splits) - {""}) >= 4, splits


def test_per_file_candidates_hash_as_their_par2_set_says(corpus: Replayed) -> None:
    """Each per_file file's part 1 (a later `.rNN`, `.partNN.rar` or `.volNN+NN.par2`
    too) is a stored body; its first 16 KiB hash as the par2 index lists it, a later RAR
    volume's list the file it continues, a recovery volume's name its set."""
    by_id = {c[2].strip("<>"): c for c in corpus.candidates}
    checked: Counter[str] = Counter()
    firsts: dict[int, list[str]] = {}
    for u in corpus.uploads:
        if u["split_by"] != "per_file":
            continue
        (index,) = [
            f for f in u["files"]
            if f["name"].lower().endswith(".par2") and ".vol" not in f["name"].lower()
        ]  # fmt: skip
        par2 = read_par2(corpus.head(index["message_ids"][0]))
        listed = dict(zip(par2.names, par2.hashes, strict=True))
        for f in sorted(u["files"], key=lambda f: not first_volume(f["name"])):
            first = f["message_ids"][0]
            assert first not in corpus.gone  # a per_file upload is never taken down
            if first in by_id or f["message_ids"][-1] in by_id:  # the header pass reads it
                assert first in corpus.bodies or f["message_ids"][-1] in corpus.bodies
            suffix = suffix_of(f["name"])
            real = f"{u['inner_name']}{suffix}"
            low = f["name"].lower()
            if low.endswith(".par2"):
                if ".vol" in low:  # a recovery volume names its set in its first packet
                    assert read_par2(corpus.head(first)).set_id == par2.set_id
                    checked["vol"] += 1
                continue
            head = corpus.head(first)[:HASH_16K]
            assert hashlib.md5(head).digest() == listed[real], f["name"]
            if rar_volume(f["name"]):  # a later volume lists the file it continues
                listing = read_rar(head)
                assert listing.names == firsts.setdefault(u["upload_id"], listing.names)
                assert listing.names or listing.encrypted, f["name"]
            checked["first" if first_volume(f["name"]) else "later"] += 1
    assert checked["later"] and checked["vol"], checked


def test_per_file_uploads_keep_every_article_and_all_gone_is_dead(corpus: Replayed) -> None:
    for u in corpus.uploads:
        ids = {m for f in u["files"] for m in f["message_ids"]}
        if u["split_by"] == "per_file":
            assert u["taken_down"] is None and not ids & corpus.gone
        if u["taken_down"] == "all":
            assert u["expected_verdict"] == "dead" and ids <= corpus.gone
    assert any(u["taken_down"] == "all" for u in corpus.uploads)
