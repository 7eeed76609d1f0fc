"""File names without their endings, a column at a time: what the PreDB matcher looks a
file up by (`x.part01.rar`, `x.vol03+04.par2`, `x.r00`, `x.7z.001` all give `x`).

Up to `max_endings` endings come off the right end of a name, each after a dot that is
not the name's first byte: an extension of the caller's list (ASCII, any case, at most
8 bytes) or a volume or part number (`partN`, `volN+M`, `rNN`, `sNN`, `NNN`). The first
ending that is neither stops it. One pass over the names' bytes; the regex it replaces
(RE2 with a lazy base) cost ~2.3 us a name, a third of what the scan spent after a
header pass. The plain-Python rule is `pipelines.predb.keys.file_stem`.
"""

from __future__ import annotations

import numpy as np

from kernels._jit import kernel, leaf_kernel
from kernels.bytes import U, copy_words, digits_end, is_digit, lower

_DOT = 46


def ending_code(ending: bytes) -> int:
    """An ending's bytes, lowercase, packed little-endian into one int64 (at most 8)."""
    code = 0
    for i, c in enumerate(ending.lower()):
        code |= c << (8 * i)
    return code


@leaf_kernel
def _digits(buf, a, b, lo, hi):
    """Is buf[a:b] lo to hi ASCII digits?"""
    n = b - a
    return lo <= n <= hi and digits_end(buf, a, b) == b


@leaf_kernel
def _starts(buf, a, b, w0, w1, w2, w3, n):
    """Does buf[a:b] open with the n lowercase letters w0.. in any case?"""
    if b - a < n:
        return False
    if lower(buf[U(a)]) != w0:
        return False
    if n > 1 and lower(buf[U(a + 1)]) != w1:
        return False
    if n > 2 and lower(buf[U(a + 2)]) != w2:
        return False
    return not (n > 3 and lower(buf[U(a + 3)]) != w3)


@leaf_kernel
def _volume(buf, a, b):
    """partN (1-4 digits), volN+M / volN-M (1-5 each), rNN(N), sNN, NNN."""
    if _digits(buf, a, b, 3, 3):
        return True
    if _starts(buf, a, b, 112, 97, 114, 116, 4):  # part
        return _digits(buf, a + 4, b, 1, 4)
    if _starts(buf, a, b, 118, 111, 108, 0, 3):  # vol
        j = a + 3
        while j < b and is_digit(buf[U(j)]):
            j += 1
        if j == b or (buf[U(j)] != 43 and buf[U(j)] != 45):  # + -
            return False
        return _digits(buf, a + 3, j, 1, 5) and _digits(buf, j + 1, b, 1, 5)
    if _starts(buf, a, b, 114, 0, 0, 0, 1):  # r
        return _digits(buf, a + 1, b, 2, 3)
    if _starts(buf, a, b, 115, 0, 0, 0, 1):  # s
        return _digits(buf, a + 1, b, 2, 2)
    return False


@leaf_kernel
def _known(buf, a, b, codes):
    """Is buf[a:b] one of the extensions (sorted packed codes), in any case?"""
    n = b - a
    if n < 1 or n > 8:
        return False
    code = np.int64(0)
    for i in range(n):
        c = buf[U(a + i)]
        if c >= 128:
            return False
        code |= np.int64(lower(c)) << np.int64(8 * i)
    k = np.searchsorted(codes, code)
    return k < codes.shape[0] and codes[k] == code


@kernel
def _stem_ends(data, offsets, codes, max_endings, ends):
    for r in range(offsets.shape[0] - 1):
        a = np.int64(offsets[r])
        end = np.int64(offsets[r + 1])
        for _ in range(max_endings):
            dot = end - 1
            while dot > a and data[U(dot)] != _DOT:
                dot -= 1
            if dot <= a:
                break
            if not (_known(data, dot + 1, end, codes) or _volume(data, dot + 1, end)):
                break
            end = dot
        ends[r] = end


@kernel
def _gather(data, offsets, ends, out, out_offsets):
    o = 0
    out_offsets[0] = 0
    for r in range(ends.shape[0]):
        o = copy_words(data, np.int64(offsets[r]), ends[r], out, o)
        out_offsets[r + 1] = o


def stem_ends(
    data: np.ndarray, offsets: np.ndarray, codes: np.ndarray, max_endings: int
) -> np.ndarray:
    """Where each name's stem ends in `data` (names: Arrow's values and offsets; codes:
    the extensions' `ending_code`s, sorted)."""
    ends = np.empty(len(offsets) - 1, np.int64)
    _stem_ends(data, offsets, codes, max_endings, ends)
    return ends


def gather(
    data: np.ndarray, offsets: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each name's bytes up to its end, packed: (values, int64 offsets) of a new column."""
    out_offsets = np.empty(len(ends) + 1, np.int64)
    size = int(np.sum(ends - offsets[:-1])) if len(ends) else 0
    out = np.empty(size + 8, np.uint8)  # copy_words may write 7 bytes past the end
    _gather(data, offsets, ends, out, out_offsets)
    return out[:size], out_offsets
