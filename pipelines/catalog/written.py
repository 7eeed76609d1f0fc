"""What this process just wrote to the catalog, kept in memory for the stages after it.

`live` and the Dagster sensors run the header pass and then, in the same process, the
stages that read what it wrote: the PreDB scan reads each new partition's names, and
decoding those files again cost it a third of its cycle. A stage says which tables and
columns it will read (`want`); `write_partition` then keeps those columns of each such
partition it writes, with the file's size and modification time, and `read_parquet`
answers from memory while the file on disk is still that one (another process writing
the same path moves them; the file is read then, as always).

Nothing is kept in a process where no stage asked, and never more than `LIMIT` bytes:
the oldest are let go first. The columns are copied out of the writer's buffers, so a
kept partition holds only its own columns' bytes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import pyarrow as pa

from pipelines.catalog.partitions import stat_of

LIMIT = 64 << 20

_wanted: dict[str, frozenset[str] | None] = {}  # table -> its columns; None: all of them
_kept: OrderedDict[str, tuple[tuple[Any, str], pa.Table]] = OrderedDict()
_held = [0]  # the kept tables' bytes
_lock = threading.Lock()


def want(table: str, columns: Iterable[str] | None = None) -> None:
    """This process reads `columns` (None: all) of the partitions of `table` it writes."""
    with _lock:
        if table in _wanted and (_wanted[table] is None or columns is None):
            _wanted[table] = None
            return
        before = _wanted.get(table) or frozenset()
        _wanted[table] = None if columns is None else before | frozenset(columns)


def wanted(table: str) -> bool:
    return table in _wanted


def teed(table: str, parts: Iterable[pa.Table], into: list[pa.Table]) -> Iterator[pa.Table]:
    """The parts of a streamed partition, each one's wanted columns added to `into`."""
    for part in parts:
        into.append(_columns(table, part))
        yield part


def keep(fs: Any, path: str, table: str, rows: pa.Table | list[pa.Table]) -> None:
    """Keep the wanted columns of a partition just written at `path`."""
    if table not in _wanted:
        return
    if isinstance(rows, list):
        kept = pa.concat_tables(rows) if rows else None
    else:
        kept = _columns(table, rows)
    if kept is None:
        return
    kept = kept.combine_chunks()  # its own buffers: the writer's are let go
    stamp = stat_of(fs.info(path))
    with _lock:
        _let_go(path)
        _kept[path] = (stamp, kept)
        _held[0] += kept.nbytes
        while _held[0] > LIMIT and len(_kept) > 1:
            _let_go(next(iter(_kept)))


def _let_go(path: str) -> None:
    entry = _kept.pop(path, None)
    if entry is not None:
        _held[0] -= entry[1].nbytes


def recall(fs: Any, path: str, columns: Sequence[str] | None) -> pa.Table | None:
    """The rows of `path` as this process wrote them, if it did and they are kept with
    these columns, and the file is still the one written."""
    with _lock:
        entry = _kept.get(path)
    if entry is None:
        return None
    stamp, table = entry
    names = set(table.column_names)
    if columns is not None and not set(columns) <= names:
        return None
    if columns is None and _wanted.get(_table_of(path)) is not None:
        return None  # only some columns were kept
    try:
        if stat_of(fs.info(path)) != stamp:
            return None
    except FileNotFoundError:
        return None
    return table if columns is None else table.select(list(columns))


def forget() -> None:
    """Let go of everything kept and every want (tests; a process done with its stages)."""
    with _lock:
        _kept.clear()
        _held[0] = 0
        _wanted.clear()


def _columns(table: str, rows: pa.Table) -> pa.Table:
    columns = _wanted.get(table)
    return rows if columns is None else rows.select([c for c in rows.column_names if c in columns])


def _table_of(path: str) -> str:
    """The table a partition path belongs to: `<root>/<table>/<group>/<file>`."""
    parts = path.rsplit("/", 3)
    return parts[-3] if len(parts) >= 3 else ""
