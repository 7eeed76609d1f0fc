"""The subject parser: counters, file name, keys and flags of each overview line's Subject.

A few short passes over each subject's bytes (UTF-8 or not: bytes >= 0x80 count as
letters), no Python per line: the part counter from the end, the quotes, one scan for
counters, sizes and yEnc, then the identity. The rules, in the order they run:

- part counter: the LAST `(k/K)` in the subject (the yEnc segment counter);
- file name: the last non-empty `"quoted"` text that ends in a known extension, else the
  last non-empty quoted text (`"0865779767.epub" - 88,93 MB - "Title - epub"`: the
  file's, not the title's), else the last space-separated token that ends in a known
  extension (brackets around it trimmed), which may take in the words before it once
  the file counter is known (kernels.names._reach_back: words that repeat the text
  before them, a track number after a `-`, or all the words after the file counter:
  `Album (1993) - 01 - Track Words.mp3`, `[2/4] Author - Title.mobi`);
- file counter, by kind: `File i of N`, `[i/N]` (or `[i of N]`, or with mismatched brackets
  `[i/N)` and `(i/N]`), `(i/N)` other than the part counter, `{i/N}` (spaces may stand
  around the `/` of these three: `[02/ 50]`; the file's size may follow a `-` inside them:
  `[41 of 76 - 10013 kb]`), a bare `i/N` with i <= N (`- 01/20 -`, `German 01/43] -`), a
  bare `i of N` between separators outside the file name (`DivX - 28 of 48 -`); of the
  first kind present, the last one before the file name (else the first one after it; the
  last one with no name);
- identity: the subject without the name, both counters, size texts, the word yEnc and
  a bare number after the part counter (Nyuu's file size); brackets left empty are
  dropped, `-` separators and spaces collapsed, ASCII case folded; posting tags alone
  (`[PRiVATE]`, `[FULL]`, `[12345]`, `[#chan@EFNet]`) leave it empty. Its text is
  `pipelines.subjects.rules.identity_text`, which pipelines.naming shows to people.

file_key hashes the subject without its part counter (the text before the counter seeds
the hash of the text after it). Keys are 64-bit hashes (kernels.hashing) and never 0; 0
means "none". `python -m bench.subject` measures the speed. The module is long because
it is the whole parser, one rule after another over the same bytes; the file-name half
(names, stems, random tokens) is kernels.names.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from kernels._jit import leaf_kernel
from kernels.bytes import (
    U,
    checked_spans,
    digits_end,
    digits_value,
    is_digit,
    is_word,
    lower,
    spaces_back,
    spaces_end,
)
from kernels.hashing import _hash_span
from kernels.names import (  # noqa: F401 - the ext classes are part of this module's API
    _CC,
    _EXT_CLASSES,
    _EXT_CODES,
    _EXT_STRIP,
    _HOT,
    _UNIT_START,
    _WORD,
    ARCHIVE_VOL,
    AUDIO,
    DISC,
    EBOOK,
    EXECUTABLE,
    EXT_CLASS_NAMES,
    EXTENSIONS,
    IMAGE,
    NFO,
    NONE,
    NZB,
    OTHER,
    PAR2_INDEX,
    PAR2_VOL,
    RAR_FIRST,
    SFV,
    STRIPPED_EXTENSIONS,
    TEXT,
    VIDEO,
    _classify,
    _find_name,
    _random_subject,
    _random_token,
    _reach_back,
    _stem_end,
)


@dataclass(frozen=True)
class SubjectFields:
    """The parsed subject of each line; all arrays have one element a line."""

    part: np.ndarray  # int32, yEnc part k of (k/K), -1 if none
    part_total: np.ndarray  # int32
    file_index: np.ndarray  # int32, file i of [i/N], -1 if none
    file_total: np.ndarray  # int32
    name_start: np.ndarray  # int64, offsets into the buffer, -1 if no name
    name_end: np.ndarray  # int64
    file_key: np.ndarray  # uint64: the subject without the part counter
    identity_key: np.ndarray  # uint64: the release identity, 0 if empty
    stem_key: np.ndarray  # uint64: the file name's stem, 0 if no name
    ext_class: np.ndarray  # uint8, NONE..OTHER
    volume: np.ndarray  # int32, volume number, -1 if none
    random_name: np.ndarray  # bool
    random_subject: np.ndarray  # bool
    has_yenc: np.ndarray  # bool

    def __len__(self) -> int:
        return len(self.part)


# --- counters ------------------------------------------------------------------------


@leaf_kernel
def _strict_counter(buf, j, e):
    """`(k/K)` at j: (end, k, K), end -1 when there is none."""
    a = j + 1
    d = digits_end(buf, a, e)
    if not (1 <= d - a <= 9) or d >= e or buf[U(d)] != 47:
        return -1, 0, 0
    b = d + 1
    d2 = digits_end(buf, b, e)
    if not (1 <= d2 - b <= 9) or d2 >= e or buf[U(d2)] != 41:
        return -1, 0, 0
    return d2 + 1, digits_value(buf, a, d), digits_value(buf, b, d2)


@leaf_kernel
def _spaced_counter(buf, j, e):
    """`[ i/N ]`, `[i / N]` or `[i of N]` counter whose opener is at j, closed by any byte:
    (end, i, N, the closing byte); end -1 if none (the caller says which openers and
    closers pair)."""
    a = spaces_end(buf, j + 1, e)
    d = digits_end(buf, a, e)
    if not (1 <= d - a <= 9) or d >= e:
        return -1, 0, 0, 0
    b = spaces_end(buf, d, e)  # `/` with spaces or none around it, ` of ` with spaces
    if b < e and buf[U(b)] == 47:
        b = spaces_end(buf, b + 1, e)
    elif (
        b > d
        and b + 2 < e
        and lower(buf[U(b)]) == 111
        and lower(buf[U(b + 1)]) == 102
        and buf[U(b + 2)] == 32
    ):
        b = spaces_end(buf, b + 2, e)
    else:
        return -1, 0, 0, 0
    d2 = digits_end(buf, b, e)
    if not (1 <= d2 - b <= 9):
        return -1, 0, 0, 0
    k = spaces_end(buf, d2, e)
    if k < e and buf[U(k)] == 45:  # the file's size inside: `[41 of 76 - 10013 kb]`
        q = spaces_end(buf, k + 1, e)
        se = _size_at(buf, q, j, e) if q < e and is_digit(buf[U(q)]) else -1
        if se >= 0:
            k = spaces_end(buf, se, e)
    if k >= e:
        return -1, 0, 0, 0
    return k + 1, digits_value(buf, a, d), digits_value(buf, b, d2), buf[U(k)]


@leaf_kernel
def _file_of(buf, j, s, e):
    """`File i of N[:]` at j, any case: (end, i, N), end -1 if none."""
    if j > s and is_word(buf[U(j - 1)]):
        return -1, 0, 0
    if j + 4 > e:
        return -1, 0, 0
    if lower(buf[U(j + 1)]) != 105 or lower(buf[U(j + 2)]) != 108 or lower(buf[U(j + 3)]) != 101:
        return -1, 0, 0
    k, v1 = _spaced_count(buf, j + 4, e)
    if k < 0:
        return -1, 0, 0
    a = k
    k = spaces_end(buf, a, e)
    if k == a or k + 2 > e or lower(buf[U(k)]) != 111 or lower(buf[U(k + 1)]) != 102:
        return -1, 0, 0
    k, v2 = _spaced_count(buf, k + 2, e)
    if k < 0:
        return -1, 0, 0
    if k < e and buf[U(k)] == 58:
        k += 1
    return k, v1, v2


@leaf_kernel
def _spaced_count(buf, a, e):
    """One or more spaces from a, then 1-9 digits: (where the digits end, their value);
    (-1, 0) for anything else."""
    d = spaces_end(buf, a, e)
    if d == a:
        return -1, 0
    k = digits_end(buf, d, e)
    if not (1 <= k - d <= 9):
        return -1, 0
    return k, digits_value(buf, d, k)


@leaf_kernel
def _loose_counter(buf, j, s, e):
    """A bare `i/N` (i <= N) starting at the digit j: (end, i, N), end -1 if none."""
    if j > s:
        p = buf[U(j - 1)]
        if is_word(p) or p == 47 or p == 46 or p == 44 or p == 40 or p == 91 or p == 123:
            return -1, 0, 0
    d = digits_end(buf, j, e)
    if not (1 <= d - j <= 9) or d >= e or buf[U(d)] != 47:
        return -1, 0, 0
    b = d + 1
    d2 = digits_end(buf, b, e)
    if not (1 <= d2 - b <= 9):
        return -1, 0, 0
    if d2 < e:  # (a `]` may close it alone: `XviD German 01/43] - "Name.par2"`)
        n = buf[U(d2)]
        if is_word(n) or n == 47 or n == 46 or n == 44 or n == 41 or n == 125:
            return -1, 0, 0
    v1 = digits_value(buf, j, d)
    v2 = digits_value(buf, b, d2)
    if v1 > v2:
        return -1, 0, 0
    return d2, v1, v2


@leaf_kernel
def _bare_of(buf, j, s, e):
    """A bare `i of N` (i <= N) at the digit j, standing between separators: after the
    subject's start, a `-` or an opening bracket (spaces between), before its end, a `-`,
    a closing bracket, `:`, a quote, a `(k/K)` or the word yEnc (`DivX - 28 of 48 -`,
    `[01 of 84 - 64 kb]`, `"Name.nfo" - 1 of 6 (1/1)`): (end, i, N), end -1 if none. A
    title's own `Disc 5 of 5` or `Wild Russia 5 of 6 The Forest` has words around it."""
    p = spaces_back(buf, s, j)
    if p > s:
        c = buf[U(p - 1)]
        if not (c == 45 or c == 91 or c == 40 or c == 123):
            return -1, 0, 0
    d = digits_end(buf, j, e)
    if not (1 <= d - j <= 9):
        return -1, 0, 0
    k = spaces_end(buf, d, e)
    if k == d or k + 2 > e or lower(buf[U(k)]) != 111 or lower(buf[U(k + 1)]) != 102:
        return -1, 0, 0
    k, v2 = _spaced_count(buf, k + 2, e)
    if k < 0 or (k < e and is_word(buf[U(k)])):
        return -1, 0, 0
    v1 = digits_value(buf, j, d)
    if v1 > v2:
        return -1, 0, 0
    q = spaces_end(buf, k, e)
    if q < e:
        c = buf[U(q)]
        if c == 40:
            if _strict_counter(buf, q, e)[0] < 0:
                return -1, 0, 0
        elif not (
            c == 45 or c == 93 or c == 41 or c == 125 or c == 58 or c == 34
            or ((c == 89 or c == 121) and _yenc_at(buf, q, s, e))
        ):  # fmt: skip
            return -1, 0, 0
    return k, v1, v2


# --- sizes and the word yEnc ------------------------------------------------------

_UNITS = ("bytes", "kib", "mib", "gib", "tib", "kb", "mb", "gb", "tb", "b")
_UNIT_BYTES = np.zeros((len(_UNITS), 5), dtype=np.uint8)
_UNIT_LENS = np.array([len(u) for u in _UNITS], dtype=np.int64)
for _i, _u in enumerate(_UNITS):
    _UNIT_BYTES[_i, : len(_u)] = np.frombuffer(_u.encode(), dtype=np.uint8)


@leaf_kernel
def _size_at(buf, j, s, e):
    """End of a size text (`1.46 GB`, `12,345 KB`) starting at the digit j, or -1."""
    if j > s:
        p = buf[U(j - 1)]
        if is_word(p) or p == 46 or p == 44:
            return -1
    k = digits_end(buf, j, e)
    while k + 1 < e and (buf[U(k)] == 46 or buf[U(k)] == 44) and is_digit(buf[U(k + 1)]):
        k = digits_end(buf, k + 1, e)
    k2 = k + 1 if k < e and buf[U(k)] == 32 else k
    if k2 >= e or not _CC[buf[U(k2)]] & _UNIT_START:
        return -1
    for u in range(_UNIT_LENS.shape[0]):
        n = _UNIT_LENS[u]
        if k2 + n > e:
            continue
        ok = True
        for m in range(n):
            if lower(buf[U(k2 + m)]) != _UNIT_BYTES[u, m]:
                ok = False
                break
        if ok and (k2 + n == e or not is_word(buf[U(k2 + n)])):
            return k2 + n
    return -1


@leaf_kernel
def _yenc_at(buf, j, s, e):
    if j + 4 > e or (j > s and is_word(buf[U(j - 1)])):
        return False
    if lower(buf[U(j + 1)]) != 101 or lower(buf[U(j + 2)]) != 110 or lower(buf[U(j + 3)]) != 99:
        return False
    return j + 4 == e or not is_word(buf[U(j + 4)])


# --- the identity -------------------------------------------------------------------


@leaf_kernel
def _identity(buf, s, e, removed, out, text):
    """Write the normalised identity of buf[s:e] (removed[U(k)] masks byte s+k) to text.

    Returns its length. `out` is scratch for the first step (empty brackets dropped).
    """
    n = 0
    for i in range(s, e):
        c = np.uint8(32) if removed[U(i - s)] else buf[U(i)]
        if c == 41 or c == 93 or c == 125:
            opener = 40 if c == 41 else (91 if c == 93 else 123)
            j = n - 1
            while j >= 0 and out[U(j)] == 32:
                j -= 1
            if j >= 0 and out[U(j)] == opener:
                n = j
                out[U(n)] = 32
                n += 1
                continue
        out[U(n)] = c
        n += 1
    t = 0
    pending = False
    i = 0
    while i < n:
        if out[U(i)] == 32:
            i += 1
            continue
        a = i
        dashes = True
        while i < n and out[U(i)] != 32:
            if out[U(i)] != 45:
                dashes = False
            i += 1
        if dashes:
            pending = t > 0
            continue
        if t > 0:
            text[U(t)] = 32
            t += 1
            if pending:
                text[U(t)] = 45
                text[U(t + 1)] = 32
                t += 2
                pending = False
        for k in range(a, i):
            text[U(t)] = lower(out[U(k)])
            t += 1
    return t


_TAG_WORDS = ("private", "full", "repost", "req", "request")
_TAG_WORD_BYTES = np.zeros((len(_TAG_WORDS), 8), dtype=np.uint8)
_TAG_WORD_LENS = np.array([len(w) for w in _TAG_WORDS], dtype=np.int64)
for _i, _w in enumerate(_TAG_WORDS):
    _TAG_WORD_BYTES[_i, : len(_w)] = np.frombuffer(_w.encode(), dtype=np.uint8)


@leaf_kernel
def _is_tag(text, a, b):
    """Is text[a:b] (a bracket's content, spaces trimmed) a posting tag, not a title?
    `private`, `full`, `repost`, `req`, `request`, `12345`/`####`, `#channel`, `x@efnet`."""
    if b <= a:
        return False
    if text[U(a)] == 35:
        return True
    number = True
    for i in range(a, b):
        c = text[U(i)]
        if c == 64:
            return True
        if not (48 <= c <= 57 or c == 35):
            number = False
    if number:
        return True
    for w in range(_TAG_WORD_LENS.shape[0]):
        n = _TAG_WORD_LENS[w]
        if b - a == n:
            same = True
            for k in range(n):
                if text[U(a + k)] != _TAG_WORD_BYTES[w, k]:
                    same = False
                    break
            if same:
                return True
    return False


@leaf_kernel
def _only_tags(text, t):
    """Is the identity text[0:t] nothing but posting tags in brackets and separators?"""
    i = 0
    while i < t:
        c = text[U(i)]
        if c == 32 or c == 45:
            i += 1
            continue
        if c != 91:
            return False
        j = i + 1
        while j < t and text[U(j)] != 93 and text[U(j)] != 91:
            j += 1
        if j >= t or text[U(j)] != 93:
            return False
        a = spaces_end(text, i + 1, j)
        b = spaces_back(text, a, j)
        if not _is_tag(text, a, b):
            return False
        i = j + 1
    return True


@leaf_kernel
def _key(arr, a, b, seed):
    h = _hash_span(arr, a, b, seed)
    if h == 0:
        return np.uint64(1)
    return h


@leaf_kernel
def _parse(buf, start, end, codes, classes, strips, out, removed, scratch, text, unquoted):
    """The parse of each line into `out`. `unquoted` an array: the lines whose file name
    has no quotes are flagged there, their names taken as their last token; None: such a
    name takes in the words before it (_reach_back). parse_subjects runs the first, then
    the second over the flagged lines: numba compiles each without the other's branch
    (`is None` of an argument), and the reach back's call alone in this loop slows every
    line by ~10 %."""
    (
        part,
        part_total,
        file_index,
        file_total,
        name_start,
        name_end,
        file_key,
        identity_key,
        stem_key,
        ext_class,
        volume,
        random_name,
        random_subject,
        has_yenc,
    ) = out
    n = start.shape[0]
    for li in range(n):
        s = start[li]
        e = end[li]
        # the part counter: the last strict (k/K)
        ps = -1
        pe = -1
        for j in range(e - 1, s - 1, -1):
            if buf[U(j)] == 40:
                ce, v1, v2 = _strict_counter(buf, j, e)
                if ce >= 0:
                    ps = j
                    pe = ce
                    part[li] = v1
                    part_total[li] = v2
                    break
        ns, ne, rs, rend = _find_name(buf, s, e, codes, classes, strips)
        # file counter candidates: per kind the first, the last, the last before the name
        best_kind = 6
        c_first_s = -1
        c_first_e = -1
        c_first_1 = 0
        c_first_2 = 0
        c_last_s = -1
        c_last_e = -1
        c_last_1 = 0
        c_last_2 = 0
        c_before_s = -1
        c_before_e = -1
        c_before_1 = 0
        c_before_2 = 0
        yenc = False
        for k in range(e - s):
            removed[U(k)] = False
        prev = 0
        for j in range(s, e):
            c = buf[U(j)]
            f = _CC[U(c)]
            inside_word = f & prev & _WORD
            prev = f
            # counters, sizes and yEnc never start inside a word (brackets are not words)
            if not f & _HOT or inside_word:
                continue
            kind = 6
            ce = -1
            v1 = 0
            v2 = 0
            if c == 70 or c == 102:
                ce, v1, v2 = _file_of(buf, j, s, e)
                kind = 0
            elif c == 91:
                ce, v1, v2, closer = _spaced_counter(buf, j, e)
                if closer != 93 and closer != 41:  # `[i/N]`, or mismatched `[i/N)`
                    ce = -1
                kind = 1
            elif c == 40:
                if j != ps:  # the part counter is a `(k/K)`: no file counter there
                    ce, v1, v2, closer = _spaced_counter(buf, j, e)
                    if closer == 93:  # mismatched `(i/N]`: the `[i/N]` kind
                        kind = 1
                    elif closer == 41:
                        kind = 2
                    else:
                        ce = -1
            elif c == 123:
                ce, v1, v2, closer = _spaced_counter(buf, j, e)
                if closer != 125:
                    ce = -1
                kind = 3
            elif 48 <= c <= 57:
                # the byte after the digits says which of the two can match here
                d = digits_end(buf, j, e)
                nxt = buf[U(d)] if d < e else 0
                if nxt == 47:
                    ce, v1, v2 = _loose_counter(buf, j, s, e)
                    kind = 4
                elif nxt == 46 or nxt == 44 or nxt == 32 or _CC[nxt] & _UNIT_START:
                    if nxt == 32 and not rs <= j < rend:  # a bare `i of N`, not the name's
                        ce, v1, v2 = _bare_of(buf, j, s, e)
                        kind = 5
                    se = _size_at(buf, j, s, e)
                    if se >= 0:
                        for k in range(j - s, se - s):
                            removed[U(k)] = True
            elif (c == 89 or c == 121) and _yenc_at(buf, j, s, e):
                yenc = True
                for k in range(j - s, j - s + 4):
                    removed[U(k)] = True
            if ce >= 0 and kind <= best_kind:
                if kind < best_kind:
                    best_kind = kind
                    c_first_s = -1
                    c_before_s = -1
                if c_first_s < 0:
                    c_first_s = j
                    c_first_e = ce
                    c_first_1 = v1
                    c_first_2 = v2
                c_last_s = j
                c_last_e = ce
                c_last_1 = v1
                c_last_2 = v2
                if rs >= 0 and ce <= rs:
                    c_before_s = j
                    c_before_e = ce
                    c_before_1 = v1
                    c_before_2 = v2
        has_yenc[li] = yenc
        cs = -1
        cend = -1
        if best_kind < 6:
            if rs < 0:
                cs, cend, fi, ft = c_last_s, c_last_e, c_last_1, c_last_2
            elif c_before_s >= 0:
                cs, cend, fi, ft = c_before_s, c_before_e, c_before_1, c_before_2
            else:
                cs, cend, fi, ft = c_first_s, c_first_e, c_first_1, c_first_2
            file_index[li] = fi
            file_total[li] = ft
        if ns >= 0 and rs == ns:  # not quoted: its words before its last token, maybe
            if unquoted is not None:
                unquoted[U(li)] = True
            else:
                ns = _reach_back(buf, s, ns, ne, ps, pe, cs, cend, codes, classes, strips)
                rs = ns
        # file key: the subject without its part counter
        if ps >= 0:
            file_key[li] = _key(buf, pe, e, _hash_span(buf, s, ps, np.uint64(0)))
        else:
            file_key[li] = _key(buf, s, e, np.uint64(0))
        # the name: class, volume, stem
        if ns >= 0:
            name_start[li] = ns
            name_end[li] = ne
            cls, vol, strip = _classify(buf, ns, ne, codes, classes, strips)
            ext_class[li] = cls
            volume[li] = vol
            st_end = _stem_end(buf, ns, ne - strip, False, codes, classes, strips) if strip else ne
            if st_end > ns:
                for k in range(ns, st_end):
                    scratch[U(k - ns)] = lower(buf[U(k)])
                stem_key[li] = _key(scratch, 0, st_end - ns, np.uint64(0))
            random_name[li] = _random_token(buf, ns, st_end)
        else:
            # no name: is the subject (without its part counter) one random token?
            first = -1
            last = -1
            gap = False
            inner_space = False
            for k in range(s, e):
                if ps <= k < pe:
                    continue
                if buf[U(k)] == 32:
                    gap = first >= 0
                else:
                    if gap:
                        inner_space = True
                        break
                    if first < 0:
                        first = k
                    last = k
            if first >= 0 and not inner_space:
                m = 0
                for k in range(first, last + 1):
                    if not ps <= k < pe:
                        scratch[U(m)] = buf[U(k)]
                        m += 1
                random_name[li] = _random_token(scratch, 0, m)
        # the identity: mark what is file-specific, then normalise and hash
        for span_s, span_e in ((ps, pe), (cs, cend), (rs, rend)):
            if span_s >= 0:
                for k in range(span_s - s, span_e - s):
                    removed[U(k)] = True
        if ps >= 0:  # Nyuu's file size: bare numbers after the part counter
            k = pe
            while k < e:
                if buf[U(k)] == 32:
                    k += 1
                    continue
                a = k
                digits = True
                while k < e and buf[U(k)] != 32:
                    if not is_digit(buf[U(k)]):
                        digits = False
                    k += 1
                if digits:
                    for q in range(a - s, k - s):
                        removed[U(q)] = True
        t = _identity(buf, s, e, removed, scratch, text)
        if t > 0 and not _only_tags(text, t):
            identity_key[li] = _key(text, 0, t, np.uint64(0))
        if part[li] < 0 and file_index[li] < 0:
            random_subject[li] = _random_subject(buf, s, e)


def parse_subjects(buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray) -> SubjectFields:
    """Parse the subject span buf[start[i]:end[i]] of every line."""
    arr, start, end = checked_spans(buf, start, end)
    out = _fields(len(start))
    longest = int((end - start).max()) if len(start) else 0
    removed = np.zeros(longest + 1, np.bool_)
    scratch = np.empty(longest + 8, np.uint8)
    text = np.empty(longest + 8, np.uint8)
    unquoted = np.zeros(len(start), np.bool_)
    tables = (_EXT_CODES, _EXT_CLASSES, _EXT_STRIP)
    _parse(arr, start, end, *tables, _arrays(out), removed, scratch, text, unquoted)
    again = np.flatnonzero(unquoted)
    if len(again):  # the file names without quotes, parsed again reaching back
        names = _fields(len(again))
        _parse(arr, start[again], end[again], *tables, _arrays(names), removed, scratch, text, None)
        for f in fields(SubjectFields):
            getattr(out, f.name)[again] = getattr(names, f.name)
    return out


def _fields(n: int) -> SubjectFields:
    """The fields of n lines, each as it is when the line holds none of it."""
    return SubjectFields(
        part=np.full(n, -1, np.int32),
        part_total=np.full(n, -1, np.int32),
        file_index=np.full(n, -1, np.int32),
        file_total=np.full(n, -1, np.int32),
        name_start=np.full(n, -1, np.int64),
        name_end=np.full(n, -1, np.int64),
        file_key=np.zeros(n, np.uint64),
        identity_key=np.zeros(n, np.uint64),
        stem_key=np.zeros(n, np.uint64),
        ext_class=np.zeros(n, np.uint8),
        volume=np.full(n, -1, np.int32),
        random_name=np.zeros(n, np.bool_),
        random_subject=np.zeros(n, np.bool_),
        has_yenc=np.zeros(n, np.bool_),
    )


def _arrays(f: SubjectFields) -> tuple[np.ndarray, ...]:
    return tuple(getattr(f, x.name) for x in fields(SubjectFields))


def parse_subject_list(subjects: list[bytes]) -> SubjectFields:
    """Convenience for tests and tools: parse Python bytes (offsets are into their join)."""
    buf = b"".join(subjects)
    ends = np.cumsum([len(x) for x in subjects], dtype=np.int64)
    starts = ends - np.array([len(x) for x in subjects], dtype=np.int64)
    return parse_subjects(buf, starts, ends)


# --- RFC 2047 encoded words -----------------------------------------------------------


@leaf_kernel
def _flag_encoded(buf, start, end, out):
    # Both `=?` and `?=` hold a `?`: one compare a byte, the neighbours only at a `?`.
    for li in range(start.shape[0]):
        s = start[li]
        e = end[li]
        first = -1  # where the first `=?` starts
        flag = False
        for q in range(s, e):
            if buf[U(q)] != 63:
                continue
            if first < 0 and q > s and buf[U(q - 1)] == 61:  # =? at q - 1
                first = q - 1
            elif first >= 0 and q >= first + 2 and q + 1 < e and buf[U(q + 1)] == 61:  # ?=
                flag = True
                break
        out[U(li)] = flag


def flag_encoded_words(buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Which subjects hold `=?` followed later by `?=`: those that may need RFC 2047 decoding."""
    arr, start, end = checked_spans(buf, start, end)
    out = np.zeros(len(start), np.bool_)
    _flag_encoded(arr, start, end, out)
    return out
