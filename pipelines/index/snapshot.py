"""The window's state after a range, stored so the group's next range can carry it.

A snapshot is written last, after every partition of its range: its presence is the
mark that the range is done, and resuming starts after the newest one.

The format (docs/CATALOG.md, "Window snapshots"): a line naming the file, a line with
the format version, then one zstd frame holding sections, each an 8-byte little-endian
length and its bytes: first a JSON head (the version, the rules, the window's scalars
and the names of the tables that follow), then each table as an Arrow IPC stream
(`snapshot_tables`). A snapshot of an older version (1 and 2 were pickles of the Window
object) or one that cannot be read is damaged: its range is indexed again. One of a
newer version is refused: this build must not overwrite what a newer one wrote.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import pyarrow as pa
import zstandard

from pipelines.catalog.layout import snapshot_path
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.index import snapshot_tables
from pipelines.index.window import Window

SNAPSHOT_VERSION = 3  # 3: Arrow tables; 1 and 2 (pickles of the Window object) are redone
# what a snapshot starts with from version 2 on: its version is known before the body
MAGIC = b"usenet-indexer window\n"
_LENGTH = struct.Struct("<Q")


def snapshot_bytes(window: Window, rules_version: str) -> bytes:
    """The window as a snapshot file's bytes (the same window, the same bytes)."""
    head, tables = snapshot_tables.to_tables(window)
    head = {"version": SNAPSHOT_VERSION, "rules_version": rules_version, **head}
    head["tables"] = list(tables)
    sections = [json.dumps(head, sort_keys=True).encode()]
    for table in tables.values():
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        sections.append(sink.getvalue().to_pybytes())
    body = b"".join(_LENGTH.pack(len(s)) + s for s in sections)
    frame = zstandard.ZstdCompressor(level=3).compress(body)
    return MAGIC + b"%d\n" % SNAPSHOT_VERSION + frame


def save_window(
    catalog: str,
    group: str,
    first: int,
    last: int,
    window: Window,
    rules_version: str,
    storage_options: dict[str, Any] | None = None,
) -> int:
    fs, root = open_fs(catalog, storage_options)
    payload = snapshot_bytes(window, rules_version)
    atomic_put(fs, snapshot_path(root, group, first, last), payload)
    return len(payload)


def save_window_at(catalog: str, path: str, window: Window, rules_version: str) -> int:
    """`save_window` to a path of the catalog's (a tail's window, `pipelines.index.tail`)."""
    fs, root = open_fs(catalog)
    payload = snapshot_bytes(window, rules_version)
    atomic_put(fs, f"{root.rstrip('/')}/{path}", payload)
    return len(payload)


def load_window_at(catalog: str, path: str) -> Window | None:
    """`load_window` from a path of the catalog's."""
    fs, root = open_fs(catalog)
    return _load(fs, f"{root.rstrip('/')}/{path}")


def load_window(
    catalog: str,
    group: str,
    first: int,
    last: int,
    storage_options: dict[str, Any] | None = None,
) -> Window | None:
    """The window left by range first..last of group, or None when it was not indexed."""
    fs, root = open_fs(catalog, storage_options)
    return _load(fs, snapshot_path(root, group, first, last))


def _load(fs: Any, path: str) -> Window | None:
    if not fs.exists(path):
        return None
    payload = fs.cat_file(path)
    try:
        doc = read_snapshot(payload, str(path))
    except (NewerSnapshot, DamagedSnapshot):
        raise
    except Exception as exc:  # cut short, bit rot: zstd, Arrow or the tables' own checks
        problem = f"{type(exc).__name__}: {exc}"
        raise DamagedSnapshot(f"window snapshot {path} is damaged: {problem}") from exc
    window: Window = doc["window"]
    return window


class DamagedSnapshot(ValueError):
    """A snapshot that cannot be read back (or one of an older format): its range must
    be indexed again."""


class NewerSnapshot(ValueError):
    """A snapshot of a newer snapshot version: this build must not overwrite it."""


def read_snapshot(payload: bytes, where: str = "snapshot") -> dict[str, Any]:
    """A snapshot file's document: its version, its rules version and its window."""
    if not payload.startswith(MAGIC):
        # version 1 was a bare zstd frame of a pickle
        raise DamagedSnapshot(
            f"window snapshot {where} is damaged: no header (an older format, version 1, "
            "or not a snapshot)"
        )
    line, _, frame = payload[len(MAGIC) :].partition(b"\n")
    version = int(line) if line.isdigit() else -1
    if version > SNAPSHOT_VERSION:
        raise NewerSnapshot(
            f"window snapshot {where} has version {line.decode(errors='replace')}, this "
            f"indexer reads {SNAPSHOT_VERSION}: a newer build wrote it"
        )
    if version != SNAPSHOT_VERSION:
        raise DamagedSnapshot(
            f"window snapshot {where} is damaged: version {line[:20].decode(errors='replace')}"
            f", an older format than {SNAPSHOT_VERSION} (or none)"
        )
    body = zstandard.ZstdDecompressor().decompress(frame)
    sections = _sections(body)
    head = json.loads(sections[0])
    names = head.get("tables")
    if head.get("version") != SNAPSHOT_VERSION or names != list(snapshot_tables.TABLES):
        raise ValueError(f"its head names other tables: {names}")
    if len(sections) != 1 + len(names):
        raise ValueError(f"{len(sections) - 1} tables for {len(names)} names")
    tables = {
        name: pa.ipc.open_stream(pa.py_buffer(section)).read_all()
        for name, section in zip(names, sections[1:], strict=True)
    }
    window = snapshot_tables.from_tables(head, tables)
    return {"version": version, "rules": head.get("rules_version"), "window": window}


def _sections(body: bytes) -> list[bytes]:
    out = []
    at = 0
    while at < len(body):
        if at + _LENGTH.size > len(body):
            raise ValueError("a section's length is cut short")
        (n,) = _LENGTH.unpack_from(body, at)
        at += _LENGTH.size
        if at + n > len(body):
            raise ValueError("a section is cut short")
        out.append(body[at : at + n])
        at += n
    if not out:
        raise ValueError("no sections")
    return out


def has_snapshot(catalog: str, group: str, first: int, last: int) -> bool:
    fs, root = open_fs(catalog)
    return bool(fs.exists(snapshot_path(root, group, first, last)))
