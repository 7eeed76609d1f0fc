"""Reading a cold memory-mapped index: MADV_RANDOM mappings, pages asked for ahead,
resident arrays (`serving.index.pages`), checked with mincore on evicted files."""

from __future__ import annotations

import ctypes
import os
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from serving.index import pages

linux = pytest.mark.skipif(
    not sys.platform.startswith("linux") or pages._LIBC is None, reason="madvise and mincore"
)
PAGES = 1024  # a 4 MB file: more than any read-ahead window a page fault would read
HEAD = 32  # np.load reads the header with read(): the first pages may come with it


def _resident(address: int, size: int) -> np.ndarray:
    """Which pages of the mapping [address, address + size) are in the page cache, from
    the page `address` is in."""
    libc = pages._LIBC
    assert libc is not None
    start = address & ~(pages.PAGE - 1)
    count = (address + size - start + pages.PAGE - 1) // pages.PAGE
    vec = (ctypes.c_ubyte * count)()
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    assert libc.mincore(ctypes.c_void_p(start), ctypes.c_size_t(address + size - start), vec) == 0
    return np.frombuffer(vec, np.uint8) & 1 == 1


def _evicted(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def _cold_npy(tmp_path: Path, name: str = "a.npy") -> Path:
    path = tmp_path / name
    np.save(path, np.arange(PAGES * pages.PAGE // 8, dtype=np.int64))
    _evicted(path)
    array = np.load(path, mmap_mode="r")
    if _resident(array.ctypes.data, array.nbytes)[HEAD:].any():
        pytest.skip("this filesystem keeps evicted pages (tmpfs?)")
    del array
    return path


def _wait_resident(address: int, size: int, wanted: np.ndarray) -> np.ndarray:
    """Asked-for pages arrive in the background: wait (up to 5 s) for them."""
    deadline = time.monotonic() + 5
    while True:
        found = _resident(address, size)
        if found[wanted].all() or time.monotonic() > deadline:
            return found
        time.sleep(0.01)


@linux
def test_a_random_mapping_reads_only_the_page_touched(tmp_path):
    array = pages.map_npy(str(_cold_npy(tmp_path)), random=True)
    assert int(array[len(array) // 2]) == len(array) // 2
    found = _resident(array.ctypes.data, array.nbytes)[HEAD:]
    # Without MADV_RANDOM the fault reads the device's window around it (128 kB-8 MB).
    assert 1 <= found.sum() <= 4


@linux
def test_a_resident_mapping_is_read_at_once(tmp_path):
    array = pages.map_npy(str(_cold_npy(tmp_path)))
    assert _resident(array.ctypes.data, array.nbytes).all()
    assert int(array[-1]) == len(array) - 1


@linux
def test_asked_pages_and_spans_arrive_and_nothing_else(tmp_path):
    array = pages.map_npy(str(_cold_npy(tmp_path)), random=True)
    base = array.ctypes.data
    per_page = pages.PAGE // 8
    asked = pages.Asked(base, array.nbytes)
    asked.ask(np.array([base + 3 * pages.PAGE + 17, base + 700 * pages.PAGE, base + 3]))
    asked.ask_span(base + 100 * pages.PAGE, base + 140 * pages.PAGE + 40)
    span = array[100 * per_page : 140 * per_page + 5]
    wanted = np.zeros(len(_resident(base, array.nbytes)), dtype=bool)
    wanted[[0, 3, 700]] = True
    wanted[100:141] = True
    found = _wait_resident(base, array.nbytes, wanted)
    assert found[wanted].all()
    assert found[HEAD:].sum() <= wanted[HEAD:].sum() + 8  # no read-ahead window around asks
    assert int(span[0]) == 100 * per_page and len(span) == 40 * per_page + 5


@linux
def test_asked_strings_and_a_downloads_values_arrive(tmp_path):
    rng = np.random.default_rng(5)
    n = 20_000
    names = [None if i % 97 == 0 else "x" * int(rng.integers(0, 300)) for i in range(n)]
    keys = pa.array([i.to_bytes(20, "big") for i in range(n)], pa.binary(20))
    first = pa.array(np.arange(n, dtype=np.int64))
    table = pa.table({"name": pa.array(names, pa.string()), "first": first, "key": keys})
    path = tmp_path / "rows.arrow"
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=n)
    _evicted(path)
    mapped = pages.map_ipc(str(path), random=True)
    batch = mapped.to_batches()[0]
    names_col = batch.column(0).slice(10)  # an offset into the buffers, as take sees them
    pages.populate_offsets(names_col)
    offsets = names_col.buffers()[1]
    assert _resident(offsets.address, offsets.size).all()
    data = names_col.buffers()[2]
    assert _resident(data.address, data.size).sum() <= 2  # mapping read no rows
    rows = np.array([5, 4000, 12_345, 19_000], dtype=np.int64)
    pages.ask_strings(names_col, rows, pages.asked_of(names_col))
    bounds = np.frombuffer(offsets, np.int32).astype(np.int64)
    wanted = np.zeros((data.size + pages.PAGE - 1) // pages.PAGE + 1, dtype=bool)
    for r in rows + 10:
        if bounds[r + 1] > bounds[r]:
            first = (data.address + bounds[r]) // pages.PAGE - data.address // pages.PAGE
            last = (data.address + bounds[r + 1] - 1) // pages.PAGE - data.address // pages.PAGE
            wanted[first : last + 1] = True
    found = _wait_resident(
        data.address, data.size, wanted[: len(_resident(data.address, data.size))]
    )
    assert found[wanted[: len(found)]].all()
    assert found.sum() <= wanted.sum() + 4
    # One row of several columns (the name's offsets resident, above): its values' pages.
    row = 7_777
    pages.ask_value(batch.columns, row)
    first_col = batch.column(1).buffers()[1]
    assert _wait_resident(first_col.address + row * 8, 8, np.array([True]))[0]
    start = data.address + int(bounds[row])
    assert _wait_resident(start, int(bounds[row + 1] - bounds[row]), np.array([True]))[0]
    assert batch.column(0)[row].as_py() == names[row]
    assert batch.column(2)[row].as_py() == row.to_bytes(20, "big")
    assert mapped.equals(table)


def test_asks_change_no_values():
    """Where the buffers are not mapped files (plain memory) the asks are harmless."""
    array = pa.array(["a", None, "", "bcd" * 2000, "e"]).slice(1)
    pages.ask_strings(array, np.array([0, 1, 2, 3]), pages.asked_of(array))
    pages.ask_value([array, pa.array([1, 2, 3, 4]), pa.array([[1], [2], None, []])], 2)
    pages.Asked(0, 0).ask(np.array([], dtype=np.int64))
    empty = pa.array(["", "", ""])  # no characters at all
    pages.ask_strings(empty, np.array([0, 2]), pages.asked_of(empty))
    assert array.to_pylist() == [None, "", "bcd" * 2000, "e"]


class _CountingLibc:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int, int]] = []

    def madvise(self, address, size, advice) -> int:
        self.calls.append((address.value, size.value, advice))
        return 0


def test_pages_are_asked_for_once(monkeypatch):
    """A page asked for is mapped from then on: asking again would be a syscall for
    nothing, ~1 ms of a warm search's ~3."""
    libc = _CountingLibc()
    monkeypatch.setattr(pages, "_LIBC", libc)
    base = 1 << 30
    asked = pages.Asked(base + 100, 64 * pages.PAGE)
    asked.ask(np.array([base + 100, base + 5 * pages.PAGE + 1, base + 5 * pages.PAGE + 9]))
    assert [(a - base) // pages.PAGE for a, _, _ in libc.calls] == [0, 5]
    assert all(
        size == pages.PAGE and advice == pages.MADV_WILLNEED for _, size, advice in libc.calls
    )
    libc.calls.clear()
    asked.ask(np.array([base + 5 * pages.PAGE, base + 7 * pages.PAGE]))
    assert [(a - base) // pages.PAGE for a, _, _ in libc.calls] == [7]
    libc.calls.clear()
    asked.ask_span(base + 10 * pages.PAGE + 8, base + 20 * pages.PAGE)  # pages 10-19
    assert libc.calls == [(base + 10 * pages.PAGE, 10 * pages.PAGE, pages.MADV_WILLNEED)]
    asked.ask_span(base + 12 * pages.PAGE, base + 15 * pages.PAGE)
    asked.ask_span(base + 30 * pages.PAGE, base + 30 * pages.PAGE + 50)  # one page: touched
    assert len(libc.calls) == 1
    asked.ask(np.array([base + 19 * pages.PAGE + 4000]))
    assert len(libc.calls) == 1
