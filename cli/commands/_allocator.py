"""The Arrow allocator of the indexing commands, chosen before Arrow is loaded."""

from __future__ import annotations

import os
import sys


def use_system_allocator() -> None:
    """Arrow's buffers from the C library's malloc rather than Arrow's mimalloc pool.

    mimalloc keeps the pages of freed buffers for reuse; a range builds its big tables
    once, at its end, so the kept pages only raise the peak: on a 2 M-line range the
    indexing process peaked 60-80 MB lower with the system allocator, at the same speed
    (docs/BENCHMARKS.md). Arrow reads the choice when it loads, hence the environment
    (children such as the benchmark's indexing process inherit it); a user's own
    ARROW_DEFAULT_MEMORY_POOL wins.
    """
    if "pyarrow" not in sys.modules:
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
