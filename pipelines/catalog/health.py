"""Which catalog partitions can be read: one damaged file must not take the rest down.

Our writers replace a partition atomically, but a catalog is also copied, synced to an
object store, restored from backups and kept on disks that fill up. A partition cut short
(no footer), overwritten with something else, or with a footer that does not parse makes
every DuckDB view over its table fail, and the index build with it: before this, one
truncated `releases` file stopped `usenet-indexer serve` from starting at all.

`PartitionHealth` remembers, per partition version (path, size, mtime), why it cannot
be read, or that it can. Listing code asks `problem` for each partition it is about to
use and leaves damaged ones out; readers that find damage the quick check cannot see (a
footer that parses, pages that do not) report it with `mark`, and the partition is left
out from then on. A partition replaced by a redone range has a new size or mtime, so it
is checked again and comes back by itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

log = logging.getLogger(__name__)

MAGIC = b"PAR1"
_TAIL = 8  # the footer's length (4 bytes, little-endian) and the magic


class DamagedPartition(ValueError):
    """A catalog partition that cannot be read, and why."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(path, problem)  # both in args: it crosses process pools pickled
        self.path = path
        self.problem = problem

    def __str__(self) -> str:
        return f"damaged partition {self.path}: {self.problem}"


# What reading a damaged file raises; a bug of ours (any other error) must not make a
# partition look damaged, which would hide it until the file is replaced.
READ_ERRORS: tuple[type[Exception], ...] = (OSError, pa.ArrowException)


@contextmanager
def reading(path: str, errors: tuple[type[Exception], ...] = READ_ERRORS) -> Iterator[None]:
    """Reading errors inside become `DamagedPartition` naming `path`. A file removed since
    it was listed (a compaction) is not damage: FileNotFoundError goes through."""
    try:
        yield
    except FileNotFoundError:
        raise
    except errors as exc:
        raise DamagedPartition(path, f"{type(exc).__name__}: {exc}") from exc


def ends_problem(head: bytes, tail: bytes, size: int) -> str | None:
    """What is wrong with a Parquet file of `size` bytes from its first 4 and last 8
    bytes, or None. A file cut short almost never ends in the magic."""
    if size < len(MAGIC) + _TAIL:
        return f"{size} bytes: too short for a Parquet file"
    if head[:4] != MAGIC:
        return "not a Parquet file (no magic bytes at its start)"
    if tail[4:] != MAGIC:
        return "cut short or overwritten (no magic bytes at its end)"
    footer = int.from_bytes(tail[:4], "little")
    if footer <= 0 or footer > size - len(MAGIC) - _TAIL:
        return f"footer length {footer} does not fit a file of {size} bytes"
    return None


def quick_problem(fs: Any, path: str, size: int | None = None) -> str | None:
    """The cheap check: the magic at both ends and a footer length that fits (two small
    reads). Errors reading the file are problems too."""
    try:
        if size is None:
            size = int(fs.info(path)["size"])
        if size < len(MAGIC) + _TAIL:
            return ends_problem(b"", b"", size)
        head = fs.cat_file(path, start=0, end=len(MAGIC))
        tail = fs.cat_file(path, start=size - _TAIL, end=size)
    except FileNotFoundError:
        raise  # gone, not damaged: the caller's listing is stale
    except Exception as exc:
        return f"cannot be read: {type(exc).__name__}: {exc}"
    return ends_problem(head, tail, size)


def footer_problem(fs: Any, path: str, size: int | None = None) -> str | None:
    """The thorough check: the quick one, then the footer parsed and every column chunk
    inside the file. Run where the quick check passed but reading failed."""
    found = quick_problem(fs, path, size)
    if found is not None:
        return found
    try:
        size = int(fs.info(path)["size"]) if size is None else size
        # the footer with its length and magic: the quick check read the length already
        length = int.from_bytes(fs.cat_file(path, start=size - _TAIL, end=size - 4), "little")
        footer = fs.cat_file(path, start=size - _TAIL - length, end=size)
        meta = pq.read_metadata(pa.BufferReader(footer))
        meta.schema.to_arrow_schema()
    except FileNotFoundError:
        raise
    except Exception as exc:
        return f"unreadable footer: {type(exc).__name__}: {exc}"
    data_end = size - _TAIL - length
    for rg in range(meta.num_row_groups):
        row_group = meta.row_group(rg)
        if row_group.num_rows == 0:
            continue  # an empty table's row group: its offsets are placeholders
        for c in range(row_group.num_columns):
            chunk = row_group.column(c)
            first = chunk.data_page_offset
            if chunk.dictionary_page_offset is not None:
                first = min(first, chunk.dictionary_page_offset)
            if first < len(MAGIC) or first + chunk.total_compressed_size > data_end:
                return f"row group {rg}, column {chunk.path_in_schema}: outside the file"
    return None


@dataclass(frozen=True, order=True)
class Damage:
    table: str
    path: str
    problem: str


class PartitionHealth:
    """Per partition version (path, size, mtime): None when it reads, else the problem.

    Thread-safe; shared by the views, the index and the NZB lookup of one server."""

    def __init__(self) -> None:
        # path -> (size, mtime as text, problem or None): the version last checked
        self._known: dict[str, tuple[Any, str, str | None]] = {}
        self._tables: dict[str, str] = {}
        self._lock = threading.Lock()

    def problem(self, fs: Any, table: str, path: str, size: int | None, mtime: Any) -> str | None:
        """Why this version of the partition cannot be read (checked once), or None."""
        with self._lock:
            hit = self._known.get(path)
        if hit is not None and hit[:2] == (size, str(mtime)):
            return hit[2]
        try:
            found = quick_problem(fs, path, size)
        except FileNotFoundError:
            return "removed since it was listed"  # not damage: left out, not recorded
        self._record(table, path, size, mtime, found)
        return found

    def mark(self, table: str, path: str, size: Any, mtime: Any, problem: str) -> None:
        """A reader found this version damaged: leave it out from now on."""
        self._record(table, path, size, mtime, problem)

    def damaged(self) -> list[Damage]:
        with self._lock:
            found = [(p, k[2]) for p, k in self._known.items() if k[2] is not None]
            return sorted(Damage(self._tables[p], p, problem) for p, problem in found)

    def to_json(self) -> list[dict[str, Any]]:
        """The damaged versions, for another process's `load_json`."""
        with self._lock:
            return [
                {"table": self._tables[p], "path": p, "size": k[0], "mtime": k[1], "problem": k[2]}
                for p, k in sorted(self._known.items())
                if k[2] is not None
            ]

    def load_json(self, found: list[dict[str, Any]]) -> None:
        """Take another process's findings (a serving worker, its index builder's)."""
        for d in found:
            self._record(d["table"], d["path"], d["size"], d["mtime"], d["problem"])

    def is_damaged(self, path: str) -> bool:
        with self._lock:
            hit = self._known.get(path)
        return hit is not None and hit[2] is not None

    def forget_missing(self, table: str, present: set[str]) -> None:
        """Forget `table`'s partitions that are no longer listed (removed, compacted)."""
        with self._lock:
            gone = [p for p, t in self._tables.items() if t == table and p not in present]
            for path in gone:
                del self._known[path], self._tables[path]

    def _record(self, table: str, path: str, size: Any, mtime: Any, found: str | None) -> None:
        with self._lock:
            was = self._known.get(path)
            self._known[path] = (size, str(mtime), found)
            self._tables[path] = table
        before = None if was is None else was[2]
        if found is not None and found != before:
            log.warning("catalog partition left out: %s: %s", path, found)
        elif found is None and before is not None:
            log.warning("catalog partition readable again: %s", path)
