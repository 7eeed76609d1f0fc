"""ReleaseFilesLookup: a release's `release_files` rows, read through one-row-group footers."""

from __future__ import annotations

import shutil
from pathlib import Path

import fsspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from pipelines.catalog.synthetic import write_synthetic_catalog
from pipelines.nzb import assemble
from pipelines.nzb.assemble import MERGED_COLUMNS, ReleaseFilesLookup

ROW_GROUP = 257


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> tuple[str, list[str], list[Path]]:
    root = str(tmp_path_factory.mktemp("lookup") / "cat")
    write_synthetic_catalog(root, 1_500, groups=2, per_range=500, seed=10)
    groups = sorted(p.name for p in Path(root, "release_files").iterdir())
    parts = sorted(Path(root, "release_files").rglob("*.parquet"))
    for path in parts:  # many row groups, a release's rows across their edges at times
        pq.write_table(pq.read_table(path), path, row_group_size=ROW_GROUP)
        assert pq.ParquetFile(path).metadata.num_row_groups > 3
    return root, groups, parts


def _expected(root: str, group: str, key: bytes) -> pa.Table:
    """A plain read: every partition of the group, whole, filtered on the key."""
    tables = []
    for part in assemble.partition_files(
        fsspec.filesystem("file"), f"{root}/release_files/{group}"
    ):
        table = pq.read_table(part.path, columns=MERGED_COLUMNS)
        tables.append(
            table.filter(pc.equal(table.column("release_key"), pa.scalar(key, pa.binary(20))))
        )
    return pa.concat_tables(tables)


def _some_keys(parts: list[Path]) -> list[tuple[str, bytes]]:
    keys = []
    for path in parts:
        column = pq.read_table(path, columns=["release_key"]).column(0)
        # rows at row groups' edges and in their middles
        for at in (0, ROW_GROUP - 1, ROW_GROUP, 2 * ROW_GROUP + 7, len(column) - 1):
            keys.append((path.parent.name, column[at].as_py()))
    return keys


def test_rows_equal_a_plain_filtered_read(catalog):
    root, groups, parts = catalog
    fs = fsspec.filesystem("file")
    lookup = ReleaseFilesLookup(fs, root)
    assert lookup.warm(groups) == len(parts)
    assert lookup.warm(groups) == 0  # all read already
    assert all(p.spans is not None for p in lookup._cache.values())
    for group, key in _some_keys(parts):
        expected = _expected(root, group, key)
        assert expected.num_rows
        got = lookup.rows(group, key, 0, 1 << 62)
        assert got.select(MERGED_COLUMNS).equals(expected)
    assert lookup.rows(groups[0], b"\xff" * 20, 0, 1 << 62).num_rows == 0


def test_a_footer_that_does_not_split_is_read_whole(catalog, monkeypatch):
    root, _, parts = catalog

    def refuse(footer):
        raise ValueError("no")

    monkeypatch.setattr(assemble, "row_group_spans", refuse)
    lookup = ReleaseFilesLookup(fsspec.filesystem("file"), root)
    for group, key in _some_keys(parts)[:6]:
        got = lookup.rows(group, key, 0, 1 << 62)
        assert got.select(MERGED_COLUMNS).equals(_expected(root, group, key))
    assert all(p.spans is None for p in lookup._cache.values())


def test_footers_are_kept_within_their_byte_budget(catalog):
    root, groups, parts = catalog
    fs = fsspec.filesystem("file")
    assert ReleaseFilesLookup(fs, root, cache_bytes=1).warm(groups) == 1
    small = ReleaseFilesLookup(fs, root, cache_bytes=1)
    for group, key in _some_keys(parts):
        got = small.rows(group, key, 0, 1 << 62)  # read again when dropped: same rows
        assert got.select(MERGED_COLUMNS).equals(_expected(root, group, key))
        assert len(small._cache) == 1


def test_a_replaced_partition_is_read_again(catalog, tmp_path):
    root, groups, _ = catalog
    copy = tmp_path / "cat"
    shutil.copytree(root, copy)
    lookup = ReleaseFilesLookup(fsspec.filesystem("file"), str(copy))
    path = sorted((copy / "release_files" / groups[0]).glob("*.parquet"))[0]
    key = pq.read_table(path, columns=["release_key"]).column(0)[0].as_py()
    before = lookup.rows(groups[0], key, 0, 1 << 62)
    assert before.num_rows
    # A redone range rewrites the partition: here without that release's rows.
    table = pq.read_table(path)
    keep = pc.invert(pc.equal(table.column("release_key"), pa.scalar(key, pa.binary(20))))
    pq.write_table(table.filter(keep), path, row_group_size=700)
    lookup._listing.clear()
    after = lookup.rows(groups[0], key, 0, 1 << 62)
    assert after.num_rows < before.num_rows
    assert after.select(MERGED_COLUMNS).equals(_expected(str(copy), groups[0], key))
    assert len([k for k in lookup._cache if k[0] == str(path)]) == 1
