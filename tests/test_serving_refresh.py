"""The index follows the catalog by what changed: segments dropped, replaced and merged
resolve only their keys, and the workers follow the builder's list of segments.

The oracle for the dead masks is a from-scratch resolution of the same segments
(`IndexManager._resolve`); for results, an index built afresh over the same catalog.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.catalog.schema import RELEASES
from serving.index import manager as manager_module
from serving.index.build import newest_versions, write_segment
from serving.index.manager import MANIFEST, IndexManager
from serving.index.searcher import LiveSegment, SearchQuery, resolve_keys, resolve_versions
from serving.index.segment import Segment
from tests.catalogs import land_new_partitions, refreshed_index, synthetic_catalog

ALL = SearchQuery(limit=20_000)


def _rows(rng: np.random.Generator, n: int, universe: int) -> pa.Table:
    """n release versions drawn from `universe` keys (so segments share keys), of random
    rank; one in eight a tombstone."""
    keys = rng.choice(universe, size=n, replace=False)
    finished = rng.random(n) < 0.5
    tomb = finished & (rng.random(n) < 0.25)
    data = {
        "release_key": pa.array([int(k).to_bytes(20, "big") for k in keys], pa.binary(20)),
        "name": [f"Show.{int(k)}.S01E0{int(k) % 9}" for k in keys],
        "poster": ["p@x"] * n,
        "group": ["alt.binaries.test"] * n,
        "posted_first": rng.integers(1_600_000_000, 1_600_100_000, n),
        "files": np.ones(n, dtype=np.int32),
        "bytes": rng.integers(1, 10**9, n),
        "category": np.full(n, 5040, dtype=np.int32),
        "finished": finished,
        "written_range": rng.integers(0, 4, n) * 1_000,
    }
    columns = {}
    for f in RELEASES:
        if f.name != "merged_into":
            columns[f.name] = (
                pa.array(data[f.name], f.type) if f.name in data else pa.nulls(n, f.type)
            )
    table = pa.table(columns)
    merged = pa.array([b"\x01" * 20 if t else None for t in tomb], pa.binary(20))
    table = table.append_column("merged_into", merged)
    return table.append_column("file", pa.array(np.zeros(n, dtype=np.int32)))


def _segment(rows: pa.Table, folder: Path) -> Segment:
    write_segment(newest_versions(rows), [], folder)
    return Segment(folder)


def _masks(lives: list[LiveSegment]) -> list[list[bool]]:
    return [live.dead.tolist() for live in lives]


def test_resolving_only_the_changed_keys_equals_resolving_all(tmp_path):
    """Random adds, drops and replacements of segments sharing keys: after each, the
    masks kept up incrementally equal those of a fresh resolution of the same segments."""
    rng = np.random.default_rng(11)
    fresh = IndexManager(str(tmp_path / "unused"), in_process=True)
    lives: list[LiveSegment] = []
    made = 0
    for step in range(40):
        op = rng.choice(["add", "drop", "replace"]) if len(lives) > 2 else "add"
        changed: list[np.ndarray] = []
        if op in ("drop", "replace"):
            gone = sorted(rng.choice(len(lives), size=rng.integers(1, 3), replace=False))
            changed += [lives[i].segment.keys for i in gone]
            lives = [live for i, live in enumerate(lives) if i not in gone]
        if op == "add":
            made += 1
            live = LiveSegment.of(_segment(_rows(rng, 60, 150), tmp_path / f"s{made}"))
            resolve_versions(lives, live)
            lives.append(live)
        elif op == "replace":
            made += 1
            live = LiveSegment.of(_segment(_rows(rng, 60, 150), tmp_path / f"s{made}"))
            lives.append(live)
            changed.append(live.segment.keys)
        if op != "add":
            resolve_keys(lives, np.unique(np.concatenate(changed)))
        want = fresh._resolve([live.segment for live in lives], 0).segments
        assert _masks(lives) == _masks(want), (step, op)
        assert [live.dead_count for live in lives] == [w.dead_count for w in want]
    fresh.close()


def _land(root: str, larger: Path, tables: tuple[str, ...] = ("releases", "release_files")) -> None:
    land_new_partitions(root, larger, tables)


def _ranges(catalog: Path) -> list[Path]:
    """The releases partitions in article order (names sort as text otherwise)."""
    found = Path(catalog, "releases").rglob("*.parquet")
    return sorted(found, key=lambda p: (p.parent.name, int(p.name.split("-")[0])))


def _same_as_fresh(m: IndexManager, root: str) -> None:
    with refreshed_index(root) as fresh:
        got = [r["release_key"] for r in m.snapshot.search(ALL).rows]
        assert got == [r["release_key"] for r in fresh.snapshot.search(ALL).rows]
        assert m.snapshot.stats() | {"segments": 0} == fresh.snapshot.stats() | {"segments": 0}
    redone = m._resolve([live.segment for live in m.snapshot.segments], 0).segments
    assert _masks(m.snapshot.segments) == _masks(redone)


def test_a_rewritten_or_removed_partition_rebuilds_only_its_segment(tmp_path):
    options = {"groups": 1, "per_range": 500, "seed": 31, "spanning_share": 0.1}
    root = synthetic_catalog(tmp_path / "cat", 1_000, **options)
    larger = Path(synthetic_catalog(tmp_path / "larger", 2_000, **options))
    m = IndexManager(root, in_process=True)
    try:
        assert m.refresh().kind == "full"
        first = m.snapshot.segments[0].segment.folder
        paths = _ranges(larger)
        for path in paths[2:]:  # two ranges land, one by one: two small deltas
            for table in ("releases", "release_files"):
                source = larger / table / path.relative_to(larger / "releases")
                shutil.copy(source, Path(root) / source.relative_to(larger))
            assert m.refresh().kind == "delta"
        folders = [live.segment.folder for live in m.snapshot.segments]
        assert len(folders) == 3
        # The third range is written again (a tail range growing, a redone range).
        third = Path(root) / paths[2].relative_to(larger)
        table = pq.read_table(third)
        pq.write_table(table.slice(0, table.num_rows - 20), third)
        report = m.refresh()
        assert (report.kind, report.partitions) == ("rebuild", 1)
        now = [live.segment.folder for live in m.snapshot.segments]
        assert now[:2] == [first, folders[2]] and now[2] not in folders
        _same_as_fresh(m, root)
        # The last range vanishes (compacted away, or its group dropped).
        for table in ("releases", "release_files"):
            (Path(root) / table / paths[3].relative_to(larger / "releases")).unlink()
        report = m.refresh()
        assert (report.kind, report.partitions) == ("rebuild", 0)
        assert [live.segment.folder for live in m.snapshot.segments] == [first, now[2]]
        _same_as_fresh(m, root)
    finally:
        m.close()


def test_a_landed_releases_partition_waits_for_its_files(tmp_path):
    """The header pass writes releases before release_files: a release must not be
    found before its NZB can be made."""
    options = {"groups": 1, "per_range": 500, "seed": 37}
    root = synthetic_catalog(tmp_path / "cat", 500, **options)
    larger = tmp_path / "larger"
    synthetic_catalog(larger, 1_000, **options)
    with refreshed_index(root) as m:
        before = m.snapshot.stats()["releases"]
        _land(root, larger, ("releases",))
        assert m.refresh().kind == "none"
        assert m.snapshot.stats()["releases"] == before
        _land(root, larger, ("release_files",))
        assert m.refresh().kind == "delta"
        assert m.snapshot.stats()["releases"] == 1_000


def test_small_builds_run_in_this_process(tmp_path, monkeypatch):
    """A worker process costs 1.5-3 s to start, a tail range's build ~0.1 s."""
    root = synthetic_catalog(tmp_path / "cat", 500, groups=1, per_range=500, seed=41)

    def no_pool(*args, **kwargs):
        raise AssertionError("a small build started a worker process")

    monkeypatch.setattr(manager_module.cf, "ProcessPoolExecutor", no_pool)
    m = IndexManager(root, in_process=False)
    try:
        assert m.refresh().kind == "full"
        assert m.snapshot.stats()["releases"] == 500
    finally:
        m.close()
    spawned = IndexManager(root, in_process=False, spawn_rows=0)
    with pytest.raises(AssertionError, match="worker process"):
        spawned.refresh()
    spawned.close()


def test_workers_follow_the_builders_list_without_listing_the_catalog(tmp_path, monkeypatch):
    options = {"groups": 1, "per_range": 300, "seed": 43, "spanning_share": 0.1}
    root, index = synthetic_catalog(tmp_path / "cat", 600, **options), str(tmp_path / "index")
    larger = Path(synthetic_catalog(tmp_path / "larger", 2_400, **options))
    builder = IndexManager(root, index_dir=index, in_process=True, max_deltas=3)
    follower = IndexManager(root, index_dir=index, follow=True)
    real_list = manager_module.list_table

    def listing_only_in_the_builder(*args, **kwargs):
        assert not following, "a worker listed the catalog"
        return real_list(*args, **kwargs)

    monkeypatch.setattr(manager_module, "list_table", listing_only_in_the_builder)
    try:
        following = False
        builder.refresh()
        paths = _ranges(larger)
        kinds = []
        for i, path in enumerate([None, *paths[2:]]):
            following = False
            if path is not None:
                for table in ("releases", "release_files"):
                    source = larger / table / path.relative_to(larger / "releases")
                    shutil.copy(source, Path(root) / source.relative_to(larger))
                kinds.append(builder.refresh().kind)
            if i == 3:  # a range written again
                third = Path(root) / paths[2].relative_to(larger)
                pq.write_table(pq.read_table(third).slice(5), third)
                kinds.append(builder.refresh().kind)
                # Apart from the unchanged ranges its merged segment read: the next
                # rewrite of it rebuilds only it.
                (alone,) = [s.segment for s in builder.snapshot.segments
                            if str(third) in {p["path"] for p in s.segment.sources}]  # fmt: skip
                assert [p["path"] for p in alone.sources] == [str(third)]
            following = True
            assert follower.refresh().kind == "follow"
            assert follower.refresh().kind == "none"  # one stat: nothing new
            assert [s.segment.folder for s in follower.snapshot.segments] == [
                s.segment.folder for s in builder.snapshot.segments
            ]
            assert _masks(follower.snapshot.segments) == _masks(builder.snapshot.segments)
            q = SearchQuery(limit=5_000)
            assert [r["release_key"] for r in follower.snapshot.search(q).rows] == [
                r["release_key"] for r in builder.snapshot.search(q).rows
            ]
        # Three small segments (max_deltas) are merged by the next landing; the rewrite
        # rebuilds the merged segment, which read that range, as two.
        assert kinds == ["delta", "delta", "merge", "rebuild", "delta", "merge", "delta"]
        following = False
        _same_as_fresh(follower, root)
        names = json.loads(Path(index, MANIFEST).read_text())["segments"]
        assert names == [s.segment.folder.name for s in builder.snapshot.segments]
    finally:
        follower.close()
        builder.close()


def test_an_index_folder_of_another_format_is_rebuilt(tmp_path):
    root, index = str(tmp_path / "cat"), str(tmp_path / "index")
    synthetic_catalog(root, 1_000, groups=1, per_range=500, seed=47)
    first = IndexManager(root, index_dir=index, in_process=True)
    first.refresh()
    expected = [r["release_key"] for r in first.snapshot.search(ALL).rows]
    first.close()
    (summary_path,) = Path(index).glob("seg-*/segment.json")
    summary = json.loads(summary_path.read_text())
    del summary["format"]  # as an older build wrote it
    summary_path.write_text(json.dumps(summary))
    again = IndexManager(root, index_dir=index, in_process=True)
    try:
        report = again.refresh()
        assert (report.kind, report.partitions) == ("full", 2)
        assert not summary_path.parent.exists()
        assert [r["release_key"] for r in again.snapshot.search(ALL).rows] == expected
    finally:
        again.close()
    assert os.listdir(index)
