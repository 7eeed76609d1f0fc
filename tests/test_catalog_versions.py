"""The newest-version rule (`pipelines.catalog.versions`): its SQL and its rank agree, and
every reader (the views, the index, the status page, the NZB export) follows it."""

from __future__ import annotations

import duckdb
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.catalog.schema import PENDING_RELEASES, RELEASE_FILES, RELEASES
from pipelines.catalog.versions import hidden, newest_rows, newest_sql
from pipelines.catalog.views import CatalogViews
from pipelines.catalog.writer import write_partition
from serving.settings import Settings
from serving.state import Catalog
from tests.catalogs import refreshed_index

GROUP = "alt.binaries.test"

# Per key, versions with distinct (finished, written_range) as the rule reads them
# (a null finished is provisional, a null range 0): ties have no newest.
_version = st.tuples(st.sampled_from([True, False, None]), st.sampled_from([None, 0, 1, 2, 3]))


def _rank(finished: bool | None, written: int | None) -> tuple[bool, int]:
    return bool(finished), written or 0


def _rank_of(version: tuple[bool | None, int | None]) -> tuple[bool, int]:
    return _rank(*version)


@st.composite
def _versions(draw) -> pa.Table:
    rows = []
    for key in range(draw(st.integers(1, 6))):
        drawn = draw(st.lists(_version, min_size=1, max_size=5, unique_by=_rank_of))
        for finished, written in drawn:
            tombstone = draw(st.booleans()) if finished else False
            rows.append(
                {
                    "release_key": bytes([key]) * 20,
                    "name": f"{key}:{finished}:{written}",
                    "finished": finished,
                    "written_range": written,
                    "merged_into": b"\x01" * 20 if tombstone else None,
                }
            )
    order = draw(st.permutations(range(len(rows))))
    return pa.Table.from_pylist([rows[i] for i in order], schema=RELEASES)


def _expected(table: pa.Table) -> set[str]:
    """The rule in plain Python: per key the highest (finished, range); tombstones hide."""
    best: dict[bytes, dict] = {}
    for row in table.to_pylist():
        old = best.get(row["release_key"])
        rank = _rank(row["finished"], row["written_range"])
        if old is None or rank > _rank(old["finished"], old["written_range"]):
            best[row["release_key"]] = row
    return {r["name"] for r in best.values() if r["merged_into"] is None}


@settings(max_examples=150, deadline=None)
@given(table=_versions())
def test_the_sql_and_the_rank_pick_the_same_versions(table):
    con = duckdb.connect()
    con.register("versions", table)
    by_sql = {r[0] for r in con.sql(f"SELECT name FROM ({newest_sql('versions')})").fetchall()}
    keep = newest_rows(table)
    shown = keep[~hidden(table)[keep]]
    by_rank = set(table.column("name").take(pa.array(shown)).to_pylist())
    assert by_sql == by_rank == _expected(table)


def _release(name: str, finished: bool | None, written: int, **extra) -> dict:
    return {
        "release_key": b"\x07" * 20, "identity_key": b"\x08" * 20, "name": name,
        "poster": "p <p@example.com>", "group": GROUP, "groups": [GROUP],
        "posted_first": 1_700_000_000, "posted_last": 1_700_000_100,
        "first_article": 10, "last_article": 150, "files": 1, "segments": 1, "bytes": 100,
        "complete": True, "readable": True, "has_par2": False, "source": "subject",
        "category": 2000, "finished": finished, "written_range": written,
        "rules_version": "1", **extra,
    }  # fmt: skip


def test_a_version_without_finished_counts_as_provisional_in_views_and_index(tmp_path):
    """DuckDB sorts a null `finished` below false, the index's rank as false: the views
    showed an older provisional version where the index showed the later one. The rule
    says provisional, so both show the later one."""
    root = str(tmp_path / "cat")
    for first, row in ((0, _release("older", False, 0)), (100, _release("later", None, 100))):
        table = pa.Table.from_pylist([row], schema=RELEASES)
        write_partition(root, "releases", GROUP, first, first + 99, table)
        # the server takes a range's releases once its file rows are there too
        write_partition(
            root, "release_files", GROUP, first, first + 99, RELEASE_FILES.empty_table()
        )
    views = CatalogViews(root)
    try:
        assert views.query("SELECT name FROM releases").to_pylist() == [{"name": "later"}]
    finally:
        views.close()
    with refreshed_index(root) as index:
        found = index.snapshot.find(b"\x07" * 20)
        assert found is not None and found["name"] == "later"


def test_the_status_page_counts_pending_releases_not_their_versions(tmp_path):
    """A pending release written provisional, then finished, is one pending release."""
    root = str(tmp_path / "cat")
    ranges = {0: [(b"\x01", False)], 100: [(b"\x01", True), (b"\x02", False)]}
    for first, versions in ranges.items():
        rows = [{"release_key": key * 20, "group": GROUP, "finished": finished,
                 "written_range": first} for key, finished in versions]  # fmt: skip
        table = pa.Table.from_pylist(rows, schema=PENDING_RELEASES)
        write_partition(root, "pending_releases", GROUP, first, first + 99, table)
    catalog = Catalog(Settings(catalog=root, index_dir=str(tmp_path / "index")))
    try:
        assert catalog.status()["pending"] == 2
    finally:
        catalog.close()
