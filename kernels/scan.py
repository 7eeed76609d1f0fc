"""The scanner: line and field offsets over one inflated overview chunk.

One pass over the bytes (one predictable branch a byte) finds the line ends, the
TAB-separated fields, the article number, and whether a line holds bytes that are not
valid UTF-8. Each line gets a status so the reader can count what it must survive
(CORPUS.md) without a second pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels._jit import kernel

# Unsigned indexes spare numba its negative-index (wraparound) code in the byte loop.
_U = np.uint64

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

_MAX_DIGITS = 18  # int64 holds every 18-digit number


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


@kernel
def _count_lines(buf):
    n = 0
    size = buf.shape[0]
    for i in range(size):
        if buf[i] == 10:
            n += 1
    if size > 0 and buf[size - 1] != 10:
        n += 1
    return n


@kernel
def _utf8_valid(buf, start, end):
    i = start
    while i < end:
        b = buf[i]
        if b < 0x80:
            i += 1
            continue
        if 0xC2 <= b <= 0xDF:
            need = 1
            lo, hi = 0x80, 0xBF
        elif 0xE0 <= b <= 0xEF:
            need = 2
            lo = 0xA0 if b == 0xE0 else 0x80
            hi = 0x9F if b == 0xED else 0xBF
        elif 0xF0 <= b <= 0xF4:
            need = 3
            lo = 0x90 if b == 0xF0 else 0x80
            hi = 0x8F if b == 0xF4 else 0xBF
        else:
            return False
        if i + need > end - 1:  # the sequence runs past the line
            return False
        c = buf[i + 1]
        if c < lo or c > hi:
            return False
        for k in range(2, need + 1):
            c = buf[i + k]
            if c < 0x80 or c > 0xBF:
                return False
        i += need + 1
    return True


@kernel
def _scan(buf, n_lines, first, last, terminated):
    line_start = np.empty(n_lines, np.int64)
    line_end = np.empty(n_lines, np.int64)
    # field-major: each field's column is contiguous (the kernels downstream take columns)
    fstart = np.empty((9, n_lines), np.int64)
    fend = np.empty((9, n_lines), np.int64)
    nfields = np.zeros(n_lines, np.int32)
    number = np.full(n_lines, -1, np.int64)
    status = np.zeros(n_lines, np.uint8)
    non_utf8 = np.zeros(n_lines, np.bool_)
    size = buf.shape[0]
    pos = 0
    for li in range(n_lines):
        s = pos
        f = 0
        fs = s
        acc = 0  # every byte of the line OR-ed together: bit 7 set means non-ASCII
        # one predictable branch a byte: TAB and LF are the only bytes below 11 that matter
        while pos < size:
            b = buf[_U(pos)]
            acc |= b
            if b < 11:
                if b == 10:
                    break
                if b == 9:
                    if f < 9:
                        fstart[f, li] = fs
                        fend[f, li] = pos
                    f += 1
                    fs = pos + 1
            pos += 1
        e = pos
        if e > s and buf[_U(e - 1)] == 13:
            e -= 1
        if fs > e:  # a TAB right before the CR
            fs = e
        if f < 9:
            fstart[f, li] = fs
            fend[f, li] = e
        f += 1
        for k in range(f, 9):
            fstart[k, li] = e
            fend[k, li] = e
        line_start[li] = s
        line_end[li] = e
        nfields[li] = min(f, 10)
        if acc >= 0x80:
            non_utf8[li] = not _utf8_valid(buf, s, e)
        # article number: digits only, at most 18 of them
        a = fstart[0, li]
        z = fend[0, li]
        num = 0
        if z > a and z - a <= 18:
            for k in range(a, z):
                d = buf[_U(k)]
                if d < 48 or d > 57:
                    num = -1
                    break
                num = num * 10 + (d - 48)
        else:
            num = -1
        number[li] = num
        if pos >= size and not terminated:
            status[li] = 5
        elif f < 8:
            status[li] = 1
        elif num < 0:
            status[li] = 2
        elif num < first or num > last:
            status[li] = 3
        pos += 1
    # duplicates: the second and later lines of one number, over a bitmap of the span
    span = last - first + 1
    if 0 < span <= 1 << 28:
        seen = np.zeros(span, np.bool_)
        for li in range(n_lines):
            if status[li] == 0:
                k = number[li] - first
                if seen[k]:
                    status[li] = 4
                else:
                    seen[k] = True
    return line_start, line_end, fstart.T, fend.T, nfields, number, status, non_utf8


def scan_chunk(
    data: bytes | np.ndarray, first: int, last: int, terminated: bool = True
) -> LineIndex:
    """Index the lines of one inflated chunk for articles first..last.

    `terminated` is False when the stream was cut short: a last line without its line
    end is then marked UNTERMINATED instead of being trusted.
    """
    buf = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    n = _count_lines(buf) if len(buf) else 0
    if n == 0:
        return _empty()
    if first > last:
        raise ValueError(f"chunk span {first}-{last} is empty")
    # a complete stream whose last line lacks its LF is still a whole line
    terminated = terminated or buf[-1] == 10
    parts = _scan(buf, n, first, last, terminated)
    return LineIndex(*parts)


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
