"""Plain-Python reference of kernels.names: file names, stems and random tokens."""

from __future__ import annotations

import itertools
import re

from kernels import names as k

PAR2_VOL_RE = re.compile(rb"\.vol(\d{1,6})[+-](\d{1,6})\.par2$")
PART_RAR_RE = re.compile(rb"\.part(\d{1,4})\.rar$")
SEVEN_Z_VOL_RE = re.compile(rb"\.7z\.(\d{3})$")
NUMBERED_RE = re.compile(rb"\.(\d{3})$")
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
    """The name without its archive and volume suffixes (repeatedly: `x.rar.par2` -> `x`)."""
    s = name
    while s:
        strip = classify(s)[2]
        if strip == 0:
            break
        s = s[: len(s) - strip]
    return s


def _name(s: bytes) -> tuple[int, int, int, int]:
    """(name_start, name_end, removal_start, removal_end) or all -1."""
    quotes = [i for i, c in enumerate(s) if c == 0x22]
    best = None
    for j in range(0, len(quotes) - 1, 2):
        a, b = quotes[j], quotes[j + 1]
        if b - a > 1:
            best = (a + 1, b, a, b + 1)
    if best:
        return best
    for m in re.finditer(rb'[^ "]+', s):
        a, b = m.start(), m.end()
        while a < b and s[a] in TOKEN_LEAD:
            a += 1
        while b > a and s[b - 1] in TOKEN_TRAIL:
            b -= 1
        if a < b and classify(s[a:b])[0] != k.OTHER:
            best = (a, b, a, b)
    return best or (-1, -1, -1, -1)


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
