"""fsspec access shared by the corpus writer and reader: URLs to file systems, atomic puts."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import fsspec
from fsspec import AbstractFileSystem


def open_fs(
    url: str, storage_options: dict[str, Any] | None = None
) -> tuple[AbstractFileSystem, str]:
    """A file system and the path inside it for a local path or any fsspec URL."""
    fs, path = fsspec.core.url_to_fs(url, **(storage_options or {}))
    return fs, path.rstrip("/") or "/"


def atomic_put(fs: AbstractFileSystem, path: str, payload: bytes | memoryview) -> None:
    """Write payload under a temporary name beside path, then rename it into place."""
    with atomic_open(fs, path) as fh:
        fh.write(payload)


@contextmanager
def atomic_open(fs: AbstractFileSystem, path: str) -> Iterator[Any]:
    """A file to write under a temporary name beside path, renamed into place once the
    block ends without an error; removed if it raises (or the rename fails).

    Readers see either the old file or the whole new one, never a part of it; a crash
    leaves at most a stray `.tmp-*` file, which readers ignore.
    """
    parent = path.rsplit("/", 1)[0]
    fs.makedirs(parent, exist_ok=True)
    tmp = f"{path}.tmp-{uuid.uuid4().hex}"
    try:
        with fs.open(tmp, "wb") as fh:
            yield fh
        fs.mv(tmp, path)
    except BaseException:
        if fs.exists(tmp):
            fs.rm(tmp)
        raise


def is_temporary(name: str) -> bool:
    return ".tmp-" in name


STALE_AFTER = 3600.0  # seconds: no write holds its temporary file open this long


def sweep_temporary(url: str, older_than: float = STALE_AFTER) -> list[str]:
    """Remove the temporary files (`atomic_open`'s `.tmp-*`) under `url` that a killed
    writer left: those untouched for `older_than` seconds (a write under way now, in
    another process, keeps its file fresh). Readers skip them anyway; this keeps them
    from piling up over restarts. Run once as a long process starts, not every cycle: it
    walks the tree. The paths removed."""
    import time

    fs, root = open_fs(url)
    if not fs.exists(root):
        return []
    cutoff = time.time() - older_than
    gone = []
    for path, info in fs.find(root, detail=True).items():
        if not is_temporary(path.rsplit("/", 1)[-1]):
            continue
        mtime = info.get("mtime") or info.get("LastModified") or info.get("updated")
        stamp = mtime.timestamp() if hasattr(mtime, "timestamp") else mtime
        if stamp is not None and float(stamp) < cutoff:
            try:
                fs.rm(path)
            except FileNotFoundError:
                continue  # another process swept it first
            gone.append(path)
    return gone
