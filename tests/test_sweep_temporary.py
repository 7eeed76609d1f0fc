"""Temporary files a killed writer left (`atomic_open`'s `.tmp-*`) are swept when a long
process starts: the stale ones only, never a catalog file, never a write under way."""

from __future__ import annotations

import os
import time
from pathlib import Path

from pipelines.corpus.fs import atomic_put, open_fs, sweep_temporary


def test_stale_temporary_files_go_and_nothing_else(tmp_path: Path) -> None:
    fs, root = open_fs(str(tmp_path))
    atomic_put(fs, f"{root}/releases/g/0-9.parquet", b"kept")
    stale = tmp_path / "releases" / "g" / "10-19.parquet.tmp-0123abcd"
    fresh = tmp_path / "releases" / "g" / "20-29.parquet.tmp-4567ef01"
    stale.write_bytes(b"cut short")
    fresh.write_bytes(b"being written")
    old = time.time() - 2 * 3600
    os.utime(stale, (old, old))
    assert sweep_temporary(str(tmp_path)) == [str(stale)]
    assert not stale.exists() and fresh.exists()
    assert (tmp_path / "releases" / "g" / "0-9.parquet").read_bytes() == b"kept"
    assert sweep_temporary(str(tmp_path)) == []
    assert sweep_temporary(str(tmp_path / "absent")) == []
