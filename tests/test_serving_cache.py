"""The per-snapshot cache of search results: same answers, bounded, gone with a refresh."""

from __future__ import annotations

from pipelines.nzb.writer import xml_text
from serving.index.manager import IndexManager
from serving.index.searcher import SearchQuery, Snapshot
from tests.catalogs import land_new_partitions, refreshed_index, synthetic_catalog


def _keys(snapshot: Snapshot, q: SearchQuery) -> tuple[int, list[bytes]]:
    result = snapshot.search(q)
    return result.total, [r["release_key"] for r in result.rows]


def test_cached_results_equal_fresh_ones_and_the_cache_is_bounded(tmp_path):
    root = synthetic_catalog(tmp_path / "cat", 2_000, groups=2, per_range=1_000, seed=8)
    with refreshed_index(root, batch_rows=1_200, result_cache=2) as m:
        cached = m.snapshot
        fresh = Snapshot(cached.segments, cached.generation, cache_size=0)
        queries = [SearchQuery(limit=20), SearchQuery(categories=(5000,), limit=7, offset=3),
                   SearchQuery(words=("love",), limit=50)]  # fmt: skip
        for q in queries:
            assert _keys(cached, q) == _keys(fresh, q)
        assert cached.cache_hits == 0
        # The last two are kept, the first was evicted.
        assert _keys(cached, queries[2]) == _keys(fresh, queries[2])
        assert _keys(cached, queries[1]) == _keys(fresh, queries[1])
        assert cached.cache_hits == 2
        cached.search(queries[0])
        assert cached.cache_hits == 2
        assert fresh.cache_hits == 0 and not fresh._results


def test_a_refresh_never_serves_the_old_snapshots_results(tmp_path):
    root = synthetic_catalog(tmp_path / "cat", 1_000, groups=1, per_range=1_000, seed=9)
    with refreshed_index(root) as m:
        q = SearchQuery(limit=5)
        before = m.snapshot.search(q)
        assert m.snapshot.search(q) is before  # a repeat comes from the cache
        extra = synthetic_catalog(tmp_path / "extra", 2_000, groups=1, per_range=1_000, seed=9)
        land_new_partitions(root, extra)
        assert m.refresh().kind == "delta"
        after = m.snapshot.search(q)
        assert after is not before and after.total > before.total


def test_items_prepared_in_chunks_read_back_in_order(tmp_path, monkeypatch):
    from serving.index import build

    root = synthetic_catalog(tmp_path / "cat", 1_200, groups=1, per_range=600, seed=12)
    q = SearchQuery(limit=500, offset=100)
    whole = IndexManager(root, in_process=True)
    monkeypatch.setattr(build, "ITEM_CHUNK", 97)  # items.arrow in many chunks
    chunked = IndexManager(root, in_process=True)
    try:
        whole.refresh()
        chunked.refresh()
        assert len(chunked.snapshot.segments[0].segment._item_chunks) > 1
        a, b = whole.snapshot.search(q), chunked.snapshot.search(q)
        assert len(a.items) == 500 and a.items == b.items
        assert [r["name"] for r in a.rows] == [r["name"] for r in b.rows]
        # Each item is its row's: the name and guid it starts with.
        heads = [tuple(item.split("\x1f")[:2]) for item in b.items]
        assert heads == [(xml_text(r["name"]), r["release_key"].hex()) for r in b.rows]
    finally:
        whole.close()
        chunked.close()
