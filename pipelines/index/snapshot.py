"""The window's state after a range, stored so the group's next range can carry it.

A snapshot is written last, after every partition of its range: its presence is the
mark that the range is done, and resuming starts after the newest one.
"""

from __future__ import annotations

import pickle
from typing import Any

import zstandard

from pipelines.catalog.layout import snapshot_path
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.index.window import Window

SNAPSHOT_VERSION = 2  # 2: the window as kernel tables
# what a snapshot starts with from version 2 on: its version is known before unpickling
# (version 1 files are bare zstd frames, and their objects need a translation)
MAGIC = b"usenet-indexer window\n"


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
    body = pickle.dumps(
        {"version": SNAPSHOT_VERSION, "rules": rules_version, "window": window},
        protocol=pickle.HIGHEST_PROTOCOL,
    )
    payload = MAGIC + b"%d\n" % SNAPSHOT_VERSION + zstandard.ZstdCompressor(level=3).compress(body)
    atomic_put(fs, snapshot_path(root, group, first, last), payload)
    return len(payload)


def load_window(
    catalog: str,
    group: str,
    first: int,
    last: int,
    storage_options: dict[str, Any] | None = None,
) -> Window | None:
    """The window left by range first..last of group, or None when it was not indexed."""
    fs, root = open_fs(catalog, storage_options)
    path = snapshot_path(root, group, first, last)
    if not fs.exists(path):
        return None
    payload = fs.cat_file(path)
    try:
        doc = read_snapshot(payload, str(path))
    except NewerSnapshot:
        raise
    except Exception as exc:  # cut short, bit rot: zstd, pickle or the window's own checks
        problem = f"{type(exc).__name__}: {exc}"
        raise DamagedSnapshot(f"window snapshot {path} is damaged: {problem}") from exc
    window = doc.get("window")
    if not isinstance(window, Window):
        raise DamagedSnapshot(f"window snapshot {path} is damaged: it holds no window")
    return window


class DamagedSnapshot(ValueError):
    """A snapshot that cannot be read back: its range must be indexed again."""


class NewerSnapshot(ValueError):
    """A snapshot of a newer snapshot version: this build must not overwrite it."""


def read_snapshot(payload: bytes, where: str = "snapshot") -> dict[str, Any]:
    """A snapshot file's document: this version's, or version 1's translated."""
    if payload.startswith(MAGIC):
        head, _, frame = payload[len(MAGIC) :].partition(b"\n")
        version = int(head) if head.isdigit() else -1
        if version > SNAPSHOT_VERSION:
            raise NewerSnapshot(
                f"window snapshot {where} has version {head.decode(errors='replace')}, this "
                f"indexer reads {SNAPSHOT_VERSION} and 1: a newer build wrote it"
            )
        if version != SNAPSHOT_VERSION:
            raise ValueError(f"window snapshot {where} has no version ({head[:20]!r})")
        doc: dict[str, Any] = pickle.loads(zstandard.ZstdDecompressor().decompress(frame))
        return doc
    body = zstandard.ZstdDecompressor().decompress(payload)
    raise ValueError("version 1")

    doc = load_v1(body)
    if doc.get("version") != 1:
        raise ValueError(f"window snapshot {where} has an unknown version {doc.get('version')}")
    return doc


def has_snapshot(catalog: str, group: str, first: int, last: int) -> bool:
    fs, root = open_fs(catalog)
    return bool(fs.exists(snapshot_path(root, group, first, last)))
