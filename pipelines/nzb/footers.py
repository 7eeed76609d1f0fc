"""A `release_files` partition's footer, kept raw and cut down to one row group.

A server keeps, per partition, the row groups' `release_key` bounds and the raw footer
with where each row group's `RowGroup` struct lies in it (`kernels.parquet_footer`): a
download parses a footer of just the row group it reads (~0.9 ms with the reader's
set-up, where the whole footer of 158 row groups took ~3.4 ms and a kept parsed one
~1.9 MB). Raw footers are ~260 kB a partition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from fsspec import AbstractFileSystem

from pipelines.catalog.health import MAGIC
from pipelines.nzb.assemble import MERGED_COLUMNS


@dataclass
class PartitionFooter:
    """A `release_files` partition's row groups' key bounds, and its raw footer with each
    row group's place in it (`spans` None: the footer did not split; read it whole)."""

    ident: tuple[Any, ...]
    bounds: list[tuple[bytes, bytes] | None]
    columns: list[str]  # of MERGED_COLUMNS, those the file has
    footer: bytes
    head: int  # where the row group list's header is in the footer
    end: int  # where the list ends
    spans: np.ndarray | None  # (row groups, 2): each RowGroup's [start, end) in footer

    @property
    def size(self) -> int:
        return len(self.footer) + 64 * len(self.bounds) + 1024


def read_footer(fs: AbstractFileSystem, path: str, ident: tuple[Any, ...]) -> PartitionFooter:
    """A partition's raw footer, where each row group lies in it, and the row groups'
    `release_key` bounds (one full parse, once)."""
    with fs.open(path, "rb") as fh:
        fh.seek(-8, 2)
        tail = fh.read(8)
        size = int.from_bytes(tail[:4], "little")
        fh.seek(-8 - size, 2)
        footer = fh.read(size)
    if tail[4:] != MAGIC or len(footer) != size:  # e.g. PARE: an encrypted footer
        raise ValueError(f"{path}: not a plain Parquet file")
    meta = pq.read_metadata(pa.BufferReader(footer + tail))
    names = meta.schema.to_arrow_schema().names
    col = names.index("release_key")
    bounds = []
    for i in range(meta.num_row_groups):
        stats = meta.row_group(i).column(col).statistics
        ok = stats is not None and stats.has_min_max
        bounds.append((stats.min, stats.max) if ok else None)
    columns = [c for c in MERGED_COLUMNS if c in names]
    try:
        head, end, spans = row_group_spans(np.frombuffer(footer, np.uint8))
        if len(spans) != meta.num_row_groups:
            raise ValueError("row group count differs")
    except ValueError:  # read with the whole footer instead
        return PartitionFooter(ident, bounds, columns, b"", 0, 0, None)
    return PartitionFooter(ident, bounds, columns, footer, head, end, spans)


def row_group_metadata(part: PartitionFooter, rg: int) -> pq.FileMetaData:
    """The file's metadata as if it held only row group `rg` (then numbered 0): the bytes
    before the list, a one-element list header, the row group, the rest."""
    assert part.spans is not None
    start, end = (int(v) for v in part.spans[rg])
    footer = b"".join((part.footer[: part.head], b"\x1c", part.footer[start:end],
                       part.footer[part.end :]))  # fmt: skip
    sized = footer + len(footer).to_bytes(4, "little") + MAGIC
    return pq.read_metadata(pa.BufferReader(sized))


def row_group_spans(footer: np.ndarray) -> tuple[int, int, np.ndarray]:
    """`kernels.parquet_footer.row_group_spans`, imported on first use (numba costs a
    process ~20 MB; `serve`'s index-building parent reads no footer)."""
    from kernels.parquet_footer import row_group_spans as spans

    return spans(footer)
