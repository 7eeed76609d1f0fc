"""What a process wrote, kept in memory for its later stages (`pipelines.catalog.written`):
read back exactly as from the file, only while the file is the one written, only the
tables and columns a stage asked for, and never past its limit."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from pipelines.catalog import written
from pipelines.catalog.layout import partition_path
from pipelines.catalog.reader import parquet_rows, read_parquet
from pipelines.catalog.schema import SCHEMAS
from pipelines.catalog.writer import write_partition
from pipelines.corpus.fs import open_fs


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    written.forget()
    yield
    written.forget()


def _files(n: int, seed: int = 0) -> pa.Table:
    schema = SCHEMAS["release_files"]
    rows = [
        {
            "release_key": bytes([seed, i % 7]) + bytes(18),
            "written_range": 1,
            "name": f"Some.Title.{seed}.part{i:02d}.rar",
            "subject": f'[{i}/{n}] "x.part{i:02d}.rar" yEnc',
            "bytes": 1000 + i,
            "seg_numbers": [1, 2],
            "seg_bytes": [500, 500 + i],
            "seg_ids": [f"a{i}@x", f"b{i}@x"],
        }
        for i in range(n)
    ]
    return pa.Table.from_pylist(rows, schema)


def _disk(fs, path: str, columns: list[str] | None) -> pa.Table:
    with fs.open(path, "rb") as fh:
        return parquet_rows(fh.read(), columns)


COLUMNS = ["release_key", "name", "bytes"]


def test_a_wanted_partition_reads_back_from_memory_as_from_its_file(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    written.want("release_files", COLUMNS)
    table = _files(50)
    parts = [table.slice(0, 20), table.slice(20)]
    write_partition(cat, "release_files", "g", 1, 99, iter(parts))  # streamed
    fs, root = open_fs(cat)
    path = partition_path(root, "release_files", "g", 1, 99)
    kept = written.recall(fs, path, COLUMNS)
    assert kept is not None and kept.equals(_disk(fs, path, COLUMNS))
    assert read_parquet(fs, path, ["name"]).equals(_disk(fs, path, ["name"]))
    # a column it did not keep, or all of them: from the file
    assert written.recall(fs, path, ["subject"]) is None
    assert written.recall(fs, path, None) is None
    assert read_parquet(fs, path, ["subject"]).equals(_disk(fs, path, ["subject"]))


def test_nothing_is_kept_unless_asked(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    write_partition(cat, "release_files", "g", 1, 99, _files(10))
    fs, root = open_fs(cat)
    assert written.recall(fs, partition_path(root, "release_files", "g", 1, 99), COLUMNS) is None


def test_a_file_written_again_by_another_process_is_read_from_disk(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    written.want("release_files", COLUMNS)
    write_partition(cat, "release_files", "g", 1, 99, _files(10, seed=1))
    fs, root = open_fs(cat)
    path = partition_path(root, "release_files", "g", 1, 99)
    # another process: the same path, other rows (its bytes written behind our back)
    other = tmp_path / "other"
    write_partition(str(other), "release_files", "g", 1, 99, _files(12, seed=2))
    time.sleep(0.01)
    os.replace(partition_path(str(other), "release_files", "g", 1, 99), path)
    assert written.recall(fs, path, COLUMNS) is None
    got = read_parquet(fs, path, COLUMNS)
    assert got.num_rows == 12 and got.equals(_disk(fs, path, COLUMNS))
    os.remove(path)
    assert written.recall(fs, path, COLUMNS) is None


def test_a_whole_table_and_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cat = str(tmp_path / "cat")
    written.want("release_files")  # every column
    fs, root = open_fs(cat)
    write_partition(cat, "release_files", "g", 1, 99, _files(30))
    first = partition_path(root, "release_files", "g", 1, 99)
    kept = written.recall(fs, first, None)
    assert kept is not None and kept.equals(_disk(fs, first, None))
    monkeypatch.setattr(written, "LIMIT", kept.nbytes + 1)
    write_partition(cat, "release_files", "g", 100, 199, _files(30, seed=3))
    second = partition_path(root, "release_files", "g", 100, 199)
    assert written.recall(fs, first, None) is None  # the oldest let go
    assert written.recall(fs, second, None) is not None
    assert read_parquet(fs, first, None).equals(_disk(fs, first, None))
