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
