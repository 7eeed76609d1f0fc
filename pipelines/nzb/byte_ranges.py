"""Reading a file as byte ranges: one read for a row group's column chunks.

A download reads one row group of one `release_files` partition. Through a memory map
each cold page read the device's whole read-ahead window around it (8 MB, ~25 ms here)
for each of a row group's few hundred kB; read per page or per column chunk, an object
store answers one GET each. `ByteRanges` gives Arrow a file whose reads are ranges (a
`pread`, a ranged `cat_file`), and `read_ahead` fetches the chunks Arrow will ask for in
one read first.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Sequence

import pyarrow.parquet as pq


def pread(path: str, start: int, end: int) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        data = os.pread(fd, end - start, start)
    finally:
        os.close(fd)
    if len(data) != end - start:
        raise OSError(f"{path}: {end - start} bytes at {start} asked, {len(data)} read")
    return data


def chunk_span(row_group: pq.RowGroupMetaData, columns: Sequence[str]) -> tuple[int, int]:
    """The byte range [start, end) of the file that holds these columns' chunks in this
    row group (their leaves: a list column's values are `name.list.element`)."""
    wanted = set(columns)
    start, end = None, 0
    for i in range(row_group.num_columns):
        chunk = row_group.column(i)
        if chunk.path_in_schema.split(".", 1)[0] not in wanted:
            continue
        first = chunk.data_page_offset
        if chunk.dictionary_page_offset is not None:
            first = min(first, chunk.dictionary_page_offset)
        start = first if start is None else min(start, first)
        end = max(end, first + chunk.total_compressed_size)
    return (0, 0) if start is None else (start, end)


class ByteRanges(io.RawIOBase):
    """A read-only file of `size` bytes whose reads are ranges read by `read(start, end)`
    (a pread, an object store's ranged GET). What `read_ahead` read is served from
    memory: a row group's column chunks come in one read, not one per page or chunk."""

    def __init__(self, read: Callable[[int, int], bytes], size: int) -> None:
        super().__init__()
        self._read = read
        self._size = size
        self._pos = 0
        self._start = 0
        self._data = memoryview(b"")

    def read_ahead(self, start: int, end: int) -> None:
        start, end = max(0, start), min(end, self._size)
        if end > start:
            self._start, self._data = start, memoryview(self._read(start, end))

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        if base + offset < 0:
            raise ValueError("negative seek position")
        self._pos = base + offset
        return self._pos

    def read(self, size: int | None = -1) -> bytes | memoryview:
        start = self._pos
        if start >= self._size:
            return b""  # at or past the end: nothing, and the position stays
        end = self._size if size is None or size < 0 else min(start + size, self._size)
        self._pos = end
        held = start - self._start
        if held >= 0 and end - self._start <= len(self._data):
            return self._data[held : end - self._start]
        return self._read(start, end) if end > start else b""
