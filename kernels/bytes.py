"""The byte primitives the kernels share, in one place.

- Unsigned indexes (`U`), the checks of a kernel's (buffer, start, end) input.
- The machine operations numba does not spell: an 8-byte load or store at any alignment,
  a prefetch, bit counts; and what is built on them (word copies and compares).
- Byte classes (`is_digit`, `is_word`, ...), runs of digits, letters and spaces, the
  number a run of digits spells, UTF-8 sequences.
- Word-at-a-time (SWAR) tricks: 8 bytes tested in one uint64.

All are leaf kernels (`kernels._jit.leaf_kernel`): a kernel calling them gets them
inlined by LLVM like a helper of its own module, so a shared primitive costs nothing
over a copy of it in each kernel. The module runs past 400 lines because it is many
primitives of a few lines each, one job: a kernel's author finds them all here.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.cpython.unsafe import numbers as _numba_numbers
from numba.extending import intrinsic

from kernels._jit import leaf_kernel

# Indexing with an unsigned number spares numba its negative-index (wraparound) code in
# the byte loops: ~1.4x on the identity builder. No index here is ever negative.
U = np.uint64

MAX_DIGITS = 18  # every 18-digit number fits in int64

# how many rows ahead the per-line kernels prefetch their field (~5 kB ahead in a chunk)
AHEAD = 16


# --- machine operations -------------------------------------------------------------


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
            w = (w << _U8) | np.uint64(buf[U(i + k)])
        return w

    @leaf_kernel
    def store_le64(buf, i, w):
        for k in range(8):
            buf[U(i + k)] = np.uint8((w >> np.uint64(8 * k)) & np.uint64(0xFF))


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
            out[U(o)] = buf[U(a)]
            a += 1
            o += 1
    return end


@leaf_kernel
def same_bytes(buf, a, b, n):
    """buf[a:a + n] == buf[b:b + n], 8 bytes a step."""
    k = 0
    if n < 8:
        while k < n and buf[U(a + k)] == buf[U(b + k)]:
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
def prefetch_ahead(buf, start, end, i):
    """While span i is read, fetch span i + AHEAD (the cache lines of its first and last
    byte): the per-line kernels' spans lie lines apart in a chunk far larger than the
    caches, and a field of 30-60 bytes mostly spans two lines."""
    if i + AHEAD < start.shape[0]:
        prefetch(buf, start[i + AHEAD])
        prefetch(buf, end[i + AHEAD] - 1)


# --- byte classes -------------------------------------------------------------------


@leaf_kernel
def is_digit(c):
    return 48 <= c <= 57


@leaf_kernel
def is_word(c):
    # letters, digits, `_` and any UTF-8 byte: what a word boundary must not cut
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c == 95 or c >= 128


@leaf_kernel
def is_alnum(c):
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122)


@leaf_kernel
def lower(c):
    if 65 <= c <= 90:
        return c + 32
    return c


@leaf_kernel
def is_hex(c):
    return (48 <= c <= 57) or (65 <= c <= 70) or (97 <= c <= 102)


@leaf_kernel
def is_vowel(c):
    c = lower(c)
    return c == 97 or c == 101 or c == 105 or c == 111 or c == 117 or c == 121


@leaf_kernel
def is_space(c):
    # what `\s` matches in a bytes regex: space, \t \n \v \f \r
    return c == 32 or (c >= 9 and c <= 13)


# --- runs and numbers ---------------------------------------------------------------


@leaf_kernel
def digits_end(buf, i, e):
    """Where the run of digits from i ends (i itself when buf[i] is none; not past e)."""
    while i < e and 48 <= buf[U(i)] <= 57:
        i += 1
    return i


@leaf_kernel
def digits_back(buf, lo, i, limit):
    """Start of the run of digits that ends right before i (not below lo).

    Stops after limit + 1 digits: callers only need to know the run is not longer.
    """
    j = i
    lo = max(lo, i - limit - 1)
    while j > lo and 48 <= buf[U(j - 1)] <= 57:
        j -= 1
    return j


@leaf_kernel
def letters_end(buf, i, e):
    """Where the run of ASCII letters from i ends."""
    while i < e and ((65 <= buf[U(i)] <= 90) or (97 <= buf[U(i)] <= 122)):
        i += 1
    return i


@leaf_kernel
def spaces_end(buf, i, e):
    """Where the run of spaces (0x20 only) from i ends."""
    while i < e and buf[U(i)] == 32:
        i += 1
    return i


@leaf_kernel
def spaces_back(buf, lo, i):
    """Where the run of spaces (0x20 only) that ends right before i starts (not below lo)."""
    while i > lo and buf[U(i - 1)] == 32:
        i -= 1
    return i


@leaf_kernel
def white_end(buf, i, e):
    """Where the run of white space (`is_space`, a regex's `\\s`) from i ends."""
    while i < e and is_space(buf[U(i)]):
        i += 1
    return i


@leaf_kernel
def digits_value(buf, a, b):
    """The number the digits buf[a:b] spell (the caller knows they are digits)."""
    v = 0
    for i in range(a, b):
        v = v * 10 + (buf[U(i)] - 48)
    return v


@leaf_kernel
def uint_value(buf, a, b):
    """The number buf[a:b] spells: digits only, 1 to MAX_DIGITS of them; -1 otherwise."""
    if b <= a or b - a > MAX_DIGITS:
        return -1
    v = 0
    for i in range(a, b):
        c = buf[U(i)]
        if c < 48 or c > 57:
            return -1
        v = v * 10 + (c - 48)
    return v


# --- UTF-8 --------------------------------------------------------------------------


@leaf_kernel
def _continues(buf, i, end, lo, hi):
    """Whether buf[i] exists and is a continuation byte in [lo, hi]."""
    return i < end and lo <= buf[U(i)] <= hi


@leaf_kernel
def utf8_length(buf, i, end):
    """The length of the well-formed UTF-8 sequence at i (1-4), 0 when there is none, as
    Python's strict decoder reads it: no overlong forms, no surrogates, nothing above
    U+10FFFF, no sequence cut by end."""
    b = buf[U(i)]
    if b < 0x80:
        return 1
    if 0xC2 <= b <= 0xDF:
        return 2 if _continues(buf, i + 1, end, 0x80, 0xBF) else 0
    if 0xE0 <= b <= 0xEF:
        lo, hi = 0x80, 0xBF
        if b == 0xE0:
            lo = 0xA0
        elif b == 0xED:  # no surrogates
            hi = 0x9F
        ok = _continues(buf, i + 1, end, lo, hi) and _continues(buf, i + 2, end, 0x80, 0xBF)
        return 3 if ok else 0
    if 0xF0 <= b <= 0xF4:
        lo, hi = 0x80, 0xBF
        if b == 0xF0:
            lo = 0x90
        elif b == 0xF4:
            hi = 0x8F
        ok = (
            _continues(buf, i + 1, end, lo, hi)
            and _continues(buf, i + 2, end, 0x80, 0xBF)
            and _continues(buf, i + 3, end, 0x80, 0xBF)
        )
        return 4 if ok else 0
    return 0


@leaf_kernel
def utf8_valid(buf, a, z):
    """Whether buf[a:z] is UTF-8 (every sequence well formed, see utf8_length)."""
    i = a
    while i < z:
        if buf[U(i)] < 0x80:
            i += 1
            continue
        n = utf8_length(buf, i, z)
        if n == 0:
            return False
        i += n
    return True


# --- word at a time (SWAR) ----------------------------------------------------------


def repeated(byte: int) -> np.uint64:
    """A word of 8 copies of byte (for the constants below and the kernels')."""
    return np.uint64(byte * 0x0101010101010101)


LO7 = repeated(0x7F)
HI = repeated(0x80)  # bit 7 of each byte
SPACES = repeated(0x20)
# (t >> 7) * _GATHER >> 56 packs bit 7 of each byte of t into one byte, in byte order
_GATHER = np.uint64(0x0102040810204080)
_3 = np.uint64(3)
_7 = np.uint64(7)
_56 = np.uint64(56)


@leaf_kernel
def zero_bytes(x):
    """Bit 7 of each byte of x that is zero, exactly (no borrow runs into the next byte)."""
    return ~((((x & LO7) + LO7) | x) | LO7)


@leaf_kernel
def bytes_below(x, add):
    """Bit 7 of each byte of x below n, for add = repeated(0x80 - n) (1 <= n <= 0x80): a
    byte's low 7 bits plus 0x80 - n carry into bit 7 exactly when they are n or more, and
    never into the next byte."""
    return ~(((x & LO7) + add) | x) & HI


@leaf_kernel
def flag_bits(t):
    """Bit 7 of each byte of t (the flags of zero_bytes, bytes_below) as bits 0-7."""
    return ((t >> _7) * _GATHER) >> _56


@leaf_kernel
def first_flagged(t):
    """The byte number (0-7, little-endian) of the lowest flagged byte of t (t != 0)."""
    return trailing_zeros(t) >> _3


@leaf_kernel
def last_flagged(t):
    """The byte number (0-7, little-endian) of the highest flagged byte of t (t != 0)."""
    return _7 - (leading_zeros(t) >> _3)


# --- a kernel's input ---------------------------------------------------------------


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


def checked_spans(
    buf: bytes | bytearray | memoryview | np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A kernel wrapper's input: (buf as_buffer, start, end as check_spans gives them)."""
    arr = as_buffer(buf)
    start, end = check_spans(arr, start, end)
    return arr, start, end
