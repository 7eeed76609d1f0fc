"""Gathering byte spans out of a chunk into one contiguous buffer (Arrow's binary layout)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from kernels._jit import leaf_kernel
from kernels.bytes import AHEAD, U, copy_words, prefetch, prefetch_ahead


@leaf_kernel
def _offsets(start, end, offsets):
    offsets[0] = 0
    total = 0
    for i in range(start.shape[0]):
        total += max(end[i] - start[i], 0)
        offsets[i + 1] = total


@leaf_kernel
def _copy_spans(buf, start, end, offsets, data):
    n = start.shape[0]
    for i in range(n):
        prefetch_ahead(buf, start, end, i)
        # may write up to 7 bytes past this span: the next spans' copies, which come
        # after, overwrite them
        copy_words(buf, start[i], end[i], data, offsets[i])


def gather(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The spans buf[start[i]:end[i]] one after another, and their n+1 offsets."""
    if len(start) != len(end):
        raise ValueError("start and end differ in length")
    start, end = np.asarray(start, np.int64), np.asarray(end, np.int64)
    _check_bounds(buf, start, end)
    # the outputs come from numpy's allocator, which reuses (and for big arrays asks for
    # huge pages) where numba's fresh allocations faulted in every page of each chunk's copy
    offsets = np.empty(len(start) + 1, np.int64)
    _offsets(start, end, offsets)
    data = np.empty(int(offsets[-1]), np.uint8)
    _copy_spans(buf, start, end, offsets, data)
    return data, offsets


def gather_bytes(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> list[bytes]:
    """The spans buf[start[i]:end[i]] as bytes each: gathered into one bytes object and
    sliced, a third of the cost of a bytes made from a memoryview slice each."""
    data, offsets = gather(buf, start, end)
    joined = data.tobytes()
    return [joined[a:z] for a, z in itertools.pairwise(offsets.tolist())]


# ends each text in gather_texts' buffer: a field of an overview line never holds one
# (the scanner cuts lines there), a decoded subject rarely does
TEXT_END = 10  # line feed


@leaf_kernel
def _copy_texts(buf, start, end, out, o):
    """Copy each span, then TEXT_END, into out from o; a span starting below 0 (no name)
    copies nothing. Returns where the copy ends."""
    n = start.shape[0]
    for i in range(n):
        if i + AHEAD < n:
            prefetch(buf, max(start[i + AHEAD], 0))
            prefetch(buf, max(end[i + AHEAD] - 1, 0))
        if start[i] >= 0:
            # up to 7 bytes past the span: TEXT_END and the next copy overwrite them
            o = copy_words(buf, start[i], end[i], out, o)
        out[U(o)] = TEXT_END
        o += 1
    return o


@leaf_kernel
def _texts_room(start, end, size):
    """The bytes the spans hold (a span ending before it starts: none); -1 when a span
    that starts at 0 or later lies outside a buffer of size bytes."""
    room = 0
    for i in range(start.shape[0]):
        a = start[i]
        if a >= 0:
            if max(a, end[i]) > size:
                return -1
            room += max(end[i] - a, 0)
    return room


def gather_texts(columns: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> list[list[bytes]]:
    """Each column's spans (buf, start, end) as bytes each, b"" where start is below 0.

    Every text goes to one buffer with a line feed after it, which is made one bytes
    object and split once: a bytes a text costs ~40 ns so, against ~150 ns sliced out at
    its offsets (gather_bytes). Where a text holds a line feed itself (a decoded subject
    may), the split gives more pieces than texts, and the columns are sliced at their
    offsets instead.
    """
    checked = []
    room = 0
    for buf, start, end in columns:
        start, end = np.asarray(start, np.int64), np.asarray(end, np.int64)
        if len(start) != len(end):
            raise ValueError("start and end differ in length")
        size = _texts_room(start, end, len(buf))
        if size < 0:
            raise ValueError("a span lies outside the buffer")
        room += size
        checked.append((buf, start, end))
    n_texts = sum(len(start) for _, start, _ in checked)
    if n_texts == 0:
        return [[] for _ in checked]
    out = np.empty(room + n_texts, np.uint8)
    o = 0
    for buf, start, end in checked:
        o = _copy_texts(buf, start, end, out, o)
    texts = out[:o].tobytes().split(b"\n")
    if len(texts) != n_texts + 1:  # the last is what follows the last line feed: b""
        return [_sliced(buf, start, end) for buf, start, end in checked]
    lists = []
    k = 0
    for _, start, _ in checked:
        lists.append(texts[k : k + len(start)])
        k += len(start)
    return lists


def _sliced(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> list[bytes]:
    present = start >= 0
    return gather_bytes(buf, np.where(present, start, 0), np.where(present, end, 0))


@leaf_kernel
def _strip(buf, s, e):
    n = s.shape[0]
    for i in range(n):
        prefetch_ahead(buf, s, e, i)
        s[i], e[i] = _trim(buf, s[i], e[i])


@leaf_kernel
def _trim(buf, a, z):
    """buf[a:z] without the spaces and `<` before it and the spaces and `>` after it."""
    while a < z and (buf[U(a)] == 32 or buf[U(a)] == 60):  # space, <
        a += 1
    while z > a and (buf[U(z - 1)] == 32 or buf[U(z - 1)] == 62):  # space, >
        z -= 1
    return a, z


def strip_angle_brackets(
    buf: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Message-id spans without their `<` `>` (NZBs and the catalog store them bare)."""
    start, end = np.asarray(start, np.int64), np.asarray(end, np.int64)
    _check_bounds(buf, start, end)
    s, e = start.copy(), end.copy()
    _strip(buf, s, e)
    return s, e


@leaf_kernel
def _gather_stripped(buf, start, end, offsets, data):
    n = start.shape[0]
    o = 0
    offsets[0] = 0
    for i in range(n):
        prefetch_ahead(buf, start, end, i)
        a, z = _trim(buf, start[i], end[i])
        # up to 7 bytes past this value: the next value's copy overwrites them, and the
        # caller cuts the output at the last offset
        o = copy_words(buf, a, z, data, o)
        offsets[i + 1] = o


def gather_stripped(
    buf: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Message-ids without their `<` `>`, one after another, and their n+1 offsets: what
    `strip_angle_brackets` then `gather` give, in one pass over the spans (a third cheaper)."""
    if len(start) != len(end):
        raise ValueError("start and end differ in length")
    start, end = np.asarray(start, np.int64), np.asarray(end, np.int64)
    _check_bounds(buf, start, end)
    offsets = np.empty(len(start) + 1, np.int64)
    # the spans' own lengths bound what is left of them (a span ending before it starts
    # is empty, as in `gather`)
    data = np.empty(int(np.maximum(end - start, 0).sum()), np.uint8)
    _gather_stripped(buf, start, end, offsets, data)
    return data[: int(offsets[-1])], offsets


def _check_bounds(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> None:
    # the kernels read without bounds checks: a span outside the buffer is refused here
    if len(start) and (start.min() < 0 or max(start.max(), end.max()) > len(buf)):
        raise ValueError("a span lies outside the buffer")
