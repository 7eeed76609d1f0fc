"""Reading one catalog Parquet file whole, through any fsspec file system.

Not with `pq.read_table` over a file object (an fsspec file, `io.BytesIO`, even a
`pa.BufferReader`): that goes through Arrow's dataset scanner, which can leave clean-up
work on Arrow's thread pool after it returns, and a process that exits soon after then
aborts in its C++ teardown ("terminate called without an active exception", exit code
134; apache/arrow#33975, #50482). A `usenet-indexer replay` that found every range done
exited so in 6 of 20 runs. `ParquetFile.read` reads the same rows without the scanner
(0 of 60 runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq


def parquet_rows(payload: bytes | pa.Buffer, columns: Sequence[str] | None = None) -> pa.Table:
    """The rows of a Parquet file held in memory (the named columns, or all)."""
    return pq.ParquetFile(pa.BufferReader(payload)).read(
        columns=list(columns) if columns is not None else None
    )


def read_parquet(fs: Any, path: str, columns: Sequence[str] | None = None) -> pa.Table:
    """The rows of the Parquet file at `path` on the fsspec file system `fs`."""
    return parquet_rows(fs.cat_file(path), columns)
