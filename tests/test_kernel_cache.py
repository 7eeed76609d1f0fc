"""Compiled kernels are cached per version of the kernel sources, not per file."""

from __future__ import annotations

import os
import time
from pathlib import Path

from numba.core import config

import kernels
from kernels._jit import cache_dir, prune_stale, sources_digest


def test_a_changed_helper_moves_every_kernel_to_a_new_cache(tmp_path: Path) -> None:
    (tmp_path / "caller.py").write_text("def f(): return helper()\n")
    (tmp_path / "helper.py").write_text("def helper(): return 1\n")
    before = cache_dir(tmp_path, base="/cache")
    assert before == cache_dir(tmp_path, base="/cache")
    (tmp_path / "helper.py").write_text("def helper(): return 2\n")
    after = cache_dir(tmp_path, base="/cache")
    assert after != before and after.startswith("/cache/kernels-")


def test_numba_uses_the_digest_folder() -> None:
    folder = Path(kernels.__file__).parent
    assert str(config.CACHE_DIR).endswith(f"kernels-{sources_digest(folder)}")


def test_folders_of_gone_sources_are_pruned(tmp_path: Path) -> None:
    current = tmp_path / "kernels-aaaa"
    old = tmp_path / "kernels-bbbb"
    recent = tmp_path / "kernels-cccc"
    other = tmp_path / "something-else"
    for folder in (current, old, recent, other):
        (folder / "sub").mkdir(parents=True)
        (folder / "sub" / "f.nbi").write_bytes(b"x")
    month_ago = time.time() - 30 * 86400
    for folder in (current, old, other):
        os.utime(folder, (month_ago, month_ago))
    assert prune_stale(str(current)) == [str(old)]
    assert current.exists() and recent.exists() and other.exists() and not old.exists()
