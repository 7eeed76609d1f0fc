"""Where each live release of a group lies: the judge's index of a group's releases.

A run that reads a group need not read all of it: the facts of a release lie in the
partitions whose article spans meet its own (its versions, pending row, candidates,
probes, file rows), in the group's health checks and merge records. The index says, per
live release of the group, its article span and its last post
(`_judge/where/<group>.arrow`, an uncompressed Arrow file: mapped, not parsed), so the
releases a run must judge that a changed file does not name by span (a health check, a
release crossing the settling line, one sharing a content file) are found without
reading the group. A run that reads the whole group writes it anew; one that reads some
partitions replaces the rows of the releases it read.
"""

from __future__ import annotations

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


def _path(root: str, group: str) -> str:
    return f"{root.rstrip('/')}/{FOLDER}/{group}.arrow"


def load_where(catalog: str, group: str) -> pa.Table | None:
    """The group's index (None: none kept, or unreadable: the group is read whole)."""
    fs, root = open_fs(catalog)
    path = _path(root, group)
    try:
        if is_local(fs):  # mapped: the pages a run touches are read, not the file
            table = pa.ipc.open_file(pa.memory_map(path, "r")).read_all()
        else:
            with fs.open(path, "rb") as fh:
                table = pa.ipc.open_file(pa.py_buffer(fh.read())).read_all()
    except FileNotFoundError:
        return None
    except (*READ_ERRORS, ValueError):  # type: ignore[misc]
        return None
    if table.schema.equals(pa.schema(list(WHERE)[:-1])):
        # kept before `may_settle`: unknown, so each settles as time may change it
        table = table.append_column(WHERE.field("may_settle"), pa.nulls(table.num_rows, pa.bool_()))
    return table if table.schema.equals(WHERE) else None


def save_where(catalog: str, group: str, table: pa.Table) -> None:
    fs, root = open_fs(catalog)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, WHERE) as writer:
        writer.write_table(table.select(WHERE.names).cast(WHERE))
    atomic_put(fs, _path(root, group), sink.getvalue())


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
