"""The process's set-up for the header pass, one function that every entry point calls.

`set_up_process()` is called by the commands that index (`replay`, `bench`) before they
import Arrow, by `index_range` (so Dagster's run processes and every other caller get it)
and by the benchmark's floor processes. It does two things, once a process.

Arrow's buffers come from the C library's malloc rather than Arrow's mimalloc pool.
mimalloc keeps the pages of freed buffers for reuse; a range builds its big tables once,
at its end, so the kept pages only raise the peak: on a 2 M-line range the indexing
process peaked 60-80 MB lower with the system allocator, at the same speed
(docs/BENCHMARKS.md). Arrow reads the choice when it loads, hence the environment when
Arrow is not loaded yet (children such as the benchmark's indexing process inherit it);
a user's own ARROW_DEFAULT_MEMORY_POOL wins there. Where glibc's thresholds apply (below),
Arrow's default pool is set to the system one as well. (The garbage collector is not set
here: `index_range` makes it run less often while a range is indexed, and only then.)

Freed chunk buffers are reused. Every chunk allocates and frees buffers of its own size:
the inflated text (~20 MB), the line index (~9 MB) and dozens of per-line arrays (~0.5 MB
each). glibc's defaults serve a block above its mmap threshold (128 kB, rising with freed
blocks to at most 32 MB) with a fresh mapping, and give a heap's free top above its trim
threshold back to the kernel, so each next chunk faulted its pages in again, zeroed by the
kernel. Measured on the bench's
2 M-line range: inflating its 30 chunks took 136 k page faults and 1.0 CPU-s, 6 k and
0.68 CPU-s with these settings; the whole pass went from 170 k faults to 36 k (the heap
growing to its peak once), and its peak RSS stayed at 461 MB, since what is kept is what
the next chunk takes again.

Arrow's buffers (the tables and the Parquet writer's pages) come from glibc too, so they
share that kept heap: Arrow's default mimalloc hands freed pages back to the kernel after
a few milliseconds, and the range's tables and Parquet took ~0.3 CPU-s more with it
(three alternating pairs of the bench range's stage times: 0.61-0.85 against 1.07-1.09),
for 13 MB more peak RSS (474 MB).

What is kept is not what sets the peak. Once only one chunk was alive at a time and
release_files went to its file as it was encoded (the pass peaked at 463-478 MB before),
the bench range's peak barely moved with these thresholds (VmHWM of `index_range` after
the warm-up, two runs each, faults in brackets): as set here 417-427 MB (26-38 k), a trim
threshold of 256, 128 or 64 MB 415-428 (27-38 k), 32 MB 402-418 (119-123 k), an mmap
threshold of 32 MB 413-414 (110 k) or 16 MB 406-408 (192-200 k), glibc's defaults 414
(111 k). The peak is live data: ~145 MB of imports, ~85 MB of compiled kernels loaded,
the range's segment store (~77 MB: its message-ids are ~62 MB), one chunk and its parse.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform
import sys

# mallopt's parameters (malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
# blocks up to this size come from the heap (glibc's own threshold rises to 32 MB at most)
MMAP_THRESHOLD = 256 << 20
# the heap keeps up to this much free memory at its top instead of returning it
TRIM_THRESHOLD = 1 << 30

_applied: bool | None = None


def set_up_process() -> bool:
    """Set Arrow's allocator and glibc's thresholds (once a process); True where glibc's
    apply, False where the C library is not glibc."""
    global _applied
    if "pyarrow" not in sys.modules:
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    if _applied is None:
        _applied = _set_thresholds()
        if _applied:
            import pyarrow as pa

            pa.set_memory_pool(pa.system_memory_pool())
    return _applied


def _set_thresholds() -> bool:
    if platform.libc_ver()[0] != "glibc":
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    mallopt = getattr(ctypes.CDLL(name), "mallopt", None)
    if mallopt is None:
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # mallopt returns 1 on success, 0 on a value it refuses
    return bool(
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
