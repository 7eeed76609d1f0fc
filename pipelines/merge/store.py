"""Where the merges' files live, the record's reader, and their removal on a redo.

A merge of a span writes three files, named for the article span its releases cover
(`<first>-<last>`, the span's last article its end):

```
release_files/<group>/merge-<first>-<last>.parquet  the absorbed files, under the whole's key
releases/<group>/merge-<first>-<last>.parquet       the merged versions and the tombstones
release_merges/<group>/<first>-<last>.parquet       what went where; written last: merged
```

in that order, so a reader never sees a merged release without its files, and a run
stopped between them leaves files the next run removes before it merges the span again.
A span is merged when `release_merges` files cover it. When the header pass writes a
range again, the merges' files holding any of its articles are removed (as the article
pass's are): those spans are merged again.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pyarrow as pa

from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.kept import per_file
from pipelines.catalog.layout import partition_path
from pipelines.catalog.partitions import Partition, list_group, list_table
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import RELEASE_MERGES
from pipelines.corpus.fs import open_fs

MERGES_TABLE = "release_merges"
VERSION_TABLES = ("release_files", "releases")  # the merges' versions, in writing order


def merge_paths(catalog: str, group: str, first: int, last: int) -> dict[str, str]:
    """The three files of a merge covering first..last, in writing order."""
    paths = {t: partition_path(catalog, t, group, first, last, merge=True) for t in VERSION_TABLES}
    paths[MERGES_TABLE] = partition_path(catalog, MERGES_TABLE, group, first, last)
    return paths


def records(catalog: str, group: str) -> list[Partition]:
    fs, root = open_fs(catalog)
    return list_group(fs, root, MERGES_TABLE, group, stat=False)


def version_files(catalog: str, group: str) -> list[Partition]:
    fs, root = open_fs(catalog)
    return [
        p for t in VERSION_TABLES for p in list_group(fs, root, t, group, stat=False) if p.merge
    ]


def covered(done: list[Partition], first: int, last: int) -> bool:
    """Whether the record files' spans cover first..last without a gap."""
    at = first
    for p in sorted(done):
        if p.first > at:
            break
        at = max(at, p.last + 1)
        if at > last:
            return True
    return at > last


def merges(catalog: str, group: str | None = None) -> pa.Table:
    """Every merge record (`RELEASE_MERGES`), of one group or all; unreadable files left out."""
    fs, root = open_fs(catalog)
    if group is None:
        parts = list_table(fs, root, MERGES_TABLE, stat=False)
    else:
        parts = list_group(fs, root, MERGES_TABLE, group, stat=False)
    tables = []
    for p in parts:
        try:
            # each run reads a group's every record: a file is read again only when new
            tables.append(per_file(fs, p.path, "merge-records", partial(_record, fs, p.path)))
        except FileNotFoundError:
            continue
        except READ_ERRORS:
            continue
    if not tables:
        return RELEASE_MERGES.empty_table()
    return pa.concat_tables(tables)


def _record(fs: Any, path: str) -> pa.Table:
    return read_parquet(fs, path).cast(RELEASE_MERGES)


def drop_merge_outputs(catalog: str, group: str, first: int, last: int) -> int:
    """Remove the merges' files that hold any of first..last (the range was indexed
    again); the record last, so a stop halfway leaves the span due."""
    fs, _ = open_fs(catalog)
    gone = [p for p in version_files(catalog, group) + records(catalog, group)
            if p.first <= last and first <= p.last]  # fmt: skip
    for p in gone:
        fs.rm(p.path)
    return len(gone)


def drop_unrecorded(catalog: str, group: str) -> int:
    """Remove the group's version files with no record of their span beside them: a merge
    stopped before its record (its spans are merged again, perhaps in another batch)."""
    fs, _ = open_fs(catalog)
    recorded = {(p.first, p.last) for p in records(catalog, group)}
    gone = [p for p in version_files(catalog, group) if (p.first, p.last) not in recorded]
    for p in gone:
        fs.rm(p.path)
    return len(gone)
