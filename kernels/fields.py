"""Per-line field parsers of the header pass: numbers, Date, and Xref.

All take a chunk's buffer and per-line field spans (from kernels.scan.LineIndex) and
return one value a line. Bad input never raises: it gives -1 / ok=False. The module
passes 400 lines for the Date alone (the general grammar, the common shape read at fixed
offsets, the cache of recent dates); kernels.line_fields runs all three in one pass.

Date grammar (RFC 5322 and what servers really send), spaces only between tokens:
`[weekday[,]] day month year hh:mm[:ss] zone [(comment)]`, day 1-2 digits, month a
3-letter or full name in any case, day/month/year separated by spaces or `-`, year of
4 digits (1000-9999), 2 digits (< 50 -> 20xx, else 19xx) or 3 digits (+1900), zone
`+hhmm`/`-hhmm`, `GMT`/`UT`/`UTC`/`Z`, the US zones of RFC 5322 or a military letter
(taken as +0000, as RFC 5322 says to). Anything else is not a date: no guessing.
"""

from __future__ import annotations

import numpy as np

from kernels._jit import leaf_kernel
from kernels.bytes import (
    MAX_DIGITS,
    U,
    checked_spans,
    digits_end,
    digits_value,
    first_flagged,
    last_flagged,
    letters_end,
    load_le64,
    prefetch_ahead,
    repeated,
    same_as_before,
    same_bytes,
    spaces_back,
    spaces_end,
    uint_value,
    zero_bytes,
)
from kernels.hashing import _P1, _P3, _avalanche, _hash_span

# buf is indexed with unsigned numbers (kernels.bytes.U): no index here is negative, and
# numba then drops its wraparound check from every byte read.

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
    a = spaces_end(buf, a, b)
    return uint_value(buf, a, spaces_back(buf, a, b))


@leaf_kernel
def _parse_uints(buf, start, end, out):
    n = start.shape[0]
    for i in range(n):
        prefetch_ahead(buf, start, end, i)
        out[i] = _uint(buf, start[i], end[i])


# --- dates ---------------------------------------------------------------------------


@leaf_kernel
def _code(buf, a, b):
    if b - a > 12:
        return -1
    code = 0
    for i in range(a, b):
        code = code * 32 + ((buf[U(i)] | 32) - 96)
    return code


@leaf_kernel
def _find(codes, code):
    for i in range(codes.shape[0]):
        if codes[i] == code:
            return i
    return -1


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
def _separators_end(buf, i, e):
    """Where the spaces and `-` between day, month and year end."""
    while i < e and (buf[U(i)] == 32 or buf[U(i)] == 45):
        i += 1
    return i


@leaf_kernel
def _date(buf, s, e):
    """(epoch seconds, ok) of the Date text buf[s:e]."""
    i = spaces_end(buf, s, e)
    if i < e and buf[U(i)] >= 65:  # a weekday
        w = letters_end(buf, i, e)
        if w == i or _find(_WEEKDAY_CODES, _code(buf, i, w)) < 0:
            return 0, False
        i = spaces_end(buf, w, e)
        if i < e and buf[U(i)] == 44:
            i = spaces_end(buf, i + 1, e)
    d = digits_end(buf, i, e)
    if not 1 <= d - i <= 2:
        return 0, False
    day = digits_value(buf, i, d)
    i = d
    k = _separators_end(buf, i, e)
    if k == i:
        return 0, False
    w = letters_end(buf, k, e)
    mi = _find(_MONTH_CODES, _code(buf, k, w)) if w > k else -1
    if mi < 0:
        return 0, False
    month = mi % 12 + 1
    i = w
    k = _separators_end(buf, i, e)
    if k == i:
        return 0, False
    d = digits_end(buf, k, e)
    nd = d - k
    if nd < 2 or nd > 4:
        return 0, False
    year = digits_value(buf, k, d)
    if nd == 2:
        year += 2000 if year < 50 else 1900
    elif nd == 3:
        year += 1900
    elif year < 1000:
        return 0, False
    i = spaces_end(buf, d, e)
    if i == d:
        return 0, False
    d = digits_end(buf, i, e)
    if not 1 <= d - i <= 2 or d >= e or buf[U(d)] != 58:
        return 0, False
    hour = digits_value(buf, i, d)
    i = d + 1
    d = digits_end(buf, i, e)
    if d - i != 2:
        return 0, False
    minute = digits_value(buf, i, d)
    second = 0
    i = d
    if i < e and buf[U(i)] == 58:
        d = digits_end(buf, i + 1, e)
        if d - i - 1 != 2:
            return 0, False
        second = digits_value(buf, i + 1, d)
        i = d
    i = spaces_end(buf, i, e)
    if i >= e:
        return 0, False  # no zone: the time could be anywhere
    c = buf[U(i)]
    if c == 43 or c == 45:
        d = digits_end(buf, i + 1, e)
        if d - i - 1 != 4:
            return 0, False
        zh = digits_value(buf, i + 1, i + 3)
        zm = digits_value(buf, i + 3, d)
        if zm > 59:
            return 0, False
        offset = (zh * 60 + zm) * (1 if c == 43 else -1)
        i = d
    else:
        w = letters_end(buf, i, e)
        zi = _find(_ZONE_CODES, _code(buf, i, w)) if w > i else -1
        if zi < 0:
            return 0, False
        offset = _ZONE_MINUTES[zi]
        i = w
    i = spaces_end(buf, i, e)
    if i < e:  # only a (comment) may follow
        z = spaces_back(buf, i, e)
        if buf[U(i)] != 40 or buf[U(z - 1)] != 41 or z - 1 <= i:
            return 0, False
    if day < 1 or day > _days_in_month(year, month) or hour > 23 or minute > 59 or second > 60:
        return 0, False
    days = _days_from_civil(year, month, day)
    return days * 86400 + hour * 3600 + minute * 60 + second - offset * 60, True


# The shape nearly every server writes, `[Www, ][D]D Mmm YYYY HH:MM:SS +hhmm` or a zone
# name, read at fixed offsets: 3 lower-cased letters packed 8 bits each, compared as one
# number.
_WEEKDAY3 = np.array([int.from_bytes(d.encode(), "big") for d in WEEKDAYS], dtype=np.int64)
_MONTH3 = np.array([int.from_bytes(m.encode(), "big") for m in MONTHS], dtype=np.int64)


@leaf_kernel
def _lower3(buf, i):
    # | 32 maps exactly the two cases of a letter onto its lower case; no other byte lands
    # on a lower-case letter, so a match with a lower-case name is a match of letters
    return (
        (np.int64(buf[U(i)] | 32) << 16)
        | (np.int64(buf[U(i + 1)] | 32) << 8)
        | np.int64(buf[U(i + 2)] | 32)
    )


_NOT_DIGIT = -100_000  # outweighs any sum of digits below: a number with one is negative


@leaf_kernel
def _digit(buf, i):
    d = np.int64(buf[U(i)]) - 48
    return d if 0 <= d <= 9 else _NOT_DIGIT


@leaf_kernel
def _two_digits(buf, i):
    return _digit(buf, i) * 10 + _digit(buf, i + 1)


@leaf_kernel
def _date_common(buf, s, e):
    """(epoch seconds, True, where its seconds are) of the common shape; (0, False, 0) for
    anything else, which the general parser then reads: this path accepts only what that
    one accepts, with its value.
    """
    i = s
    if e - i < 22:
        return 0, False, 0
    if buf[U(i)] >= 65:  # `Www, `
        if buf[U(i + 3)] != 44 or buf[U(i + 4)] != 32:
            return 0, False, 0
        if _find(_WEEKDAY3, _lower3(buf, i)) < 0:
            return 0, False, 0
        i += 5
        if e - i < 22:
            return 0, False, 0
    day = _digit(buf, i)
    if buf[U(i + 1)] == 32:
        i += 2
    else:
        day = day * 10 + _digit(buf, i + 1)
        if buf[U(i + 2)] != 32:
            return 0, False, 0
        i += 3
    # from the month on, fixed offsets: `Mmm YYYY HH:MM:SS ` then the zone
    z = i + 18
    if e - z < 1:
        return 0, False, 0
    if buf[U(i + 3)] != 32 or buf[U(i + 8)] != 32 or buf[U(i + 17)] != 32:
        return 0, False, 0
    if buf[U(i + 11)] != 58 or buf[U(i + 14)] != 58:
        return 0, False, 0
    mi = _find(_MONTH3, _lower3(buf, i))
    year = _two_digits(buf, i + 4) * 100 + _two_digits(buf, i + 6)
    hour = _two_digits(buf, i + 9)
    minute = _two_digits(buf, i + 12)
    second = _two_digits(buf, i + 15)
    c = buf[U(z)]
    if c == 43 or c == 45:
        if e - z != 5:
            return 0, False, 0
        zh = _two_digits(buf, z + 1)
        zm = _two_digits(buf, z + 3)
        if zh < 0 or zm < 0 or zm > 59:
            return 0, False, 0
        offset = (zh * 60 + zm) * (1 if c == 43 else -1)
    else:
        if letters_end(buf, z, e) != e:
            return 0, False, 0
        zi = _find(_ZONE_CODES, _code(buf, z, e))
        if zi < 0:
            return 0, False, 0
        offset = _ZONE_MINUTES[zi]
    if mi < 0 or year < 1000 or hour < 0 or hour > 23 or minute < 0 or minute > 59:
        return 0, False, 0
    month = mi + 1
    if day < 1 or day > _days_in_month(year, month) or second < 0 or second > 60:
        return 0, False, 0
    days = _days_from_civil(year, month, day)
    return days * 86400 + hour * 3600 + minute * 60 + second - offset * 60, True, i + 15


# The dates the common shape read lately, a row each: (start, length, where its seconds
# are, value, seconds), replaced in turn. A few posters post at a time, each a segment
# every second or so: on the 2 M-line bench range 97 % of the lines repeat the Date before
# or differ from one of the last 6 dates in the seconds alone (4 rows: 89 %), and such a
# line is read in two compares. 8 rows take no more lines and cost each miss more:
# line_fields over the range 179 (4 rows), 167 (6), 179 ms (8), best of 16 alternating.
DATE_CACHE = 6


@leaf_kernel
def _date_of(buf, s, e, cache, victim):
    """(epoch seconds, ok, next victim) of the Date buf[s:e]: taken from a date read lately
    when it differs in the seconds alone, else parsed (the common shape then kept in the
    cache's row `victim`). The per-line kernels all read a Date through this."""
    # the common shape's value moves with its seconds, and every other byte passed its
    # checks already
    length = e - s
    for r in range(cache.shape[0]):
        if cache[r, 1] != length:
            continue
        c = cache[r, 0]
        k = cache[r, 2]
        if same_bytes(buf, c, s, k) and same_bytes(buf, c + k + 2, s + k + 2, length - k - 2):
            second = _two_digits(buf, s + k)
            if 0 <= second <= 60:
                return cache[r, 3] - cache[r, 4] + second, True, victim
            break
    value, good, at = _date_common(buf, s, e)
    if good:
        cache[victim, 0] = s
        cache[victim, 1] = length
        cache[victim, 2] = at - s
        cache[victim, 3] = value
        cache[victim, 4] = _two_digits(buf, at)
        return value, True, victim + 1 if victim + 1 < cache.shape[0] else 0
    value, good = _date(buf, s, e)
    return value, good, victim


@leaf_kernel
def clear_date_cache(cache):
    for r in range(cache.shape[0]):
        cache[r, 1] = -1  # no date of that length


@leaf_kernel
def _parse_dates(buf, start, end, epoch, ok, cache):
    n = start.shape[0]
    clear_date_cache(cache)
    victim = 0
    for i in range(n):
        prefetch_ahead(buf, start, end, i)
        # a poster's segments often share their Date to the second with the line before
        if same_as_before(buf, start, end, i):
            epoch[i] = epoch[i - 1]
            ok[i] = ok[i - 1]
        else:
            epoch[i], ok[i], victim = _date_of(buf, start[i], end[i], cache, victim)


# --- Xref ------------------------------------------------------------------------------


@leaf_kernel
def _xref_body(buf, s, e):
    """Where the group entries start: after `Xref:` (any case) when the field has it."""
    i = spaces_end(buf, s, e)
    if e - i >= 5:
        x = (buf[U(i)] | 32) == 120 and (buf[U(i + 1)] | 32) == 114 and (buf[U(i + 2)] | 32) == 101
        if x and (buf[U(i + 3)] | 32) == 102 and buf[U(i + 4)] == 58:
            return i + 5
    return i


_SPACES = repeated(0x20)
_COLONS = repeated(0x3A)
_1 = np.uint64(1)
_3 = np.uint64(3)


@leaf_kernel
def _next_entry(buf, i, e):
    """The next `group:number` token from i: (name_start, name_end, number, next i).

    name_start is -1 when no entry is left. Tokens of another shape (the host, junk)
    are skipped. The group name is what precedes the token's last `:`.
    """
    while i < e:
        i = spaces_end(buf, i, e)
        a = i
        colon = -1
        # 8 bytes a step while they lie inside the field: the first space ends the token
        while i + 8 <= e:
            w = load_le64(buf, i)
            space = zero_bytes(w ^ _SPACES)
            colons = zero_bytes(w ^ _COLONS)
            if space != 0:
                stop = first_flagged(space)  # bytes before the space
                colons &= (_1 << (stop << _3)) - _1
                if colons != 0:
                    colon = i + np.int64(last_flagged(colons))
                i += np.int64(stop)
                break
            if colons != 0:
                colon = i + np.int64(last_flagged(colons))
            i += 8
        else:
            while i < e and buf[U(i)] != 32:
                if buf[U(i)] == 58:
                    colon = i
                i += 1
        digits = i - colon - 1
        if colon > a and 1 <= digits <= MAX_DIGITS and digits_end(buf, colon + 1, i) == i:
            return a, colon, digits_value(buf, colon + 1, i), i
    return -1, -1, -1, e


@leaf_kernel
def _build_table(hashes, table_hash, table_priority):
    """An open-addressing table of the indexed groups' hashes (power-of-2 size, at most half
    full): a lookup is one probe, mostly, where a binary search took ~log2(groups) branches
    that no predictor learns."""
    shift = np.uint64(64 - _log2(table_hash.shape[0]))
    mask = table_hash.shape[0] - 1
    for k in range(hashes.shape[0]):
        slot = np.int64(hashes[k] >> shift)
        while table_priority[slot] >= 0 and table_hash[slot] != hashes[k]:
            slot = (slot + 1) & mask
        if table_priority[slot] < 0:  # the same name twice: its first priority stands
            table_hash[slot] = hashes[k]
            table_priority[slot] = k


@leaf_kernel
def _log2(n):
    b = 0
    while (1 << b) < n:
        b += 1
    return b


@leaf_kernel
def _priority(table_hash, table_priority, shift, h):
    mask = table_hash.shape[0] - 1
    slot = np.int64(h >> shift)
    while table_priority[slot] >= 0:
        if table_hash[slot] == h:
            return table_priority[slot]
        slot = (slot + 1) & mask
    return -1


@leaf_kernel
def _groups_part(buf, s, e):
    """The length of the Xref buf[s:e] up to its last `:`, when a valid article number
    follows it; else -1."""
    c = e
    while c > s and 48 <= buf[U(c - 1)] <= 57:
        c -= 1
    return c - s if 1 <= e - c <= MAX_DIGITS and c > s + 1 and buf[U(c - 1)] == 58 else -1


@leaf_kernel
def _xref_of(buf, s, e, table_hash, table_priority, shift, seen):
    """(owner, n_groups, group_set) of the Xref buf[s:e] (see xref_owner); the per-line
    kernels all read an Xref through this."""
    i = _xref_body(buf, s, e)
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
        p = _priority(table_hash, table_priority, shift, h)
        if p >= 0 and (best < 0 or p < best):
            best = p
    group_set = np.uint64(0)
    if n > 0:
        g = _avalanche(acc ^ np.uint64(n))
        group_set = g if g != 0 else np.uint64(1)
    return best, n, group_set


@leaf_kernel
def _xref_owner(buf, start, end, table_hash, table_priority, owner, n_groups, group_set, seen):
    shift = np.uint64(64 - _log2(table_hash.shape[0]))
    n_lines = start.shape[0]
    # Consecutive lines mostly name the same host and groups and differ only in the
    # article number at the end: a field equal to the line before's up to its last
    # `:`, with a valid number after it in both, names the same groups (the result does
    # not depend on numbers), so the result is copied instead of parsed again.
    prev_start = 0
    prev_len = -1  # of the line before's field up to its last `:` (-1: no valid number)
    for li in range(n_lines):
        prefetch_ahead(buf, start, end, li)
        s = start[li]
        e = end[li]
        this_len = _groups_part(buf, s, e)
        if this_len >= 0 and this_len == prev_len and same_bytes(buf, prev_start, s, this_len):
            owner[li] = owner[li - 1]
            n_groups[li] = n_groups[li - 1]
            group_set[li] = group_set[li - 1]
            continue
        prev_start = s
        prev_len = this_len
        owner[li], n_groups[li], group_set[li] = _xref_of(
            buf, s, e, table_hash, table_priority, shift, seen
        )


@leaf_kernel
def _xref_number(buf, start, end, group_hash, out):
    n = start.shape[0]
    for li in range(n):
        prefetch_ahead(buf, start, end, li)
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
    arr, start, end = checked_spans(buf, start, end)
    out = np.empty(len(start), np.int64)
    _parse_uints(arr, start, end, out)
    return out


def parse_dates(
    buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(epoch seconds int64, ok bool) of each Date field; epoch 0 where not ok."""
    arr, start, end = checked_spans(buf, start, end)
    epoch = np.zeros(len(start), np.int64)
    ok = np.zeros(len(start), np.bool_)
    _parse_dates(arr, start, end, epoch, ok, np.zeros((DATE_CACHE, 5), np.int64))
    return epoch, ok


def xref_owner(
    buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray, group_hashes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per line: (owner int32, n_groups int32, group_set uint64) from its Xref.

    group_hashes[k] = hash_bytes(name) of the indexed group with priority k (0 wins).
    owner is the smallest k named in the Xref (-1: none); n_groups counts the distinct
    groups named; group_set is an order-independent key of their set (0: no Xref).
    """
    arr, start, end = checked_spans(buf, start, end)
    table_hash, table_priority = group_table(group_hashes)
    n = len(start)
    owner = np.full(n, -1, np.int32)
    n_groups = np.zeros(n, np.int32)
    group_set = np.zeros(n, np.uint64)
    seen = xref_room(start, end)
    _xref_owner(arr, start, end, table_hash, table_priority, owner, n_groups, group_set, seen)
    return owner, n_groups, group_set


def group_table(group_hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The indexed groups' hashes and priorities in an open-addressing table (`_priority`)."""
    hashes = np.ascontiguousarray(group_hashes, dtype=np.uint64)
    size = 1 << max(4, (2 * len(hashes)).bit_length())
    table_hash = np.zeros(size, np.uint64)
    table_priority = np.full(size, -1, np.int32)
    _build_table(hashes, table_hash, table_priority)
    return table_hash, table_priority


def xref_room(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Room for the distinct groups of the longest Xref among the spans."""
    longest = int((end - start).max()) if len(start) else 0
    return np.zeros(longest // 2 + 1, np.uint64)  # an entry takes at least 2 bytes (`g:1 `)


def xref_number(
    buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray, group_hash: int
) -> np.ndarray:
    """The article number the Xref gives for one group (by its hash), -1 where absent."""
    arr, start, end = checked_spans(buf, start, end)
    out = np.empty(len(start), np.int64)
    _xref_number(arr, start, end, np.uint64(group_hash), out)
    return out
