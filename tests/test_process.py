"""pipelines.process: a freed chunk-sized buffer is reused, not faulted in again; Arrow's pool."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

# A 48 MB buffer (above glibc's largest default mmap threshold, 32 MB) is allocated, written,
# freed and allocated again; the page faults of writing the second one are counted.
_CHILD = """
import resource, sys
import numpy as np
from pipelines.process import set_up_process
if sys.argv[1] == "keep":
    assert set_up_process()
size = 48 << 20
def faults_of_a_filled_buffer():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    buf = np.empty(size, np.uint8)
    buf.fill(1)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    del buf
    return after - before
faults_of_a_filled_buffer()
print(faults_of_a_filled_buffer())
"""


def _second_faults(mode: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, mode], capture_output=True, text=True, check=True
    )
    return int(out.stdout.split()[-1])


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt only")
def test_a_freed_buffer_is_reused_without_page_faults() -> None:
    # glibc's default: the block is a fresh mapping each time, every page faulted in (at
    # least one fault a 2 MB huge page where the kernel gives those)
    assert _second_faults("default") >= (48 << 20) // (2 << 20)
    # kept: the second buffer takes the first one's pages, already there
    assert _second_faults("keep") <= 4


def test_setting_twice_is_harmless() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import pyarrow as pa; from pipelines.process import set_up_process as k;"
            "print(k(), k(), pa.default_memory_pool().backend_name)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    first, second, pool = out.stdout.split()
    assert first == second
    # where glibc's settings apply, Arrow's buffers share its kept heap
    assert pool == ("system" if first == "True" else pool)


def _pool_for_children(env: dict[str, str]) -> str:
    code = (
        "import os; from pipelines.process import set_up_process; set_up_process();"
        "print(os.environ.get('ARROW_DEFAULT_MEMORY_POOL'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return out.stdout.strip()


def test_arrow_allocates_from_the_c_library_in_children_too() -> None:
    import os

    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    # set before Arrow is loaded, in the environment the process's children inherit
    assert _pool_for_children(env) == "system"
    # a user's own choice wins
    assert _pool_for_children({**env, "ARROW_DEFAULT_MEMORY_POOL": "jemalloc"}) == "jemalloc"
