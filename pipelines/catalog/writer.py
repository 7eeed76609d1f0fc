"""Writing catalog partitions: one Parquet file per table, group and range, atomically.

The bytes depend only on the rows: the same range redone writes a byte-identical file,
and the rename means readers see the old partition or the new one, never a part.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from fsspec import AbstractFileSystem

from pipelines.catalog import written
from pipelines.catalog.layout import partition_path
from pipelines.catalog.schema import SCHEMAS
from pipelines.corpus.fs import atomic_open, atomic_put, open_fs

# Per table: zstd level, the columns worth a dictionary (few distinct values), and
# column encodings. The chunk store is most of the bytes: message-ids are unique, so a
# dictionary only costs there.
# zstd level 1 on the chunk store: measured on a generated 500 k-line range it is 0.2 %
# larger than level 6 and writes ~4x faster (levels 3-5 are both larger and slower there).
# The segment lists (and `groups`) have no dictionary. An option for a list column must
# name its leaf (`seg_numbers.list.element`). BYTE_STREAM_SPLIT would pack the sizes
# tighter still (2.67 against 3.16 MB), but DuckDB reads it for integers only since 2.0.
DEFAULT_LEVEL = 6
LAYOUT: dict[str, dict[str, Any]] = {
    "release_files": {
        "compression_level": 1,
        # rows are sorted by release key: small row groups let an NZB download decode
        # only the one that holds its release (the statistics pin it). 1,024 files:
        # half the decode of 2,048 (7.2 -> 5.5 ms a 100-file release, measured in the
        # server) for no more bytes on a generated range (0.04 % with every column's
        # statistics); 512 cost 1.1 %
        "row_group_size": 1024,
        "use_dictionary": ["poster"],
        # only the key's min/max are read (an NZB download picks its row group by them);
        # the others cost ~10 % of the write and were 42 % of the footer, which the
        # server keeps in memory for every partition
        "write_statistics": ["release_key"],
        # part numbers ascend by one and a segment's size is ~750 kB give or take its yEnc
        # escapes: delta-packed, the two lists take 0.42 MB less on the bench range (1.9 %
        # of the file) for no measurable write CPU (313 against 318 ms, best of 8)
        "column_encoding": {
            "seg_ids.list.element": "PLAIN",
            "seg_numbers.list.element": "DELTA_BINARY_PACKED",
            "seg_bytes.list.element": "DELTA_BINARY_PACKED",
        },
    },
}


def row_group_size(name: str) -> int:
    size: int = LAYOUT.get(name, {}).get("row_group_size", 1 << 20)
    return size


# a streamed partition reaches its file in writes of this size (a write a page would be a
# Python call a page)
STREAM_BUFFER = 1 << 20


def parquet_bytes(table: pa.Table | Iterable[pa.Table], name: str) -> memoryview:
    """The partition's Parquet bytes, from a table or from its rows a row group at a time
    (tables of at most a row group each: the same bytes as `write_partition` writes). An
    Arrow buffer, not bytes: no copy of the whole file at the end."""
    sink = pa.BufferOutputStream()
    _write_parquet(sink, table, name)
    return memoryview(sink.getvalue())


def _write_parquet(sink: pa.NativeFile, table: pa.Table | Iterable[pa.Table], name: str) -> None:
    schema = SCHEMAS[name]
    options: dict[str, Any] = {
        "compression_level": DEFAULT_LEVEL,
        "write_statistics": True,
        **LAYOUT.get(name, {}),
    }
    options.pop("row_group_size", None)  # given per write below
    parts = [table] if isinstance(table, pa.Table) else table
    with pq.ParquetWriter(sink, schema, compression="zstd", store_schema=True, **options) as writer:
        for part in parts:
            if not part.schema.equals(schema):
                raise ValueError(f"{name}: schema differs from the catalog's\n{part.schema}")
            writer.write_table(part, row_group_size=row_group_size(name))


def write_partition(
    catalog: str,
    name: str,
    group: str,
    first: int,
    last: int,
    table: pa.Table | Iterable[pa.Table],
    storage_options: dict[str, Any] | None = None,
    tail: bool = False,
) -> int:
    """Write (or replace) one partition (`tail`: a growing range's part first..last);
    returns its size in bytes.

    A table given a row group at a time is streamed to the file as its row groups are
    encoded: release_files of a 2 M-line range is ~22 MB, and built in memory its buffer
    (doubling to 32 MB as it grew, the old one copied over) set the header pass's memory
    peak. A whole table is small: its bytes are put in one write.
    """
    fs, root = open_fs(catalog, storage_options)
    path = partition_path(root, name, group, first, last, tail)
    if isinstance(table, pa.Table):
        payload = parquet_bytes(table, name)
        atomic_put(fs, path, payload)
        written.keep(fs, path, name, table)
        return len(payload)
    if not written.wanted(name):
        return _stream_put(fs, path, table, name)
    parts: list[pa.Table] = []
    size = _stream_put(fs, path, written.teed(name, table, parts), name)
    written.keep(fs, path, name, parts)
    return size


def _stream_put(fs: AbstractFileSystem, path: str, parts: Iterable[pa.Table], name: str) -> int:
    """`atomic_put` of Parquet written as it is made."""
    with atomic_open(fs, path) as fh:
        sink = pa.output_stream(fh, buffer_size=STREAM_BUFFER)
        _write_parquet(sink, parts, name)
        size = int(sink.tell())
        sink.close()  # flushes its buffer into fh
    return size


def write_file(
    fs: AbstractFileSystem, path: str, table: pa.Table | Iterable[pa.Table], name: str
) -> int:
    """A table of SCHEMAS[name] at any path of the catalog (outside the partition layout:
    the id lookup's files), written once, atomically, streamed when given in parts."""
    if isinstance(table, pa.Table):
        payload = parquet_bytes(table, name)
        atomic_put(fs, path, payload)
        return len(payload)
    return _stream_put(fs, path, table, name)
