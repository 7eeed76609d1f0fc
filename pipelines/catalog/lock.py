"""One writer at a time for a catalog's small state files (an import, the rule set): an
flock on a local catalog; on an object store none (the last writer wins there)."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager

from fsspec import AbstractFileSystem

from pipelines.catalog.partitions import is_local


@contextmanager
def file_lock(fs: AbstractFileSystem, path: str) -> Iterator[None]:
    """Hold the lock file `path` (created if need be) for the block."""
    if not is_local(fs):
        yield
        return
    fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
