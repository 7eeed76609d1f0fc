"""Each release's current verdict (`release_verdicts`) and health (`release_health`),
laid over the index's segments.

Verdicts and health checks come for releases of any range, old ones included (a health
sweep checks old releases again; the judge takes a verdict back), so they are not built
into segments: a sweep would rebuild every segment it touched. Each process reads the
two tables itself (small: a row per judgment), by file: a refresh reads only the files
that came or changed since the last (`Judgments.refresh`), settles the current row per
key (`current_rows`: the owners' rules; a null rule is no verdict), and names the
keys whose state changed. Per segment the ordinals of each kind follow
(`LiveSegment.judged`, `.gone`, sorted, few: sparse): a new segment gets them from every
judged key, a kept one only for the keys that changed; a snapshot whose ordinals changed
is a new snapshot, so its result cache never serves what a verdict hid.

- judged: a verdict hides the release from searches and feeds, unless the request asks
  for every release (`SearchQuery.judged`);
- gone: dead (the `dead` rule, or the newest health verdict `dead`): never
  listed, show-all or not.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from fsspec import AbstractFileSystem

from pipelines.catalog.reader import read_parquet
from pipelines.catalog.versions import key_array
from pipelines.catalog.views import table_files
from pipelines.health.store import current_health
from pipelines.health.verdicts import served_by
from pipelines.judge.store import newest_verdicts

if TYPE_CHECKING:
    from serving.index.searcher import LiveSegment

log = logging.getLogger(__name__)
DEAD = "dead"  # the judge's first rule and the health sweep's worst verdict
# What is read of each table (columns named as the tables declare them), and the column
# whose newest value per key is the current row.
VERDICT_COLUMNS = ["release_key", "rule", "detail", "rules_version", "judged_at"]
HEALTH_COLUMNS = ["release_key", "checked_at", "verdict", "segments", "missing", "posted_last",
                  "providers", "provider_missing"]  # fmt: skip
TABLES = {"release_verdicts": ("judged_at", VERDICT_COLUMNS),
          "release_health": ("checked_at", HEALTH_COLUMNS)}  # fmt: skip


def distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values, by sorting: numpy 2's `np.unique` hashes, several times
    slower on 20-byte keys."""
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    keep = np.ones(len(ordered), dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


def current_rows(table: str, rows: pa.Table) -> pa.Table:
    """Per key the row its table's owner calls current, in key order: a verdict's newest
    (a taken-back one too), a health check's newest that gave a verdict (a stamp says
    nothing of the articles, so the verdict before it stands)."""
    return current_health(rows) if table == "release_health" else newest_verdicts(rows)


def _read(fs: AbstractFileSystem, path: str, columns: list[str]) -> pa.Table | None:
    """The file's rows of these columns (a column it lacks: null); None when it cannot
    be read (logged: its releases keep what the other files say)."""
    try:
        table = read_parquet(fs, path, None)
    except Exception:
        log.warning("%s: unreadable; left out", path)
        return None
    out = {}
    for name in columns:
        if name in table.column_names:
            out[name] = table.column(name).combine_chunks()
        else:
            out[name] = pa.nulls(table.num_rows)
    try:
        out["release_key"] = out["release_key"].cast(pa.binary(20))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        log.warning("%s: release_key is not 20 bytes; left out", path)
        return None
    return pa.table(out)


@dataclass(frozen=True)
class JudgedState:
    """The current verdict and health of every key either table names, sorted by key:
    `rows` (release_key and the columns of both tables, the health verdict as
    `health`), `judged` (a verdict hides it), `gone` (dead: never listed)."""

    keys: np.ndarray
    rows: pa.Table
    judged: np.ndarray
    gone: np.ndarray

    @classmethod
    def empty(cls) -> JudgedState:
        return cls.of(pa.table({"release_key": pa.array([], pa.binary(20))}))

    @classmethod
    def of(cls, rows: pa.Table) -> JudgedState:
        keys = key_array(rows.column("release_key").cast(pa.binary(20)))
        fill = lambda name: (  # noqa: E731
            pc.fill_null(rows.column(name).cast(pa.string()), "").to_numpy(zero_copy_only=False)
            if name in rows.column_names
            else np.full(rows.num_rows, "", dtype=object)
        )
        rule, health = fill("rule"), fill("health")
        judged = rule != ""
        gone = (rule == DEAD) | (health == DEAD)
        return cls(keys, rows, np.asarray(judged, bool), np.asarray(gone, bool))

    def find(self, key: bytes) -> dict[str, Any] | None:
        """The key's verdict and health (None when neither table names it)."""
        i = int(np.searchsorted(self.keys, np.bytes_(key)))
        if i < len(self.keys) and self.keys[i : i + 1].tobytes() == key:
            row: dict[str, Any] = self.rows.slice(i, 1).to_pylist()[0]
            return row
        return None

    def is_gone(self, key: bytes) -> bool:
        """Whether the release is dead (never returned)."""
        i = int(np.searchsorted(self.keys, np.bytes_(key)))
        return bool(i < len(self.keys) and self.keys[i : i + 1].tobytes() == key and self.gone[i])

    def attrs(self, key: bytes) -> list[tuple[str, str]]:
        """The release's `newznab:attr` pairs of its health and verdict (none when
        neither is known): names no Newznab client reads, so they ignore them."""
        found = self.find(key)
        if found is None:
            return []
        out = []
        if found.get("health") is not None or found.get("checked_at") is not None:
            out.append(("health", found.get("health") or "unknown"))
            if found.get("checked_at") is not None:
                out.append(("health_checked", str(found["checked_at"])))
            if found.get("segments") is not None:
                out.append(("health_missing", f"{found.get('missing') or 0}/{found['segments']}"))
            served = served_by(found.get("providers"), found.get("provider_missing"))
            if found.get("providers"):  # which providers serve all of it (issue 29)
                out.append(("health_providers", ",".join(served)))
        if found.get("rule"):
            out.append(("verdict", found["rule"]))
            if found.get("detail"):
                out.append(("verdict_detail", found["detail"]))
        return out

    def changed_from(self, old: JudgedState) -> np.ndarray:
        """The keys whose masks or shown facts differ between `old` and this state
        (either side's keys), sorted."""
        both = distinct(np.concatenate([old.keys, self.keys]))
        if len(both) == 0:
            return both
        mine, theirs = self._columns_at(both), old._columns_at(both)
        return both[np.any(mine != theirs, axis=0)]

    def _columns_at(self, keys: np.ndarray) -> np.ndarray:
        """Per key of `keys` (sorted): its judged and gone bits and the stamps of its
        current rows (-1: none), as rows of one array: what "changed" compares."""
        out = np.full((4, len(keys)), -1, dtype=np.int64)
        if len(self.keys) == 0:
            out[:2] = 0
            return out
        pos = np.searchsorted(self.keys, keys)
        pos[pos == len(self.keys)] = 0
        hit = self.keys[pos] == keys
        at = pos[hit]
        out[:2] = 0
        out[0, hit] = self.judged[at]
        out[1, hit] = self.gone[at]
        for row, name in ((2, "judged_at"), (3, "checked_at")):
            if name in self.rows.column_names:
                col = pc.fill_null(self.rows.column(name).cast(pa.int64()), -1)
                out[row, hit] = col.to_numpy(zero_copy_only=False)[at]
        return out


class Judgments:
    """The two tables of one catalog, read file by file as they change."""

    def __init__(self, fs: AbstractFileSystem, root: str) -> None:
        self._fs = fs
        self._root = root
        # per table: path -> (size, mtime), and the file's newest row per key
        self._seen: dict[str, dict[str, tuple[Any, Any]]] = {t: {} for t in TABLES}
        self._rows: dict[str, dict[str, pa.Table]] = {t: {} for t in TABLES}
        self.state = JudgedState.empty()

    def refresh(self) -> np.ndarray:
        """Read the files that came or changed (drop the ones gone); the keys whose
        state changed, sorted (none: nothing to lay over the segments again)."""
        changed = False
        for table, (_, columns) in TABLES.items():
            listed = {f["path"]: (f["size"], f["mtime"])
                      for f in table_files(self._fs, self._root, table)}  # fmt: skip
            seen, rows = self._seen[table], self._rows[table]
            if listed == seen:
                continue
            changed = True
            for path in list(seen):
                if listed.get(path) != seen[path]:
                    del seen[path]
                    rows.pop(path, None)
            for path, stat in listed.items():
                if path in seen:
                    continue
                read = _read(self._fs, path, columns)
                seen[path] = stat  # an unreadable file is tried again once it changes
                if read is not None:
                    rows[path] = current_rows(table, read)
        if not changed:
            return np.zeros(0, dtype="S20")
        new = JudgedState.of(self._current())
        keys = new.changed_from(self.state)
        self.state = new
        return keys

    def _current(self) -> pa.Table:
        """Both tables' current rows per key side by side (a key either names), sorted
        by key; the health table's `verdict` is `health` here."""
        current = {}
        for table in TABLES:
            parts = list(self._rows[table].values())
            if parts:
                rows = pa.concat_tables(parts, promote_options="permissive")
                current[table] = current_rows(table, rows)
        keys = distinct(np.concatenate(
            [key_array(t.column("release_key")) for t in current.values()]
            or [np.zeros(0, "S20")]))  # fmt: skip
        # from the bytes: an 'S20' item as a Python value drops its trailing zero bytes
        out = {"release_key": pa.FixedSizeBinaryArray.from_buffers(
            pa.binary(20), len(keys), [None, pa.py_buffer(keys.tobytes())])}  # fmt: skip
        for table, (_, columns) in TABLES.items():
            found = current.get(table)
            at = np.full(len(keys), -1, np.int64)
            if found is not None and found.num_rows:
                mine = key_array(found.column("release_key"))  # sorted: current_rows
                at = np.searchsorted(mine, keys)
                at[at == len(mine)] = 0
                at = np.where(mine[at] == keys, at, -1)
            index = pa.array(at, mask=at < 0)
            for name in columns[1:]:
                shown = "health" if (table, name) == ("release_health", "verdict") else name
                if found is None:
                    out[shown] = pa.nulls(len(keys))
                else:
                    out[shown] = found.column(name).combine_chunks().take(index)
        return pa.table(out)


def masks_for(
    state: JudgedState, keys: np.ndarray, key_order: np.ndarray, which: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a segment (its sorted `keys` and `key_order`): the ordinals of the state's
    keys it holds (of `which` only, when given), and their judged and gone bits."""
    probe = state.keys if which is None else which
    if len(probe) == 0 or len(keys) == 0:
        return np.zeros(0, np.int64), np.zeros(0, bool), np.zeros(0, bool)
    if which is None and len(keys) < len(probe):  # search the smaller side in the larger
        pos = np.searchsorted(probe, keys)
        pos[pos == len(probe)] = 0
        hit = np.nonzero(probe[pos] == keys)[0]
        ords = np.asarray(key_order[hit], np.int64)
        return ords, state.judged[pos[hit]], state.gone[pos[hit]]
    pos = np.searchsorted(keys, probe)
    pos[pos == len(keys)] = 0
    hit = np.nonzero(np.asarray(keys[pos] == probe))[0]
    ords = np.asarray(key_order[pos[hit]], np.int64)
    if which is None:
        return ords, state.judged[hit], state.gone[hit]
    # a changed key may have left the state: its bits then go back to false
    spos = np.searchsorted(state.keys, probe[hit])
    spos[spos == len(state.keys)] = 0
    there = (state.keys[spos] == probe[hit]) if len(state.keys) else np.zeros(len(hit), bool)
    judged = np.where(there, state.judged[spos] if len(state.keys) else False, False)
    gone = np.where(there, state.gone[spos] if len(state.keys) else False, False)
    return ords, np.asarray(judged, bool), np.asarray(gone, bool)


def lay_over(lives: Sequence[LiveSegment], state: JudgedState, changed: np.ndarray) -> None:
    """Set the segments' judged and gone ordinals from `state`: every judged key for a
    segment that has none yet (new to the snapshot), the `changed` keys for the rest.
    Before the snapshot is served: they never change after."""
    for live in lives:
        seg = live.segment
        if live.judged is None or live.gone is None:
            ords, judged, gone = masks_for(state, seg.keys, seg.key_order)
            live.judged = np.sort(ords[judged])
            live.gone = np.sort(ords[gone])
        elif len(changed):
            ords, judged, gone = masks_for(state, seg.keys, seg.key_order, changed)
            if not len(ords):
                continue
            # new arrays: the previous snapshot's segments share the old ones
            live.judged = np.union1d(np.setdiff1d(live.judged, ords), ords[judged])
            live.gone = np.union1d(np.setdiff1d(live.gone, ords), ords[gone])
        else:
            continue
        live.changed()
