"""The one place that sets numba's options for every kernel: `kernel`, and `leaf_kernel`
for the kernels that allocate nothing (no reference counting).

cache=True keeps compiled kernels between runs (the CLI starts many short processes);
error_model="numpy" drops the division-by-zero checks from hot loops; no fastmath,
since the kernels are integer work where it buys nothing.

numba checks a cached kernel against its own source file only, while a kernel inlines
helpers from other files (subject.py calls names.py and bytes.py): after an upgrade
that changed only a helper, the cached caller would run the old helper (stale keys,
silently). So the cache lives in a folder named by a digest of the kernel modules:
any change to any of them starts a new folder. Folders of other digests not written for
two weeks are removed at start (at worst another installed build compiles again once).

The digest covers the modules directly in kernels/ and nothing else. That is all a
kernel compiles from: the kernels import nothing of ours outside kernels/, and kernels/
holds only kernel modules (their plain-Python references live in pipelines/subjects/ and
tests/reference/, the benches in bench/); tests/test_kernel_cache.py checks both. So an
edit to a test, a bench, a reference or any other code keeps the compiled kernels.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numba
from numba.core import config

JIT_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "error_model": "numpy"}


def kernel_sources(folder: Path) -> list[Path]:
    """The kernel modules: every .py directly in folder (not in its subfolders)."""
    return sorted(folder.glob("*.py"))


def sources_digest(folder: Path) -> str:
    """A digest of the kernel modules (their names and bytes)."""
    h = hashlib.sha256()
    for path in kernel_sources(folder):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def cache_dir(folder: Path, base: str | None = None) -> str:
    """Where compiled kernels of these sources are kept: under NUMBA_CACHE_DIR when set,
    else the user's cache folder, in a subfolder per sources digest."""
    root = (
        base
        or os.environ.get("NUMBA_CACHE_DIR")
        or str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "usenet-indexer")
    )
    return str(Path(root) / f"kernels-{sources_digest(folder)}")


# a folder of other kernel sources not written to for this long belongs to a build
# that is gone (a running older build keeps its compiled kernels in memory)
STALE_DAYS = 14


def prune_stale(current: str, days: float = STALE_DAYS) -> list[str]:
    """Remove the sibling `kernels-<digest>` folders of `current` untouched for `days`:
    every upgrade leaves one behind. Returns what was removed."""
    here = Path(current)
    cutoff = time.time() - days * 86400
    removed: list[str] = []
    try:
        siblings = list(here.parent.glob("kernels-*"))
    except OSError:
        return removed
    for folder in siblings:
        try:
            stale = folder != here and folder.is_dir() and folder.stat().st_mtime < cutoff
        except OSError:
            continue
        if stale:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(str(folder))
    return removed


# set before any kernel module decorates its functions: numba picks the folder then
config.CACHE_DIR = cache_dir(Path(__file__).parent)  # type: ignore[attr-defined]
prune_stale(config.CACHE_DIR)  # type: ignore[attr-defined]


def kernel(fn: Any) -> Any:
    """Compile fn with the project's options (lazily, on first call)."""
    return numba.njit(**JIT_OPTIONS)(fn)


_LEAF_OPTIONS: dict[str, Any] = {**JIT_OPTIONS, "_nrt": False}


def leaf_kernel(fn: Any) -> Any:
    """Compile fn like `kernel`, without numba's reference counting (NRT).

    With NRT on, every call of a jitted helper that takes an array costs an atomic
    incref/decref pair (~15-30 ns here), which dominated the per-byte parsers. These
    kernels allocate nothing: their Python wrappers allocate the outputs and pass them in.
    A leaf kernel calling another (the byte primitives of kernels.bytes) gets it inlined.
    """
    return numba.njit(**_LEAF_OPTIONS)(fn)
