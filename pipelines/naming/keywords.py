"""The keyword rules of the categories, and a release name as they read it.

A category is read from words in the name (`1080p`, `FLAC`, `epub`, `keygen`): each rule
is a regex of whole words, kept beside the plain regexes of `bench.naming_reference`
for the tests to hold them equal. Every release runs up to a dozen of them, so on an
ASCII name (most are) the name's words are looked up once for all the rules instead, and
a rule's regex runs only when the name holds one of its hints (a text that each of its
other matches holds, such as `blu-ray`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

_KEYWORD = r"(?<![a-z0-9])(?:{})(?![a-z0-9])"


class _Rule(NamedTuple):
    """A keyword rule: its regex, and how to decide it without the regex on an ASCII name.

    `words` are its alternatives that are one whole word of ASCII letters and digits (lower
    case): on an ASCII name, `(?<![a-z0-9])word(?![a-z0-9])` matches exactly when the word
    is one of the name's maximal letter-and-digit runs. Every other match holds one of the
    `hints` (lower-case texts): the regex itself runs only on an ASCII name that holds
    one. `bit` marks the rule in a name's masks. tests/test_naming.py expands each regex
    to check its words and hints.
    """

    pattern: re.Pattern[str]
    words: frozenset[str]
    hints: tuple[str, ...]
    bit: int


_KEYWORD_RULES: list[_Rule] = []


def _rule(pattern: str, words: str, hints: str = "") -> _Rule:
    rule = _Rule(
        re.compile(_KEYWORD.format(pattern), re.I),
        frozenset(words.split()),
        tuple(hints.split()),
        1 << len(_KEYWORD_RULES),
    )
    _KEYWORD_RULES.append(rule)
    return rule


_VIDEO = _rule(
    r"720p|1080[pi]|2160p|4k|uhd|blu-?ray|bdrip|brrip|dvdrip|dvdr|dvd[59]|"
    r"web-?dl|webrip|hdrip|hdtv|pdtv|sdtv|xvid|divx|x264|x265|h\.?26[45]|hevc|avc|remux|"
    r"bdmv|cam|telesync|ts|mkv|mp4|avi",
    "720p 1080p 1080i 2160p 4k uhd bluray bdrip brrip dvdrip dvdr dvd5 dvd9 webdl webrip "
    "hdrip hdtv pdtv sdtv xvid divx x264 x265 h264 h265 hevc avc remux bdmv cam telesync "
    "ts mkv mp4 avi",
    "blu-ray web-dl h.26",
)
_UHD = _rule(r"2160p|4k|uhd", "2160p 4k uhd")
_HD = _rule(r"720p|1080[pi]|hd", "720p 1080p 1080i hd")
_DISC = _rule(
    r"remux|bdmv|bd25|bd50|complete[ ._-]blu-?ray|avc",
    "remux bdmv bd25 bd50 avc",
    "complete",
)
_LOSSLESS = _rule(
    r"flac|alac|lossless|wav|ape|24bit|24-?bit",
    "flac alac lossless wav ape 24bit",
    "24-bit",
)
_AUDIOBOOK = _rule(
    r"audio-?book|abook|m4b|unabridged|hörbuch",
    "audiobook abook m4b unabridged",
    "audio-book",  # hörbuch is no ASCII name's
)
_MUSIC = _rule(
    r"mp3|aac|m4a|ogg|opus|\d{3}\s?kbps|v0|cbr|vbr|discography|album|single|"
    r"web-?flac|cd[12]?|vinyl",
    "mp3 aac m4a ogg opus v0 cbr vbr discography album single webflac cd cd1 cd2 vinyl",
    "kbps web-flac",
)
_COMIC = _rule(r"cbr|cbz|cb7|comics?", "cbr cbz cb7 comic comics")
_EBOOK = _rule(
    r"epub|mobi|azw3?|pdf|e-?books?|retail|kindle",
    "epub mobi azw azw3 pdf ebook ebooks retail kindle",
    "e-book",
)
_GAME = _rule(
    r"codex|plaza|reloaded|skidrow|flt|tinyiso|prophet|hoodlum|cpy|empress|"
    r"darksiders|razor1911|gog|fitgirl|dodi|elamigos|repack",
    "codex plaza reloaded skidrow flt tinyiso prophet hoodlum cpy empress darksiders "
    "razor1911 gog fitgirl dodi elamigos repack",
)
_ANDROID = _rule(r"apk|android", "apk android")
_IOS = _rule(r"ipa|ios|iphone|ipad", "ipa ios iphone ipad")
_MAC = _rule(r"mac|macos|osx|macosx", "mac macos osx macosx")
_SOFTWARE = _rule(
    r"keygen|crack|incl|x64|x86|win(?:32|64|dows)?|portable|multilingual|setup|exe|msi|iso",
    "keygen crack incl x64 x86 win win32 win64 windows portable multilingual setup exe msi iso",
)
# in a lower-cased ASCII name (as bytes), what is not a letter or digit becomes a space:
# the words are what is left
_SPACE_OUT = bytes(c if chr(c).isalnum() else 0x20 for c in range(128)).ljust(256, b" ")
# each keyword, and each hint, with the rules it belongs to
_WORD_BITS: dict[bytes, int] = {}
_HINT_BITS: dict[str, int] = {}
for _r in _KEYWORD_RULES:
    for _w in _r.words:
        _WORD_BITS[_w.encode()] = _WORD_BITS.get(_w.encode(), 0) | _r.bit
    for _w in _r.hints:
        _HINT_BITS[_w] = _HINT_BITS.get(_w, 0) | _r.bit
_KEYWORDS = frozenset(_WORD_BITS)


class _Name:
    """A release name as the category rules read it. On an ASCII name (most are) its
    words and hints are looked up once for all the keyword rules: `marks` holds the
    rules its words decide, `maybe` the others whose hints it holds (only their regexes
    run)."""

    __slots__ = ("lowered", "marks", "maybe", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        # not ASCII: IGNORECASE folds letters such as `ſ` and `K` into ASCII ones, and
        # \d and \s hold more than ASCII digits and spaces: only the regexes are exact
        self.lowered = lowered = text.lower() if text.isascii() else None
        self.marks = self.maybe = 0
        if lowered is None:
            return
        marks = maybe = 0
        for word in _KEYWORDS.intersection(lowered.encode().translate(_SPACE_OUT).split()):
            marks |= _WORD_BITS[word]
        for hint, bits in _HINT_BITS.items():
            if hint in lowered:
                maybe |= bits
        self.marks = marks
        self.maybe = maybe & ~marks

    def has(self, rule: _Rule) -> bool:
        """Whether rule.pattern matches the name."""
        if self.lowered is None:
            return rule.pattern.search(self.text) is not None
        if self.marks & rule.bit:
            return True
        return bool(self.maybe & rule.bit) and rule.pattern.search(self.text) is not None
