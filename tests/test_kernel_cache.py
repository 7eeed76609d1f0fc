"""Compiled kernels are cached per version of the kernel sources, not per file."""

from __future__ import annotations

from pathlib import Path

from numba.core import config

import kernels
from kernels._jit import cache_dir, sources_digest


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
