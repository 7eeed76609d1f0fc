"""Plain-Python reference of kernels.names: file names, stems and random tokens."""

from __future__ import annotations

import itertools
import re

from kernels import names as k

PAR2_VOL_RE = re.compile(rb"\.vol(\d{1,6})[+-](\d{1,6})\.par2$")
PART_RAR_RE = re.compile(rb"\.part(\d{1,4})\.rar$")
SEVEN_Z_VOL_RE = re.compile(rb"\.7z\.(\d{3})$")
NUMBERED_RE = re.compile(rb"\.(\d{3})$")
NUMBERED_ONLY_RE = re.compile(rb"(?<!\.7z)\.\d{3}$", re.IGNORECASE)  # `.001`, not `.7z.001`
R_VOL_RE = re.compile(rb"\.r(\d{2,3})$")
Z_VOL_RE = re.compile(rb"\.z(\d{2})$")
OLD_RAR_NEXT_RE = re.compile(rb"\.([s-y])(\d{2})$")  # .s00 follows .r99
EXT_RE = re.compile(rb"\.([a-z0-9]{2,4})$")
UUID_RE = re.compile(
    rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
JOINED_RE = re.compile(rb"[A-Za-z0-9_-]+")
HEX = frozenset(b"0123456789abcdefABCDEF")
B64 = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
VOWELS = frozenset(b"aeiouyAEIOUY")
TOKEN_LEAD = b"([{<"
TOKEN_TRAIL = b")]}>:,;"
# what a word boundary must not cut: letters, digits, `_`, any UTF-8 byte
WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") | (
    frozenset(range(0x80, 0x100))
)


def classify(name: bytes) -> tuple[int, int, int]:
    """(ext_class, volume, length of the archive/volume suffix to strip, 0 if none)."""
    n = name.lower()
    if n.endswith(b".par2"):
        m = PAR2_VOL_RE.search(n)
        if m:
            return k.PAR2_VOL, int(m.group(1)), len(m.group(0))
        return k.PAR2_INDEX, -1, 5
    m = PART_RAR_RE.search(n)
    if m:
        vol = int(m.group(1))
        return (k.RAR_FIRST if vol == 1 else k.ARCHIVE_VOL), vol, len(m.group(0))
    if n.endswith(b".rar"):
        return k.RAR_FIRST, -1, 4
    for rx in (SEVEN_Z_VOL_RE, NUMBERED_RE):
        m = rx.search(n)
        if m:
            vol = int(m.group(1))
            return (k.RAR_FIRST if vol == 1 else k.ARCHIVE_VOL), vol, len(m.group(0))
    for rx in (R_VOL_RE, Z_VOL_RE):
        m = rx.search(n)
        if m:
            return k.ARCHIVE_VOL, int(m.group(1)), len(m.group(0))
    m = OLD_RAR_NEXT_RE.search(n)
    if m:
        return k.ARCHIVE_VOL, (m.group(1)[0] - ord("r")) * 100 + int(m.group(2)), 4
    m = EXT_RE.search(n)
    if m:
        ext = m.group(1).decode()
        cls = k.EXTENSIONS.get(ext, k.OTHER)
        strip = len(m.group(0)) if ext in k.STRIPPED_EXTENSIONS else 0
        return cls, -1, strip
    return k.OTHER, -1, 0


def stem(name: bytes) -> bytes:
    """The name without its archive and volume suffixes (repeatedly: `x.rar.par2` -> `x`).

    A split file's bare `.001` is stripped only last in the name (`x.mkv.001`): under
    another suffix, three digits after a dot are the name's own (`Show.H.264.mkv`,
    `Show.H.264.par2` -> `Show.H.264`)."""
    s = name
    outer = True
    while s:
        strip = classify(s)[2]
        if strip == 0 or (not outer and NUMBERED_ONLY_RE.search(s)):
            break
        s = s[: len(s) - strip]
        outer = False
    return s


def _name(s: bytes) -> tuple[int, int, int, int]:
    """(name_start, name_end, removal_start, removal_end) or all -1: the last non-empty
    quoted text with a known extension, else the last non-empty quoted text (the file's,
    not a title quoted before or after it: `"8791296743.epub" - 1.23 MB - "Title - epub"`),
    else the last token with a known extension, brackets around it trimmed (where such a
    name starts is reach_back's, once the file counter is known)."""
    quotes = [i for i, c in enumerate(s) if c == 0x22]
    quoted = None
    with_ext = False
    for j in range(0, len(quotes) - 1, 2):
        a, b = quotes[j], quotes[j + 1]
        if b - a > 1:
            known = classify(s[a + 1 : b])[0] != k.OTHER
            if known or not with_ext:
                quoted, with_ext = (a + 1, b, a, b + 1), known
    if quoted:
        return quoted
    found = (-1, -1, -1, -1)
    for m in re.finditer(rb'[^ "]+', s):
        a, b = m.start(), m.end()
        while a < b and s[a] in TOKEN_LEAD:
            a += 1
        while b > a and s[b - 1] in TOKEN_TRAIL:
            b -= 1
        if a < b and classify(s[a:b])[0] != k.OTHER:
            found = (a, b, a, b)
    return found


def name_bound(s: bytes, name_start: int, *spans: tuple[int, int]) -> tuple[int, bool]:
    """How far back an unquoted file name at name_start may reach: (where, whether a file
    counter and a space end there). Not past a quote, nor past the part counter or the
    file counter (`spans`, the file counter last) when they end before the name's token.
    A counter glued to what follows (`[4/5]-[Album_Name]--cact 001.sfv`) is one of a
    row of tags, not what the file's words start after."""
    token = name_start
    while token > 0 and s[token - 1] not in b' "':
        token -= 1
    bound = s.rfind(b'"', 0, token) + 1
    after_counter = False
    for i, (a, b) in enumerate(spans):
        if a >= 0 and bound <= b <= token:
            bound = b
            after_counter = i == len(spans) - 1 and s[b : b + 1] == b" "
    return bound, after_counter


def reach_back(s: bytes, name_start: int, name_end: int, bound: int, after_counter: bool) -> int:
    """Where an unquoted file name s[name_start:name_end] (its last token) starts: it
    takes in the words before it, back to bound at most, where the subject says so.

    - the words repeat the text before them (the release name as the file's stem:
      `Artist - Album (1993) - Artist - Album (1993).par2`, `Shogun I (1980) Shogun I
      (1980).avi.012`), the nearest such start;
    - else a track number of 1-3 digits after a `-` (or first after bound): `Album (1993)
      - 01 - Track Words.mp3`, `- 13 The Band - Oh Gin.flac`, `File 15 of 20: 06 Name -
      Title.flac`, the nearest one (not before an archive volume or a par2 file: `01/16 -
      Title - 2005 - 08 - Episode.part01.rar` holds no track);
    - else, right after a file counter, all the words after it (`[2/4] Graham Masterton -
      Descendant.mobi`, `[014/144] - The Bible (2013) - S1E01 - In the Beginning.vol31+27.PAR2`);
    - else the token alone."""
    token = name_start
    while token > bound and s[token - 1] not in b' "':
        token -= 1
    tokens = [(m.start() + bound, m.end() + bound) for m in re.finditer(rb"[^ ]+", s[bound:token])]
    # nor past another file name (`(epub).rar - 14418-25255-6053.rar.txt`)
    for n in range(len(tokens) - 1, -1, -1):
        if _has_extension(s, *tokens[n]):
            tokens = tokens[n + 1 :]
            after_counter = False
            break
    words = [(a, b) for a, b in tokens if s[a:b].strip(b"-")]
    for a, _ in reversed(words):
        st = stem(s[a:name_end])
        if not st:
            continue
        j = a
        while j > 0 and s[j - 1] in b" -":
            j -= 1
        i = j - len(st)
        if i >= 0 and s[i:j].lower() == st.lower() and (i == 0 or s[i - 1] not in WORD_BYTES):
            return a
    archive = classify(s[name_start:name_end])[0] in _NO_TRACKS
    for n in range(len(tokens) - 1 if not archive else -1, -1, -1):
        a, b = tokens[n]
        after_dash = n == 0 or not s[tokens[n - 1][0] : tokens[n - 1][1]].strip(b"-")
        if b - a <= 3 and s[a:b].isdigit() and after_dash:
            return a
    if after_counter and words:
        return words[0][0]
    return name_start


# an archive volume or a par2 file has no track number before it
_NO_TRACKS = frozenset({k.RAR_FIRST, k.ARCHIVE_VOL, k.PAR2_INDEX, k.PAR2_VOL})


def _has_extension(s: bytes, a: int, b: int) -> bool:
    """Does the token s[a:b], brackets around it trimmed as _name trims them, end in a
    known extension?"""
    while a < b and s[a] in TOKEN_LEAD:
        a += 1
    while b > a and s[b - 1] in TOKEN_TRAIL:
        b -= 1
    return a < b and classify(s[a:b])[0] != k.OTHER


def random_token(t: bytes) -> bool:
    """Does this one token (a file stem, a whole subject) look like a random string?"""
    n = len(t)
    if any(c >= 0x80 for c in t):
        return False  # UTF-8 letters: a title in another script, not noise
    if n >= 16 and all(c in HEX for c in t):
        return True
    if n == 36 and UUID_RE.fullmatch(t):
        return True
    if JOINED_RE.fullmatch(t) and not t.isalnum():
        longest = max(re.split(rb"[-_]", t), key=len)
        return len(longest) >= 16 and random_token(longest)
    if n < 12 or not t.isalnum():
        return False
    runs = 1 + sum(1 for a, b in itertools.pairwise(t) if _cls(a) != _cls(b))
    letters = sum(1 for c in t if chr(c).isalpha())
    wordlike = sum(len(w) for w in _words(t) if _wordlike(w))
    if runs >= 6 and runs * 3 >= n and wordlike * 4 < letters * 3:
        return True
    return letters >= 8 and wordlike * 5 < letters * 2


def _cls(c: int) -> int:
    return 0 if 48 <= c <= 57 else (1 if 65 <= c <= 90 else 2)


def _words(t: bytes) -> list[bytes]:
    """Letter runs, split where a lower-case letter meets an upper-case one (CamelCase)."""
    return re.findall(rb"[A-Z]*[a-z]+|[A-Z]+", t)


def _wordlike(w: bytes) -> bool:
    vowels = sum(1 for c in w if c in VOWELS)
    clusters = re.findall(rb"[^aeiouyAEIOUY]+", w)
    longest = max((len(c) for c in clusters), default=0)
    return len(w) >= 3 and vowels * 5 >= len(w) and longest <= 4


def random_subject(s: bytes) -> bool:
    body = s.strip(b" ")
    private = body[:9].lower() == b"[private]"
    if private:
        body = body[9:].lstrip(b" ")
    if b" " in body or len(body) < 16:
        return False
    if all(c in HEX or c == 0x2D for c in body) and sum(c in HEX for c in body) >= 16:
        return True
    if all(c in B64 for c in body):
        return private or random_token(body.rstrip(b"="))
    return False
