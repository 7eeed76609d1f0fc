"""The header pass's kernels compiled before a pass, by processes of their own.

numba compiles a kernel on its first call and keeps the compiled code in its cache
(`kernels._jit`). Compiling every kernel of the pass in one process took ~2 minutes and
its memory grew with each kernel to ~630 MB (LLVM keeps what it compiled), so the first
`replay` after an install or an upgrade peaked far above a warm one (~770 MB against
~400 MB on a 2 M-line corpus). Here the kernels are compiled by short-lived children, each
stopping itself once its memory reaches a cap; the next one loads what its predecessor
cached and goes on, until one gets through the warm-up. The pass then loads every kernel
from the cache. A marker in the cache folder says the warm-up was done for these kernel
sources and this numba, so later passes start at once.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TextIO

import numpy as np

# a child stops itself (exit code AGAIN) once its resident memory reaches this many MB
CHILD_CAP_MB = 400
AGAIN = 75  # EX_TEMPFAIL: stopped at the cap, what it compiled is cached; call again
# children in a row that may stop at the cap (each caches at least one kernel first)
MAX_CHILDREN = 30
TARGET = "pipelines.index.warm:warm_up"


def write_range(root: Path, n_lines: int, seed: int, chunk: int) -> tuple[str, int, int]:
    """A generated range of n_lines (classic shapes) as one complete corpus range."""
    from pipelines.corpus.layout import RangeRef, plan_chunks
    from pipelines.corpus.writer import CorpusWriter
    from pipelines.generate import generate_range_lines

    data, first, last = generate_range_lines(n_lines=n_lines, seed=seed)
    group = "alt.binaries.bench"
    writer = CorpusWriter(str(root))
    ref = RangeRef(group, first, last)
    lines = data.split(b"\r\n")[:-1]
    numbers = np.array([int(line.split(b"\t", 1)[0]) for line in lines], np.int64)
    entries = []
    for a, b in plan_chunks(first, last, chunk):
        lo, hi = np.searchsorted(numbers, [a, b + 1])
        body = b"".join(line + b"\r\n" for line in lines[lo:hi])
        entries.append(writer.write_chunk(ref, a, b, body))
    writer.write_manifest(ref, entries, complete=True)
    return group, first, last


def warm_up() -> None:
    """Compile (or load from the cache) every kernel of the pass, on a tiny range."""
    from pipelines.corpus.reader import CorpusReader
    from pipelines.index.range_indexer import index_range
    from pipelines.index.rules import Rules

    with tempfile.TemporaryDirectory() as tmp:
        group, _, _ = write_range(Path(tmp) / "corpus", 2000, 1, 1000)
        reader = CorpusReader(str(Path(tmp) / "corpus"))
        info = reader.complete_ranges(group)[0]
        index_range(reader, info, str(Path(tmp) / "catalog"), Rules(), [group], None)


def marker() -> Path:
    """The file that says the warm-up went through for these kernels and this numba, at
    this place: numba files a cached kernel under its source file's full path, so a second
    checkout of the same sources (a fresh clone beside the first) starts cold and needs a
    warm-up of its own."""
    import hashlib

    import numba
    from numba.core import config

    import kernels._jit  # sets numba's cache folder

    folder = config.CACHE_DIR  # type: ignore[attr-defined]
    place = hashlib.sha256(str(Path(kernels._jit.__file__).resolve().parent).encode())
    return Path(folder) / f"header-pass-warm-{numba.__version__}-{place.hexdigest()[:12]}"


def compile_apart(
    out: TextIO | None = None, target: str = TARGET, cap_mb: int = CHILD_CAP_MB
) -> bool:
    """Compile the pass's kernels into the cache in children, unless the marker says it
    was done. Returns whether children ran. A warm-up that fails is reported and left to
    the pass, whose own call then compiles in-process (and raises the real error)."""
    done = marker()
    if done.exists():
        return False
    if out is not None:
        out.write(
            "compiling the header pass's kernels (once after an install or upgrade, "
            "2-4 minutes) ...\n"
        )
        out.flush()
    started = time.perf_counter()
    cached = _cached_files(done.parent)
    for n in range(1, MAX_CHILDREN + 1):
        code = _run_child(target, cap_mb)
        if code == 0:
            done.parent.mkdir(parents=True, exist_ok=True)
            done.write_text(f"warmed by {n} process(es) in {time.perf_counter() - started:.0f} s\n")
            if out is not None:
                out.write(
                    f"kernels compiled in {time.perf_counter() - started:.0f} s "
                    f"({n} process{'es' if n > 1 else ''})\n"
                )
            return True
        now = _cached_files(done.parent)
        if code != AGAIN or now == cached:
            break  # failed, or stopped at the cap without caching a kernel more
        cached = now
    if out is not None:
        out.write(f"compiling the kernels apart failed (exit {code}); the pass compiles them\n")
    return True


def _cached_files(folder: Path) -> int:
    try:
        return sum(1 for _ in folder.rglob("*.nbc"))
    except OSError:
        return 0


def _run_child(target: str, cap_mb: int) -> int:
    module, _, name = target.partition(":")
    script = (
        "import sys; from pipelines.index.warm import child; "
        f"sys.exit(child({module!r}, {name!r}, {cap_mb}))"
    )
    # Its own process group: a Ctrl-C reaches only the parent, which ends the child
    # (subprocess.run kills it) instead of the child printing a KeyboardInterrupt.
    return subprocess.run([sys.executable, "-c", script], check=False, process_group=0).returncode


def child(module: str, name: str, cap_mb: int) -> int:
    """A warm-up child's body: run the target under the memory cap."""
    import importlib

    from pipelines.process import set_up_process

    set_up_process()
    _watch(cap_mb)
    getattr(importlib.import_module(module), name)()
    return 0


def _watch(cap_mb: int) -> None:
    """A thread that ends the process (exit AGAIN) once its resident memory reaches the
    cap. numba writes each cache file to a temporary name and renames it, so stopping
    between two compiles or in the middle of one leaves no half-written kernel."""

    def rss_mb() -> float:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

    try:
        rss_mb()
    except OSError:
        return  # no /proc: no cap, the child compiles everything

    def loop() -> None:
        while True:
            if rss_mb() >= cap_mb:
                sys.stdout.flush()
                os._exit(AGAIN)
            time.sleep(0.05)

    threading.Thread(target=loop, daemon=True, name="memory-cap").start()
