"""The synthetic catalog follows the catalog contract: schemas, keys, versions, files."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from bench.synthetic_catalog import write_synthetic_catalog
from pipelines.catalog.layout import table_glob
from pipelines.catalog.schema import TABLES
from pipelines.catalog.versions import newest_sql


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("catalog"))
    # Many releases per range: the article numbers get squeezed into the range's span.
    stats = write_synthetic_catalog(root, 9_000, groups=2, per_range=3_000, range_size=20_000)
    assert stats.releases == 9_000
    return root


def _sql(catalog: str, sql: str) -> list[tuple]:
    releases = table_glob(catalog, "releases")
    return duckdb.sql(
        sql.format(
            r=releases,
            f=table_glob(catalog, "release_files"),
            newest=newest_sql(f"read_parquet('{releases}')"),
        )
    ).fetchall()


def test_every_partition_has_the_schema(catalog):
    files = list(Path(catalog).rglob("*.parquet"))
    assert {f.parent.parent.name for f in files} == {"releases", "release_files", "ranges"}
    for f in files:
        assert pq.read_schema(f).remove_metadata().equals(TABLES[f.parent.parent.name]), f


def test_keys_are_unique_per_release_and_versions_follow_the_rules(catalog):
    ((versions, keys),) = _sql(catalog, "SELECT count(*), count(DISTINCT release_key) FROM '{r}'")
    assert keys == 9_000 and versions > keys
    # A key has at most one finished version, and it was written after its provisional one.
    bad = _sql(catalog, """
        SELECT release_key FROM '{r}' GROUP BY 1
        HAVING count(*) FILTER (WHERE finished) > 1
            OR max(written_range) FILTER (WHERE NOT finished)
               > min(written_range) FILTER (WHERE finished)
    """)  # fmt: skip
    assert bad == []
    assert _sql(
        catalog, "SELECT count(*) FROM '{r}' WHERE members IS NOT NULL AND source = 'album'"
    )[0][0]


def test_release_files_add_up_to_the_newest_version(catalog):
    mismatched = _sql(catalog, """
        WITH newest AS ({newest}),
        segs AS (
            SELECT release_key, count(DISTINCT (name, n)) AS segments, count(DISTINCT name) AS files
            FROM (SELECT release_key, name, unnest(seg_numbers) AS n FROM '{f}') GROUP BY 1)
        SELECT n.release_key FROM newest n JOIN segs s USING (release_key)
        WHERE n.segments != s.segments OR n.files != s.files
    """)  # fmt: skip
    assert mismatched == []
    ((with_files,),) = _sql(catalog, "SELECT count(DISTINCT release_key) FROM '{f}'")
    assert with_files == 9_000
