"""Compiled kernels are cached per version of the kernel sources, not per file."""

from __future__ import annotations

import os
import time
from pathlib import Path

from numba.core import config

import kernels
from kernels._jit import cache_dir, kernel_sources, prune_stale, sources_digest
from tests.imports import absolute_imports


def test_a_changed_helper_moves_every_kernel_to_a_new_cache(tmp_path: Path) -> None:
    (tmp_path / "caller.py").write_text("def f(): return helper()\n")
    (tmp_path / "helper.py").write_text("def helper(): return 1\n")
    before = cache_dir(tmp_path, base="/cache")
    assert before == cache_dir(tmp_path, base="/cache")
    (tmp_path / "helper.py").write_text("def helper(): return 2\n")
    after = cache_dir(tmp_path, base="/cache")
    assert after != before and after.startswith("/cache/kernels-")


def test_an_edit_outside_the_kernel_modules_keeps_the_cache(tmp_path: Path) -> None:
    folder = tmp_path / "kernels"
    (folder / "sub").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (folder / "caller.py").write_text("def f(): return helper()\n")
    (folder / "helper.py").write_text("def helper(): return 1\n")
    outside = [folder / "sub" / "x.py", folder / "notes.txt", tmp_path / "tests" / "test_x.py"]
    for path in outside:
        path.write_text("1\n")
    before = sources_digest(folder)
    for path in outside:
        path.write_text("2\n")
    (folder / "sub" / "new.py").write_text("3\n")
    assert sources_digest(folder) == before
    (folder / "helper.py").write_text("def helper(): return 2\n")
    assert sources_digest(folder) != before


def test_kernels_holds_only_the_modules_the_digest_covers() -> None:
    """A .py in a subfolder of kernels/ would be left out of the digest: none may exist."""
    folder = Path(kernels.__file__).parent
    assert sorted(folder.rglob("*.py")) == kernel_sources(folder)


def test_kernels_import_nothing_of_ours_outside_kernels() -> None:
    """What a kernel compiles is all in kernels/, so the digest of kernels/ covers it."""
    folder = Path(kernels.__file__).parent
    ours = {p.parent.name for p in folder.parent.glob("*/__init__.py")} - {"kernels"}
    assert {"pipelines", "tests"} <= ours
    for path in kernel_sources(folder):
        for name in absolute_imports(path):
            assert name.split(".")[0] not in ours, f"{path.name} imports {name}"


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
