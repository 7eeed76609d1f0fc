"""Plain-Python reference of pipelines.naming: the release and file names and the Newznab
category, as first written (one regex per rule, the subject parsed in full for its
identity text). pipelines.naming gives the same results with fewer passes;
tests/test_naming.py compares the two and bench.naming times them.
"""

from __future__ import annotations

import re
from re import IGNORECASE as _I

# what the faster modules did not change: one copy
from pipelines.naming.categories import _YEAR, _xxx
from pipelines.naming.content import BOOKS, IMAGES, LOSSLESS, MUSIC, VIDEO
from pipelines.naming.display import _EDGE, _REPLY, _SEPARATORS, _TAG, _WRAPPED, _or_fallback
from pipelines.naming.groups import _XXX_GROUP, _by_groups
from pipelines.naming.no_name import name_words, no_name
from pipelines.naming.posting_text import PREFIXES, SUFFIXES, kept_tag, unwrap
from pipelines.naming.random_names import _CAPITAL_RUN, _DIGIT_RUN, _LAST_EXT
from pipelines.naming.text import stem, to_text
from pipelines.naming.tv import (
    _ANIME,
    _BRACKETED_EPISODE,
    _FANSUB,
    _RESOLUTION,
    _bare_number_evidence,
)
from pipelines.subjects import file_names as names_ref
from pipelines.subjects import rules as subject_rules


def display_text(s: bytes) -> bytes:
    """The identity as the poster wrote it (case kept), from the full parse."""
    _, kept = subject_rules.parse_kept(s, keys=False)
    if subject_rules.ONLY_TAGS_RE.fullmatch(subject_rules.normalise(kept)):
        return b""
    return subject_rules.normalise(kept, fold=False)


def display_name(subject: bytes) -> str:
    """The release name to show for a subject: its identity with posting tags trimmed
    (the identity as it is when that leaves nothing), or, when the identity is empty, the
    stem of its file name."""
    identity = to_text(display_text(subject))
    text = _REPLY.sub("", identity)
    previous = None
    while previous != text:  # tags can stand side by side: `[1234]-[FULL]-[#a.b.x]-`
        previous = text
        text = _TAG.sub(" ", text).strip(_EDGE)
    text = _SEPARATORS.sub(" - ", text)
    wrapped = _WRAPPED.match(text)
    if wrapped:
        text = wrapped.group(1)
    text = re.sub(r"\s+", " ", text).strip(_EDGE)
    if not text:
        return _or_fallback(text, identity, subject)
    return trim_posting_text(text) or _or_fallback("", "", subject)


def trim_posting_text(text: str) -> str:
    """The uploader and site text cut, one rule at a time: a prefix at the start (the
    first rule of PREFIXES that matches), else a suffix at the end (the one that starts
    first, the first listed of those; a kept word in a tag is no suffix), else quotes or
    brackets around the whole; again until nothing is cut."""
    previous = None
    while text and previous != text:
        previous = text
        prefix = next((m for p in PREFIXES if (m := re.match(p, text, _I))), None)
        if prefix is not None:
            text = text[prefix.end() :].strip(_EDGE)
            continue
        ends = [m for s in SUFFIXES if (m := re.search(f"(?:{s})\\Z", text, _I))]
        suffix = min(ends, key=lambda m: m.start(), default=None)  # min: the first of a tie
        if suffix is not None and not kept_tag(suffix.groupdict().get("tag")):
            text = text[: suffix.start()].strip(_EDGE)
            continue
        text = unwrap(text)
    return text


# --- categories ------------------------------------------------------------------------

_TV = re.compile(
    r"(?<![0-9])s\d{1,4}[ ._-]?ep?\d{1,4}|(?<![a-z0-9])s\d{1,4}(?=[ ._/-]|$|e\?)|"
    r"(?<![0-9])(?:\d{1,2}|(?:19|20)\d\d)x\d{1,3}(?![0-9])|(?<![a-z0-9])(?:"
    r"season|saison|temporada|stagione|staffel|series|episode|episodio|folge|afl|"
    r"b[oö]l[uü]m|blm)[ ._-]?\d+|\d+[ ._-]?(?:b[oö]l[uü]m|blm)|(?<![a-z0-9])ep?\d{2,4}(?=[ ._-]|$)|"
    r"(?<![0-9])\d{1,2}of\d{1,2}(?![0-9])",
    _I,
)
_DAILY = re.compile(
    r"(?<!\d)(?:(?:19|20)\d\d[ ._-](?:0[1-9]|1[0-2])[ ._-](?:[0-2]\d|3[01])|"
    r"(?:[0-2]\d|3[01])[ ._-](?:0[1-9]|1[0-2])[ ._-](?:19|20)\d\d)(?!\d)"
)
_VIDEO = re.compile(
    r"(?<![a-z0-9])(?:720p|1080[pi]|2160p|4k|uhd|blu-?ray|bdrip|brrip|dvdrip|dvdr|dvd[59]|"
    r"web-?dl|webrip|hdrip|hdtv|pdtv|sdtv|xvid|divx|x264|x265|h\.?26[45]|hevc|avc|remux|"
    r"bdmv|cam|telesync|ts|mkv|mp4|avi)(?![a-z0-9])",
    _I,
)
_UHD = re.compile(r"(?<![a-z0-9])(?:2160p|4k|uhd)(?![a-z0-9])", _I)
_HD = re.compile(r"(?<![a-z0-9])(?:720p|1080[pi]|hd)(?![a-z0-9])", _I)
_DISC = re.compile(
    r"(?<![a-z0-9])(?:remux|bdmv|bd25|bd50|complete[ ._-]blu-?ray|avc)(?![a-z0-9])", _I
)
_LOSSLESS = re.compile(r"(?<![a-z0-9])(?:flac|alac|lossless|wav|ape|24bit|24-?bit)(?![a-z0-9])", _I)
_AUDIOBOOK = re.compile(
    r"(?<![a-z0-9])(?:audio-?book|abook|m4b|unabridged|hörbuch)(?![a-z0-9])", _I
)
_MUSIC = re.compile(
    r"(?<![a-z0-9])(?:mp3|aac|m4a|ogg|opus|\d{3}\s?kbps|v0|cbr|vbr|discography|album|single|"
    r"web-?flac|cd[12]?|vinyl)(?![a-z0-9])",
    _I,
)
_COMIC = re.compile(r"(?<![a-z0-9])(?:cbr|cbz|cb7|comics?)(?![a-z0-9])", _I)
_EBOOK = re.compile(r"(?<![a-z0-9])(?:epub|mobi|azw3?|pdf|e-?books?|retail|kindle)(?![a-z0-9])", _I)
_GAME = re.compile(
    r"(?<![a-z0-9])(?:codex|plaza|reloaded|skidrow|flt|tinyiso|prophet|hoodlum|cpy|empress|"
    r"darksiders|razor1911|gog|fitgirl|dodi|elamigos|repack)(?![a-z0-9])",
    _I,
)
_ANDROID = re.compile(r"(?<![a-z0-9])(?:apk|android)(?![a-z0-9])", _I)
_IOS = re.compile(r"(?<![a-z0-9])(?:ipa|ios|iphone|ipad)(?![a-z0-9])", _I)
_MAC = re.compile(r"(?<![a-z0-9])(?:mac|macos|osx|macosx)(?![a-z0-9])", _I)
_SOFTWARE = re.compile(
    r"(?<![a-z0-9])(?:keygen|crack|incl|x64|x86|win(?:32|64|dows)?|portable|multilingual|"
    r"setup|exe|msi|iso)(?![a-z0-9])",
    _I,
)


def _tv(name: str, anime: bool) -> int:
    if anime:
        return 5070
    if _UHD.search(name):
        return 5045
    if _HD.search(name):
        return 5040
    return 5030


def _film(name: str) -> int:
    if _UHD.search(name):
        return 2045
    if _DISC.search(name):
        return 2050
    if _HD.search(name):
        return 2040
    return 2030


_BY_FILES = {IMAGES: 8010, MUSIC: 3010, LOSSLESS: 3040, BOOKS: 7020}


def category_of(name: str, groups: list[str], content: str = "") -> int:
    """The Newznab category id of a release from its name, the groups it was posted to
    and what its files hold."""
    if any(_XXX_GROUP.search(g) for g in groups):
        return 6060 if content == IMAGES else _xxx(name)
    token = _LAST_EXT.sub("", stem(name).strip()).encode("utf-8", "surrogateescape")
    if token and b" " not in token and subject_rules.random_token(token):
        return 8020  # a hashed name says nothing about what it is
    anime = any("anime" in g.lower() for g in groups) or bool(_ANIME.search(name))
    film = bool(_YEAR.search(name) and (_VIDEO.search(name) or content == VIDEO))
    episode = _episode_evidence(name)
    # a full date names a broadcast day: it beats the year of a film
    if _TV.search(name) or _DAILY.search(name) or episode == 2 or (episode == 1 and not film):
        return _tv(name, anime)
    if film:
        return _film(name)
    return _by_content(name) or _BY_FILES.get(content, 0) or _by_groups(groups)


def _episode_evidence(name: str) -> int:
    """How strongly a bare number reads as an episode: 2 (`Show - 031 - Title`, `[Group]
    Show 07`), 1 (`Show 06 720p`), 0 (no episode number, or an album's track)."""
    video = bool(_VIDEO.search(name) or _RESOLUTION.search(name))
    if not video and (_MUSIC.search(name) or _LOSSLESS.search(name) or _EBOOK.search(name)):
        return 0
    if _BRACKETED_EPISODE.search(name):
        return 2
    return _bare_number_evidence(name, bool(_FANSUB.search(name)), video)


def _by_content(name: str) -> int:
    if _AUDIOBOOK.search(name):
        return 3030
    if _LOSSLESS.search(name):
        return 3040
    if _COMIC.search(name):
        return 7030
    if _EBOOK.search(name):
        return 7020
    if _MUSIC.search(name):
        return 3010
    if _GAME.search(name):
        return 4050
    if _ANDROID.search(name):
        return 4070
    if _IOS.search(name):
        return 4060
    if _MAC.search(name):
        return 4030
    if _SOFTWARE.search(name):
        return 4010
    if _VIDEO.search(name):
        return 2000
    return 0


# --- usable names ----------------------------------------------------------------------


def usable_name(
    name: str, file_names: list[bytes], random_names: list[bool], template: bool = False
) -> tuple[str, bool]:
    """The name to show, and whether it is usable at all.

    A release is unreadable when its name is one random token and most of its files
    have random names too (an obfuscated upload: pending, for the article pass to name).
    A random subject over readable files takes its name from the files instead.
    `file_names` and `random_names` are its files' names and random-name flags.
    """
    core = name.strip(" \t[](){}<>-_.\"'")
    stems = [stem(to_text(n)) for n in file_names]
    plain = [
        s
        for s, random in zip(stems, random_names, strict=True)
        if s and not _random_file(random, s)
    ]
    by_files = plain[0] if len(plain) * 2 > len(file_names) else None
    if core and not random_token(core):
        # no name, or one word alone (pipelines.naming.no_name): the files decide
        words = name_words(core)
        if len(words) >= 2 or template:
            return name, True
        if by_files is None:
            return core, False
        named_by_files = not no_name(core) and any(
            words[0] in to_text(n).lower() for n in file_names
        )
        return (name if named_by_files else by_files), True
    if by_files is None:
        return core or name, False
    return by_files, True


def _random_file(random_name: bool, stem: str) -> bool:
    return random_name or random_token(stem.strip(" \t[](){}<>-_.\"'"))


def random_token(token: str) -> bool:
    """The file test, plus one for names: a long single token with digits strewn through
    it (`fpwbi4qjigiwgk52dvsvh28kh5586e`) is a hash, however pronounceable its letters."""
    if names_ref.random_token(token.encode("utf-8", "replace")):
        return True
    if len(token) < 20 or not token.isalnum():
        return False
    # digits strewn through it, or capitals in runs amid lower case (not CamelCase words)
    capital_runs = len(_CAPITAL_RUN.findall(token))
    if len(_DIGIT_RUN.findall(token)) >= 3 or (capital_runs >= 2 and token != token.upper()):
        return True
    # one case, 24 or more, a digit in it (`hdabbrbhkiwwq9yuzfcahpo58bpedj`): a name that
    # long has words and separators
    one_case = token.islower() or token.isupper()
    return len(token) >= 24 and one_case and any(c.isdigit() for c in token)
