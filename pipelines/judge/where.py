"""Where each live release of a group lies: the judge's index of a group's releases.

A run that reads a group need not read all of it: the facts of a release lie in the
partitions whose article spans meet its own (its versions, pending row, candidates,
probes, file rows), in the group's health checks and merge records. The index says, per
live release of the group, its article span and its last post
(`_judge/where/<group>.arrow`, an uncompressed Arrow file: mapped, not parsed, and the
changes since it was written in `<group>.delta.arrow`, so a run that read a few releases
writes a few rows), so the
releases a run must judge that a changed file does not name by span (a health check, a
release crossing the settling line, one sharing a content file) are found without
reading the group. A run that reads the whole group writes it anew; one that reads some
partitions replaces the rows of the releases it read.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.partitions import is_local
from pipelines.corpus.fs import atomic_put, open_fs

FOLDER = "_judge/where"
WHERE = pa.schema([("release_key", pa.binary(20)), ("first_article", pa.int64()),
                   ("last_article", pa.int64()), ("posted_last", pa.int64()),
                   # pending or unreadable: time alone may make it unusable (`rules.unusable`)
                   ("may_settle", pa.bool_())])  # fmt: skip


# the changes since the base was written: the rows of the releases read since, and a
# row with `gone` set for a release read and found gone
DELTA = pa.schema([*WHERE, ("gone", pa.bool_())])
MIN_DELTA = 20_000  # rows a delta may hold whatever the base's size


def _path(root: str, group: str, delta: bool = False) -> str:
    return f"{root.rstrip('/')}/{FOLDER}/{group}{'.delta' if delta else ''}.arrow"


def _read(fs: Any, path: str) -> pa.Table:
    if is_local(fs):  # mapped: the pages a run touches are read, not the file
        return pa.ipc.open_file(pa.memory_map(path, "r")).read_all()
    with fs.open(path, "rb") as fh:
        return pa.ipc.open_file(pa.py_buffer(fh.read())).read_all()


def _put(fs: Any, path: str, table: pa.Table, schema: pa.Schema) -> None:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, schema) as writer:
        writer.write_table(table.select(schema.names).cast(schema))
    atomic_put(fs, path, sink.getvalue())


def load_where(catalog: str, group: str) -> pa.Table | None:
    """The group's index: its base with the changes since (None: none kept, or
    unreadable: the group is read whole)."""
    fs, root = open_fs(catalog)
    try:
        table = _read(fs, _path(root, group))
    except FileNotFoundError:
        return None
    except (*READ_ERRORS, ValueError):  # type: ignore[misc]
        return None
    if table.schema.equals(pa.schema(list(WHERE)[:-1])):
        # kept before `may_settle`: unknown, so each settles as time may change it
        table = table.append_column(WHERE.field("may_settle"), pa.nulls(table.num_rows, pa.bool_()))
    if not table.schema.equals(WHERE):
        return None
    delta = _load_delta(fs, root, group)
    if delta is None:
        return None
    return _applied(table, delta)


def _load_delta(fs: Any, root: str, group: str) -> pa.Table | None:
    """The group's changes since its base (empty: none; None: unreadable)."""
    try:
        delta = _read(fs, _path(root, group, delta=True))
    except FileNotFoundError:
        return DELTA.empty_table()
    except (*READ_ERRORS, ValueError):  # type: ignore[misc]
        return None
    return delta if delta.schema.equals(DELTA) else None


def _applied(base: pa.Table, delta: pa.Table) -> pa.Table:
    if not delta.num_rows:
        return base
    keep = base.filter(pc.invert(pc.is_in(base["release_key"], delta["release_key"])))
    live = delta.filter(pc.invert(pc.fill_null(delta["gone"], False)))
    return pa.concat_tables([keep, live.select(WHERE.names)])


def save_where(catalog: str, group: str, table: pa.Table) -> None:
    """A group's index written whole (its changes since folded in)."""
    fs, root = open_fs(catalog)
    _put(fs, _path(root, group), table, WHERE)
    # a stop before this leaves changes the base already holds: applied again, the same
    with contextlib.suppress(FileNotFoundError):
        fs.rm(_path(root, group, delta=True))


def save_changes(
    catalog: str, group: str, old: pa.Table, read: pa.Array, new: pa.Table
) -> pa.Table:
    """The index after a run that read some of the group's releases (`read`: keys found
    live or gone; `new`: the rows of those found live), as the index it loaded (`old`)
    and what it read make it. Only the changes are written, beside the base, until they
    grow past an eighth of it; then the base is written anew."""
    fs, root = open_fs(catalog)
    table = replaced(old, read, new)
    delta = _load_delta(fs, root, group)
    if delta is None:
        save_where(catalog, group, table)
        return table
    new = new.cast(WHERE)
    found = pc.is_in(read, new["release_key"])
    gone_keys = read.filter(pc.invert(found))
    gone = pa.table(
        {**{f.name: pa.nulls(len(gone_keys), f.type) for f in WHERE}, "release_key": gone_keys},
        schema=WHERE,
    ).append_column("gone", pa.array([True] * len(gone_keys), pa.bool_()))
    kept = delta.filter(pc.invert(pc.is_in(delta["release_key"], read)))
    now = new.append_column("gone", pa.array([False] * new.num_rows, pa.bool_()))
    delta = pa.concat_tables([kept, now.cast(DELTA), gone.cast(DELTA)])
    if delta.num_rows > max(MIN_DELTA, (table.num_rows - new.num_rows) // 8):
        save_where(catalog, group, table)
    else:
        _put(fs, _path(root, group, delta=True), delta, DELTA)
    return table


def rows_of(live: pa.Table, group: str) -> pa.Table:
    """The index rows of a group's live releases (`facts.LIVE` rows)."""
    mine = live.filter(pc.equal(pc.fill_null(live["group"], "_"), group))
    may = pc.or_(
        pc.fill_null(mine["pending"], False), pc.invert(pc.fill_null(mine["readable"], True))
    )
    return mine.append_column("may_settle", may).select(WHERE.names).cast(WHERE)


def replaced(old: pa.Table, read: pa.Array, new: pa.Table) -> pa.Table:
    """The old index without the keys a run read (`read`: live or gone), with the rows
    of those it found live."""
    keep = old.filter(pc.invert(pc.is_in(old["release_key"], read)))
    return pa.concat_tables([keep, new.cast(WHERE)])


def spans_of(where: pa.Table, keys: pa.Array) -> list[tuple[int, int]]:
    """The article spans of these releases (those the index holds)."""
    hit = where.filter(pc.is_in(where["release_key"], keys))
    firsts = pc.fill_null(hit["first_article"], 0).to_numpy(zero_copy_only=False)
    lasts = pc.fill_null(hit["last_article"], 0).to_numpy(zero_copy_only=False)
    return list(zip(firsts.tolist(), np.maximum(firsts, lasts).tolist(), strict=True))


def settling(where: pa.Table, after: int, upto: int) -> pa.Array:
    """The releases whose last post lies in (after, upto] that time may make unusable
    (the others' verdicts do not move with the settling line)."""
    posted = pc.fill_null(where["posted_last"], 0)
    hit = pc.and_(pc.greater(posted, after), pc.less_equal(posted, upto))
    hit = pc.and_(hit, pc.fill_null(where["may_settle"], True))
    return where["release_key"].filter(hit).combine_chunks()


def next_to_settle(where: pa.Table, line: int) -> int | None:
    """The earliest last post after the line of a release time may make unusable."""
    may = pc.fill_null(where["may_settle"], True)
    posted = pc.filter(pc.fill_null(where["posted_last"], 0), may)
    found = pc.min(pc.filter(posted, pc.greater(posted, line))).as_py()
    return None if found is None else int(found)
