"""The one place that sets numba's options for every kernel.

cache=True keeps compiled kernels between runs (the CLI starts many short processes);
error_model="numpy" drops the division-by-zero checks from hot loops; no fastmath,
since the kernels are integer work where it buys nothing.
"""

from __future__ import annotations

from typing import Any

import numba

JIT_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "error_model": "numpy"}


def kernel(fn: Any) -> Any:
    """Compile fn with the project's options (lazily, on first call)."""
    return numba.njit(**JIT_OPTIONS)(fn)
