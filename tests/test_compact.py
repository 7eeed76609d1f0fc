"""Compaction moves rows into fewer, sorted files and never changes them."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.catalog.compact import (
    COMPACTED_TABLES,
    RANGE_COLUMN,
    SORT_KEYS,
    compact_group,
    uncompact_range,
)
from pipelines.catalog.partitions import list_group
from pipelines.catalog.schema import TABLES
from pipelines.catalog.writer import write_partition
from pipelines.corpus.fs import open_fs

GROUPS = ["alt.binaries.a", "alt.binaries.b"]
SPAN = 1000


def _value(name: str, kind: pa.DataType, rng: random.Random, group: str, first: int) -> object:
    if name in ("written_range", "range_first"):
        return first
    if name == "range_last":
        return first + SPAN - 1
    if name == "group":
        return group
    if pa.types.is_fixed_size_binary(kind):
        return hashlib.sha1(f"{rng.random()}".encode()).digest()
    if pa.types.is_integer(kind):
        return rng.randrange(0, 1 << 30)
    if pa.types.is_floating(kind):
        return rng.random()
    if pa.types.is_boolean(kind):
        return rng.random() < 0.5
    if pa.types.is_list(kind):
        return [_value("", kind.value_type, rng, group, first) for _ in range(rng.randrange(3))]
    return f"{name}-{rng.randrange(1000)}"


def _rows(table: str, group: str, first: int, n: int, seed: int) -> pa.Table:
    rng = random.Random(f"{table}{group}{first}{seed}")
    schema = TABLES[table]
    rows = [{f.name: _value(f.name, f.type, rng, group, first) for f in schema} for _ in range(n)]
    return pa.Table.from_pylist(rows, schema)


def _write_range(catalog: str, group: str, first: int, seed: int = 0) -> None:
    for table in COMPACTED_TABLES:
        write_partition(
            catalog, table, group, first, first + SPAN - 1, _rows(table, group, first, 20, seed)
        )


def _content(catalog: str, table: str, group: str) -> list[tuple]:
    """Every row of the table and group, as a sorted list: what any view can see."""
    fs, root = open_fs(catalog)
    rows: list[tuple] = []
    for f in list_group(fs, root, table, group):
        rows.extend(tuple(sorted(r.items())) for r in pq.read_table(f.path).to_pylist())
    return sorted(rows, key=repr)


@pytest.fixture
def catalog(tmp_path: Path) -> str:
    root = str(tmp_path / "catalog")
    for group in GROUPS:
        for i in range(6):
            _write_range(root, group, 10_000 + i * SPAN)
    return root


def test_compaction_keeps_every_row_and_sorts(catalog: str) -> None:
    before = {(t, g): _content(catalog, t, g) for t in COMPACTED_TABLES for g in GROUPS}
    result = compact_group(catalog, GROUPS[0], target_bytes=1 << 30)
    fs, root = open_fs(catalog)
    for table in COMPACTED_TABLES:
        files = list_group(fs, root, table, GROUPS[0])
        assert [(f.compact, f.first, f.last) for f in files] == [(True, 10_000, 15_999)]
        rows = pq.read_table(files[0].path)
        keys = SORT_KEYS[table]
        assert rows.equals(rows.sort_by([(k, "ascending") for k in keys]))
        assert result.tables[table].files_merged == 6
        assert result.tables[table].rows_moved == 120
        # the other group is untouched
        assert len(list_group(fs, root, table, GROUPS[1])) == 6
    after = {(t, g): _content(catalog, t, g) for t in COMPACTED_TABLES for g in GROUPS}
    assert after == before
    again = compact_group(catalog, GROUPS[0], target_bytes=1 << 30)
    assert again.files_merged == 0


def test_target_size_makes_several_files_and_new_ranges_join(catalog: str) -> None:
    fs, root = open_fs(catalog)
    one = list_group(fs, root, "releases", GROUPS[0])[0].size
    compact_group(catalog, GROUPS[0], target_bytes=one * 2, tables=("releases",))
    files = list_group(fs, root, "releases", GROUPS[0])
    assert 2 <= len(files) <= 3 and files[0].compact
    # small files keep merging as ranges arrive; content never changes
    before = _content(catalog, "releases", GROUPS[0])
    _write_range(catalog, GROUPS[0], 16_000)
    _write_range(catalog, GROUPS[0], 17_000)
    compact_group(catalog, GROUPS[0], target_bytes=one * 2, tables=("releases",))
    after = list_group(fs, root, "releases", GROUPS[0])
    assert len(after) <= len(files) + 1 and after[-1].last == 17_999
    assert sum(not f.compact for f in after) <= 1  # at most the newest waits alone
    added = _rows("releases", GROUPS[0], 16_000, 20, 0).to_pylist()
    added += _rows("releases", GROUPS[0], 17_000, 20, 0).to_pylist()
    expect = sorted(before + [tuple(sorted(r.items())) for r in added], key=repr)
    assert _content(catalog, "releases", GROUPS[0]) == expect


def test_redo_of_a_compacted_range_replaces_its_rows(catalog: str) -> None:
    """Uncompact, then write the range anew: same as never compacting and redoing it."""
    group, first = GROUPS[0], 12_000
    compact_group(catalog, group, target_bytes=1 << 30)
    removed = uncompact_range(catalog, group, first, first + SPAN - 1)
    assert removed == 20 * len(COMPACTED_TABLES)
    for table, column in RANGE_COLUMN.items():
        rows = _content(catalog, table, group)
        assert all(dict(r)[column] != first for r in rows)
    _write_range(catalog, group, first, seed=1)  # the redo writes other rows
    redone = {t: _content(catalog, t, group) for t in COMPACTED_TABLES}

    straight = str(Path(catalog).parent / "straight")
    for i in range(6):
        _write_range(straight, group, 10_000 + i * SPAN)
    _write_range(straight, group, first, seed=1)
    assert redone == {t: _content(straight, t, group) for t in COMPACTED_TABLES}
    # compacting again keeps that
    compact_group(catalog, group, target_bytes=1 << 30)
    assert {t: _content(catalog, t, group) for t in COMPACTED_TABLES} == redone


def test_uncompact_outside_compact_files_removes_nothing(catalog: str) -> None:
    assert uncompact_range(catalog, GROUPS[0], 10_000, 10_999) == 0
    assert uncompact_range(catalog, "alt.binaries.none", 10_000, 10_999) == 0


def test_bad_arguments_are_refused(catalog: str) -> None:
    with pytest.raises(ValueError, match="target_bytes"):
        compact_group(catalog, GROUPS[0], target_bytes=0)
    with pytest.raises(ValueError, match="cannot compact ranges"):
        compact_group(catalog, GROUPS[0], tables=("ranges",))


def test_a_partition_replaced_during_compaction_stops_it(
    catalog: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A redo that lands while compaction reads must not be overwritten by old rows."""
    import pipelines.catalog.compact as compact

    group = GROUPS[0]
    real_read = compact._read
    calls: list[str] = []

    def read_then_redo(fs: object, path: str) -> pa.Table:
        table = real_read(fs, path)
        if not calls:
            _write_range(catalog, group, 10_000, seed=7)  # other rows, other size
        calls.append(path)
        return table

    monkeypatch.setattr(compact, "_read", read_then_redo)
    before = _content(catalog, "releases", group)
    with pytest.raises(RuntimeError, match="changed while compacting"):
        compact_group(catalog, group, target_bytes=1 << 30, tables=("releases",))
    fs, root = open_fs(catalog)
    assert not any(f.compact for f in list_group(fs, root, "releases", group))
    assert _content(catalog, "releases", group) != before  # the redo's rows stay


def test_damaged_files_are_neither_merged_nor_removed(catalog: str) -> None:
    """A file cut short ends a run; one whose pages do not read fails only its run."""
    group = GROUPS[0]
    fs, root = open_fs(catalog)
    files = list_group(fs, root, "releases", group)
    cut, garbled = Path(files[2].path), Path(files[4].path)
    cut.write_bytes(cut.read_bytes()[:-100])
    data = bytearray(garbled.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    data[4 : len(data) - 8 - footer] = b"\x5a" * (len(data) - 12 - footer)  # pages only
    garbled.write_bytes(bytes(data))
    kept = {p: p.read_bytes() for p in (cut, garbled)}
    readable = [f for f in files if Path(f.path) not in kept]
    before = sorted(
        (tuple(sorted(r.items())) for f in readable for r in pq.read_table(f.path).to_pylist()),
        key=repr,
    )
    result = compact_group(catalog, group, target_bytes=1 << 30, tables=("releases",))
    stats = result.tables["releases"]
    assert set(stats.damaged) == {str(cut), str(garbled)}
    assert "magic" in stats.damaged[str(cut)]
    assert str(cut) in result.text() and str(garbled) in result.text()
    assert all(p.read_bytes() == data for p, data in kept.items())  # left as they were
    after = list_group(fs, root, "releases", group)
    # 0-1 merged; 2 cut short; 3 alone; the run 4-5 failed on 4's pages and stays.
    assert [(f.compact, f.first) for f in after] == [
        (True, 10_000), (False, 12_000), (False, 13_000), (False, 14_000), (False, 15_000),
    ]  # fmt: skip
    rows = [
        tuple(sorted(r.items()))
        for f in after
        if Path(f.path) not in kept
        for r in pq.read_table(f.path).to_pylist()
    ]
    assert sorted(rows, key=repr) == before
