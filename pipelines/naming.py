"""Text for people: release and file names, and the Newznab category of a name.

Called once per release or file, not per overview line, so plain Python. The release
name comes from the same blanked-out subject as identity_key
(`kernels.reference.subject`): two subjects of one identity get one name (up to ASCII
case, which the key folds and the name keeps).

Each release of a range passes here, so the rules run in as few passes as they can: a
subject of the common shape has its identity cut from around its file name, a regex runs
only when the text holds what it needs, a category rule only when the ones before it did
not decide, and on an ASCII name the keyword rules look its words up. The plainer first
version is kept as `kernels.reference.naming`: tests/test_naming.py holds the two to the
same results, tests/test_naming_fast.py each shortcut to the rule it stands for, and
`python -m pipelines.naming_bench` times them.
"""

from __future__ import annotations

import functools
import operator
import re
from typing import NamedTuple

from kernels.names import OTHER
from kernels.reference import names as names_ref
from kernels.reference import subject as subject_rules

# Bracketed tags that say who posted or where, not what: `[PRiVATE]`, `[FULL]`,
# `[#a.b.teevee@EFNet]`, `[278997]`, `<TOWN>`, `[ www.town.ag ]`. A bracketed year,
# `(1994)`, is part of the name (Radarr and Sonarr read titles with it), not a tag.
_TAG = re.compile(
    r"""\s*[\[(<{]\s*(?:
        (?!(?:19|20)\d\d\s*[\])>}])[\d#]+ |
        full | private | repost | req(?:uest)? | town | tv | partner[^\])>}]* |
        \#[^\])>}]* | [^\])>}\s]*@[^\])>}]* | a(?:lt)?\.?b(?:in\w*)?\.[^\])>}]* |
        altbin\w* | (?:www\.)?[\w-]+\.(?:info|org|com|net|ag|nl|de|eu|cc|to)
    )\s*[\])>}]\s*""",
    re.IGNORECASE | re.VERBOSE,
)
_WRAPPED = re.compile(r"^[\s\-_.:|>]*\[\s*([^\[\]]{4,}?)\s*\][\s\-_.:|<]*$")
_EDGE = " \t-_.:|<>~*=+,;"
_REPLY = re.compile(r"^\s*(?:re|fwd?|aw)\s*:\s*", re.IGNORECASE)
_SEPARATORS = re.compile(r"\s*(?:-\s*){2,}")


def to_text(b: bytes) -> str:
    """Bytes as text: UTF-8 when valid, else Windows-1252, else Latin-1 (never fails)."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return b.decode("cp1252")
    except UnicodeDecodeError:
        return b.decode("latin-1")


def stem(name: str) -> str:
    """The file name without archive and volume suffixes (`x.part01.rar` -> `x`)."""
    raw = name.encode("utf-8", "surrogateescape")
    return subject_rules.stem(raw).decode("utf-8", "surrogateescape")


def file_name(subject: bytes, name_start: int = -1, name_end: int = -1) -> str:
    """The file name a subject names ("" if none); offsets (relative to the subject)
    from the parser can be given to skip parsing it again."""
    if name_start < 0:
        parsed, _ = subject_rules.parse_kept(subject, keys=False)
        name_start, name_end = parsed.name_start, parsed.name_end
    if name_start < 0:
        return ""
    return to_text(subject[name_start:name_end]).strip()


def display_name(subject: bytes) -> str:
    """The release name to show for a subject: its identity with posting tags trimmed
    (the identity as it is when that leaves nothing), or, when the identity is empty, the
    stem of its file name."""
    identity = to_text(_display_text(subject))
    text = _REPLY.sub("", identity) if ":" in identity else identity
    if _opens_bracket(text):
        dropped = 1
        while dropped:  # tags can stand side by side: `[1234]-[FULL]-[#a.b.x]-`
            text, dropped = _TAG_SCAN.subn(" ", text)
            # no tag left: none once stripped either (_TAG has no anchors), done
            text = text.strip(_EDGE)
    else:  # no bracket, no tag
        text = text.strip(_EDGE)
    if "-" in text and _DASHES.search(text):
        text = _SEPARATORS.sub(" - ", text)
    if "[" in text:
        wrapped = _WRAPPED.match(text)
        if wrapped:
            text = wrapped.group(1)
    # split() and \s split at the same characters (str.isspace): the runs become one space
    text = " ".join(text.split()).strip(_EDGE)
    if text:
        return text
    if identity:  # nothing but tags: still one name per identity
        return identity
    name = file_name(subject)
    if name:
        return stem(name) or name
    return " ".join(to_text(subject).split())


# _TAG, but it starts with a character class: the regex engine skips to the places where
# one can start (a space or an opening bracket) instead of trying every one
_TAG_SCAN = re.compile(
    _TAG.pattern.replace(r"\s*[\[(<{]", r"[\s\[(<{](?:(?<=[\[(<{])|(?<=\s)\s*[\[(<{])", 1),
    _TAG.flags,
)
_DASHES = re.compile(r"-\s*-")  # what each _SEPARATORS match holds


def _opens_bracket(text: str) -> bool:
    return "[" in text or "(" in text or "<" in text or "{" in text


def _display_text(s: bytes) -> bytes:
    """`subject_rules.display_text(s)`: the identity as the poster wrote it, "" when it is
    posting tags alone. Most subjects have one shape, `<identity> [i/N] - "<file name>"
    yEnc (k/K)` (or a `File i of N:` counter, or none; text after the name; a name
    without quotes): for them what the parser blanks is found around the file name in a
    few passes (_common_shape); any other subject goes through the full rules."""
    common = _common_shape(s)
    if common is None:
        return subject_rules.display_text(s)
    kept, lowered = common
    if _SIZE_HINT.search(lowered):  # a hex hash has some: few are sizes
        blanked = bytearray(kept)
        for m in subject_rules.SIZE_RE.finditer(kept):
            blanked[m.start() : m.end()] = b" " * (m.end() - m.start())
        kept = bytes(blanked)
    text = _normalised(kept)
    # posting tags alone start with `[` or `-` and end with `]` or `-` (the rule tests
    # the case-folded text; ASCII folding commutes with normalising)
    tags_only = text and text[0] in b"[-" and text[-1] in b"]-"
    if tags_only and subject_rules.ONLY_TAGS_RE.fullmatch(text.lower()):
        return b""
    return text


def _common_shape(s: bytes) -> tuple[bytes, bytes] | None:
    """For a subject of the common shape, what the parser keeps of it (the parts it blanks
    each cut to one space, which normalising cannot tell apart) and that lower-cased;
    None for any other subject.

    The shape: the file name in one pair of quotes (the parser's name: the last quoted
    text), or without quotes the last token but the part counter (the parser's when it
    has a known extension: no later token has one); after it maybe text (quoted only),
    then maybe the word yEnc, the part counter `(k/K)` last (the parser's: the last one)
    and maybe bare numbers (Nyuu's file size); before it maybe a file counter, with only
    spaces and `-` to the name (then the last of its kind before the name: the parser's
    counter). Of what is kept, nothing the parser blanks may be left but sizes: no other
    yEnc, and without a file counter nothing a counter needs (`/`, ` of `)."""
    start = s.find(b'"')
    if start >= 0:
        closing = s.find(b'"', start + 1)
        if closing - start < 2:
            return None
        tail = _QUOTED_TAIL.match(s, closing + 1)  # no quote after the second
        if tail is None:
            return None
        after = tail.group(1)
    else:
        tail = _UNQUOTED_TAIL.search(s)
        if tail is None:
            return None
        name = tail.group(1)
        if name[0] in names_ref.TOKEN_LEAD:  # the parser would keep it: not the shape
            return None
        # (one it would keep at the end, `)` or `:`, leaves no known extension either)
        if b"." not in name or names_ref.classify(name)[0] == OTHER:
            return None
        start, after = tail.start(1), b""
        # a size can run into it (`12 MB.rar`), which what is kept would not show
        if start >= 2 and s[start - 2] in _DIGITS and name[:1].lower() in b"bkmgt":
            return None
    lowered = s.lower()
    counter = None
    if b"file " in lowered:  # the first kind of counter, wherever it is, if any
        counter = _counter_before(_FILE_OF_THEN, s, lowered.rfind(b"file", 0, start), start)
        if counter is None and subject_rules.FILEOF_RE.search(s):
            return None
    if counter is None:
        counter = _counter_before(_BRACKET_THEN, s, s.rfind(b"[", 0, start), start)
    if counter is None:
        head, between = s[:start], b""
    else:
        head, between = s[: counter.start()], counter.group(1)
    kept = b" ".join((head, between, after))
    kept_lowered = kept.lower()
    if b"yenc" in kept_lowered:
        return None
    if counter is None and (b"/" in kept or b" of " in kept_lowered):
        return None
    return kept, kept_lowered


def _counter_before(
    counter: re.Pattern[bytes], s: bytes, at: int, name_start: int
) -> re.Match[bytes] | None:
    """The counter at `at` if it and the spaces and `-` after it end where the name
    starts (at the last place before the name it can start: none can start later)."""
    m = counter.match(s, at) if at >= 0 else None
    return m if m is not None and m.end() == name_start else None


_WORD = subject_rules._WORD  # what the parser's word boundaries see as a word
_PART_LAST = (
    rb" *(?:(?<![" + _WORD + rb"])[Yy][Ee][Nn][Cc] *)?\([0-9]{1,9}/[0-9]{1,9}\)(?: +[0-9]+)* *\Z"
)
_QUOTED_TAIL = re.compile(rb'([^"]*?)' + _PART_LAST)
_UNQUOTED_TAIL = re.compile(rb" ([^ ]+) " + _PART_LAST)
# a file counter (subject_rules.BRACKET_RE, FILEOF_RE) and the spaces and `-` after it
_BRACKET_THEN = re.compile(rb"\[ *[0-9]{1,9}(?:/| +[Oo][Ff] +)[0-9]{1,9} *\]([ -]*)")
_FILE_OF_THEN = re.compile(
    rb"(?<![" + _WORD + rb"])[Ff][Ii][Ll][Ee] +[0-9]{1,9} +[Oo][Ff] +[0-9]{1,9}:?([ -]*)"
)
# a size ends in a digit, maybe a space, and a unit's first letter
_SIZE_HINT = re.compile(rb"[0-9] ?[bkmgt]")
_EMPTY_BRACKETS = re.compile(rb"\( *\)|\[ *\]|\{ *\}")
_SPACE_RUN = re.compile(rb" +")
_OTHER_SPACES = b"\t\n\r\x0b\x0c"
# a run of tokens of `-` alone: each starts after a space or at the start (the look-behind
# after the first `-`, so that the regex engine skips from `-` to `-`), and ends before a
# space or at the end
_DASH_RUN = re.compile(rb"-(?<![^ ]-)-*(?: -+)*(?![^ ])")


def _normalised(kept: bytes) -> bytes:
    """`subject_rules.normalise(kept, fold=False)` in C-level passes: brackets left empty
    dropped (a pair emptied by that too), spaces collapsed, each run of `-` tokens one
    `-` between words and none at either end."""
    dropped = int(b")" in kept or b"]" in kept or b"}" in kept)  # most have no bracket
    while dropped:  # dropping a pair can leave its enclosing pair empty
        kept, dropped = _EMPTY_BRACKETS.subn(b" ", kept)
    if len(kept.translate(None, _OTHER_SPACES)) == len(kept):
        text = b" ".join(kept.split())  # split() splits at space and at _OTHER_SPACES
    else:
        text = _SPACE_RUN.sub(b" ", kept).strip(b" ")
    if text[:1] == b"-" or b" -" in text:
        text = _DASH_RUN.sub(b"-", text)
        if text[:2] == b"- ":
            text = text[2:]
        elif text == b"-":
            return b""
        if text[-2:] == b" -":
            text = text[:-2]
    return text


# --- categories ------------------------------------------------------------------------

_I = re.IGNORECASE


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
        re.compile(_KEYWORD.format(pattern), _I),
        frozenset(words.split()),
        tuple(hints.split()),
        1 << len(_KEYWORD_RULES),
    )
    _KEYWORD_RULES.append(rule)
    return rule


class _Part(NamedTuple):
    """A regex and a regex finding, in the lower-cased ASCII name, a text it needs."""

    pattern: re.Pattern[str]
    hint: re.Pattern[str]


def _part(pattern: str, hint: str, flags: int = _I) -> _Part:
    return _Part(re.compile(pattern, flags), re.compile(hint))


_KEYWORD = r"(?<![a-z0-9])(?:{})(?![a-z0-9])"
# the alternatives of the TV rule, each with the text it needs (the rule is their union)
_TV_PARTS = (
    _part(r"(?<![0-9])s\d{1,4}[ ._-]?ep?\d{1,4}", "s[0-9]"),
    _part(r"(?<![a-z0-9])s\d{1,4}(?=[ ._/-]|$|e\?)", "s[0-9]"),
    _part(r"(?<![0-9])(?:\d{1,2}|(?:19|20)\d\d)x\d{1,3}(?![0-9])", "[0-9]x[0-9]"),
    _part(
        r"(?<![a-z0-9])(?:season|saison|temporada|stagione|staffel|series|episode|episodio|"
        r"folge|afl|b[oö]l[uü]m|blm)[ ._-]?\d+",
        "season|saison|temporada|stagione|staffel|series|episod|folge|afl|bolum|blm",
    ),
    _part(r"\d+[ ._-]?(?:b[oö]l[uü]m|blm)", "bolum|blm"),
    _part(r"(?<![a-z0-9])ep?\d{2,4}(?=[ ._-]|$)", "ep?[0-9]"),
    _part(r"(?<![0-9])\d{1,2}of\d{1,2}(?![0-9])", "[0-9]of[0-9]"),
)
_TV = re.compile("|".join(part.pattern.pattern for part in _TV_PARTS), _I)
# what any part, or _DAILY, needs, in two passes faster than one over their hints: a digit
# after `s`, `e` or `p`, between digits an `x` or `of`, a date's digits (the regex starts at
# digits only); or a word for a season or an episode
_DATED_HINT = re.compile(r"[0-9](?:(?<=[sep][0-9])|(?:x|of)[0-9]|[ ._-][01][0-9][ ._-][0-9])")
_TV_WORD_HINT = re.compile(
    "season|saison|temporada|stagione|staffel|series|episod|folge|afl|bolum|blm"
)
_DAILY = _part(
    r"(?<!\d)(?:(?:19|20)\d\d[ ._-](?:0[1-9]|1[0-2])[ ._-](?:[0-2]\d|3[01])|"
    r"(?:[0-2]\d|3[01])[ ._-](?:0[1-9]|1[0-2])[ ._-](?:19|20)\d\d)(?!\d)",
    "[0-9][ ._-][01][0-9][ ._-][0-9]",
    flags=0,
)
_ANIME = re.compile(
    r"^\s*[\[(【][^\])】]+[\])】].*?"
    r"(?:[ _-]\d{1,4}(?:v\d)?(?=[ _.\[(-]|$)|\[[0-9A-F]{8}\]|第\d+[话話集])",
    _I,
)
_ABSOLUTE = re.compile(
    r"([ ._]-[ ._]|[ _.\[(#]|^)(?:ep?\.?\s?)?(\d{1,4})(?:v\d)?(?:\s?[-~]\s?\d{1,4})?"
    r"(?=$|[ ._\])\[(~-])",
    _I,
)
_LAST_EXT = re.compile(r"\.[A-Za-z0-9]{2,4}$")
_BRACKETED_EPISODE = re.compile(r"[\[【]第?\d{1,4}(?:[话話集完]|end|v\d)?[\]】]", _I)
_FANSUB = re.compile(r"^\s*[\[(【]|\[[0-9A-F]{8}\]|\([0-9A-F]{8}\)", _I)
_RESOLUTION = re.compile(r"\d{3,4}[x*]\d{3,4}")
_YEAR = re.compile(r"(?<![0-9])(?:19[2-9]\d|20[0-4]\d)(?![0-9])")
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
_XXX_GROUP = re.compile(r"erotica|xxx|porn", _I)
_GROUP_CATEGORIES = [
    (re.compile(r"anime", _I), 5070),
    (re.compile(r"teevee|\btv\b|\.tv|hdtv|tvseries|series|sitcom|documentar", _I), 5000),
    (re.compile(r"movie|dvd|bluray|x264|hd\.|divx|xvid|cinema|film", _I), 2000),
    (re.compile(r"lossless|flac", _I), 3040),
    (re.compile(r"audiobook", _I), 3030),
    (re.compile(r"sounds|mp3|music|audio", _I), 3000),
    (re.compile(r"comic", _I), 7030),
    (re.compile(r"e-?book|books", _I), 7020),
    (re.compile(r"games", _I), 4050),
    (re.compile(r"0day|warez|apps|pc\b|software|mac", _I), 4000),
]
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
# the file test's token is where the name starts (see _random_name)
_RANDOM_HEAD = re.compile(r"\s*([A-Za-z0-9_-]{12,})")


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

    def dated(self) -> bool:
        """Whether _TV or _DAILY matches the name: an episode, a season or a broadcast
        day."""
        text, lowered = self.text, self.lowered
        if lowered is None:
            return bool(_TV.search(text) or _DAILY.pattern.search(text))
        # one pass for what any of them needs (most names have none), then one by one
        if not (_DATED_HINT.search(lowered) or _TV_WORD_HINT.search(lowered)):
            return False
        if any(p.hint.search(lowered) and p.pattern.search(text) for p in _TV_PARTS):
            return True
        return bool(_DAILY.hint.search(lowered) and _DAILY.pattern.search(text))


def _xxx(name: str) -> int:
    if _UHD.pattern.search(name):
        return 6045
    if re.search(r"x264|h\.?264|1080p|720p", name, _I):
        return 6040
    if re.search(r"(?<![a-z])(?:xvid|divx)(?![a-z])", name, _I):
        return 6030
    if re.search(r"(?<![a-z])wmv(?![a-z])", name, _I):
        return 6020
    if re.search(r"(?<![a-z])dvd", name, _I):
        return 6010
    if re.search(r"(?<![a-z])(?:jpe?g|png|gif|imageset|pics?)(?![a-z])", name, _I):
        return 6060
    return 6000


def _tv(name: _Name, anime: bool) -> int:
    if anime:
        return 5070
    if name.has(_UHD):
        return 5045
    if name.has(_HD):
        return 5040
    return 5030


def _film(name: _Name) -> int:
    if name.has(_UHD):
        return 2045
    if name.has(_DISC):
        return 2050
    if name.has(_HD):
        return 2040
    return 2030


def category_of(name: str, groups: list[str]) -> int:
    """The Newznab category id of a release from its name and the groups it was posted to."""
    by_groups = _group_facts(tuple(groups))
    if by_groups.xxx:
        return _xxx(name)
    if _random_name(name):
        return 8020  # a hashed name says nothing about what it is
    # the rules in the order they decide; each runs only when the ones before did not
    text = _Name(name)
    # a full date names a broadcast day: it beats the year of a film
    if text.dated():
        return _tv(text, by_groups.anime or _anime(name))
    video = text.has(_VIDEO)
    film = video and bool(_YEAR.search(name))
    episode = _episode_evidence(text, video, film)
    if episode == 2 or (episode == 1 and not film):
        return _tv(text, by_groups.anime or _anime(name))
    if film:
        return _film(text)
    return _by_content(text, video) or by_groups.category


def _anime(name: str) -> bool:
    return _bracketed(name) and bool(_ANIME.search(name))


def _bracketed(name: str) -> bool:
    """Whether the name holds an opening bracket: _ANIME and _FANSUB need one."""
    return "[" in name or "(" in name or "【" in name


def _random_name(name: str) -> bool:
    """Whether the name's stem, its last extension off, is one random token."""
    # The token starts the name (stripped) and the file test holds only a run of 12 or
    # more of [A-Za-z0-9_-]: it is the name's leading run, since what ends the token (a
    # space, the `.` of a suffix or extension, the end) is none of those. Most names fail
    # the test on that run, and need no stem.
    head = _RANDOM_HEAD.match(name)
    if head is None or not _random_file_token(head.group(1).encode()):
        return False
    token = _LAST_EXT.sub("", stem(name).strip()).encode("utf-8", "surrogateescape")
    return bool(token) and b" " not in token and _random_file_token(token)


class _GroupFacts(NamedTuple):
    xxx: bool  # an adult group: its own categories
    anime: bool
    category: int  # the category the groups give when the name gives none


@functools.lru_cache(maxsize=4096)
def _group_facts(groups: tuple[str, ...]) -> _GroupFacts:
    """What a group list says, worked out once: a group's releases share it."""
    return _GroupFacts(
        xxx=any(_XXX_GROUP.search(g) for g in groups),
        anime=any("anime" in g.lower() for g in groups),
        category=_by_groups(groups),
    )


def _episode_evidence(name: _Name, video_word: bool, film: bool) -> int:
    """How strongly a bare number reads as an episode: 2 (`Show - 031 - Title`, `[Group]
    Show 07`), 1 (`Show 06 720p`), 0 (no episode number, or an album's track).
    `video_word`: whether _VIDEO matched the name; `film`: whether it reads as a film's,
    which only 2 overrides (1 is then not told from 0)."""
    text = name.text
    # a regex runs only on a name with the text it needs
    video = video_word or (("x" in text or "*" in text) and bool(_RESOLUTION.search(text)))
    if not video and (name.has(_MUSIC) or name.has(_LOSSLESS) or name.has(_EBOOK)):
        return 0
    bracketed = _bracketed(text)
    if bracketed and _BRACKETED_EPISODE.search(text):
        return 2
    bracketed = bracketed and bool(_FANSUB.search(text))
    # without a video word 1 never comes, and for a film it does not count: only a number
    # after ` - ` (or in a fansub's name) decides, so a name without one needs no pass
    if not (bracketed or (video and not film) or ("-" in text and _SPACED_DASH.search(text))):
        return 0
    best = 0
    for m in _ABSOLUTE.finditer(text):
        number = m.group(2)
        if len(number) == 4 and number[:2] in ("19", "20"):
            continue  # a year
        if m.group(1).strip(" ._") == "-" or bracketed:
            return 2
        if video:
            best = 1
    return best


_SPACED_DASH = re.compile(r"[ ._]-[ ._]")  # how _ABSOLUTE's first kind of lead starts


def _by_content(name: _Name, video: bool) -> int:
    if name.lowered is not None and not name.maybe & _CONTENT_BITS:
        found = name.marks & _CONTENT_BITS  # the words decide every content rule
        if found:
            return next(category for rule, category in _CONTENT if found & rule.bit)
    else:
        for rule, category in _CONTENT:
            if name.has(rule):
                return category
    return 2000 if video else 0


_CONTENT = (
    (_AUDIOBOOK, 3030),
    (_LOSSLESS, 3040),
    (_COMIC, 7030),
    (_EBOOK, 7020),
    (_MUSIC, 3010),
    (_GAME, 4050),
    (_ANDROID, 4070),
    (_IOS, 4060),
    (_MAC, 4030),
    (_SOFTWARE, 4010),
)
_CONTENT_BITS = functools.reduce(operator.or_, (rule.bit for rule, _ in _CONTENT))


def _by_groups(groups: tuple[str, ...]) -> int:
    for pattern, category in _GROUP_CATEGORIES:
        if any(pattern.search(g) for g in groups):
            return category
    return 8010


# --- usable names ----------------------------------------------------------------------


def usable_name(name: str, file_names: list[bytes], random_names: list[bool]) -> tuple[str, bool]:
    """The name to show, and whether it is usable at all.

    A release is unreadable when its name is one random token and most of its files
    have random names too (an obfuscated upload: pending, for the article pass to name).
    A random subject over readable files takes its name from the files instead.
    `file_names` and `random_names` are its files' names and random-name flags.
    """
    if len(file_names) != len(random_names):
        raise ValueError(f"{len(file_names)} file names but {len(random_names)} random flags")
    core = name.strip(_NAME_EDGE)
    # a random token is letters, digits, `_` and `-`: a dot or a space (most names) says
    # it is none without the test
    if core and ("." in core or " " in core or not random_token(core)):
        return name, True
    # readable when more than half the files have plain names: stop as soon as the
    # count decides it, and a file flagged random needs no stem
    total = len(file_names)
    first = ""
    plain = hashed = 0
    for raw, random_name in zip(file_names, random_names, strict=True):
        if not random_name:
            file_stem = stem(to_text(raw))
            if file_stem and not random_token(file_stem.strip(_NAME_EDGE)):
                plain += 1
                first = first or file_stem
                if plain * 2 > total:
                    return first, True
                continue
        hashed += 1
        if hashed * 2 >= total:
            break
    return core or name, False


_NAME_EDGE = " \t[](){}<>-_.\"'"


_DIGIT_RUN = re.compile(r"\d+")
_CAPITAL_RUN = re.compile(r"[A-Z]{2,}")


@functools.lru_cache(maxsize=4096)  # a release's volumes share one stem
def random_token(token: str) -> bool:
    """The file test, plus one for names: a long single token with digits strewn through
    it (`fpwbi4qjigiwgk52dvsvh28kh5586e`) is a hash, however pronounceable its letters."""
    if _random_file_token(token.encode("utf-8", "replace")):
        return True
    if len(token) < 20 or not token.isalnum():
        return False
    # digits strewn through it, or capitals in runs amid lower case (not CamelCase words)
    capital_runs = len(_CAPITAL_RUN.findall(token))
    return len(_DIGIT_RUN.findall(token)) >= 3 or (capital_runs >= 2 and token != token.upper())


def _random_file_token(t: bytes) -> bool:
    """`kernels.reference.names.random_token` (the file test), with C-level counts in place
    of its loops over bytes: names and file stems of every obfuscated release pass here."""
    n = len(t)
    if not t.isascii():
        return False  # UTF-8 letters: a title in another script, not noise
    if n >= 16 and not t.translate(None, _HEX_DIGITS):
        return True
    if n == 36 and names_ref.UUID_RE.fullmatch(t):
        return True
    if not t.isalnum():
        if not names_ref.JOINED_RE.fullmatch(t):
            return False
        longest = max(_JOINERS.split(t), key=len)  # the first of the longest parts
        return len(longest) >= 16 and _random_file_token(longest)
    if n < 12:
        return False
    letters = len(t.translate(None, _DIGITS))
    runs = len(_CLASS_RUNS.findall(t))  # runs of digits, of capitals, of small letters
    strewn = runs >= 6 and runs * 3 >= n
    if not strewn and letters < 8:
        return False
    wordlike = 0
    for word in _LETTER_WORDS.findall(t):
        m = len(word)
        vowels = m - len(word.translate(None, _VOWELS))
        if m >= 3 and vowels * 5 >= m and not _CONSONANTS_5.search(word):
            wordlike += m
    if strewn and wordlike * 4 < letters * 3:
        return True
    return letters >= 8 and wordlike * 5 < letters * 2


_HEX_DIGITS = b"0123456789abcdefABCDEF"
_DIGITS = b"0123456789"
_VOWELS = b"aeiouyAEIOUY"
_JOINERS = re.compile(rb"[-_]")
_CLASS_RUNS = re.compile(rb"[0-9]+|[A-Z]+|[a-z]+")
_LETTER_WORDS = re.compile(rb"[A-Z]*[a-z]+|[A-Z]+")  # CamelCase split into its words
_CONSONANTS_5 = re.compile(rb"[^aeiouyAEIOUY]{5}")  # a word has no longer cluster
