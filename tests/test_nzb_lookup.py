"""ReleaseFilesLookup: a release's `release_files` rows, read through one-row-group footers."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import fsspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.synthetic_catalog import write_synthetic_catalog
from pipelines.catalog.partitions import list_group
from pipelines.nzb import footers
from pipelines.nzb import lookup as nzb_lookup
from pipelines.nzb.assemble import MERGED_COLUMNS
from pipelines.nzb.byte_ranges import ByteRanges, chunk_span
from pipelines.nzb.lookup import ReleaseFilesLookup

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
    for part in list_group(fsspec.filesystem("file"), root, "release_files", group):
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

    monkeypatch.setattr(footers, "row_group_spans", refuse)
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


def test_each_row_group_read_is_one_read_of_its_column_chunks(catalog, monkeypatch):
    """A cold row group costs one read (a pread, a ranged GET), not a fault per page."""
    root, groups, parts = catalog
    reads: list[tuple[str, int, int]] = []
    plain = nzb_lookup.pread

    def counted(path: str, start: int, end: int) -> bytes:
        reads.append((path, start, end))
        return plain(path, start, end)

    monkeypatch.setattr(nzb_lookup, "pread", counted)
    lookup = ReleaseFilesLookup(fsspec.filesystem("file"), root)
    lookup.warm(groups)
    for group, key in _some_keys(parts):
        reads.clear()
        got = lookup.rows(group, key, 0, 1 << 62)
        assert got.select(MERGED_COLUMNS).equals(_expected(root, group, key))
        candidates = [
            (path, i)
            for (path, *_), part in lookup._cache.items()
            if f"/{group}/" in path
            for i, b in enumerate(part.bounds)
            if b is not None and b[0] <= key <= b[1]
        ]
        assert len(reads) == len(candidates) >= 1
        for path, i in candidates:
            meta = pq.ParquetFile(path).metadata
            assert (path, *chunk_span(meta.row_group(i), MERGED_COLUMNS)) in reads


@settings(max_examples=60, deadline=None)
@given(
    data=st.binary(min_size=0, max_size=3000),
    ahead=st.tuples(st.integers(-10, 3100), st.integers(-10, 3100)),
    ops=st.lists(
        st.tuples(st.sampled_from(["seek0", "seek1", "seek2", "read"]), st.integers(-50, 3100)),
        max_size=20,
    ),
)
def test_byte_ranges_read_like_a_file(data, ahead, ops):
    calls: list[tuple[int, int]] = []

    def read(start: int, end: int) -> bytes:
        assert 0 <= start <= end <= len(data)
        calls.append((start, end))
        return data[start:end]

    got = ByteRanges(read, len(data))
    got.read_ahead(*ahead)
    held = (max(0, ahead[0]), min(ahead[1], len(data)))
    calls.clear()
    want = io.BytesIO(data)
    for op, n in ops:
        if op == "read":
            before = want.tell()
            assert bytes(got.read(n)) == want.read(n)
            end = len(data) if n < 0 else min(before + n, len(data))
            inside = held[0] <= before and end <= held[1] and held[1] > held[0]
            assert not calls or not inside  # held bytes never read again
            calls.clear()
        else:
            whence = int(op[-1])
            offset = abs(n) if whence == 0 else n
            base = {0: 0, 1: want.tell(), 2: len(data)}[whence]
            if base + offset < 0:
                with pytest.raises(ValueError):
                    got.seek(offset, whence)
                continue
            assert got.seek(offset, whence) == want.seek(offset, whence)
        assert got.tell() == want.tell()
