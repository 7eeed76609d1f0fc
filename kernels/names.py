"""File names in subjects: where the name is, what the file is, its stem, and whether
a name (or a whole subject) looks random.

The parser's byte-class table lives here too (kernels.subject reads it); the byte
primitives are kernels.bytes'.
Like the parser, these kernels run without numba's reference counting (leaf_kernel).
"""

from __future__ import annotations

import numpy as np

from kernels._jit import leaf_kernel
from kernels.bytes import (
    U,
    digits_back,
    digits_end,
    digits_value,
    is_alnum,
    is_hex,
    is_word,
    lower,
    spaces_back,
    spaces_end,
)

# What a file is, from its name (ext_class).
NONE = 0  # no file name
RAR_FIRST = 1  # first archive volume: .part01.rar, .rar, .7z, .7z.001, .001, .zip
ARCHIVE_VOL = 2  # later volumes: .part02.rar, .r00, .s00 (after .r99), .z01, .7z.002, .002
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


# --- names -----------------------------------------------------------------------


@leaf_kernel
def _ends_ci(buf, a, b, word):
    """Does buf[a:b] end with the lower-case ASCII bytes of word, in any case?"""
    n = word.shape[0]
    ok = b - a >= n
    k = 0
    while ok and k < n:
        ok = lower(buf[U(b - n + k)]) == word[U(k)]
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
        d2 = digits_back(buf, a, q, 6)
        if 1 <= q - d2 <= 6 and d2 - 1 > a and (buf[U(d2 - 1)] == 43 or buf[U(d2 - 1)] == 45):
            d1 = digits_back(buf, a, d2 - 1, 6)
            if 1 <= d2 - 1 - d1 <= 6 and _ends_ci(buf, a, d1, _DOT_VOL):
                return PAR2_VOL, digits_value(buf, d1, d2 - 1), b - (d1 - 4)
        return PAR2_INDEX, -1, 5
    if _ends_ci(buf, a, b, _DOT_RAR):
        q = b - 4
        d = digits_back(buf, a, q, 4)
        if 1 <= q - d <= 4 and _ends_ci(buf, a, d, _DOT_PART):
            vol = digits_value(buf, d, q)
            return (RAR_FIRST if vol == 1 else ARCHIVE_VOL), vol, b - (d - 5)
        return RAR_FIRST, -1, 4
    d = digits_back(buf, a, b, 3)
    nd = b - d
    if nd == 3 and d - 1 >= a and buf[U(d - 1)] == 46:
        vol = digits_value(buf, d, b)
        cls = RAR_FIRST if vol == 1 else ARCHIVE_VOL
        if _ends_ci(buf, a, d - 1, _DOT_7Z):
            return cls, vol, 7
        return cls, vol, 4
    if 2 <= nd <= 3 and d - 2 >= a and buf[U(d - 2)] == 46 and lower(buf[U(d - 1)]) == 114:
        return ARCHIVE_VOL, digits_value(buf, d, b), nd + 2
    # old-style RAR sets go on past .r99 with .s00-.s99, then .t00 (up to .y99)
    letter = lower(buf[U(d - 1)]) if d - 1 >= a else 0
    if nd == 2 and d - 2 >= a and buf[U(d - 2)] == 46 and 115 <= letter <= 121:
        return ARCHIVE_VOL, (letter - 114) * 100 + digits_value(buf, d, b), 4
    if nd == 2 and d - 2 >= a and buf[U(d - 2)] == 46 and lower(buf[U(d - 1)]) == 122:
        return ARCHIVE_VOL, digits_value(buf, d, b), 4
    # a plain extension: 2-4 ASCII letters/digits after the last dot
    j = b
    while j > a and b - j <= 4 and is_alnum(buf[U(j - 1)]):
        j -= 1
    if 2 <= b - j <= 4 and j - 1 >= a and buf[U(j - 1)] == 46:
        code = np.int64(0)
        for k in range(b - j):
            code |= np.int64(lower(buf[U(j + k)])) << np.int64(8 * k)
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
def _stem_end(buf, a, b, outer, codes, classes, strips):
    """Where the stem of buf[a:b] ends: its archive and volume suffixes stripped, again
    and again (`x.rar.par2`). A bare `.001` goes only when outer (the name's last
    suffix): under another, three digits after a dot are the name's (`Show.H.264.mkv`)."""
    while b > a:
        strip = _classify(buf, a, b, codes, classes, strips)[2]
        if strip == 0:
            break
        if not outer and strip == 4 and buf[U(b - 4)] == 46 and digits_end(buf, b - 3, b) == b:
            break
        b -= strip
        outer = False
    return b


@leaf_kernel
def _find_name(buf, s, e, codes, classes, strips):
    """(name_start, name_end, removal_start, removal_end), all -1 when there is none."""
    q_open = -1
    ns = -1
    ne = -1
    rs = -1
    rend = -1
    quoted = 0  # non-empty quoted texts
    for i in range(s, e):
        if buf[U(i)] == 34:
            if q_open < 0:
                q_open = i
            else:
                if i - q_open > 1:
                    ns = q_open + 1
                    ne = i
                    rs = q_open
                    rend = i + 1
                    quoted += 1
                q_open = -1
    if quoted > 1 and _classify(buf, ns, ne, codes, classes, strips)[0] == OTHER:
        # the last has no known extension: the last before it that has one, if any
        # (the same pairs of quotes, up to the last one's opening quote)
        q_open = -1
        for i in range(s, rs):
            if buf[U(i)] == 34:
                if q_open < 0:
                    q_open = i
                else:
                    a = q_open + 1
                    if i > a and _classify(buf, a, i, codes, classes, strips)[0] != OTHER:
                        ns = a
                        ne = i
                        rs = q_open
                        rend = i + 1
                    q_open = -1
    if ns >= 0:
        return ns, ne, rs, rend
    i = s
    while i < e:
        if buf[U(i)] == 32 or buf[U(i)] == 34:
            i += 1
            continue
        a = i
        while i < e and buf[U(i)] != 32 and buf[U(i)] != 34:
            i += 1
        a, b = _token_name(buf, a, i)
        if a < b and _classify(buf, a, b, codes, classes, strips)[0] != OTHER:
            ns = a
            ne = b
    return ns, ne, ns, ne


@leaf_kernel
def _token_name(buf, a, b):
    """The token buf[a:b] with brackets and punctuation around it trimmed, as a file
    name: (start, end)."""
    while a < b and (buf[U(a)] == 40 or buf[U(a)] == 91 or buf[U(a)] == 123 or buf[U(a)] == 60):
        a += 1
    while b > a:
        c = buf[U(b - 1)]
        if c == 41 or c == 93 or c == 125 or c == 62 or c == 58 or c == 44 or c == 59:
            b -= 1
        else:
            break
    return a, b


@leaf_kernel
def _name_bound(buf, s, ns, ps, pe, cs, cend):
    """How far back the unquoted name at ns may reach: (where, whether the file counter
    and a space end there). Not past a quote, nor past the part counter [ps, pe) or the file counter
    [cs, cend) when they end before the name's token."""
    token = ns
    while token > s and buf[U(token - 1)] != 32 and buf[U(token - 1)] != 34:
        token -= 1
    bound = s
    for k in range(token - 1, s - 1, -1):
        if buf[U(k)] == 34:
            bound = k + 1
            break
    if ps >= 0 and bound <= pe <= token:
        bound = pe
    after_counter = False
    if cs >= 0 and bound <= cend <= token:
        bound = cend
        after_counter = buf[U(cend)] == 32  # (cend <= token < e) not glued to a tag
    return bound, after_counter


@leaf_kernel
def _token_start(buf, lo, q):
    """Start of the space-separated token that ends at q (not below lo)."""
    while q > lo and buf[U(q - 1)] != 32:
        q -= 1
    return q


@leaf_kernel
def _dashes(buf, a, b):
    """Is buf[a:b] nothing but `-` (a separator token)?"""
    for i in range(a, b):  # noqa: SIM110 - numba compiles no all() over a generator
        if buf[U(i)] != 45:
            return False
    return True


@leaf_kernel
def _repeats(buf, s, a, st):
    """Is buf[a:st] (a name's stem) the text before a, spaces and `-` between, starting
    at a word boundary (ASCII case aside)?"""
    n = st - a
    j = a
    while j > s and (buf[U(j - 1)] == 32 or buf[U(j - 1)] == 45):
        j -= 1
    i = j - n
    if n <= 0 or i < s or (i > s and is_word(buf[U(i - 1)])):
        return False
    for m in range(n):  # noqa: SIM110 - numba compiles no all() over a generator
        if lower(buf[U(i + m)]) != lower(buf[U(a + m)]):
            return False
    return True


@leaf_kernel
def _reach_back(buf, s, ns, ne, ps, pe, cs, cend, codes, classes, strips):
    """Where the unquoted name buf[ns:ne] (its last token) starts, the part counter at
    [ps, pe) and the file counter at [cs, cend) (-1 when none): the words before it,
    down to _name_bound, that the subject shows are the name's
    (pipelines.subjects.file_names.reach_back says when). The parser's loop makes this
    one call (the bound found here, not there: more code in the loop slows every line)."""
    bound, after_counter = _name_bound(buf, s, ns, ps, pe, cs, cend)
    token = ns
    while token > bound and buf[U(token - 1)] != 32 and buf[U(token - 1)] != 34:
        token -= 1
    # not past another file name: after the last token with a known extension
    lo = bound
    q = spaces_back(buf, bound, token)
    while q > bound:
        a = _token_start(buf, bound, q)
        ta, tb = _token_name(buf, a, q)
        if ta < tb and _classify(buf, ta, tb, codes, classes, strips)[0] != OTHER:
            lo = q
            after_counter = False
            break
        q = spaces_back(buf, bound, a)
    # the words repeat the text before them: the nearest start where they do
    q = spaces_back(buf, lo, token)
    while q > lo:
        a = _token_start(buf, lo, q)
        if not _dashes(buf, a, q):
            st = _stem_end(buf, a, ne, True, codes, classes, strips)
            if _repeats(buf, s, a, st):
                return a
        q = spaces_back(buf, lo, a)
    # a track number of 1-3 digits after a `-` token (or first after lo): the nearest; an
    # archive volume or a par2 file has no track (`01/16 - Title - 2005 - 08 - Sea.part01.rar`)
    q = spaces_back(buf, lo, token)
    cls = _classify(buf, ns, ne, codes, classes, strips)[0]
    if cls == RAR_FIRST or cls == ARCHIVE_VOL or cls == PAR2_INDEX or cls == PAR2_VOL:  # noqa: SIM109
        q = lo
    while q > lo:
        a = _token_start(buf, lo, q)
        p = spaces_back(buf, lo, a)
        number = q - a <= 3 and digits_end(buf, a, q) == q
        if number and (p <= lo or _dashes(buf, _token_start(buf, lo, p), p)):
            return a
        q = p
    # right after the file counter: all the words after it
    if after_counter:
        i = lo
        while i < token:
            i = spaces_end(buf, i, token)
            a = i
            while i < token and buf[U(i)] != 32:
                i += 1
            if a < i and not _dashes(buf, a, i):
                return a
    return ns


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
        if _CC[buf[U(i)]] & _VOWEL:
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
        c = buf[U(a + i)]
        if i == 8 or i == 13 or i == 18 or i == 23:
            if c != 45:
                return False
        elif not _CC[U(c)] & _HEX:
            return False
    return True


@leaf_kernel
def _random_alnum(buf, a, b):
    """The random test for a token of ASCII letters and digits only."""
    n = b - a
    if n < 12:
        return False
    all_hex = True
    runs = 1
    letters = 0
    prev = 0
    for i in range(a, b):
        f = _CC[buf[U(i)]]
        cls = f & 7
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
        if _CC[buf[U(i)]] & _DIGIT:
            i += 1
            continue
        w = i
        while i < b and _CC[buf[U(i)]] & _UPPER:
            i += 1
        while i < b and _CC[buf[U(i)]] & _LOWER:
            i += 1
        if _wordlike(buf, w, i):
            wordlike += i - w
    if runs >= 6 and runs * 3 >= n and wordlike * 4 < letters * 3:
        return True
    return letters >= 8 and wordlike * 5 < letters * 2


@leaf_kernel
def _random_token(buf, a, b):
    """Does buf[a:b] look like a random string (hex hash, UUID, high-entropy token)?

    A token of letters and digits joined by `-`/`_` is judged by its longest piece when
    that has 16+ characters (`96e3...1839-u4e`).
    """
    if b - a < 12:
        return False
    plain = True  # only ASCII letters and digits, else letters and digits joined by - and _
    for i in range(a, b):
        c = buf[U(i)]
        if not _CC[c] & 7:
            plain = False
            if c != 45 and c != 95:
                # a dot, a space, a UTF-8 letter (a title in another script, not noise)...
                return False
    if plain:
        return _random_alnum(buf, a, b)
    if _is_uuid(buf, a, b):
        return True
    best_a = a
    best_n = 0
    i = a
    while i <= b:
        w = i
        while i < b and _CC[buf[U(i)]] & 7:
            i += 1
        if i - w > best_n:
            best_a = w
            best_n = i - w
        i += 1
    return best_n >= 16 and _random_alnum(buf, best_a, best_a + best_n)


@leaf_kernel
def _random_subject(buf, s, e):
    s = spaces_end(buf, s, e)
    e = spaces_back(buf, s, e)
    private = False
    if e - s >= 9:
        private = True
        for k in range(9):
            if lower(buf[U(s + k)]) != _PRIVATE[U(k)]:
                private = False
                break
    if private:
        s = spaces_end(buf, s + 9, e)
    if e - s < 16:
        return False
    hexes = 0
    hexdash = True
    b64 = True
    for i in range(s, e):
        c = buf[U(i)]
        if c == 32:
            return False
        if is_hex(c):
            hexes += 1
        elif c != 45:
            hexdash = False
        if not (is_alnum(c) or c == 43 or c == 47 or c == 61):
            b64 = False
    if hexdash and hexes >= 16:
        return True
    if b64:
        if private:
            return True
        while e > s and buf[U(e - 1)] == 61:
            e -= 1
        return _random_token(buf, s, e)
    return False
