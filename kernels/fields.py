"""Per-line field parsers of the header pass: numbers, Date, and Xref.

All take a chunk's buffer and per-line field spans (from kernels.scan.LineIndex) and
return one value a line. Bad input never raises: it gives -1 / ok=False.

Date grammar (RFC 5322 and what servers really send), spaces only between tokens:
`[weekday[,]] day month year hh:mm[:ss] zone [(comment)]`, day 1-2 digits, month a
3-letter or full name in any case, day/month/year separated by spaces or `-`, year of
4 digits (1000-9999), 2 digits (< 50 -> 20xx, else 19xx) or 3 digits (+1900), zone
`+hhmm`/`-hhmm`, `GMT`/`UT`/`UTC`/`Z`, the US zones of RFC 5322 or a military letter
(taken as +0000, as RFC 5322 says to). Anything else is not a date: no guessing.
"""

from __future__ import annotations

import numpy as np

from kernels.hashing import (
    _P1,
    _P3,
    _U,
    _avalanche,
    _hash_span,
    as_buffer,
    check_spans,
    leaf_kernel,
)

_MAX_DIGITS = 18  # every 18-digit number fits in int64
# buf is indexed with unsigned numbers (kernels.hashing._U): no index here is negative,
# and numba then drops its wraparound check from every byte read.

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTH_NAMES = (
    *("january", "february", "march", "april", "may", "june", "july", "august"),
    *("september", "october", "november", "december"),
)
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# zone name -> offset from UTC in minutes
ZONES = {"gmt": 0, "ut": 0, "utc": 0, "z": 0, "est": -300, "edt": -240, "cst": -360,
         "cdt": -300, "mst": -420, "mdt": -360, "pst": -480, "pdt": -420}  # fmt: skip
for _letter in "abcdefghiklmnopqrstuvwxyz":  # military zones, all but j: +0000
    ZONES.setdefault(_letter, 0)


def name_code(name: str) -> int:
    """A lower-case letter word packed 5 bits a letter (up to 12 letters)."""
    code = 0
    for ch in name.lower():
        code = code * 32 + (ord(ch) - 96)
    return code


_MONTH_CODES = np.array(
    [name_code(m) for m in MONTHS] + [name_code(m) for m in MONTH_NAMES], dtype=np.int64
)
_WEEKDAY_CODES = np.array(
    [name_code(d) for d in WEEKDAYS] + [name_code(d) for d in WEEKDAY_NAMES], dtype=np.int64
)
_ZONE_CODES = np.array([name_code(z) for z in ZONES], dtype=np.int64)
_ZONE_MINUTES = np.array(list(ZONES.values()), dtype=np.int64)


# --- numbers -----------------------------------------------------------------------


@leaf_kernel
def _uint(buf, a, b):
    while a < b and buf[_U(a)] == 32:
        a += 1
    while b > a and buf[_U(b - 1)] == 32:
        b -= 1
    if b == a or b - a > _MAX_DIGITS:
        return -1
    v = 0
    for i in range(a, b):
        c = buf[_U(i)]
        if c < 48 or c > 57:
            return -1
        v = v * 10 + (c - 48)
    return v


@leaf_kernel
def _parse_uints(buf, start, end, out):
    for i in range(start.shape[0]):
        out[i] = _uint(buf, start[i], end[i])


# --- dates ---------------------------------------------------------------------------


@leaf_kernel
def _letters_end(buf, i, e):
    while i < e and ((65 <= buf[_U(i)] <= 90) or (97 <= buf[_U(i)] <= 122)):
        i += 1
    return i


@leaf_kernel
def _digits_end(buf, i, e):
    while i < e and 48 <= buf[_U(i)] <= 57:
        i += 1
    return i


@leaf_kernel
def _code(buf, a, b):
    if b - a > 12:
        return -1
    code = 0
    for i in range(a, b):
        code = code * 32 + ((buf[_U(i)] | 32) - 96)
    return code


@leaf_kernel
def _find(codes, code):
    for i in range(codes.shape[0]):
        if codes[i] == code:
            return i
    return -1


@leaf_kernel
def _spaces(buf, i, e):
    while i < e and buf[_U(i)] == 32:
        i += 1
    return i


@leaf_kernel
def _num(buf, a, b):
    v = 0
    for i in range(a, b):
        v = v * 10 + (buf[_U(i)] - 48)
    return v


@leaf_kernel
def _days_from_civil(y, m, d):
    y -= 1 if m <= 2 else 0
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


@leaf_kernel
def _days_in_month(y, m):
    if m == 2:
        leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
        return 29 if leap else 28
    if m == 4 or m == 6 or m == 9 or m == 11:
        return 30
    return 31


@leaf_kernel
def _date(buf, s, e):
    """(epoch seconds, ok) of the Date text buf[s:e]."""
    i = _spaces(buf, s, e)
    if i < e and buf[_U(i)] >= 65:  # a weekday
        w = _letters_end(buf, i, e)
        if w == i or _find(_WEEKDAY_CODES, _code(buf, i, w)) < 0:
            return 0, False
        i = _spaces(buf, w, e)
        if i < e and buf[_U(i)] == 44:
            i = _spaces(buf, i + 1, e)
    d = _digits_end(buf, i, e)
    if not 1 <= d - i <= 2:
        return 0, False
    day = _num(buf, i, d)
    i = d
    k = i
    while k < e and (buf[_U(k)] == 32 or buf[_U(k)] == 45):
        k += 1
    if k == i:
        return 0, False
    w = _letters_end(buf, k, e)
    mi = _find(_MONTH_CODES, _code(buf, k, w)) if w > k else -1
    if mi < 0:
        return 0, False
    month = mi % 12 + 1
    i = w
    k = i
    while k < e and (buf[_U(k)] == 32 or buf[_U(k)] == 45):
        k += 1
    if k == i:
        return 0, False
    d = _digits_end(buf, k, e)
    nd = d - k
    if nd < 2 or nd > 4:
        return 0, False
    year = _num(buf, k, d)
    if nd == 2:
        year += 2000 if year < 50 else 1900
    elif nd == 3:
        year += 1900
    elif year < 1000:
        return 0, False
    i = _spaces(buf, d, e)
    if i == d:
        return 0, False
    d = _digits_end(buf, i, e)
    if not 1 <= d - i <= 2 or d >= e or buf[_U(d)] != 58:
        return 0, False
    hour = _num(buf, i, d)
    i = d + 1
    d = _digits_end(buf, i, e)
    if d - i != 2:
        return 0, False
    minute = _num(buf, i, d)
    second = 0
    i = d
    if i < e and buf[_U(i)] == 58:
        d = _digits_end(buf, i + 1, e)
        if d - i - 1 != 2:
            return 0, False
        second = _num(buf, i + 1, d)
        i = d
    i = _spaces(buf, i, e)
    if i >= e:
        return 0, False  # no zone: the time could be anywhere
    c = buf[_U(i)]
    if c == 43 or c == 45:
        d = _digits_end(buf, i + 1, e)
        if d - i - 1 != 4:
            return 0, False
        zh = _num(buf, i + 1, i + 3)
        zm = _num(buf, i + 3, d)
        if zm > 59:
            return 0, False
        offset = (zh * 60 + zm) * (1 if c == 43 else -1)
        i = d
    else:
        w = _letters_end(buf, i, e)
        zi = _find(_ZONE_CODES, _code(buf, i, w)) if w > i else -1
        if zi < 0:
            return 0, False
        offset = _ZONE_MINUTES[zi]
        i = w
    i = _spaces(buf, i, e)
    if i < e:  # only a (comment) may follow
        z = e
        while z > i and buf[_U(z - 1)] == 32:
            z -= 1
        if buf[_U(i)] != 40 or buf[_U(z - 1)] != 41 or z - 1 <= i:
            return 0, False
    if day < 1 or day > _days_in_month(year, month) or hour > 23 or minute > 59 or second > 60:
        return 0, False
    days = _days_from_civil(year, month, day)
    return days * 86400 + hour * 3600 + minute * 60 + second - offset * 60, True


@leaf_kernel
def _parse_dates(buf, start, end, epoch, ok):
    for i in range(start.shape[0]):
        epoch[i], ok[i] = _date(buf, start[i], end[i])


# --- Xref ------------------------------------------------------------------------------


@leaf_kernel
def _xref_body(buf, s, e):
    """Where the group entries start: after `Xref:` (any case) when the field has it."""
    i = _spaces(buf, s, e)
    if e - i >= 5:
        x = (
            (buf[_U(i)] | 32) == 120
            and (buf[_U(i + 1)] | 32) == 114
            and (buf[_U(i + 2)] | 32) == 101
        )
        if x and (buf[_U(i + 3)] | 32) == 102 and buf[_U(i + 4)] == 58:
            return i + 5
    return i


@leaf_kernel
def _next_entry(buf, i, e):
    """The next `group:number` token from i: (name_start, name_end, number, next i).

    name_start is -1 when no entry is left. Tokens of another shape (the host, junk)
    are skipped. The group name is what precedes the token's last `:`.
    """
    while i < e:
        i = _spaces(buf, i, e)
        a = i
        colon = -1
        while i < e and buf[_U(i)] != 32:
            if buf[_U(i)] == 58:
                colon = i
            i += 1
        digits = i - colon - 1
        if colon > a and 1 <= digits <= _MAX_DIGITS and _digits_end(buf, colon + 1, i) == i:
            return a, colon, _num(buf, colon + 1, i), i
    return -1, -1, -1, e


@leaf_kernel
def _search(sorted_hashes, h):
    lo = 0
    hi = sorted_hashes.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if sorted_hashes[mid] < h:
            lo = mid + 1
        else:
            hi = mid
    if lo < sorted_hashes.shape[0] and sorted_hashes[lo] == h:
        return lo
    return -1


@leaf_kernel
def _xref_owner(buf, start, end, sorted_hashes, order, owner, n_groups, group_set, seen):
    for li in range(start.shape[0]):
        e = end[li]
        i = _xref_body(buf, start[li], e)
        best = -1
        n = 0
        acc = np.uint64(0)
        while True:
            a, z, _number, i = _next_entry(buf, i, e)
            if a < 0:
                break
            h = _hash_span(buf, a, z, np.uint64(0))
            dup = False
            for k in range(n):
                if seen[k] == h:
                    dup = True
                    break
            if dup:
                continue
            seen[n] = h
            n += 1
            acc += _avalanche(h * _P1 + _P3)  # a sum: the order of the groups is lost
            pos = _search(sorted_hashes, h)
            if pos >= 0 and (best < 0 or order[pos] < best):
                best = order[pos]
        owner[li] = best
        n_groups[li] = n
        if n > 0:
            g = _avalanche(acc ^ np.uint64(n))
            group_set[li] = g if g != 0 else np.uint64(1)


@leaf_kernel
def _xref_number(buf, start, end, group_hash, out):
    for li in range(start.shape[0]):
        e = end[li]
        i = _xref_body(buf, start[li], e)
        out[li] = -1
        while True:
            a, z, number, i = _next_entry(buf, i, e)
            if a < 0:
                break
            if _hash_span(buf, a, z, np.uint64(0)) == group_hash:
                out[li] = number
                break


# --- public wrappers ---------------------------------------------------------------------


def parse_uint(buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """`:bytes`/`:lines` as int64; -1 when empty, not digits or longer than 18 digits."""
    arr = as_buffer(buf)
    start, end = check_spans(arr, start, end)
    out = np.empty(len(start), np.int64)
    _parse_uints(arr, start, end, out)
    return out


def parse_dates(
    buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(epoch seconds int64, ok bool) of each Date field; epoch 0 where not ok."""
    arr = as_buffer(buf)
    start, end = check_spans(arr, start, end)
    epoch = np.zeros(len(start), np.int64)
    ok = np.zeros(len(start), np.bool_)
    _parse_dates(arr, start, end, epoch, ok)
    return epoch, ok


def xref_owner(
    buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray, group_hashes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per line: (owner int32, n_groups int32, group_set uint64) from its Xref.

    group_hashes[k] = hash_bytes(name) of the indexed group with priority k (0 wins).
    owner is the smallest k named in the Xref (-1: none); n_groups counts the distinct
    groups named; group_set is an order-independent key of their set (0: no Xref).
    """
    arr = as_buffer(buf)
    start, end = check_spans(arr, start, end)
    hashes = np.ascontiguousarray(group_hashes, dtype=np.uint64)
    order = np.argsort(hashes, kind="stable").astype(np.int32)
    n = len(start)
    owner = np.full(n, -1, np.int32)
    n_groups = np.zeros(n, np.int32)
    group_set = np.zeros(n, np.uint64)
    longest = int((end - start).max()) if n else 0
    seen = np.zeros(longest // 2 + 1, np.uint64)  # an entry takes at least 2 bytes (`g:1 `)
    _xref_owner(arr, start, end, hashes[order], order, owner, n_groups, group_set, seen)
    return owner, n_groups, group_set


def xref_number(
    buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray, group_hash: int
) -> np.ndarray:
    """The article number the Xref gives for one group (by its hash), -1 where absent."""
    arr = as_buffer(buf)
    start, end = check_spans(arr, start, end)
    out = np.empty(len(start), np.int64)
    _xref_number(arr, start, end, np.uint64(group_hash), out)
    return out
