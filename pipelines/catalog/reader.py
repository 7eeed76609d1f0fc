"""Reading one catalog Parquet file whole, through any fsspec file system.

Not with `pq.read_table` over a file object (an fsspec file, `io.BytesIO`, even a
`pa.BufferReader`): that goes through Arrow's dataset scanner, which can leave clean-up
work on Arrow's thread pool after it returns, and a process that exits soon after then
aborts in its C++ teardown ("terminate called without an active exception", exit code
134; apache/arrow#33975, #50482). A `usenet-indexer replay` that found every range done
exited so in 6 of 20 runs. `ParquetFile.read` reads the same rows without the scanner
(0 of 60 runs).

`ParquetFile.read` still decodes on Arrow's thread pool, and a pool thread can be the one
that lets go of the last page reader after `read` returns. Over a Python-owned buffer
(bytes) that release needs the GIL, and a process exiting meanwhile aborts the same way
(gdb: `PyBuffer::~PyBuffer` in `SerializedPageReader::~SerializedPageReader` on a pool
thread): `replay` re-reads each range's log after indexing it, and 2 of 10 runs exited
with 134. The bytes are therefore copied into a buffer Arrow owns first (one memcpy of a
file already in memory), whose release needs no GIL (0 of 40 runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.catalog import written


def parquet_rows(payload: bytes | pa.Buffer, columns: Sequence[str] | None = None) -> pa.Table:
    """The rows of a Parquet file held in memory (the named columns, or all)."""
    return pq.ParquetFile(pa.BufferReader(_arrow_owned(payload))).read(
        columns=list(columns) if columns is not None else None
    )


def read_parquet(fs: Any, path: str, columns: Sequence[str] | None = None) -> pa.Table:
    """The rows of the Parquet file at `path` on the fsspec file system `fs` (from memory
    when this process wrote them and a stage wants them kept: `written`)."""
    kept = written.recall(fs, path, columns)
    if kept is not None:
        return kept
    return parquet_rows(fs.cat_file(path), columns)


def _arrow_owned(payload: bytes | pa.Buffer) -> pa.Buffer:
    """The bytes in a buffer Arrow allocated: no Python object behind it to release."""
    owned = pa.allocate_buffer(len(payload))
    np.frombuffer(owned, np.uint8)[:] = np.frombuffer(payload, np.uint8)
    return owned
