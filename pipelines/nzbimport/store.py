"""Where imports are written: releases and files as `import-` partitions, and the log.

Each batch of imports takes consecutive numbers from `IMPORT_BASE` up (past any group's
article numbers): a release's `first_article`, `last_article` and `written_range` are
its import's number, and its group's partitions of the batch are
`<table>/<group>/import-<first>-<last>.parquet`, so every reader of the catalog (the
search index, NZB downloads, health, the judge) finds it as it finds the header pass's,
and the NZB lookup opens just that file for it.

A batch writes its `release_files` partitions, then its `releases` partitions, then its
log `_imports/log/<first>-<last>.parquet` (schema `NZB_IMPORTS`), which commits it: the
next batch numbers from the newest log on. Before the partitions, an intent file names
the groups the batch will write; a batch killed before its log is undone by the next run
(its partitions removed), so nothing is half imported and nothing is imported twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pyarrow as pa
from fsspec import AbstractFileSystem

from pipelines.catalog.layout import IMPORT_BASE, partition_path
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import NZB_IMPORTS, RELEASE_FILES, RELEASES
from pipelines.catalog.writer import parquet_bytes
from pipelines.corpus.fs import atomic_put, is_temporary
from pipelines.corpus.layout import parse_span, span_name
from pipelines.nzbimport.release import ImportedRelease

LOG = "_imports/log"
INTENT = "_imports/intent.json"
TABLES = ("release_files", "releases")


class ImportLog:
    """What earlier runs imported: the NZBs' SHA-1s and release keys, the next number."""

    def __init__(self, fs: AbstractFileSystem, root: str) -> None:
        self.fs = fs
        self.root = root
        self.sha1s: dict[bytes, bytes | None] = {}  # an NZB's SHA-1 -> its release's key
        self.keys: set[bytes] = set()
        self.inserted: dict[bytes, tuple[str, int]] = {}  # key -> (group, number)
        self.withdrawn: set[bytes] = set()
        self.next_number = IMPORT_BASE
        for path in self._logs():
            columns = ["nzb_sha1", "release_key", "outcome", "group", "article"]
            t = read_parquet(fs, path, columns)
            self.add(t.to_pylist())
            span = parse_span(path.rsplit("/", 1)[-1].removesuffix(".parquet"))
            if span:
                self.next_number = max(self.next_number, span[1] + 1)

    def _logs(self) -> list[str]:
        folder = f"{self.root}/{LOG}"
        if not self.fs.exists(folder):
            return []
        names = [str(p) for p in self.fs.ls(folder, detail=False)]
        return sorted(p for p in names if p.endswith(".parquet") and not is_temporary(p))

    def add(self, rows: list[dict[str, Any]]) -> None:
        for r in rows:
            key = r.get("release_key")
            if r.get("nzb_sha1"):
                self.sha1s[r["nzb_sha1"]] = key
            if key and r["outcome"] == "inserted":
                self.keys.add(key)
                self.inserted[key] = (r["group"], r["article"])
            elif key and r["outcome"] == "withdrawn":
                self.withdrawn.add(key)


def undo_unlogged(fs: AbstractFileSystem, root: str) -> int:
    """Remove what a batch killed before its log wrote (its intent names it): the files
    removed."""
    intent = f"{root}/{INTENT}"
    if not fs.exists(intent):
        return 0
    with fs.open(intent, "rb") as fh:
        plan = json.loads(fh.read())
    removed = 0
    logged = fs.exists(f"{root}/{LOG}/{span_name(plan['first'], plan['last'])}.parquet")
    if not logged:
        for group in plan["groups"]:
            for table in TABLES:
                path = partition_path(
                    root, table, group, plan["first"], plan["last"], imported=True
                )
                if fs.exists(path):
                    fs.rm(path)
                    removed += 1
    fs.rm(intent)
    return removed


def write_batch(
    fs: AbstractFileSystem,
    root: str,
    first: int,
    last: int,
    releases: list[ImportedRelease],
    log_rows: list[dict[str, Any]],
) -> int:
    """Write one batch (numbers first..last): partitions per group, then the log. Each
    release's row already carries its number. Returns the bytes written."""
    groups = sorted({r.group for r in releases})
    atomic_put(fs, f"{root}/{INTENT}", json.dumps({"first": first, "last": last,
                                                   "groups": groups}).encode())  # fmt: skip
    written = 0
    for group in groups:
        mine = [r for r in releases if r.group == group]
        files = [{**f, "written_range": r.release["written_range"]} for r in mine for f in r.files]
        files.sort(key=lambda f: (f["release_key"], f["name"]))
        rows = [r.release for r in mine]  # in number order: the order they were taken
        for table, schema, data in (
            ("release_files", RELEASE_FILES, files),
            ("releases", RELEASES, rows),
        ):
            payload = parquet_bytes(pa.Table.from_pylist(data, schema), table)
            path = partition_path(root, table, group, first, last, imported=True)
            atomic_put(fs, path, payload)
            written += len(payload)
    log = parquet_bytes(pa.Table.from_pylist(log_rows, NZB_IMPORTS), "nzb_imports")
    atomic_put(fs, f"{root}/{LOG}/{span_name(first, last)}.parquet", log)
    fs.rm(f"{root}/{INTENT}")
    return written + len(log)


@contextmanager
def import_lock(fs: AbstractFileSystem, root: str) -> Iterator[None]:
    """One import at a time per catalog (a local catalog: an flock; others: none)."""
    from pipelines.catalog.lock import file_lock

    with file_lock(fs, f"{root}/_imports/lock"):
        yield
