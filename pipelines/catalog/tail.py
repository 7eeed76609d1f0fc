"""A growing range's tail partitions: what was indexed of it before it was whole.

`pipelines.index.tail` indexes the part of a group's newest range that capture has
stored, and each new part since, into `tail-<a>-<b>.parquet` partitions of every table
(`layout.py`). They stand for the range until it is complete and indexed whole; that
write removes them (`drop_tail_partitions`), so the finished catalog holds the range's
own partitions only, the same bytes as a batch replay's.
"""

from __future__ import annotations

from typing import NamedTuple

from pipelines.catalog.layout import tail_folder
from pipelines.catalog.partitions import list_group
from pipelines.catalog.schema import TABLES
from pipelines.corpus.fs import open_fs


class TailPart(NamedTuple):
    """The articles of a growing range one tail increment indexes."""

    first: int
    last: int


def drop_tail_partitions(
    catalog: str, group: str, first: int, last: int, with_log: bool = True
) -> int:
    """Remove the tail partitions within first..last of the group (every table), and
    (`with_log`) the log and windows of the tail of range first..last; returns the
    partitions removed."""
    fs, root = open_fs(catalog)
    removed = 0
    for table in TABLES:
        for part in list_group(fs, root, table, group, stat=False):
            if part.tail and first <= part.first and part.last <= last:
                fs.rm(part.path)
                removed += 1
    folder = tail_folder(root, group, first, last)
    if with_log and fs.exists(folder):
        fs.rm(folder, recursive=True)
    return removed
