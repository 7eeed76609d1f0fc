"""Reading a memory-mapped index whose pages may be cold (on disk, not in the page cache).

A fault on a cold page of a file mapping reads the device's read-ahead window around
it: 8 MB on this VM's disk (`read_ahead_kb` 8192), ~25 ms, for the one value a lookup
wanted. Files read at random (rows, items, postings, bitsets) are therefore mapped with
MADV_RANDOM: a cold page is then one 4 kB read (~0.4 ms). What a request is about to
read is asked for first, in one go (MADV_WILLNEED per page or span): the reads are then
in flight together and the request waits about one disk read, not one per page. On
pages already in the page cache the asks cost a syscall each (~1 us), nothing more.

Small arrays that every search reads at scattered places (posting dates, keys, the
per-release filters: tens of bytes a release) are instead made resident when a segment
is mapped (MADV_POPULATE_READ: read in one sequential pass and mapped into the process),
so no search waits on them. The page cache may drop pages that no process maps at any
time (this VM's DAMON pages out unmapped file pages idle for a minute), so everything
else is designed to be read cold.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import sys

import numpy as np
import pyarrow as pa

MADV_RANDOM, MADV_WILLNEED, MADV_POPULATE_READ = 1, 3, 22
PAGE = mmap.PAGESIZE
_SHIFT = PAGE.bit_length() - 1


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    except OSError:
        return None
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return libc


_LIBC = _libc()


def advise(address: int, size: int, advice: int) -> None:
    """madvise over [address, address + size), widened to whole pages; nothing where
    madvise is missing (it only changes how fast pages come, never what they hold)."""
    if _LIBC is None or size <= 0:
        return
    start = address & ~(PAGE - 1)
    _LIBC.madvise(ctypes.c_void_p(start), ctypes.c_size_t(address + size - start), advice)


def will_need(buffers: list[pa.Buffer | None]) -> None:
    """Ask the kernel to read these memory-mapped buffers' pages ahead, in the background
    (page cache, shared by the processes mapping the file)."""
    for buf in buffers:
        if buf is not None and buf.size:
            advise(buf.address, buf.size, MADV_WILLNEED)


class Asked:
    """Which pages of one mapped region this process has asked for already.

    A page asked for is read through the mapping right after, so it stays mapped in this
    process, and pages a process maps are not dropped here (DAMON pages out only unmapped
    file pages; memory pressure could, and then a page is one 4 kB fault). Asking again
    would cost a syscall a page for nothing: ~1 ms of a search's ~3 ms when warm. (A
    span asked for but only partly read, a posting list binary-searched, may lose its
    unread pages later: each is then one 4 kB fault, never the read-ahead window.)
    """

    def __init__(self, address: int, size: int) -> None:
        self.first = address >> _SHIFT
        self.asked = np.zeros(max(1, ((address + size - 1) >> _SHIFT) - self.first + 1), bool)

    def ask(self, addresses: np.ndarray) -> None:
        """The pages holding these addresses (one madvise each: a page of results touches
        ~100 scattered ones, rarely two adjacent)."""
        if _LIBC is None or not len(addresses):
            return
        pages = (np.asarray(addresses, dtype=np.int64) >> _SHIFT) - self.first
        new = pages[~self.asked[pages]]
        if not len(new):
            return
        new = np.unique(new)
        self.asked[new] = True
        madvise, size = _LIBC.madvise, ctypes.c_size_t(PAGE)
        for page in (new + self.first).tolist():
            madvise(ctypes.c_void_p(page << _SHIFT), size, MADV_WILLNEED)

    def ask_span(self, start: int, end: int) -> None:
        """The pages of [start, end) (a posting list, a bitset, read whole next) in one
        madvise: one read of just those pages instead of a fault per page."""
        first, last = (start >> _SHIFT) - self.first, ((end - 1) >> _SHIFT) - self.first
        if last <= first or self.asked[first : last + 1].all():
            return  # one page: the touch reads it anyway
        self.asked[first : last + 1] = True
        advise(start, end - start, MADV_WILLNEED)


def ask_strings(array: pa.Array, rows: np.ndarray, asked: Asked) -> None:
    """Ask for the characters of these rows of a memory-mapped string array whose offsets
    are resident (`populate_offsets`): one round of reads for a page of feed items.
    `asked` covers the array's character buffer."""
    buffers = array.buffers()
    if _LIBC is None or not len(rows) or buffers[1] is None or buffers[2] is None:
        return
    offsets = np.frombuffer(buffers[1], np.int32)
    at = np.asarray(rows, dtype=np.int64) + array.offset
    # Values of a few kB at most: their first and last pages cover them (an empty
    # value's "last" byte is its neighbour's: one page asked for in vain at most).
    ends = np.concatenate((offsets[at], offsets[at + 1] - 1)).astype(np.int64)
    asked.ask(buffers[2].address + np.maximum(ends, 0))


def asked_of(array: pa.Array) -> Asked:
    """An `Asked` over a string array's characters."""
    data = array.buffers()[2]
    return Asked(0, 0) if data is None else Asked(data.address, data.size)


def populate_offsets(array: pa.Array) -> None:
    """Make a memory-mapped string array's offsets resident (4 bytes a row)."""
    offsets = array.buffers()[1]
    if offsets is not None:
        populate(offsets.address + array.offset * 4, (len(array) + 1) * 4)


def populate_head(array: pa.Array, rows: int, asked: Asked) -> None:
    """Make the characters of a memory-mapped string array's first `rows` values resident
    (its offsets resident already), and note their pages as asked for."""
    buffers = array.buffers()
    rows = min(rows, len(array))
    if rows <= 0 or buffers[1] is None or buffers[2] is None:
        return
    offsets = np.frombuffer(buffers[1], np.int32)
    start, end = int(offsets[array.offset]), int(offsets[array.offset + rows])
    if end > start:
        populate(buffers[2].address + start, end - start)
        first = ((buffers[2].address + start) >> _SHIFT) - asked.first
        last = ((buffers[2].address + end - 1) >> _SHIFT) - asked.first
        asked.asked[max(first, 0) : last + 1] = True


def ask_value(arrays: list[pa.Array], row: int) -> None:
    """Ask for the pages one row of several memory-mapped arrays lies in, together (a
    download reads one row of four columns). Strings' offsets should be resident
    (`populate_offsets`): they are read here to find the characters."""
    if _LIBC is None:
        return
    wanted: list[int] = []
    for array in arrays:
        buffers = array.buffers()
        at = array.offset + row
        if len(buffers) == 3 and buffers[1] is not None and buffers[2] is not None:
            if not (pa.types.is_string(array.type) or pa.types.is_binary(array.type)):
                continue
            start, end = (int(v) for v in np.frombuffer(buffers[1], np.int32, 2, at * 4))
            if end > start:
                wanted += [buffers[2].address + start, buffers[2].address + end - 1]
        elif len(buffers) == 2 and buffers[1] is not None and not pa.types.is_boolean(array.type):
            try:
                wanted.append(buffers[1].address + at * (array.type.bit_width // 8))
            except ValueError:
                continue
    _ask_each(wanted)


def _ask_each(addresses: list[int]) -> None:
    assert _LIBC is not None
    for page in sorted({a >> _SHIFT for a in addresses}):
        _LIBC.madvise(ctypes.c_void_p(page << _SHIFT), ctypes.c_size_t(PAGE), MADV_WILLNEED)


def map_ipc(path: str, random: bool = False) -> pa.Table:
    """An Arrow IPC file, memory-mapped: read a row at a time (`random`: MADV_RANDOM and
    `ask_rows`) or made resident now (`populate`).

    Mapped here, not with `pa.memory_map`: Arrow's mapped reads ask the kernel for every
    buffer they return (MADV_WILLNEED), so opening a segment read its whole rows and
    items files (~1.1 GB per 2 M releases) into the page cache, for nothing: unmapped
    pages are dropped again within minutes."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if not size:
            return pa.ipc.open_file(pa.BufferReader(b"")).read_all()  # raises: not IPC
        mapped = mmap.mmap(fh.fileno(), size, access=mmap.ACCESS_READ)
    buffer = pa.py_buffer(mapped)  # the table's buffers keep the mapping alive
    if random:
        advise(buffer.address, size, MADV_RANDOM)
    else:
        populate(buffer.address, size)
    return pa.ipc.open_file(pa.BufferReader(buffer)).read_all()


def map_npy(path: str, random: bool = False) -> np.ndarray:
    """A `.npy` array, memory-mapped: read a span at a time (`random`: MADV_RANDOM and
    `will_read`) or made resident now (`populate`)."""
    mapped = np.load(path, mmap_mode="r")
    if mapped.nbytes:
        if random:
            advise(mapped.ctypes.data, mapped.nbytes, MADV_RANDOM)
        else:
            populate(mapped.ctypes.data, mapped.nbytes)
    # A plain ndarray view (it keeps the mapping alive): np.memmap's slicing costs ~5 us
    # a slice in Python, and a search slices a few hundred times.
    return np.asarray(mapped)


def populate(address: int, size: int) -> None:
    """Read these pages now and map them into this process (one sequential read; mapped
    pages stay resident). Kernels before 5.14 lack MADV_POPULATE_READ: read ahead then."""
    if _LIBC is None or size <= 0:
        return
    start = address & ~(PAGE - 1)
    length = ctypes.c_size_t(address + size - start)
    if _LIBC.madvise(ctypes.c_void_p(start), length, MADV_POPULATE_READ) != 0:
        _LIBC.madvise(ctypes.c_void_p(start), length, MADV_WILLNEED)
