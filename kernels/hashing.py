"""Fast 64-bit hashes of byte spans: the keys that files, releases and groups are joined on.

The mix follows xxHash64's short-input path (8-byte lanes, then single bytes, then the
avalanche), written out here so that the result depends only on the bytes and the seed:
the same on every run and platform, so stored keys stay valid. It is not
xxHash64-compatible (no 32- and 4-byte stages) and need not be. The byte primitives it
reads with (the 8-byte load, the prefetch, the span checks) are kernels.bytes'.
"""

from __future__ import annotations

import numpy as np

from kernels._jit import leaf_kernel
from kernels.bytes import (
    U,
    checked_spans,
    load_le64,
    prefetch_ahead,
    same_as_before,
)

_P1 = np.uint64(0x9E3779B185EBCA87)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)
_P3 = np.uint64(0x165667B19E3779F9)
_P4 = np.uint64(0x85EBCA77C2B2AE63)
_P5 = np.uint64(0x27D4EB2F165667C5)
_U11 = np.uint64(11)
_U27 = np.uint64(27)
_U29 = np.uint64(29)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U33 = np.uint64(33)
_U37 = np.uint64(37)
_U53 = np.uint64(53)
_U64 = np.uint64(64)


@leaf_kernel
def _rotl(x, r):
    return (x << r) | (x >> (_U64 - r))


@leaf_kernel
def _avalanche(h):
    h ^= h >> _U33
    h *= _P2
    h ^= h >> _U29
    h *= _P3
    h ^= h >> _U32
    return h


@leaf_kernel
def _hash_span(buf, start, end, seed):
    """The hash of buf[start:end]; the one definition every other kernel calls."""
    n = end - start
    h = seed + _P5 + np.uint64(n)
    i = start
    while i + 8 <= end:
        w = load_le64(buf, i)  # little-endian, whatever the machine
        w *= _P2
        w = _rotl(w, _U31)
        w *= _P1
        h ^= w
        h = _rotl(h, _U27) * _P1 + _P4
        i += 8
    while i < end:
        h ^= np.uint64(buf[U(i)]) * _P5
        h = _rotl(h, _U11) * _P1
        i += 1
    return _avalanche(h)


@leaf_kernel
def _mix2(a, b):
    # Not symmetric on purpose: mix(poster, subject) != mix(subject, poster).
    return _avalanche(a ^ _rotl(b * _P1 + _P3, _U37) ^ (b >> _U53))


@leaf_kernel
def _hash_spans(buf, start, end, seed, out):
    n = start.shape[0]
    for i in range(n):
        prefetch_ahead(buf, start, end, i)
        s = start[i]
        e = end[i]
        # a poster's segments mostly come one after another: the same From as the line
        # before is compared in a few words, cheaper than its hash's chain of multiplies
        if same_as_before(buf, start, end, i):
            out[U(i)] = out[U(i - 1)]
        else:
            out[U(i)] = _hash_span(buf, s, e, seed)


@leaf_kernel
def _mix_arrays(a, b, out):
    for i in range(a.shape[0]):
        out[U(i)] = _mix2(a[i], b[i])


def hash_spans(
    buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray, seed: int = 0
) -> np.ndarray:
    """The 64-bit hash of each span buf[start[i]:end[i]], as uint64."""
    arr, start, end = checked_spans(buf, start, end)
    out = np.empty(len(start), np.uint64)
    _hash_spans(arr, start, end, np.uint64(seed), out)
    return out


def hash_bytes(b: bytes, seed: int = 0) -> int:
    """The same hash as hash_spans, of one Python bytes (group names, tests)."""
    arr = np.frombuffer(bytes(b), dtype=np.uint8)
    return int(_hash_span(arr, 0, len(arr), np.uint64(seed)))


def mix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Combine two key arrays element-wise (e.g. poster hash with a subject key)."""
    a = np.ascontiguousarray(a, dtype=np.uint64)
    b = np.ascontiguousarray(b, dtype=np.uint64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"mix needs two 1-d arrays of one length: {a.shape} vs {b.shape}")
    out = np.empty(len(a), np.uint64)
    _mix_arrays(a, b, out)
    return out
