"""The subject parser: counters, file name, keys and flags of each overview line's Subject.

One pass per subject over its bytes (UTF-8 or not: bytes >= 0x80 count as letters),
no Python per line. The rules, in the order they run:

- part counter: the LAST `(k/K)` in the subject (the yEnc segment counter);
- file name: the last non-empty `"quoted"` text, else the last space-separated token
  that ends in a known extension (brackets around it trimmed);
- file counter, by kind: `File i of N`, `[i/N]` (or `[i of N]`), `(i/N)` other than the part
  counter, `{i/N}`, a bare `i/N` with i <= N (`- 01/20 -`); of the first kind present, the last
  one before the file name (else the first one after it; the last one with no name);
- identity: the subject without the name, both counters, size texts, the word yEnc and
  a bare number after the part counter (Nyuu's file size); brackets left empty are
  dropped, `-` separators and spaces collapsed, ASCII case folded. Its text is
  `kernels.reference.subject.identity_text`, which naming.py shows to people.

Keys are 64-bit hashes (kernels.hashing) and never 0; 0 means "none".
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from kernels.hashing import _hash_span, as_buffer, check_spans, leaf_kernel

# What a file is, from its name (ext_class).
NONE = 0  # no file name
RAR_FIRST = 1  # first archive volume: .part01.rar, .rar, .7z, .7z.001, .001, .zip
ARCHIVE_VOL = 2  # later volumes: .part02.rar, .r00, .z01, .7z.002, .002
PAR2_INDEX = 3
PAR2_VOL = 4
NFO = 5
SFV = 6
NZB = 7
VIDEO = 8
AUDIO = 9
IMAGE = 10
EBOOK = 11
DISC = 12
EXECUTABLE = 13
TEXT = 14
OTHER = 15  # a name with no known extension
EXT_CLASS_NAMES = (
    *("none", "rar_first", "archive_vol", "par2_index", "par2_vol", "nfo", "sfv", "nzb"),
    *("video", "audio", "image", "ebook", "disc", "executable", "text", "other"),
)

_BY_CLASS = {
    RAR_FIRST: "rar 7z zip",
    PAR2_INDEX: "par2",
    NFO: "nfo",
    SFV: "sfv",
    NZB: "nzb",
    VIDEO: "mkv mp4 avi m4v ts wmv mpg mpeg mov divx xvid vob m2ts mts webm flv 3gp ogm rm rmvb",
    AUDIO: "mp3 flac m4a ogg wav aac ape wma opus m4b alac aiff dts ac3 mka",
    IMAGE: "jpg jpeg png gif bmp tif tiff webp heic",
    EBOOK: "epub pdf mobi azw3 azw cbr cbz cb7 djvu lit fb2 prc",
    DISC: "iso img bin cue nrg mdf mds ccd vcd",
    EXECUTABLE: "exe dmg apk msi bat jar deb rpm pkg xapk ipa",
    TEXT: "txt srt sub idx ssa ass md5 sha1 url htm html log diz m3u m3u8 pls",
}
EXTENSIONS: dict[str, int] = {e: c for c, names in _BY_CLASS.items() for e in names.split()}
# Suffixes a file's stem leaves out (with .par2, .rar and volumes): every known extension,
# so that `Name.mkv`, `Name.par2`, `Name.vol03+04.par2` and `Name.nfo`, posted with nothing
# in the subject but the file part, share the stem `Name` and are one release.
STRIPPED_EXTENSIONS = frozenset(EXTENSIONS)


def _ext_code(ext: str) -> int:
    code = 0
    for i, ch in enumerate(ext.encode()):
        code |= ch << (8 * i)
    return code


_table = sorted((_ext_code(e), c, e in STRIPPED_EXTENSIONS) for e, c in EXTENSIONS.items())
_EXT_CODES = np.array([t[0] for t in _table], dtype=np.int64)
_EXT_CLASSES = np.array([t[1] for t in _table], dtype=np.uint8)
_EXT_STRIP = np.array([t[2] for t in _table], dtype=np.bool_)


# Byte classes, one table lookup instead of a chain of comparisons in the hot loops.
_DIGIT, _UPPER, _LOWER, _HEX, _VOWEL, _HOT, _WORD, _UNIT_START = 1, 2, 4, 8, 16, 32, 64, 128
_CC = np.zeros(256, dtype=np.uint8)
for _c in range(256):
    _f = 0
    if 48 <= _c <= 57:
        _f |= _DIGIT | _HEX
    elif 65 <= _c <= 90:
        _f |= _UPPER | (_HEX if _c <= 70 else 0)
    elif 97 <= _c <= 122:
        _f |= _LOWER | (_HEX if _c <= 102 else 0)
    if chr(_c) in "aeiouyAEIOUY":
        _f |= _VOWEL
    if chr(_c) in "0123456789Ff[({Yy":  # where a counter, size text or yEnc can start
        _f |= _HOT
    if _f & (_DIGIT | _UPPER | _LOWER) or _c == 95 or _c >= 128:
        _f |= _WORD
    if chr(_c) in "bkmgtBKMGT":  # the first letter of a size unit
        _f |= _UNIT_START
    _CC[_c] = _f


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


# --- byte helpers -----------------------------------------------------------------


@leaf_kernel
def _is_digit(c):
    return 48 <= c <= 57


@leaf_kernel
def _is_word(c):
    # letters, digits, `_` and any UTF-8 byte: what a word boundary must not cut
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c == 95 or c >= 128


@leaf_kernel
def _is_alnum(c):
    return (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122)


@leaf_kernel
def _lower(c):
    if 65 <= c <= 90:
        return c + 32
    return c


@leaf_kernel
def _is_hex(c):
    return (48 <= c <= 57) or (65 <= c <= 70) or (97 <= c <= 102)


@leaf_kernel
def _is_vowel(c):
    c = _lower(c)
    return c == 97 or c == 101 or c == 105 or c == 111 or c == 117 or c == 121


@leaf_kernel
def _digit_end(buf, i, e):
    while i < e and 48 <= buf[i] <= 57:
        i += 1
    return i


@leaf_kernel
def _value(buf, a, b):
    v = 0
    for i in range(a, b):
        v = v * 10 + (buf[i] - 48)
    return v


@leaf_kernel
def _digits_back(buf, lo, i, limit):
    """Start of the run of digits that ends right before i (not below lo).

    Stops after limit + 1 digits: callers only need to know the run is not longer.
    """
    j = i
    lo = max(lo, i - limit - 1)
    while j > lo and 48 <= buf[j - 1] <= 57:
        j -= 1
    return j


@leaf_kernel
def _ends_ci(buf, a, b, word):
    """Does buf[a:b] end with the lower-case ASCII bytes of word, in any case?"""
    n = word.shape[0]
    ok = b - a >= n
    k = 0
    while ok and k < n:
        ok = _lower(buf[b - n + k]) == word[k]
        k += 1
    return ok


_DOT_PAR2 = np.frombuffer(b".par2", dtype=np.uint8)
_DOT_RAR = np.frombuffer(b".rar", dtype=np.uint8)
_DOT_VOL = np.frombuffer(b".vol", dtype=np.uint8)
_DOT_PART = np.frombuffer(b".part", dtype=np.uint8)
_DOT_7Z = np.frombuffer(b".7z", dtype=np.uint8)
_PRIVATE = np.frombuffer(b"[private]", dtype=np.uint8)


# --- file names ---------------------------------------------------------------------


@leaf_kernel
def _classify(buf, a, b, codes, classes, strips):
    """(ext_class, volume, suffix length to strip) of the name buf[a:b]."""
    if _ends_ci(buf, a, b, _DOT_PAR2):
        q = b - 5
        d2 = _digits_back(buf, a, q, 6)
        if 1 <= q - d2 <= 6 and d2 - 1 > a and (buf[d2 - 1] == 43 or buf[d2 - 1] == 45):
            d1 = _digits_back(buf, a, d2 - 1, 6)
            if 1 <= d2 - 1 - d1 <= 6 and _ends_ci(buf, a, d1, _DOT_VOL):
                return PAR2_VOL, _value(buf, d1, d2 - 1), b - (d1 - 4)
        return PAR2_INDEX, -1, 5
    if _ends_ci(buf, a, b, _DOT_RAR):
        q = b - 4
        d = _digits_back(buf, a, q, 4)
        if 1 <= q - d <= 4 and _ends_ci(buf, a, d, _DOT_PART):
            vol = _value(buf, d, q)
            return (RAR_FIRST if vol == 1 else ARCHIVE_VOL), vol, b - (d - 5)
        return RAR_FIRST, -1, 4
    d = _digits_back(buf, a, b, 3)
    nd = b - d
    if nd == 3 and d - 1 >= a and buf[d - 1] == 46:
        vol = _value(buf, d, b)
        cls = RAR_FIRST if vol == 1 else ARCHIVE_VOL
        if _ends_ci(buf, a, d - 1, _DOT_7Z):
            return cls, vol, 7
        return cls, vol, 4
    if 2 <= nd <= 3 and d - 2 >= a and buf[d - 2] == 46 and _lower(buf[d - 1]) == 114:
        return ARCHIVE_VOL, _value(buf, d, b), nd + 2
    if nd == 2 and d - 2 >= a and buf[d - 2] == 46 and _lower(buf[d - 1]) == 122:
        return ARCHIVE_VOL, _value(buf, d, b), 4
    # a plain extension: 2-4 ASCII letters/digits after the last dot
    j = b
    while j > a and b - j <= 4 and _is_alnum(buf[j - 1]):
        j -= 1
    if 2 <= b - j <= 4 and j - 1 >= a and buf[j - 1] == 46:
        code = np.int64(0)
        for k in range(b - j):
            code |= np.int64(_lower(buf[j + k])) << np.int64(8 * k)
        lo = 0
        hi = codes.shape[0]
        while lo < hi:
            mid = (lo + hi) >> 1
            if codes[mid] < code:
                lo = mid + 1
            else:
                hi = mid
        if lo < codes.shape[0] and codes[lo] == code:
            return np.int64(classes[lo]), -1, (b - j + 1) if strips[lo] else 0
    return OTHER, -1, 0


@leaf_kernel
def _stem_end(buf, a, b, codes, classes, strips):
    while b > a:
        strip = _classify(buf, a, b, codes, classes, strips)[2]
        if strip == 0:
            break
        b -= strip
    return b


@leaf_kernel
def _find_name(buf, s, e, codes, classes, strips):
    """(name_start, name_end, removal_start, removal_end), all -1 when there is none."""
    q_open = -1
    ns = -1
    ne = -1
    rs = -1
    rend = -1
    for i in range(s, e):
        if buf[i] == 34:
            if q_open < 0:
                q_open = i
            else:
                if i - q_open > 1:
                    ns = q_open + 1
                    ne = i
                    rs = q_open
                    rend = i + 1
                q_open = -1
    if ns >= 0:
        return ns, ne, rs, rend
    i = s
    while i < e:
        if buf[i] == 32 or buf[i] == 34:
            i += 1
            continue
        a = i
        while i < e and buf[i] != 32 and buf[i] != 34:
            i += 1
        b = i
        while a < b and (buf[a] == 40 or buf[a] == 91 or buf[a] == 123 or buf[a] == 60):
            a += 1
        while b > a:
            c = buf[b - 1]
            if c == 41 or c == 93 or c == 125 or c == 62 or c == 58 or c == 44 or c == 59:
                b -= 1
            else:
                break
        if a < b and _classify(buf, a, b, codes, classes, strips)[0] != OTHER:
            ns = a
            ne = b
    return ns, ne, ns, ne


# --- counters ------------------------------------------------------------------------


@leaf_kernel
def _strict_counter(buf, j, e):
    """`(k/K)` at j: (end, k, K), end -1 when there is none."""
    a = j + 1
    d = _digit_end(buf, a, e)
    if not (1 <= d - a <= 9) or d >= e or buf[d] != 47:
        return -1, 0, 0
    b = d + 1
    d2 = _digit_end(buf, b, e)
    if not (1 <= d2 - b <= 9) or d2 >= e or buf[d2] != 41:
        return -1, 0, 0
    return d2 + 1, _value(buf, a, d), _value(buf, b, d2)


@leaf_kernel
def _spaced_counter(buf, j, e, closer):
    """`[ i/N ]` or `[i of N]` counter whose opener is at j: (end, i, N), end -1 if none."""
    a = j + 1
    while a < e and buf[a] == 32:
        a += 1
    d = _digit_end(buf, a, e)
    if not (1 <= d - a <= 9) or d >= e:
        return -1, 0, 0
    if buf[d] == 47:
        b = d + 1
    elif buf[d] == 32:
        b = d
        while b < e and buf[b] == 32:
            b += 1
        if b + 2 >= e or _lower(buf[b]) != 111 or _lower(buf[b + 1]) != 102 or buf[b + 2] != 32:
            return -1, 0, 0
        b += 2
        while b < e and buf[b] == 32:
            b += 1
    else:
        return -1, 0, 0
    d2 = _digit_end(buf, b, e)
    if not (1 <= d2 - b <= 9):
        return -1, 0, 0
    k = d2
    while k < e and buf[k] == 32:
        k += 1
    if k >= e or buf[k] != closer:
        return -1, 0, 0
    return k + 1, _value(buf, a, d), _value(buf, b, d2)


@leaf_kernel
def _file_of(buf, j, s, e):
    """`File i of N[:]` at j, any case: (end, i, N), end -1 if none."""
    if j > s and _is_word(buf[j - 1]):
        return -1, 0, 0
    if j + 4 > e:
        return -1, 0, 0
    if _lower(buf[j + 1]) != 105 or _lower(buf[j + 2]) != 108 or _lower(buf[j + 3]) != 101:
        return -1, 0, 0
    k = j + 4
    a = k
    while k < e and buf[k] == 32:
        k += 1
    if k == a:
        return -1, 0, 0
    d1 = k
    k = _digit_end(buf, d1, e)
    if not (1 <= k - d1 <= 9):
        return -1, 0, 0
    v1 = _value(buf, d1, k)
    a = k
    while k < e and buf[k] == 32:
        k += 1
    if k == a or k + 2 > e or _lower(buf[k]) != 111 or _lower(buf[k + 1]) != 102:
        return -1, 0, 0
    k += 2
    a = k
    while k < e and buf[k] == 32:
        k += 1
    if k == a:
        return -1, 0, 0
    d2 = k
    k = _digit_end(buf, d2, e)
    if not (1 <= k - d2 <= 9):
        return -1, 0, 0
    v2 = _value(buf, d2, k)
    if k < e and buf[k] == 58:
        k += 1
    return k, v1, v2


@leaf_kernel
def _loose_counter(buf, j, s, e):
    """A bare `i/N` (i <= N) starting at the digit j: (end, i, N), end -1 if none."""
    if j > s:
        p = buf[j - 1]
        if _is_word(p) or p == 47 or p == 46 or p == 44 or p == 40 or p == 91 or p == 123:
            return -1, 0, 0
    d = _digit_end(buf, j, e)
    if not (1 <= d - j <= 9) or d >= e or buf[d] != 47:
        return -1, 0, 0
    b = d + 1
    d2 = _digit_end(buf, b, e)
    if not (1 <= d2 - b <= 9):
        return -1, 0, 0
    if d2 < e:
        n = buf[d2]
        if _is_word(n) or n == 47 or n == 46 or n == 44 or n == 41 or n == 93 or n == 125:
            return -1, 0, 0
    v1 = _value(buf, j, d)
    v2 = _value(buf, b, d2)
    if v1 > v2:
        return -1, 0, 0
    return d2, v1, v2


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
        p = buf[j - 1]
        if _is_word(p) or p == 46 or p == 44:
            return -1
    k = _digit_end(buf, j, e)
    while k + 1 < e and (buf[k] == 46 or buf[k] == 44) and _is_digit(buf[k + 1]):
        k = _digit_end(buf, k + 1, e)
    k2 = k + 1 if k < e and buf[k] == 32 else k
    if k2 >= e or not _CC[buf[k2]] & _UNIT_START:
        return -1
    for u in range(_UNIT_LENS.shape[0]):
        n = _UNIT_LENS[u]
        if k2 + n > e:
            continue
        ok = True
        for m in range(n):
            if _lower(buf[k2 + m]) != _UNIT_BYTES[u, m]:
                ok = False
                break
        if ok and (k2 + n == e or not _is_word(buf[k2 + n])):
            return k2 + n
    return -1


@leaf_kernel
def _yenc_at(buf, j, s, e):
    if j + 4 > e or (j > s and _is_word(buf[j - 1])):
        return False
    if _lower(buf[j + 1]) != 101 or _lower(buf[j + 2]) != 110 or _lower(buf[j + 3]) != 99:
        return False
    return j + 4 == e or not _is_word(buf[j + 4])


# --- random names -----------------------------------------------------------------


@leaf_kernel
def _wordlike(buf, a, b):
    n = b - a
    if n < 3:
        return False
    vowels = 0
    run = 0
    longest = 0
    for i in range(a, b):
        if _CC[buf[i]] & _VOWEL:
            vowels += 1
            run = 0
        else:
            run += 1
            longest = max(longest, run)
    return vowels * 5 >= n and longest <= 4


@leaf_kernel
def _is_uuid(buf, a, b):
    if b - a != 36:
        return False
    for i in range(36):
        c = buf[a + i]
        if i == 8 or i == 13 or i == 18 or i == 23:
            if c != 45:
                return False
        elif not _CC[c] & _HEX:
            return False
    return True


@leaf_kernel
def _random_token(buf, a, b):
    """Does buf[a:b] look like a random string (hex hash, high-entropy token)?"""
    n = b - a
    if n < 12:
        return False
    all_hex = True
    runs = 1
    letters = 0
    prev = 0
    for i in range(a, b):
        f = _CC[buf[i]]
        cls = f & 7
        if cls == 0:
            # not a letter or digit (UTF-8 letters included: a title in another script)
            return _is_uuid(buf, a, b)
        if i > a and cls != prev:
            runs += 1
        prev = cls
        if cls != _DIGIT:
            letters += 1
        if not f & _HEX:
            all_hex = False
    if n >= 16 and all_hex:
        return True
    # words: letter runs split where lower case meets upper case (CamelCase)
    wordlike = 0
    i = a
    while i < b:
        if _CC[buf[i]] & _DIGIT:
            i += 1
            continue
        w = i
        while i < b and _CC[buf[i]] & _UPPER:
            i += 1
        while i < b and _CC[buf[i]] & _LOWER:
            i += 1
        if _wordlike(buf, w, i):
            wordlike += i - w
    if runs >= 6 and runs * 3 >= n and wordlike * 4 < letters * 3:
        return True
    return letters >= 8 and wordlike * 5 < letters * 2


@leaf_kernel
def _random_subject(buf, s, e):
    while s < e and buf[s] == 32:
        s += 1
    while e > s and buf[e - 1] == 32:
        e -= 1
    private = False
    if e - s >= 9:
        private = True
        for k in range(9):
            if _lower(buf[s + k]) != _PRIVATE[k]:
                private = False
                break
    if private:
        s += 9
        while s < e and buf[s] == 32:
            s += 1
    if e - s < 16:
        return False
    hexes = 0
    hexdash = True
    b64 = True
    for i in range(s, e):
        c = buf[i]
        if c == 32:
            return False
        if _is_hex(c):
            hexes += 1
        elif c != 45:
            hexdash = False
        if not (_is_alnum(c) or c == 43 or c == 47 or c == 61):
            b64 = False
    if hexdash and hexes >= 16:
        return True
    if b64:
        if private:
            return True
        while e > s and buf[e - 1] == 61:
            e -= 1
        return _random_token(buf, s, e)
    return False


# --- the identity -------------------------------------------------------------------


@leaf_kernel
def _identity(buf, s, e, removed, out, text):
    """Write the normalised identity of buf[s:e] (removed[k] masks byte s+k) to text.

    Returns its length. `out` is scratch for the first step (empty brackets dropped).
    """
    n = 0
    for i in range(s, e):
        c = np.uint8(32) if removed[i - s] else buf[i]
        if c == 41 or c == 93 or c == 125:
            opener = 40 if c == 41 else (91 if c == 93 else 123)
            j = n - 1
            while j >= 0 and out[j] == 32:
                j -= 1
            if j >= 0 and out[j] == opener:
                n = j
                out[n] = 32
                n += 1
                continue
        out[n] = c
        n += 1
    t = 0
    pending = False
    i = 0
    while i < n:
        if out[i] == 32:
            i += 1
            continue
        a = i
        dashes = True
        while i < n and out[i] != 32:
            if out[i] != 45:
                dashes = False
            i += 1
        if dashes:
            pending = t > 0
            continue
        if t > 0:
            text[t] = 32
            t += 1
            if pending:
                text[t] = 45
                text[t + 1] = 32
                t += 2
                pending = False
        for k in range(a, i):
            text[t] = _lower(out[k])
            t += 1
    return t


@leaf_kernel
def _key(arr, a, b, seed):
    h = _hash_span(arr, a, b, seed)
    if h == 0:
        return np.uint64(1)
    return h


@leaf_kernel
def _parse(buf, start, end, codes, classes, strips, out, removed, scratch, text):
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
            if buf[j] == 40:
                ce, v1, v2 = _strict_counter(buf, j, e)
                if ce >= 0:
                    ps = j
                    pe = ce
                    part[li] = v1
                    part_total[li] = v2
                    break
        ns, ne, rs, rend = _find_name(buf, s, e, codes, classes, strips)
        # file counter candidates: per kind the first, the last, the last before the name
        best_kind = 5
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
            removed[k] = False
        prev = 0
        for j in range(s, e):
            c = buf[j]
            f = _CC[c]
            inside_word = f & prev & _WORD
            prev = f
            # counters, sizes and yEnc never start inside a word (brackets are not words)
            if not f & _HOT or inside_word:
                continue
            kind = 5
            ce = -1
            v1 = 0
            v2 = 0
            if c == 70 or c == 102:
                ce, v1, v2 = _file_of(buf, j, s, e)
                kind = 0
            elif c == 91:
                ce, v1, v2 = _spaced_counter(buf, j, e, 93)
                kind = 1
            elif c == 40:
                if j != ps:
                    ce, v1, v2 = _spaced_counter(buf, j, e, 41)
                kind = 2
            elif c == 123:
                ce, v1, v2 = _spaced_counter(buf, j, e, 125)
                kind = 3
            elif 48 <= c <= 57:
                ce, v1, v2 = _loose_counter(buf, j, s, e)
                kind = 4
                se = _size_at(buf, j, s, e)
                if se >= 0:
                    for k in range(j - s, se - s):
                        removed[k] = True
            elif (c == 89 or c == 121) and _yenc_at(buf, j, s, e):
                yenc = True
                for k in range(j - s, j - s + 4):
                    removed[k] = True
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
        if best_kind < 5:
            if rs < 0:
                cs, cend, fi, ft = c_last_s, c_last_e, c_last_1, c_last_2
            elif c_before_s >= 0:
                cs, cend, fi, ft = c_before_s, c_before_e, c_before_1, c_before_2
            else:
                cs, cend, fi, ft = c_first_s, c_first_e, c_first_1, c_first_2
            file_index[li] = fi
            file_total[li] = ft
        # file key: the subject without its part counter
        if ps >= 0:
            file_key[li] = _key(buf, pe, e, _hash_span(buf, s, ps, np.uint64(0)))
        else:
            file_key[li] = _key(buf, s, e, np.uint64(0))
        # the name: class, volume, stem
        if ns >= 0:
            name_start[li] = ns
            name_end[li] = ne
            cls, vol, _strip = _classify(buf, ns, ne, codes, classes, strips)
            ext_class[li] = cls
            volume[li] = vol
            st_end = _stem_end(buf, ns, ne, codes, classes, strips)
            if st_end > ns:
                for k in range(ns, st_end):
                    scratch[k - ns] = _lower(buf[k])
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
                if buf[k] == 32:
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
                        scratch[m] = buf[k]
                        m += 1
                random_name[li] = _random_token(scratch, 0, m)
        # the identity: mark what is file-specific, then normalise and hash
        for span_s, span_e in ((ps, pe), (cs, cend), (rs, rend)):
            if span_s >= 0:
                for k in range(span_s - s, span_e - s):
                    removed[k] = True
        if ps >= 0:  # Nyuu's file size: bare numbers after the part counter
            k = pe
            while k < e:
                if buf[k] == 32:
                    k += 1
                    continue
                a = k
                digits = True
                while k < e and buf[k] != 32:
                    if not _is_digit(buf[k]):
                        digits = False
                    k += 1
                if digits:
                    for q in range(a - s, k - s):
                        removed[q] = True
        t = _identity(buf, s, e, removed, scratch, text)
        if t > 0:
            identity_key[li] = _key(text, 0, t, np.uint64(0))
        if part[li] < 0 and file_index[li] < 0:
            random_subject[li] = _random_subject(buf, s, e)


def parse_subjects(buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray) -> SubjectFields:
    """Parse the subject span buf[start[i]:end[i]] of every line."""
    arr = as_buffer(buf)
    start, end = check_spans(arr, start, end)
    n = len(start)
    out = SubjectFields(
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
    longest = int((end - start).max()) if n else 0
    removed = np.zeros(longest + 1, np.bool_)
    scratch = np.empty(longest + 8, np.uint8)
    text = np.empty(longest + 8, np.uint8)
    arrays = tuple(getattr(out, f.name) for f in fields(SubjectFields))
    _parse(arr, start, end, _EXT_CODES, _EXT_CLASSES, _EXT_STRIP, arrays, removed, scratch, text)
    return out


def parse_subject_list(subjects: list[bytes]) -> SubjectFields:
    """Convenience for tests and tools: parse Python bytes (offsets are into their join)."""
    buf = b"".join(subjects)
    ends = np.cumsum([len(x) for x in subjects], dtype=np.int64)
    starts = ends - np.array([len(x) for x in subjects], dtype=np.int64)
    return parse_subjects(buf, starts, ends)


# --- RFC 2047 encoded words -----------------------------------------------------------


@leaf_kernel
def _flag_encoded(buf, start, end, out):
    for li in range(start.shape[0]):
        s = start[li]
        e = end[li]
        first = -1
        flag = False
        for i in range(s, e - 1):
            if buf[i] == 61 and buf[i + 1] == 63:  # =?
                if first < 0:
                    first = i
            elif first >= 0 and i >= first + 2 and buf[i] == 63 and buf[i + 1] == 61:  # ?=
                flag = True
                break
        out[li] = flag


def flag_encoded_words(buf: np.ndarray | bytes, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Which subjects hold `=?` followed later by `?=`: those that may need RFC 2047 decoding."""
    arr = as_buffer(buf)
    start, end = check_spans(arr, start, end)
    out = np.zeros(len(start), np.bool_)
    _flag_encoded(arr, start, end, out)
    return out
