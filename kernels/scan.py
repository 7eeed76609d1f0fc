"""The scanner: line and field offsets over one inflated overview chunk.

One pass over the bytes, 64 at a time, finds the line ends, the TAB-separated fields,
the article number, and whether a line holds bytes that are not valid UTF-8. Each line
gets a status so the reader can count what it must survive (CORPUS.md) without a second
pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from kernels._jit import leaf_kernel
from kernels.bytes import (
    HI,
    SPACES,
    U,
    bytes_below,
    flag_bits,
    repeated,
    trailing_zeros,
    uint_value,
    utf8_valid,
)

# Fields of the default LIST OVERVIEW.FMT, in order.
F_NUMBER, F_SUBJECT, F_FROM, F_DATE, F_MESSAGE_ID, F_REFERENCES, F_BYTES, F_LINES, F_XREF = range(9)
N_FIELDS = 9
MIN_FIELDS = 8  # everything up to :lines; Xref is optional

# Line status codes, in the order the checks run.
OK = 0
TOO_FEW_FIELDS = 1
BAD_NUMBER = 2
OUT_OF_SPAN = 3
DUPLICATE = 4
UNTERMINATED = 5  # the cut-off last line of a truncated stream
STATUS_NAMES = ("ok", "too_few_fields", "bad_number", "out_of_span", "duplicate", "unterminated")


@dataclass(frozen=True)
class LineIndex:
    """Where each line and field of a chunk's buffer lies; all arrays have one row a line.

    `field_start[i, k]`/`field_end[i, k]` bound field k of line i (end exclusive; an
    absent field is empty at the line's end). `number` is -1 where not numeric.
    """

    line_start: np.ndarray  # int64
    line_end: np.ndarray  # int64, exclusive, before CR/LF
    field_start: np.ndarray  # int64 (n, N_FIELDS), column-contiguous: [:, k] is one field
    field_end: np.ndarray  # int64 (n, N_FIELDS)
    n_fields: np.ndarray  # int32, fields actually present (capped at N_FIELDS + 1)
    number: np.ndarray  # int64
    status: np.ndarray  # uint8
    non_utf8: np.ndarray  # bool

    def __len__(self) -> int:
        return len(self.line_start)

    def ok(self) -> np.ndarray:
        return self.status == OK


# the bytes below 11 (TAB, LF or another control byte) of a word: bytes_below(w, _ADD11)
_ADD11 = repeated(0x80 - 11)
_FF = np.uint64(0xFF)
_1 = np.uint64(1)


@leaf_kernel
def _count_lines(buf):
    n = 0
    size = buf.shape[0]
    for i in range(size):
        if buf[i] == 10:
            n += 1
    if size > 0 and buf[size - 1] != 10:
        n += 1
    return n


@leaf_kernel
def _word(buf, words, j, ends_lf):
    """Word j of the buffer. Past its whole words: the tail bytes padded with spaces (which
    are nothing to the scanner) and, when the buffer does not end with LF, a LF after its
    last byte, so the last line ends like every other."""
    if j < words.shape[0]:
        return words[U(j)]
    size = buf.shape[0]
    w = SPACES
    for r in range(8):
        i = j * 8 + r
        if i < size:
            c = np.uint64(buf[U(i)])
        elif i == size and not ends_lf:
            c = np.uint64(10)
        else:
            continue
        sh = np.uint64(8 * r)
        w = (w & ~(_FF << sh)) | (c << sh)
    return w


@leaf_kernel
def _tail_mask(buf, words, j, ends_lf):
    """(bytes below 11, OR of all bytes) of the 64 bytes from word j, for the last block,
    which runs past the buffer (SWAR over its padded words): bit k of the mask is byte k
    of the block."""
    m = np.uint64(0)
    acc = np.uint64(0)
    for k in range(8):
        w = _word(buf, words, j + k, ends_lf)
        acc |= w
        m |= flag_bits(bytes_below(w, _ADD11)) << np.uint64(8 * k)
    return m, acc


def _block(context: Any, builder: Any, signature: Any, args: Any) -> Any:
    """The 64 bytes buf[i:i + 64] as one <64 x i8> vector (at any alignment)."""
    data = context.make_array(signature.args[0])(context, builder, args[0]).data
    vector = ir.VectorType(ir.IntType(8), 64)
    ptr = builder.bitcast(builder.gep(data, [args[1]]), vector.as_pointer())
    return builder.load(ptr, align=1), vector


@intrinsic
def _below_11_intrinsic(typingctx: Any, buf: Any, i: Any) -> Any:
    """Bit k set when buf[i + k] < 11, for the 64 bytes from i: one vector compare whose
    lane bits are the mask (LLVM lowers it to a compare and a mask move per 16-64 bytes,
    as wide as the CPU has). The SWAR words cost ~7 operations per 8 bytes, and with
    them inlined the scan loop ran 1.7x slower (9.2 -> 5.5 ms a 70 k-line chunk)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        block, vector = _block(context, builder, signature, args)
        below = builder.icmp_unsigned("<", block, ir.Constant(vector, [11] * 64))
        return builder.bitcast(below, ir.IntType(64))

    return types.uint64(buf, i), codegen


@intrinsic
def _high_bytes_intrinsic(typingctx: Any, buf: Any, i: Any) -> Any:
    """Bit k set when buf[i + k] >= 0x80 (not ASCII), for the 64 bytes from i."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        block, vector = _block(context, builder, signature, args)
        high = builder.icmp_signed("<", block, ir.Constant(vector, [0] * 64))
        return builder.bitcast(high, ir.IntType(64))

    return types.uint64(buf, i), codegen


# called from kernels as _below_11(buf, i): typing sees the intrinsic's (typingctx, ...)
_below_11: Any = _below_11_intrinsic
_high_bytes: Any = _high_bytes_intrinsic


@leaf_kernel
def _scan(
    buf,
    words,
    first,
    last,
    terminated,
    line_start,
    line_end,
    fstart,
    fend,
    nfields,
    number,
    status,
    non_utf8,
):
    """Fill the line index's arrays; the number of lines, or -1 when they have no room.

    Reads the buffer 64 bytes at a time: a block's bytes below 11 become one bit mask (a
    vector compare; the last, partial block by SWAR words) whose set bits are visited in
    order, so the separators cost a step each and the other bytes next to nothing; a byte
    loop spent a compare and a branch on each. The index's arrays are written with
    unsigned indexes too: with the negative-index checks the stores of field bounds were
    a third of the scan (12-15 % of it went with the checks).
    """
    size = buf.shape[0]
    cap = line_start.shape[0]
    ends_lf = buf[U(size - 1)] == 10
    total = size if ends_lf else size + 1  # with the LF that ends an unterminated last line
    full_blocks = words.shape[0] >> 3
    li = 0
    s = np.int64(0)
    f = 0
    fs = np.int64(0)
    acc = np.uint64(0)  # the line's bytes OR-ed together (and a few around): bit 7 = non-ASCII
    for blk in range((total + 63) >> 6):
        if blk < full_blocks:
            m = _below_11(buf, U(blk * 64))
            block_acc = HI if _high_bytes(buf, U(blk * 64)) != 0 else np.uint64(0)
        else:
            m, block_acc = _tail_mask(buf, words, blk * 8, ends_lf)
        acc |= block_acc
        base = blk * 64
        while m != 0:
            p = base + np.int64(trailing_zeros(m))
            m &= m - _1
            b = buf[U(p)] if p < size else 10
            if b == 9:
                if f < 9:
                    fstart[U(f), U(li)] = fs
                    fend[U(f), U(li)] = p
                f += 1
                fs = p + 1
            elif b == 10:
                if li == cap:
                    return -1
                e = p
                if e > s and buf[U(e - 1)] == 13:
                    e -= 1
                if fs > e:  # a TAB right before the CR
                    fs = e
                if f < 9:
                    fstart[U(f), U(li)] = fs
                    fend[U(f), U(li)] = e
                f += 1
                for k in range(f, 9):
                    fstart[U(k), U(li)] = e
                    fend[U(k), U(li)] = e
                line_start[U(li)] = s
                line_end[U(li)] = e
                nfields[U(li)] = min(f, 10)
                non_utf8[U(li)] = (acc & HI) != 0 and not utf8_valid(buf, s, e)
                num = uint_value(buf, fstart[0, U(li)], fend[0, U(li)])
                number[U(li)] = num
                code = OK
                if p >= size and not terminated:
                    code = UNTERMINATED
                elif f < MIN_FIELDS:
                    code = TOO_FEW_FIELDS
                elif num < 0:
                    code = BAD_NUMBER
                elif num < first or num > last:
                    code = OUT_OF_SPAN
                status[U(li)] = code
                li += 1
                s = p + 1
                f = 0
                fs = s
                # the block's bytes before the LF may flag the next line too: its check then
                # finds it valid, at the cost of one needless check
                acc = block_acc
    return li


@leaf_kernel
def _mark_duplicates(number, status, first, seen):
    """The second and later OK lines of one article number, over a bitmap of the span."""
    for i in range(number.shape[0]):
        if status[i] == OK:
            k = number[i] - first
            if seen[k]:
                status[i] = DUPLICATE
            else:
                seen[k] = True


def scan_chunk(
    data: bytes | np.ndarray, first: int, last: int, terminated: bool = True
) -> LineIndex:
    """Index the lines of one inflated chunk for articles first..last.

    `terminated` is False when the stream was cut short: a last line without its line
    end is then marked UNTERMINATED instead of being trusted.
    """
    if isinstance(data, np.ndarray):
        buf = np.ascontiguousarray(data, dtype=np.uint8)
    else:
        buf = np.frombuffer(data, dtype=np.uint8)
    if len(buf) == 0:
        return _empty()
    if first > last:
        raise ValueError(f"chunk span {first}-{last} is empty")
    # a complete stream whose last line lacks its LF is still a whole line
    terminated = terminated or bool(buf[-1] == 10)
    words = buf[: len(buf) // 8 * 8].view(np.uint64)
    # Room for one line an article of the span (real lines run ~200-500 bytes): counting
    # the lines first would cost a second pass over the buffer, as much as the scan itself.
    # A chunk with more lines (junk, duplicates) is counted and scanned again.
    size = len(buf)
    cap = min(size, max(min(last - first + 1, size // 16), size // 256) + 64)
    out = _allocate(cap)
    n = _scan(buf, words, first, last, terminated, *out)
    if n < 0:
        out = _allocate(_count_lines(buf))
        n = _scan(buf, words, first, last, terminated, *out)
    ls, le, fs, fe, nf, number, status, non_utf8 = out
    number, status = number[:n], status[:n]
    span = last - first + 1
    if span <= 1 << 28:
        _mark_duplicates(number, status, first, np.zeros(span, np.bool_))
    return LineIndex(ls[:n], le[:n], fs[:, :n].T, fe[:, :n].T, nf[:n], number, status, non_utf8[:n])


def _allocate(cap: int) -> tuple[np.ndarray, ...]:
    """The index's arrays for up to cap lines, as views of one block.

    One block from numpy's allocator, which asks for huge pages for big arrays, where
    numba's allocations of the same arrays faulted in one fresh 4 kB page at a time: the
    page faults of a chunk's index (~170 bytes a line) cost as much as the scan.
    """
    block = np.empty((2 * N_FIELDS + 4, cap), np.int64)
    small = block[-1].view(np.uint8)  # 8 bytes a line: nfields (4), status, non_utf8
    return (
        block[0],
        block[1],
        # field-major: each field's column is contiguous (the kernels downstream take columns)
        block[2 : 2 + N_FIELDS],
        block[2 + N_FIELDS : 2 + 2 * N_FIELDS],
        small[: 4 * cap].view(np.int32),
        block[2 + 2 * N_FIELDS],
        small[4 * cap : 5 * cap],
        small[5 * cap : 6 * cap].view(np.bool_),
    )


def _empty() -> LineIndex:
    z = np.zeros(0, np.int64)
    return LineIndex(
        z,
        z,
        np.zeros((0, N_FIELDS), np.int64),
        np.zeros((0, N_FIELDS), np.int64),
        np.zeros(0, np.int32),
        z,
        np.zeros(0, np.uint8),
        np.zeros(0, np.bool_),
    )
