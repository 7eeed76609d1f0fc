"""What is new since a stage's last run: folder stamps and per-stage memos.

Every stage asks the same question each cycle, over the catalog (and capture, over the
corpus): has anything I read changed since my last run, and if so, which files? Asked by
listing every partition and reading the small tables whole, an idle cycle at 10 M releases
cost more than the header pass itself. The answer here is the file system's own change
record: a folder's modification time moves whenever a file is created, renamed into it
or removed from it, and every catalog write is a rename into a group's folder (temporary
name, then rename: `pipelines.corpus.fs.atomic_put`).

Design:

- A *stamp* is the modification times (ns) of the folders a stage's answer rests on, for
  one key (a group, say): `<catalog>/<table>/<group>` for the tables it reads, and for the
  corpus the group's folder and each range folder under it (a range folder moves when
  capture stores a chunk or rewrites its `range.json`). Taking a stamp is a `stat` per
  folder: no file is read, no folder listed.
- A stage keeps, per key, the stamp it saw and a small *memo* of what it found then
  (`Stamps`, one JSON file per stage under `_changes/`: "group g: nothing due", "span s
  still waits"). The next run takes the stamp again; if it is the same, nothing the stage
  read has changed and the memo is the answer. Otherwise it does its work for that key
  and records the new stamp with the new memo. An idle cycle is one small file read and a
  `stat` per folder per stage.
- A corpus range's manifest (and a tail's log) counts by its own time too: rewritten in
  place by hand or by a tool, it would not move its folder.
- Where a stage must know *which* files changed, it lists only the folders whose stamp
  moved and takes the files written since its memo's time (the probe's due spans), or
  the names it has not read (the probe cache's batches, written once under names of
  their own: the merges' facts).

Why not an append-only change log written by every writer: a log is one more thing a
writer must append to after its rename, so a crash between the two loses an entry (the
reader then needs a listing to find it), a crash mid-append tears a line, and every writer
in the project (the header pass, the tails, the article pass, merges, health, the judge,
compaction, removals) must remember to append. The folder's own mtime is written by the
kernel in the same step as the rename, for every writer, with nothing to tear: a
partition can never be present without its "entry", nor an "entry" without a partition.

Crash safety and races:

- The stamp is taken *before* the stage reads the folders. A write that lands while the
  stage reads makes the next stamp differ, so the next run looks again: a change is never
  recorded as seen before it was read.
- File systems stamp times at a coarse clock tick: two renames within one tick leave the
  same mtime. A stamp with a folder changed within `RACY_NS` (two seconds on a file system
  of whole seconds) of the moment it was taken is not trusted ("racy", as git's index
  does): the stamp is taken again after a tick, and if still racy it is unknown: the
  stage does its work and the next run looks again.
- The memo file is written atomically after the stage's own outputs. A stage stopped
  before it is written runs its keys again (its work is idempotent); two processes that
  write one stage's memo at once lose at most the other's records, which are then
  recomputed: a memo is only ever used under the exact stamp it was computed for.
- On a file system without folder times (an object store), every stamp is unknown: each
  run does the full work, as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from fsspec import AbstractFileSystem

from pipelines.catalog.partitions import is_local
from pipelines.corpus.fs import atomic_put, is_temporary, open_fs

STATE_FOLDER = "_changes"
STATE_VERSION = 1
# a folder changed this close to the moment of its stamp may change again within the same
# clock tick without its time moving: such a stamp is not trusted. Local file systems stamp
# at the kernel's coarse clock (a tick of 1-10 ms); one that keeps whole seconds only
# (a time with no fraction) gets two seconds
RACY_NS = 100_000_000
RACY_WHOLE_SECONDS_NS = 2_000_000_000
UNKNOWN = ""  # a stamp that matches nothing
# files of a tree's subfolders whose own times count too (a corpus range's manifest)
TREE_LEAVES = ("range.json", "log.json")


def folder_time(path: str) -> int:
    """A local folder's (or file's) modification time in ns (0: no such thing)."""
    try:
        return os.stat(path).st_mtime_ns
    except (FileNotFoundError, NotADirectoryError):
        return 0


def racy(mtime_ns: int, now_ns: int) -> bool:
    """Whether a time is too close to now to tell a later change in the same tick."""
    window = RACY_WHOLE_SECONDS_NS if mtime_ns % 1_000_000_000 == 0 else RACY_NS
    return now_ns - mtime_ns < window


def _digest(times: Iterable[int], extra: str) -> str:
    h = hashlib.blake2b(extra.encode(), digest_size=12)
    for t in times:
        h.update(struct.pack("<q", t))
    return h.hexdigest()


def stamp_of(
    fs: AbstractFileSystem,
    folders: Iterable[str],
    trees: Iterable[str] = (),
    extra: str = "",
    leaves: tuple[str, ...] = TREE_LEAVES,
) -> str:
    """The stamp of `folders` (each one folder) and `trees` (a folder and every folder
    directly under it, and the `leaves` files in those: a corpus group, its ranges and
    their manifests, which a hand or a tool may rewrite in place), with `extra` (what else
    the answer rests on: a rule set's fingerprint, a version). UNKNOWN when the file
    system keeps no folder times or a folder changed too recently to be trusted."""
    if not is_local(fs):
        return UNKNOWN
    now = time.time_ns()
    times = [folder_time(f) for f in folders]
    for tree in trees:
        times.append(folder_time(tree))
        try:
            entries = sorted(os.scandir(tree), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for e in entries:
            if e.is_dir() and not is_temporary(e.name):
                times.append(e.stat().st_mtime_ns)
                times += [folder_time(f"{e.path}/{leaf}") for leaf in leaves]
    if any(racy(t, now) for t in times):
        return UNKNOWN
    return _digest(times, extra)


def settled_stamp(
    fs: AbstractFileSystem, folders: list[str], trees: list[str], extra: str = ""
) -> str:
    """`stamp_of`, waiting out the racy window once when a folder has just moved: a stage
    that runs right after the one writing its inputs (live runs them back to back) would
    otherwise record every memo under an unknown stamp and read it all again next cycle.
    The wait is a tick (100 ms), CPU-free; still racy after it (writes going on): UNKNOWN."""
    stamp = stamp_of(fs, folders, trees, extra)
    if stamp == UNKNOWN and is_local(fs):
        time.sleep(RACY_NS / 1e9)
        stamp = stamp_of(fs, folders, trees, extra)
    return stamp


def table_folders(root: str, tables: Iterable[str], group: str) -> list[str]:
    """The group's folder of each table (`<root>/<table>/<group>`)."""
    base = root.rstrip("/")
    return [f"{base}/{t}/{group}" for t in tables]


@dataclass
class Seen:
    """A key's stamp now, and what the stage recorded under it last time (None: the
    stamp moved, or was never taken: the key is to be worked again)."""

    key: str
    stamp: str
    memo: Any = None

    @property
    def same(self) -> bool:
        return self.memo is not None


class Stamps:
    """One stage's stamps and memos (`_changes/<stage>.json`), read once per run."""

    def __init__(
        self, catalog: str, stage: str, storage_options: dict[str, Any] | None = None
    ) -> None:
        self.fs, self.root = open_fs(catalog, storage_options)
        self.stage = stage
        self.path = f"{self.root.rstrip('/')}/{STATE_FOLDER}/{stage}.json"
        self._records: dict[str, list[Any]] = self._load()
        self._dirty = False

    def _load(self) -> dict[str, list[Any]]:
        try:
            doc = json.loads(self.fs.cat_file(self.path))
        except (FileNotFoundError, ValueError, OSError):
            return {}  # none yet, or unreadable: every key is worked again
        if not isinstance(doc, dict) or doc.get("version") != STATE_VERSION:
            return {}
        records = doc.get("keys")
        return records if isinstance(records, dict) else {}

    def check(
        self, key: str, folders: Iterable[str] = (), trees: Iterable[str] = (), extra: str = ""
    ) -> Seen:
        stamp = settled_stamp(self.fs, list(folders), list(trees), extra)
        record = self._records.get(key)
        ok = isinstance(record, list) and len(record) == 2 and record[0] == stamp
        if stamp != UNKNOWN and ok:
            assert record is not None
            return Seen(key, stamp, record[1])
        return Seen(key, stamp)

    def last(self, key: str) -> Any:
        """What the stage recorded for the key last time, whatever the stamp now (None:
        nothing): a start for working out what changed since."""
        record = self._records.get(key)
        return record[1] if isinstance(record, list) and len(record) == 2 else None

    def record(self, seen: Seen, memo: Any) -> None:
        """Keep what the stage found for the key under the stamp taken before it looked
        (`memo`: JSON, not None)."""
        if memo is None:
            raise ValueError("a memo cannot be None")
        # under an unknown stamp the memo never answers `check`, but `last` still gives it
        self._records[seen.key] = [seen.stamp, memo]
        self._dirty = True

    def forget(self, key: str) -> None:
        self._dirty |= self._records.pop(key, None) is not None

    def save(self) -> None:
        """Write the memos (atomically); after the stage's own outputs."""
        if not self._dirty:
            return
        body = json.dumps({"version": STATE_VERSION, "keys": self._records}, sort_keys=True)
        atomic_put(self.fs, self.path, body.encode())
        self._dirty = False


# --- folders of files written once ----------------------------------------------------


class WrittenOnce:
    """A folder of files written once under names of their own (the probe cache's
    batches), read once per process: each call to `new` gives the files this consumer
    has not read yet in this process. A file read before that is gone or not as it was
    (the folder cleared, a file rewritten or cut short) starts the consumer over: `reset`
    is set and every file is new.

    A process that runs stage after stage (`live`, a Dagster run worker) reads each batch
    once; a new process reads them all once, as a run did before. Other file systems than
    the local one: every call starts over."""

    _read: ClassVar[dict[tuple[str, str], dict[str, tuple[int, int]]]] = {}

    def __init__(self, fs: AbstractFileSystem, folder: str, consumer: str) -> None:
        self.fs, self.folder = fs, folder.rstrip("/")
        self._key = (consumer, self.folder) if is_local(fs) else None
        self.local = self._key is not None  # what is read may be kept for the next call
        self._now: dict[str, tuple[int, int]] = {}

    def _listing(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        if self._key is None:
            try:
                found = self.fs.ls(self.folder, detail=False)
            except FileNotFoundError:
                return out
            for p in found:
                name = str(p).rstrip("/").rsplit("/", 1)[-1]
                if name.endswith(".parquet") and not is_temporary(name):
                    out[name] = (0, 0)
            return out
        try:
            entries = list(os.scandir(self.folder))
        except FileNotFoundError:
            return out
        for e in entries:
            if e.name.endswith(".parquet") and not is_temporary(e.name):
                try:
                    st = e.stat()
                except FileNotFoundError:
                    continue
                out[e.name] = (st.st_size, st.st_mtime_ns)
        return out

    def new(self) -> tuple[list[str], bool]:
        """The names not read yet (sorted: batches are named by time), and whether the
        consumer starts over."""
        self._now = self._listing()
        read = WrittenOnce._read.get(self._key, {}) if self._key else {}
        reset = self._key is None or any(self._now.get(n) != st for n, st in read.items())
        if reset:
            read = {}
        if self._key is not None:
            WrittenOnce._read[self._key] = read
        return sorted(n for n in self._now if n not in read), reset

    def taken(self, name: str) -> None:
        """The consumer has what the file holds (it read it, or wrote it itself)."""
        if self._key is None:
            return
        st = self._now.get(name)
        if st is None:
            path = f"{self.folder}/{name}"
            st = (os.stat(path).st_size, os.stat(path).st_mtime_ns)
        WrittenOnce._read.setdefault(self._key, {})[name] = st
