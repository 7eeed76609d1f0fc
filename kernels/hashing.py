"""Fast 64-bit hashes of byte spans: the keys that files, releases and groups are joined on.

The mix follows xxHash64's short-input path (8-byte lanes, then single bytes, then the
avalanche), written out here so that the result depends only on the bytes and the seed:
the same on every run and platform, so stored keys stay valid. It is not
xxHash64-compatible (no 32- and 4-byte stages) and need not be.

It also holds what the byte kernels share: `leaf_kernel`, and the few machine operations
numba does not spell (an 8-byte load or store at any alignment, a prefetch, bit counts).
"""

from __future__ import annotations

import sys
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.cpython.unsafe import numbers as _numba_numbers
from numba.extending import intrinsic

from kernels._jit import JIT_OPTIONS

# Indexing with an unsigned number spares numba its negative-index (wraparound) code in
# the byte loops: ~1.4x on the identity builder. No index here is ever negative.
_U = np.uint64

_LEAF_OPTIONS: dict[str, Any] = {**JIT_OPTIONS, "_nrt": False}


def leaf_kernel(fn: Any) -> Any:
    """Compile fn like `kernels._jit.kernel`, without numba's reference counting (NRT).

    With NRT on, every call of a jitted helper that takes an array costs an atomic
    incref/decref pair (~15-30 ns here), which dominated the per-byte parsers. These
    kernels allocate nothing: their Python wrappers allocate the outputs and pass them in.

    Caching: numba checks only the source file of the kernel it loads, while a kernel
    inlines helpers from other modules (subject.py calls names.py and hashing.py);
    kernels/_jit.py therefore keeps the cache in a folder named by a digest of all the
    kernel sources, so editing any helper starts a fresh cache.
    """
    return numba.njit(**_LEAF_OPTIONS)(fn)


def _element_pointer(context: Any, builder: Any, array_type: Any, array: Any, index: Any) -> Any:
    data = context.make_array(array_type)(context, builder, array).data
    return builder.gep(data, [index])


@intrinsic
def _prefetch(typingctx: Any, buf: Any, i: Any) -> Any:
    """Ask the CPU to fetch buf[i]'s cache line now (it never faults, even out of bounds).

    The per-line field kernels read one short field every ~300 bytes of a chunk far larger
    than the caches: with the field of a line some rows ahead fetched meanwhile, the
    reads stop waiting on memory one line at a time.
    """

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ptr = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # a read, kept in all cache levels, of data
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(buf, i), codegen


@intrinsic
def _load_u64_intrinsic(typingctx: Any, buf: Any, i: Any) -> Any:
    """The 8 bytes buf[i:i + 8] as one machine-order uint64, at any alignment."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ptr = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        return builder.load(builder.bitcast(ptr, ir.IntType(64).as_pointer()), align=1)

    return types.uint64(buf, i), codegen


@intrinsic
def _store_u64_intrinsic(typingctx: Any, buf: Any, i: Any, value: Any) -> Any:
    """Write value as the 8 bytes buf[i:i + 8], machine order, at any alignment."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ptr = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        builder.store(args[2], builder.bitcast(ptr, ir.IntType(64).as_pointer()), align=1)
        return context.get_dummy_value()

    return types.void(buf, i, types.uint64), codegen


# called from kernels as prefetch(buf, i) / _load_u64(buf, i): typing sees the intrinsic's
# (typingctx, ...) signature instead
prefetch: Any = _prefetch
_load_u64: Any = _load_u64_intrinsic
_store_u64: Any = _store_u64_intrinsic
# LLVM's cttz and ctlz (one instruction each): the lowest / highest set bit; 64 for none
trailing_zeros: Any = _numba_numbers.trailing_zeros
leading_zeros: Any = _numba_numbers.leading_zeros
_U8 = np.uint64(8)

if sys.byteorder == "little":

    @leaf_kernel
    def load_le64(buf, i):
        """The 8 bytes buf[i:i + 8] as a little-endian uint64 (the caller keeps i + 8 in
        bounds): one load instead of eight."""
        return _load_u64(buf, i)

    @leaf_kernel
    def store_le64(buf, i, w):
        """Write w as the 8 bytes buf[i:i + 8], little-endian (i + 8 in bounds)."""
        _store_u64(buf, i, w)

else:  # pragma: no cover - no big-endian machine runs this project today

    @leaf_kernel
    def load_le64(buf, i):
        w = np.uint64(0)
        for k in range(7, -1, -1):
            w = (w << _U8) | np.uint64(buf[_U(i + k)])
        return w

    @leaf_kernel
    def store_le64(buf, i, w):
        for k in range(8):
            buf[_U(i + k)] = np.uint8((w >> np.uint64(8 * k)) & np.uint64(0xFF))


@leaf_kernel
def copy_words(buf, a, z, out, o):
    """Copy buf[a:z] to out[o:], 8 bytes a step where both sides have room; returns where
    the copy ends in out (o itself for a span that ends before it starts). It may write
    up to 7 bytes past that end: whatever is copied next overwrites them, or they lie past
    the part of out the caller keeps (nothing is written past out itself)."""
    nbuf = buf.shape[0]
    size = out.shape[0]
    end = o + max(z - a, 0)
    while a < z:
        if a + 8 <= nbuf and o + 8 <= size:
            store_le64(out, o, load_le64(buf, a))
            a += 8
            o += 8
        else:
            out[_U(o)] = buf[_U(a)]
            a += 1
            o += 1
    return end


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
        h ^= np.uint64(buf[_U(i)]) * _P5
        h = _rotl(h, _U11) * _P1
        i += 1
    return _avalanche(h)


@leaf_kernel
def _mix2(a, b):
    # Not symmetric on purpose: mix(poster, subject) != mix(subject, poster).
    return _avalanche(a ^ _rotl(b * _P1 + _P3, _U37) ^ (b >> _U53))


# how many rows ahead the per-line kernels prefetch their field (~5 kB ahead in a chunk)
AHEAD = 16


@leaf_kernel
def same_bytes(buf, a, b, n):
    """buf[a:a + n] == buf[b:b + n], 8 bytes a step."""
    k = 0
    if n < 8:
        while k < n and buf[_U(a + k)] == buf[_U(b + k)]:
            k += 1
        return k == n
    while k + 8 < n:
        if load_le64(buf, a + k) != load_le64(buf, b + k):
            return False
        k += 8
    # the last 8 bytes, overlapping the words before: no byte loop for the rest
    return load_le64(buf, a + n - 8) == load_le64(buf, b + n - 8)


@leaf_kernel
def same_as_before(buf, start, end, i):
    """Is span i byte for byte span i - 1 (a poster's run of segments repeats fields)?"""
    s = start[i]
    n = end[i] - s
    return i > 0 and n == end[i - 1] - start[i - 1] and same_bytes(buf, start[i - 1], s, n)


@leaf_kernel
def _hash_spans(buf, start, end, seed, out):
    n = start.shape[0]
    for i in range(n):
        if i + AHEAD < n:  # a From of ~45 bytes mostly spans two cache lines
            prefetch(buf, start[i + AHEAD])
            prefetch(buf, end[i + AHEAD] - 1)
        s = start[i]
        e = end[i]
        # a poster's segments mostly come one after another: the same From as the line
        # before is compared in a few words, cheaper than its hash's chain of multiplies
        if same_as_before(buf, start, end, i):
            out[_U(i)] = out[_U(i - 1)]
        else:
            out[_U(i)] = _hash_span(buf, s, e, seed)


@leaf_kernel
def _mix_arrays(a, b, out):
    for i in range(a.shape[0]):
        out[_U(i)] = _mix2(a[i], b[i])


@leaf_kernel
def _spans_inside(start, end, size):
    # one pass without branches (numpy's min, max and compare took three, and a temporary)
    inside = True
    for i in range(start.shape[0]):
        inside &= (start[i] >= 0) & (start[i] <= end[i]) & (end[i] <= size)
    return inside


def as_buffer(buf: bytes | bytearray | memoryview | np.ndarray) -> np.ndarray:
    """A uint8 view of buf (no copy for bytes or a uint8 array)."""
    if isinstance(buf, np.ndarray):
        if buf.dtype != np.uint8 or buf.ndim != 1:
            raise TypeError(f"buf must be a 1-d uint8 array, got {buf.dtype} with {buf.ndim} dims")
        return buf
    return np.frombuffer(buf, dtype=np.uint8)


def check_spans(
    buf: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Validate per-line spans (int64, same length, inside buf, start <= end)."""
    start = np.ascontiguousarray(start, dtype=np.int64)
    end = np.ascontiguousarray(end, dtype=np.int64)
    if start.ndim != 1 or start.shape != end.shape:
        raise ValueError(f"start and end must be 1-d of one length: {start.shape} vs {end.shape}")
    if not _spans_inside(start, end, len(buf)):
        raise ValueError("spans must satisfy 0 <= start <= end <= len(buf)")
    return start, end


def hash_spans(
    buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray, seed: int = 0
) -> np.ndarray:
    """The 64-bit hash of each span buf[start[i]:end[i]], as uint64."""
    arr = as_buffer(buf)
    start, end = check_spans(arr, start, end)
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
