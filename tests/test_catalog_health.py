"""Telling damaged catalog partitions from readable ones, once per version of a file."""

from __future__ import annotations

import pickle

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.catalog.health import (
    DamagedPartition,
    PartitionHealth,
    ends_problem,
    footer_problem,
    quick_problem,
)


def _parquet(rows: int = 1_000, row_groups: int = 4) -> bytes:
    sink = pa.BufferOutputStream()
    table = pa.table({"n": pa.array(range(rows), pa.int64()), "s": [f"v{i}" for i in range(rows)]})
    pq.write_table(table, sink, row_group_size=max(1, rows // row_groups))
    return sink.getvalue().to_pybytes()


class CountingFs:
    """An in-memory file system that counts the reads made through it."""

    def __init__(self) -> None:
        self.fs = fsspec.filesystem("memory")
        self.reads = 0

    def put(self, path: str, data: bytes) -> None:
        with self.fs.open(path, "wb") as fh:
            fh.write(data)

    def info(self, path: str) -> dict:
        return self.fs.info(path)

    def cat_file(self, path: str, start: int | None = None, end: int | None = None) -> bytes:
        self.reads += 1
        return self.fs.cat_file(path, start=start, end=end)


def test_the_ends_tell_cut_short_and_foreign_files():
    good = _parquet()
    assert ends_problem(good[:4], good[-8:], len(good)) is None
    cut = good[: len(good) // 2]
    assert "cut short" in (ends_problem(cut[:4], cut[-8:], len(cut)) or "")
    assert "not a Parquet" in (ends_problem(b"\x89PNG", good[-8:], len(good)) or "")
    assert "too short" in (ends_problem(b"PAR1", b"PAR1", 8) or "")
    huge = (len(good)).to_bytes(4, "little") + b"PAR1"
    assert "does not fit" in (ends_problem(good[:4], huge, len(good)) or "")
    assert "does not fit" in (ends_problem(good[:4], b"\0\0\0\0PAR1", len(good)) or "")


def test_quick_and_thorough_checks_on_files():
    counted = CountingFs()
    good = _parquet()
    counted.put("/c/good.parquet", good)
    counted.put("/c/cut.parquet", good[:-1])
    counted.put("/c/empty.parquet", b"")
    garbled = bytearray(good)
    length = int.from_bytes(good[-8:-4], "little")
    garbled[-8 - length : -8] = b"\x07" * length
    counted.put("/c/garbled.parquet", bytes(garbled))
    assert quick_problem(counted, "/c/good.parquet") is None
    assert footer_problem(counted, "/c/good.parquet") is None
    counted.put("/c/no-rows.parquet", _parquet(rows=0, row_groups=1))  # a range with none
    assert footer_problem(counted, "/c/no-rows.parquet") is None
    assert quick_problem(counted, "/c/cut.parquet") is not None
    assert "too short" in (quick_problem(counted, "/c/empty.parquet") or "")
    # The footer's bytes are not a footer: only the thorough check sees it.
    assert quick_problem(counted, "/c/garbled.parquet") is None
    assert "unreadable footer" in (footer_problem(counted, "/c/garbled.parquet") or "")
    with pytest.raises(FileNotFoundError):
        quick_problem(counted, "/c/missing.parquet")


def test_a_column_chunk_outside_the_file_is_found():
    counted = CountingFs()
    good = _parquet(rows=10_000, row_groups=2)
    meta = pq.read_metadata(pa.BufferReader(good))
    second = meta.row_group(1).column(0)
    start = second.dictionary_page_offset or second.data_page_offset
    # The second row group's first chunk cut out, the footer kept as it was.
    length = int.from_bytes(good[-8:-4], "little")
    footer = good[-8 - length :]
    counted.put("/c/holed.parquet", good[:start] + footer)
    assert quick_problem(counted, "/c/holed.parquet") is None
    assert "outside the file" in (footer_problem(counted, "/c/holed.parquet") or "")


def test_each_version_is_checked_once():
    counted = CountingFs()
    good = _parquet()
    counted.put("/c/a.parquet", good[:-3])
    health = PartitionHealth()
    first = health.problem(counted, "releases", "/c/a.parquet", len(good) - 3, "t1")
    assert first is not None
    reads = counted.reads
    for _ in range(5):
        assert health.problem(counted, "releases", "/c/a.parquet", len(good) - 3, "t1") == first
    assert counted.reads == reads  # remembered
    assert [(d.table, d.path) for d in health.damaged()] == [("releases", "/c/a.parquet")]
    assert health.is_damaged("/c/a.parquet")
    # Replaced (a redone range): a new size and mtime, checked again, readable again.
    counted.put("/c/a.parquet", good)
    assert health.problem(counted, "releases", "/c/a.parquet", len(good), "t2") is None
    assert counted.reads > reads
    assert health.damaged() == [] and not health.is_damaged("/c/a.parquet")


def test_marks_and_removed_files():
    counted = CountingFs()
    counted.put("/c/b.parquet", _parquet())
    health = PartitionHealth()
    size = counted.info("/c/b.parquet")["size"]
    assert health.problem(counted, "release_files", "/c/b.parquet", size, "t") is None
    health.mark("release_files", "/c/b.parquet", size, "t", "ArrowInvalid: bad page")
    assert health.problem(counted, "release_files", "/c/b.parquet", size, "t") == (
        "ArrowInvalid: bad page"
    )
    health.forget_missing("releases", set())  # another table's listing: no effect
    assert health.is_damaged("/c/b.parquet")
    health.forget_missing("release_files", set())  # removed (a compaction)
    assert health.damaged() == []
    # Gone between the listing and the check: left out, not recorded as damage.
    assert health.problem(counted, "releases", "/c/gone.parquet", 100, "t") is not None
    assert health.damaged() == []


def test_the_error_names_the_file_and_survives_a_process_pool():
    exc = pickle.loads(pickle.dumps(DamagedPartition("/c/x.parquet", "cut short")))
    assert (exc.path, exc.problem) == ("/c/x.parquet", "cut short")
    assert str(exc) == "damaged partition /c/x.parquet: cut short"
