"""What keeps the header pass's memory peak down: one chunk alive at a time, and a
partition given a row group at a time streamed to its file (same bytes, same atomicity)."""

from __future__ import annotations

import gc
import random
import weakref
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from pipelines.catalog.layout import partition_path
from pipelines.catalog.schema import TABLES
from pipelines.catalog.writer import parquet_bytes, row_group_size, write_partition
from pipelines.corpus.fs import open_fs
from pipelines.corpus.reader import Chunk, CorpusReader, RangeInfo, RangeReport
from pipelines.index.range_indexer import index_range
from pipelines.index.rules import Rules
from pipelines.index.warm import write_range

GROUP = "alt.binaries.test"


def _value(kind: pa.DataType, rng: random.Random) -> object:
    if pa.types.is_fixed_size_binary(kind):
        return rng.randbytes(kind.byte_width)
    if pa.types.is_integer(kind):
        return rng.randrange(0, 1 << 30)
    if pa.types.is_boolean(kind):
        return rng.random() < 0.5
    if pa.types.is_list(kind):
        return [_value(kind.value_type, rng) for _ in range(rng.randrange(4))]
    return f"<{rng.getrandbits(64):x}@example.com>"


def _parts(n_rows: int, seed: int) -> list[pa.Table]:
    """release_files rows of random values, cut into tables of at most a row group."""
    rng = random.Random(seed)
    schema = TABLES["release_files"]
    rows = [{f.name: _value(f.type, rng) for f in schema} for _ in range(n_rows)]
    table = pa.Table.from_pylist(rows, schema)
    size = row_group_size("release_files")
    return [table.slice(lo, size) for lo in range(0, n_rows, size)]


def _stray_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if ".tmp-" in p.name]


@pytest.mark.parametrize("n_rows", [0, 1, 2500])
def test_a_streamed_partition_has_the_bytes_of_one_built_in_memory(tmp_path, n_rows):
    parts = _parts(n_rows, seed=n_rows)
    written = write_partition(str(tmp_path), "release_files", GROUP, 1, 99, iter(parts))
    path = Path(partition_path(str(tmp_path), "release_files", GROUP, 1, 99))
    expected = bytes(parquet_bytes(iter(parts), "release_files"))
    assert path.read_bytes() == expected
    assert written == len(expected)
    assert not _stray_files(tmp_path)


def test_a_partition_streams_to_any_fsspec_file_system(tmp_path):
    catalog = f"memory://{tmp_path.name}"  # fsspec's in-memory file system: no local path
    fs, root = open_fs(catalog)
    parts = _parts(2500, seed=4)
    try:
        write_partition(catalog, "release_files", GROUP, 1, 99, iter(parts))
        assert fs.find(root) == [partition_path(root, "release_files", GROUP, 1, 99)]
        written = fs.cat_file(fs.find(root)[0])
        assert written == bytes(parquet_bytes(iter(parts), "release_files"))
    finally:
        fs.rm(root, recursive=True)


def test_a_stream_that_fails_leaves_the_old_partition_and_no_stray_file(tmp_path):
    old = _parts(1500, seed=1)
    write_partition(str(tmp_path), "release_files", GROUP, 1, 99, iter(old))
    path = Path(partition_path(str(tmp_path), "release_files", GROUP, 1, 99))
    before = path.read_bytes()

    def broken() -> Iterator[pa.Table]:
        yield from _parts(1500, seed=2)  # two row groups reach the file first
        raise RuntimeError("the store broke")

    with pytest.raises(RuntimeError, match="the store broke"):
        write_partition(str(tmp_path), "release_files", GROUP, 1, 99, broken())
    wrong = _parts(10, seed=3)[0].drop_columns(["seg_ids"])
    with pytest.raises(ValueError, match="schema differs"):
        write_partition(str(tmp_path), "release_files", GROUP, 1, 99, iter([wrong]))
    assert path.read_bytes() == before
    assert not _stray_files(tmp_path)


def _small_corpus(root: Path) -> tuple[CorpusReader, RangeInfo]:
    group, _, _ = write_range(root, 3000, 5, 600)
    reader = CorpusReader(str(root))
    return reader, reader.complete_ranges(group)[0]


def test_the_reader_holds_no_chunk_while_it_reads_the_next(tmp_path, monkeypatch):
    reader, info = _small_corpus(tmp_path / "corpus")
    handed: list[weakref.ref[Chunk]] = []
    alive_at_read: list[bool] = []
    cat_file = reader.fs.cat_file

    def watching(path: str) -> bytes:
        if handed:
            alive_at_read.append(handed[-1]() is not None)
        payload: bytes = cat_file(path)
        return payload

    monkeypatch.setattr(reader.fs, "cat_file", watching)
    gc.disable()  # freed by reference counts alone, not by a collection that happens to run
    try:
        for chunk in reader.read_range(info, RangeReport(info.ref.group, 0, 0)):
            handed.append(weakref.ref(chunk))
            del chunk
    finally:
        gc.enable()
    assert len(alive_at_read) >= 4
    assert not any(alive_at_read), "a chunk was still held while the next one was read"


class _WatchingReader(CorpusReader):
    """Yields the real chunks; before each next one, checks the last is freed."""

    def __init__(self, root: str) -> None:
        super().__init__(root)
        self.alive_at_next: list[bool] = []

    def read_range(
        self, info: RangeInfo, report: RangeReport | None = None, after: int | None = None
    ) -> Iterator[Chunk]:
        last = None
        for chunk in super().read_range(info, report, after):
            if last is not None:
                self.alive_at_next.append(last() is not None)
            last = weakref.ref(chunk)
            yield chunk
            del chunk


def test_the_pass_lets_go_of_a_chunk_before_the_next_one_inflates(tmp_path):
    _small_corpus(tmp_path / "corpus")
    reader = _WatchingReader(str(tmp_path / "corpus"))
    info = reader.complete_ranges(reader.groups()[0])[0]
    gc.disable()  # freed by reference counts alone, not by a collection that happens to run
    try:
        result, _ = index_range(
            reader, info, str(tmp_path / "catalog"), Rules(), [info.ref.group], None
        )
    finally:
        gc.enable()
    assert result.headers == 3000
    assert len(reader.alive_at_next) >= 4
    assert not any(reader.alive_at_next)
