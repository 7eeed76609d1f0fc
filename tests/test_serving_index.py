"""The search index against a plain DuckDB reference, and its refresh as partitions land."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.synthetic_catalog import GROUPS
from pipelines.catalog.layout import table_glob
from pipelines.catalog.schema import RELEASE_FILES
from pipelines.catalog.versions import newest_sql
from serving import text
from serving.index.manager import IndexManager
from serving.index.searcher import SearchQuery
from tests.catalogs import land_new_partitions, module_catalog, refreshed_index, synthetic_catalog


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> str:
    return module_catalog(tmp_path_factory, 6_000, groups=3, per_range=1_000, seed=3)


@pytest.fixture(scope="module")
def manager(catalog):
    # Small batches: the full build makes several segments, so every query below also
    # checks the merge across segments and the version rules between them.
    with refreshed_index(catalog, batch_rows=2_500) as m:
        assert len(m.snapshot.segments) >= 3
        yield m


@pytest.fixture(scope="module")
def newest(catalog) -> list[dict]:
    """The reference: newest version per key by the catalog's rule, newest posting first."""
    newest = newest_sql(f"read_parquet('{table_glob(catalog, 'releases')}')")
    sql = f"{newest} ORDER BY posted_first DESC, release_key"
    return duckdb.sql(sql).to_arrow_table().to_pylist()


def _reference(rows: list[dict], q: SearchQuery) -> list[bytes]:
    out = []
    for r in rows:
        names = [r["name"], *(r["members"] or [])]
        words = {w for n in names for w in text.words(n)}
        if not set(q.words) <= words:
            continue
        if q.categories and not any(
            r["category"] == c or (c % 1000 == 0 and r["category"] // 1000 * 1000 == c)
            for c in q.categories
        ):
            continue
        if q.groups and r["group"] not in q.groups:
            continue
        if q.min_posted is not None and r["posted_first"] < q.min_posted:
            continue
        if q.min_bytes is not None and r["bytes"] < q.min_bytes:
            continue
        if q.max_bytes is not None and r["bytes"] > q.max_bytes:
            continue
        out.append(r["release_key"])
    return out


def test_one_version_per_release(manager, newest):
    assert manager.snapshot.stats()["releases"] == len(newest)
    got = manager.snapshot.search(SearchQuery(limit=len(newest)))
    assert [r["release_key"] for r in got.rows] == [r["release_key"] for r in newest]
    provisional = [r for r in newest if not r["finished"]]
    assert provisional, "the synthetic catalog should leave some releases provisional"


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_search_matches_the_reference(manager, newest, data):
    row = newest[data.draw(st.integers(0, len(newest) - 1))]
    words = text.words(row["name"])
    picked = data.draw(st.lists(st.sampled_from(words), min_size=0, max_size=3, unique=True))
    if data.draw(st.booleans()):
        picked.append(data.draw(st.sampled_from(["love", "1080p", "x264", "zzzz", "s01e01"])))
    cats = data.draw(
        st.lists(st.sampled_from([2000, 2040, 5000, 5040, 3010, 7000, 8010, 9999]), max_size=2)
    )
    groups = data.draw(st.lists(st.sampled_from(GROUPS[:4]), max_size=2))
    q = SearchQuery(
        words=tuple(dict.fromkeys(picked)),
        categories=tuple(cats),
        groups=tuple(groups),
        min_posted=data.draw(
            st.none() | st.integers(row["posted_first"] - 10**8, row["posted_first"])
        ),
        min_bytes=data.draw(st.none() | st.integers(0, 10**9)),
        max_bytes=data.draw(st.none() | st.integers(10**6, 10**11)),
        offset=data.draw(st.integers(0, 30)),
        limit=data.draw(st.integers(1, 50)),
    )
    expected = _reference(newest, q)
    got = manager.snapshot.search(q)
    assert got.total == len(expected)
    assert [r["release_key"] for r in got.rows] == expected[q.offset : q.offset + q.limit]


def test_album_members_and_episode_tags_are_searchable(manager, newest):
    album = next(r for r in newest if r["members"])
    member = album["members"][-1]  # IMG_0007.jpg -> img 0007 jpg
    hits = manager.snapshot.search(SearchQuery(words=tuple(text.words(member)), limit=500))
    assert album["release_key"] in {r["release_key"] for r in hits.rows}
    tv = next(r for r in newest if r["category"] // 1000 == 5)
    tag = next(w for w in text.words(tv["name"]) if text.episode_terms(w))
    season, episode = (int(x) for x in tag[1:].split("e"))
    found = manager.snapshot.search(
        SearchQuery(terms=(text.season_term(season, episode),), limit=500)
    )
    assert tv["release_key"] in {r["release_key"] for r in found.rows}
    assert all(tag in text.words(r["name"]) for r in found.rows)


def test_find_by_key_including_trailing_zero_bytes(manager, newest):
    for row in newest[:50]:
        assert manager.snapshot.find(row["release_key"])["name"] == row["name"]
    assert manager.snapshot.find(b"\x00" * 20) is None
    assert manager.snapshot.find(b"short") is None
    # A key whose last byte is zero must still be found (numpy strips trailing NULs).
    zero = next((r for r in newest if r["release_key"].endswith(b"\x00")), None)
    if zero is None:
        pytest.skip("no key ending in a zero byte in this catalog")
    assert manager.snapshot.find(zero["release_key"])["name"] == zero["name"]


def test_a_downloads_row_is_the_whole_rows_fields(manager, newest):
    """`download_row` reads group and category from the segment's arrays, the rest from
    four columns: the same values as the whole row."""
    fields = ("release_key", "name", "group", "category", "first_article", "last_article",
              "written_range")  # fmt: skip
    for row in newest[:200]:
        got = manager.snapshot.download_row(row["release_key"])
        whole = manager.snapshot.find(row["release_key"])
        assert got is not None and {f: got[f] for f in fields} == {f: whole[f] for f in fields}
    assert manager.snapshot.download_row(b"\x00" * 20) is None


def test_a_landed_range_becomes_a_delta_segment(tmp_path):
    options = {"groups": 1, "per_range": 1_000, "seed": 5, "spanning_share": 0.05}
    root = synthetic_catalog(tmp_path / "cat", 2_000, **options)
    m = IndexManager(root, in_process=True)
    try:
        assert m.refresh().kind == "full"
        before = m.snapshot.stats()["releases"]
        provisional = m.snapshot.search(SearchQuery(limit=5000)).rows
        open_keys = {r["release_key"] for r in provisional if not r["finished"]}
        assert open_keys
        # The group's next range lands: it finishes the carried releases (same keys).
        land_new_partitions(root, synthetic_catalog(tmp_path / "extra", 3_000, **options))
        report = m.refresh()
        assert report.kind == "delta" and report.partitions == 1
        assert len(m.snapshot.segments) == 2
        rows = m.snapshot.search(SearchQuery(limit=10_000)).rows
        keys = [r["release_key"] for r in rows]
        assert len(keys) == len(set(keys)), "a release shows once, its newest version"
        assert m.snapshot.stats()["releases"] == len(keys) > before
        finished = {r["release_key"] for r in rows if r["finished"]}
        assert open_keys & finished, "the new range's finished versions replace the provisional"
        assert m.refresh().kind == "none"
        # A redone range replaces a file: only the segment that read it is built again.
        victim = sorted(Path(root, "releases").rglob("*.parquet"))[0]
        os.utime(victim, (1, 1))
        report = m.refresh()
        assert report.kind == "rebuild" and report.partitions == 2  # the first segment's
        assert m.snapshot.stats()["releases"] == len(keys)
        with refreshed_index(root) as fresh:
            q = SearchQuery(limit=10_000)
            assert [r["release_key"] for r in m.snapshot.search(q).rows] == [
                r["release_key"] for r in fresh.snapshot.search(q).rows
            ]
    finally:
        m.close()


@pytest.mark.slow
def test_worker_process_build_matches_in_process(catalog, manager):
    m = IndexManager(catalog, in_process=False, spawn_rows=0)  # every build in a worker
    try:
        m.refresh()
        q = SearchQuery(words=("love",), limit=100)
        a, b = m.snapshot.search(q), manager.snapshot.search(q)
        assert a.total == b.total
        assert [r["release_key"] for r in a.rows] == [r["release_key"] for r in b.rows]
    finally:
        m.close()


def test_empty_catalog_serves_empty_results(tmp_path):
    with refreshed_index(str(tmp_path)) as m:
        assert m.snapshot.search(SearchQuery(words=("x",))).total == 0
        assert m.snapshot.stats()["releases"] == 0


def test_a_tombstone_hides_its_release_everywhere(tmp_path):
    """A finished version with `merged_into` set (it went into an album) hides the key."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipelines.catalog.views import CatalogViews

    root = synthetic_catalog(tmp_path / "cat", 1_000, groups=1, per_range=1_000, seed=9)
    with refreshed_index(root) as m:
        victim = m.snapshot.search(SearchQuery(limit=1)).rows[0]
        group = victim["group"]
        files = sorted(Path(root, "releases", group).glob("*.parquet"))
        row = (
            pq.read_table(files[0])
            .filter(
                pa.compute.equal(
                    pq.read_table(files[0]).column("release_key"),
                    pa.scalar(victim["release_key"], pa.binary(20)),
                )
            )
            .slice(0, 1)
        )
        row = row.set_column(row.schema.get_field_index("written_range"), "written_range",
                             pa.array([10**9], pa.int64()))  # fmt: skip
        row = row.set_column(row.schema.get_field_index("finished"), "finished", pa.array([True]))
        if "merged_into" in row.column_names:
            row = row.drop_columns(["merged_into"])
        row = row.append_column("merged_into", pa.array([b"\x01" * 20], pa.binary(20)))
        pq.write_table(row, Path(root, "releases", group, f"{10**9}-{10**9 + 9}.parquet"))
        assert m.refresh().kind == "none"  # its range's file rows are not written yet
        files_path = Path(root, "release_files", group, f"{10**9}-{10**9 + 9}.parquet")
        pq.write_table(RELEASE_FILES.empty_table(), files_path)
        assert m.refresh().kind == "delta"
        assert m.snapshot.find(victim["release_key"]) is None
        keys = {r["release_key"] for r in m.snapshot.search(SearchQuery(limit=5_000)).rows}
        assert victim["release_key"] not in keys and len(keys) == 999
        assert m.snapshot.stats()["releases"] == 999
        views = CatalogViews(root)
        assert views.query("SELECT count(*) AS n FROM releases").to_pylist()[0]["n"] == 999
        views.close()
        assert m.refresh().kind == "none"
        os.utime(files[0], (1, 1))  # a rebuild of the older segment must hide it too
        assert m.refresh().kind == "rebuild"
        assert m.snapshot.find(victim["release_key"]) is None
        assert len(m.snapshot.search(SearchQuery(limit=5_000)).rows) == 999


def test_a_restart_reuses_segments_and_small_deltas_merge(tmp_path):
    root, index = str(tmp_path / "cat"), str(tmp_path / "index")
    synthetic_catalog(root, 3_000, groups=1, per_range=500, seed=13)
    first = IndexManager(root, index_dir=index, in_process=True, batch_rows=1_600)
    first.refresh()
    expected = [r["release_key"] for r in first.snapshot.search(SearchQuery(limit=5_000)).rows]
    folders = sorted(p.name for p in Path(index).iterdir())
    first.close()
    assert sorted(p.name for p in Path(index).iterdir()) == folders  # kept: not a temp dir
    # Segments under batch_rows / 4 = 1,000 rows count as small deltas.
    again = IndexManager(root, index_dir=index, in_process=True, batch_rows=4_000, max_deltas=2)
    try:
        report = again.refresh()
        assert report.kind == "full" and report.partitions == 0  # nothing rebuilt
        got = [r["release_key"] for r in again.snapshot.search(SearchQuery(limit=5_000)).rows]
        assert got == expected
        # Three more ranges land one by one: two small deltas, then they are merged.
        extra = tmp_path / "extra"
        synthetic_catalog(extra, 4_500, groups=1, per_range=500, seed=13)
        new = sorted(p for p in (extra / "releases").rglob("*.parquet")
                     if not (Path(root) / p.relative_to(extra)).exists())  # fmt: skip
        kinds = []
        for path in new:
            for table in ("releases", "release_files"):  # in the header pass's order
                source = extra / table / path.relative_to(extra / "releases")
                shutil.copy(source, Path(root) / source.relative_to(extra))
            kinds.append(again.refresh().kind)
        assert kinds == ["delta", "delta", "merge"]
        assert sum(s.segment.n < 1_000 for s in again.snapshot.segments) == 0  # merged
        with refreshed_index(root) as reference:
            want = [
                r["release_key"] for r in reference.snapshot.search(SearchQuery(limit=9_000)).rows
            ]
        got = [r["release_key"] for r in again.snapshot.search(SearchQuery(limit=9_000)).rows]
        assert got == want
    finally:
        again.close()


def test_a_follower_serves_what_the_builder_writes(tmp_path):
    """`serve --workers`: one process builds into index_dir, the workers only follow it."""
    root, index = str(tmp_path / "cat"), str(tmp_path / "index")
    synthetic_catalog(root, 1_000, groups=1, per_range=500, seed=17)
    builder = IndexManager(root, index_dir=index, in_process=True)
    follower = IndexManager(root, index_dir=index, follow=True)
    try:
        assert follower.refresh().kind == "none"  # nothing built yet: nothing to serve
        builder.refresh()
        assert follower.refresh().kind == "follow"
        assert follower.snapshot.stats() == builder.snapshot.stats()
        extra = synthetic_catalog(tmp_path / "extra", 1_500, groups=1, per_range=500, seed=17)
        land_new_partitions(root, extra)
        assert follower.refresh().kind == "none"  # the new partition has no segment yet
        assert builder.refresh().kind == "delta"
        assert follower.refresh().kind == "follow"
        q = SearchQuery(limit=2_000)
        got = [r["release_key"] for r in follower.snapshot.search(q).rows]
        assert got == [r["release_key"] for r in builder.snapshot.search(q).rows]
        assert len(got) == 1_500
        # It resolved only the new segment; a follower loading everything afresh agrees.
        fresh = IndexManager(root, index_dir=index, follow=True)
        assert fresh.refresh().kind == "follow"
        dead = [live.dead.tolist() for live in follower.snapshot.segments]
        assert dead == [live.dead.tolist() for live in fresh.snapshot.segments]
        assert any(any(d) for d in dead[:-1]), "the new range superseded older versions"
        fresh.close()
    finally:
        follower.close()
        builder.close()
    assert any(Path(index).iterdir())  # the follower never deletes the builder's segments
