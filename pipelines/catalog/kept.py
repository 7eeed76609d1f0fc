"""What a stage has read of the catalog's files, kept in this process.

`per_file`: what a reader made of one file, read again only when the file changed.
`NewestRows`: each key's newest row of a folder of write-once files.

The tables written once per run and read newest first (`release_health/<group>`,
`release_verdicts/<group>`: `newest.newest_by`) grow a file a run and are never
rewritten. A stage that looks up a few keys of them each cycle (the judge, the health
sweep's due releases) should not read every file of the group each time: `NewestRows`
folds them into the newest row per key once per process, then each call reads only the
files written since (`changes.WrittenOnce`) and folds them in. A file read before that
is gone or not as it was starts the fold over.

The fold is two sorted tables: a base and a delta of the rows folded in since. A lookup
binary-searches both, so a new file costs its own rows plus a sort of the delta; the
delta goes into the base when it grows past an eighth of it, so each row is sorted a
bounded number of times. Other file systems than the local one: every call reads every
file (`WrittenOnce`), as a fresh process does.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from fsspec import AbstractFileSystem

from pipelines.catalog.changes import WrittenOnce
from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.newest import keys_of, newest_by
from pipelines.catalog.partitions import is_local
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.versions import key_array

MIN_DELTA = 20_000  # rows the delta may hold whatever the base's size
T = TypeVar("T")


@dataclass
class _Sorted:
    """Rows (newest per key) in key order, and their keys as 'S20'."""

    rows: pa.Table
    keys: np.ndarray

    @classmethod
    def of(cls, rows: pa.Table, when: str) -> _Sorted:
        rows = newest_by(rows, when).combine_chunks()  # in key order
        if not rows.num_rows:
            return cls(rows, np.zeros(0, "S20"))
        col = rows["release_key"].chunk(0)
        if not pa.types.is_fixed_size_binary(col.type):
            return cls(rows, keys_of(rows))
        # a view of the key column's buffer, not a copy: a fold holds millions of keys
        return cls(rows, key_array(col, copy=False))

    def find(self, keys: np.ndarray) -> np.ndarray:
        """Each key's row (-1: not here)."""
        if not len(self.keys) or not len(keys):
            return np.full(len(keys), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.where(self.keys[at] == keys, at, -1)


@dataclass
class _Fold:
    base: _Sorted
    delta: _Sorted
    damaged: list[str] = field(default_factory=list)


class NewestRows:
    """The newest row per release key (by `when`) of the Parquet files of `folder`, as
    `consumer` keeps them in this process. `columns`: what is read of each file (a file
    without one of them: read whole and the column made null); `keep`: a filter of the
    rows folded in (the judge's health: checks that gave a verdict)."""

    _folds: ClassVar[dict[tuple[str, str], _Fold]] = {}

    def __init__(
        self,
        fs: AbstractFileSystem,
        folder: str,
        consumer: str,
        when: str,
        schema: pa.Schema,
        keep: Callable[[pa.Table], pa.Array] | None = None,
    ) -> None:
        self.when, self.schema, self.keep = when, schema, keep
        self.fs, self.folder = fs, folder.rstrip("/")
        once = WrittenOnce(fs, self.folder, consumer)
        names, reset = once.new()
        key = (consumer, self.folder)
        empty = _Sorted.of(schema.empty_table(), when)
        fold = None if reset else NewestRows._folds.get(key)
        if fold is None:
            fold = _Fold(empty, empty)
        fold.damaged = []
        new = []
        for name in names:
            t = self._read(f"{self.folder}/{name}", fold.damaged)
            if t is not None:
                new.append(t)
                once.taken(name)
        if new:
            rows = pa.concat_tables([fold.delta.rows, *new])
            fold.delta = _Sorted.of(rows, when)
            if fold.delta.rows.num_rows > max(MIN_DELTA, fold.base.rows.num_rows // 8):
                both = pa.concat_tables([fold.base.rows, fold.delta.rows])
                fold.base, fold.delta = _Sorted.of(both, when), empty
        if once.local:
            NewestRows._folds[key] = fold
        self.fold = fold

    @property
    def damaged(self) -> list[str]:
        """The files that could not be read this call (read again by the next)."""
        return list(self.fold.damaged)

    def _read(self, path: str, damaged: list[str]) -> pa.Table | None:
        names = self.schema.names
        try:
            try:
                t = read_parquet(self.fs, path, names)
            except (*READ_ERRORS, KeyError):  # type: ignore[misc]
                t = read_parquet(self.fs, path)  # an older file without a column
        except FileNotFoundError:
            return None
        except (*READ_ERRORS, KeyError) as exc:  # type: ignore[misc]
            damaged.append(f"{path}: {type(exc).__name__}: {exc}")
            return None
        cols = [
            t[f.name].cast(f.type) if f.name in t.column_names else pa.nulls(t.num_rows, f.type)
            for f in self.schema
        ]
        t = pa.table(cols, schema=self.schema)
        return t if self.keep is None else t.filter(self.keep(t))

    def rows_of(self, keys: np.ndarray) -> pa.Table:
        """The newest row of each of `keys` ('S20') that has one, in no set order."""
        keys = np.asarray(keys, dtype="S20")
        base, delta = self.fold.base, self.fold.delta
        in_base, in_delta = base.find(keys), delta.find(keys)
        if len(delta.keys):
            # a key in both: the later row (of equal times, the delta's: stored last)
            both = np.flatnonzero((in_base >= 0) & (in_delta >= 0))
            if len(both):
                b = _times(base.rows, self.when, in_base[both])
                d = _times(delta.rows, self.when, in_delta[both])
                in_base[both[d >= b]] = -1
        in_delta[in_base >= 0] = -1
        parts = [
            base.rows.take(pa.array(in_base[in_base >= 0])),
            delta.rows.take(pa.array(in_delta[in_delta >= 0])),
        ]
        return pa.concat_tables(parts)

    def table(self) -> pa.Table:
        """Every key's newest row."""
        base, delta = self.fold.base, self.fold.delta
        if not delta.rows.num_rows:
            return base.rows
        older = base.rows.filter(pa.array(delta.find(base.keys) < 0))
        return pa.concat_tables([older, self.rows_of(delta.keys)])


def _times(rows: pa.Table, when: str, at: np.ndarray) -> np.ndarray:
    col = pc.fill_null(rows[when].take(pa.array(at)), -(1 << 62))
    return np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.int64)


# what a reader made of a file, per (reader, path): the file's size and time, and the value
_PER_FILE: dict[tuple[str, str], tuple[tuple[int, int], Any]] = {}


def per_file(fs: AbstractFileSystem, path: str, reader: str, read: Callable[[], T]) -> T:
    """What `read` makes of the file at `path`, kept in this process while the file's
    size and time stay as they were: a live loop's stages look at a moved group's every
    range log, probe record and merge record each cycle, and most of them have not
    changed. Other file systems than the local one: read each call."""
    if not is_local(fs):
        return read()
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return read()  # the reader says what a missing file means
    stamp = (st.st_size, st.st_mtime_ns)
    kept = _PER_FILE.get((reader, path))
    if kept is not None and kept[0] == stamp:
        return cast(T, kept[1])
    value = read()
    _PER_FILE[(reader, path)] = (stamp, value)
    return value
