"""The split uploads of `--split-and-junk` are split by the real header pass: a per_file
upload's files are a release each, an album's tracks each their own, a set's sidecars a
release apart from the set's. What merges are built to join."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from pipelines.generate import GenerateConfig
from tests.corpora import replayed

CONFIG = GenerateConfig(
    groups=1, articles=12_000, seed=3, range_size=20_000, chunk=4_000, mix="real",
    split_and_junk=True,
)  # fmt: skip


@pytest.fixture(scope="module")
def split(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, list[list[tuple[str, bytes | None]]]]:
    """Per split kind, each upload's files as the release each first segment went to."""
    tmp: Path = tmp_path_factory.mktemp("split")
    gen, _ = replayed(tmp / "gen", tmp / "cat", CONFIG)
    cat = tmp / "cat"
    where: dict[str, bytes] = {}
    for table, ids in (("release_files", "seg_ids"), ("pending_releases", "probe_ids")):
        rows = duckdb.sql(
            f"select release_key, {ids} from read_parquet('{cat}/{table}/*/*.parquet')"
        ).fetchall()
        for key, message_ids in rows:
            for m in message_ids or []:
                where.setdefault(m, bytes(key))
    out: dict[str, list[list[tuple[str, bytes | None]]]] = defaultdict(list)
    for u in pq.read_table(gen.out / "truth" / "uploads.parquet").to_pylist():
        if u["split_by"]:
            files = [(f["name"], where.get(f["message_ids"][0])) for f in u["files"]]
            out[u["split_by"]].append(files)
    return out


def test_per_file_uploads_are_a_release_a_file(split: dict) -> None:
    assert split["per_file"]
    for files in split["per_file"]:
        releases = [key for _, key in files]
        assert None not in releases
        assert len(set(releases)) == len(releases)


def test_tracks_are_a_release_each(split: dict) -> None:
    assert split["tracks"]
    for files in split["tracks"]:
        tracks = [key for name, key in files if not name.endswith(".par2")]
        par2 = {key for name, key in files if name.endswith(".par2")}
        assert None not in tracks and len(set(tracks)) == len(tracks) >= 6
        assert not par2 & set(tracks)


def test_sidecars_are_a_release_apart(split: dict) -> None:
    assert split["sidecar"]
    for files in split["sidecar"]:
        side = {key for name, key in files if name.endswith((".nfo", ".sfv", ".nzb"))}
        rest = {key for name, key in files if not name.endswith((".nfo", ".sfv", ".nzb"))}
        assert None not in side | rest
        assert len(side) == len(rest) == 1 and side != rest
