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
    payload = zstandard.ZstdCompressor(level=3).compress(body)
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
    doc = pickle.loads(zstandard.ZstdDecompressor().decompress(fs.cat_file(path)))
    if doc.get("version") != SNAPSHOT_VERSION:
        raise ValueError(
            f"window snapshot {path} has version {doc.get('version')}, "
            f"this indexer reads {SNAPSHOT_VERSION}: redo the group"
        )
    window: Window = doc["window"]
    return window


def has_snapshot(catalog: str, group: str, first: int, last: int) -> bool:
    fs, root = open_fs(catalog)
    return bool(fs.exists(snapshot_path(root, group, first, last)))
