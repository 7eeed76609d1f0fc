"""Where the PreDB lives in the catalog, and its batches written once.

```
<catalog>/_predb/events/<bucket>/<batch>.parquet     pre_events: pres learned, nuke states changed
<catalog>/_predb/lookup/<generation>/                the compact lookup (`lookup.py`)
<catalog>/_predb/names/<batch>.arrow                 the catalog's names, by key (`names.py`)
<catalog>/_predb/links/<bucket>/<batch>.parquet      pre_links: the releases pres named
<catalog>/_predb/outcomes/<bucket>/<batch>.parquet   pre_outcomes: every scan step's outcome
<catalog>/_predb/queue.arrow                         the waiting pres' schedule (`queue.py`)
<catalog>/_predb/summary.json                        counts per state and method, for pages
```

A batch is named by the time it was written and the writer's pid, so batches sort in
the order they were written and two writers never pick one name; each is written under a
temporary name and renamed into place (`pipelines.catalog.writer`).

The three tables written all year (a listener writes an events batch every 30 seconds,
a scan a links and an outcomes batch a minute) keep their batches in a *bucket* folder
per ~28 hours, named by the first `BUCKET_DIGITS` digits of the batch names (10^14 ns): a
reader that has taken every batch up to a time (`DoneBatches.upto`) lists only the
buckets from there on, and the newest batches are found in the newest buckets. Batches
written before buckets stay where they are and are listed as before.
"""

from __future__ import annotations

import os
import time
from typing import Any

import pyarrow as pa

from pipelines.catalog.reader import read_parquet
from pipelines.catalog.writer import parquet_bytes
from pipelines.corpus.fs import atomic_put, is_temporary, open_fs

FOLDER = "_predb"
# table -> its folder under _predb
BATCH_FOLDERS = {"pre_events": "events", "pre_links": "links", "pre_outcomes": "outcomes"}


def predb_path(catalog: str, *parts: str) -> str:
    _, root = open_fs(catalog)
    return "/".join([root.rstrip("/"), FOLDER, *parts])


def batch_name(suffix: str = ".parquet") -> str:
    return f"{time.time_ns():020d}-{os.getpid()}{suffix}"


BUCKET_DIGITS = 6
BUCKETED = frozenset(BATCH_FOLDERS.values())


def batch_path(catalog: str, folder: str, name: str) -> str:
    """Where a batch is written: in its bucket, for the tables written all year."""
    if folder in BUCKETED:
        return predb_path(catalog, folder, name[:BUCKET_DIGITS], name)
    return predb_path(catalog, folder, name)


def write_batch(catalog: str, table_name: str, table: pa.Table) -> str:
    """Write one batch of a PreDB table (never an empty one); its name."""
    fs, _ = open_fs(catalog)
    name = batch_name()
    path = batch_path(catalog, BATCH_FOLDERS[table_name], name)
    atomic_put(fs, path, parquet_bytes(table, table_name))
    return name


def batches(
    catalog: str, folder: str, suffix: str = ".parquet", since: str = "", newest: int = 0
) -> list[str]:
    """The batch names of a folder, oldest first (temporary files left out). `since`: a
    batch name; the buckets before its own are not listed (their batches are all older).
    `newest`: at least the newest this many, listing the buckets from the newest back."""
    fs, _ = open_fs(catalog)
    try:
        found = fs.ls(predb_path(catalog, folder), detail=True)
    except FileNotFoundError:
        return []
    names: list[str] = []
    buckets: list[str] = []
    for entry in found:
        base = str(entry["name"]).rstrip("/").rsplit("/", 1)[-1]
        if entry.get("type") == "directory":
            if len(base) == BUCKET_DIGITS and base.isdigit() and base >= since[:BUCKET_DIGITS]:
                buckets.append(base)
        elif base.endswith(suffix) and not is_temporary(base):
            names.append(base)  # written before buckets
    for bucket in sorted(buckets, reverse=bool(newest)):
        if newest and len(names) >= newest:
            break
        names += _bucket_names(fs, predb_path(catalog, folder, bucket), suffix)
    return sorted(names)


def _bucket_names(fs: Any, path: str, suffix: str) -> list[str]:
    try:
        found = fs.ls(path, detail=False)
    except FileNotFoundError:
        return []
    names = (str(p).rstrip("/").rsplit("/", 1)[-1] for p in found)
    return [n for n in names if n.endswith(suffix) and not is_temporary(n)]


def read_batch(catalog: str, folder: str, name: str, columns: list[str] | None = None) -> pa.Table:
    fs, _ = open_fs(catalog)
    try:
        return read_parquet(fs, batch_path(catalog, folder, name), columns)
    except FileNotFoundError:
        if folder not in BUCKETED:
            raise
        return read_parquet(fs, predb_path(catalog, folder, name), columns)  # before buckets


def read_batches(
    catalog: str, table_name: str, names: list[str] | None = None, columns: list[str] | None = None
) -> pa.Table:
    """Rows of the named batches (default every batch), in the order written; a batch
    that cannot be read is left out (it is written once: a torn one never replaced a good
    one)."""
    from pipelines.catalog.schema import SCHEMAS

    folder = BATCH_FOLDERS[table_name]
    schema = SCHEMAS[table_name]
    if columns is not None:
        schema = pa.schema([schema.field(c) for c in columns])
    parts = []
    for name in batches(catalog, folder) if names is None else names:
        try:
            parts.append(read_batch(catalog, folder, name, columns).cast(schema))
        except (OSError, pa.ArrowInvalid):
            continue
    return pa.concat_tables(parts) if parts else schema.empty_table()


def put_json(catalog: str, name: str, doc: Any) -> None:
    import json

    fs, _ = open_fs(catalog)
    atomic_put(fs, predb_path(catalog, name), json.dumps(doc, sort_keys=True).encode())


def get_json(catalog: str, name: str) -> Any:
    import json

    fs, _ = open_fs(catalog)
    try:
        return json.loads(fs.cat_file(predb_path(catalog, name)))
    except (FileNotFoundError, ValueError, OSError):
        return None


def write_ipc(path: str, table: pa.Table, one_batch: bool = False) -> None:
    """An uncompressed Arrow IPC file (memory-mappable), under a temporary name then
    renamed; `one_batch`: a single record batch, so a reader maps each column without a
    copy (the sorted keys, searched in place)."""
    import pyarrow.ipc as ipc

    os.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    if one_batch:
        table = table.combine_chunks()
    with pa.OSFile(tmp, "wb") as sink, ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=max(table.num_rows, 1) if one_batch else 1 << 20)
    os.replace(tmp, path)


# a batch is named when it is written, a moment before its rename: no batch appears with
# a name older than this much before the newest one seen
NAMING_LAG_NS = 3600 * 10**9


class DoneBatches:
    """The batches a reader has taken, kept small: every name up to a watermark (an hour
    before the newest taken, `NAMING_LAG_NS`), and the names taken after it. A listener
    writes a batch every 30 seconds for months: a plain list of them would grow without
    end and be read and written again every cycle."""

    def __init__(self, doc: Any = None) -> None:
        if isinstance(doc, list):  # the plain list of earlier versions
            doc = {"names": doc}
        doc = doc or {}
        self.upto = str(doc.get("upto", ""))
        self.names: set[str] = set(doc.get("names", []))
        self._compact()

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name <= self.upto or name in self.names)

    def add(self, names: list[str] | set[str]) -> None:
        self.names.update(names)
        self._compact()

    def _compact(self) -> None:
        newest = max(self.names, default="")
        if newest[:20].isdigit():
            self.upto = max(self.upto, f"{int(newest[:20]) - NAMING_LAG_NS:020d}")
        self.names = {n for n in self.names if n > self.upto}

    def to_json(self) -> dict[str, Any]:
        return {"upto": self.upto, "names": sorted(self.names)}
