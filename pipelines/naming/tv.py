"""The TV rules of the categories: whether a release name reads as an episode, and as anime.

Sonarr looks for a show's episodes in the TV categories. A name goes there on the marks of
an episode, a season or a broadcast day (`S01E02`, `1x02`, `Season 2`, `2013.05.03`), which
beat a film's year, or on a bare number that reads as an episode (`Show - 031 - Title`,
`[Group] Show 07`); anime, told by its fansub brackets, has a TV category of its own. Each
regex runs only when the name holds what it needs: most names hold none of it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from pipelines.naming.keywords import _EBOOK, _LOSSLESS, _MUSIC, _Name


class _Part(NamedTuple):
    """A regex and a regex finding, in the lower-cased ASCII name, a text it needs."""

    pattern: re.Pattern[str]
    hint: re.Pattern[str]


def _part(pattern: str, hint: str, flags: int = re.I) -> _Part:
    return _Part(re.compile(pattern, flags), re.compile(hint))


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
_TV = re.compile("|".join(part.pattern.pattern for part in _TV_PARTS), re.I)
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
    re.I,
)
_ABSOLUTE = re.compile(
    r"([ ._]-[ ._]|[ _.\[(#]|^)(?:ep?\.?\s?)?(\d{1,4})(?:v\d)?(?:\s?[-~]\s?\d{1,4})?"
    r"(?=$|[ ._\])\[(~-])",
    re.I,
)
_BRACKETED_EPISODE = re.compile(r"[\[【]第?\d{1,4}(?:[话話集完]|end|v\d)?[\]】]", re.I)
_FANSUB = re.compile(r"^\s*[\[(【]|\[[0-9A-F]{8}\]|\([0-9A-F]{8}\)", re.I)
_RESOLUTION = re.compile(r"\d{3,4}[x*]\d{3,4}")


def _dated(name: _Name) -> bool:
    """Whether _TV or _DAILY matches the name: an episode, a season or a broadcast day."""
    text, lowered = name.text, name.lowered
    if lowered is None:
        return bool(_TV.search(text) or _DAILY.pattern.search(text))
    # one pass for what any of them needs (most names have none), then one by one
    if not (_DATED_HINT.search(lowered) or _TV_WORD_HINT.search(lowered)):
        return False
    if any(p.hint.search(lowered) and p.pattern.search(text) for p in _TV_PARTS):
        return True
    return bool(_DAILY.hint.search(lowered) and _DAILY.pattern.search(text))


def _anime(name: str) -> bool:
    return _bracketed(name) and bool(_ANIME.search(name))


def _bracketed(name: str) -> bool:
    """Whether the name holds an opening bracket: _ANIME and _FANSUB need one."""
    return "[" in name or "(" in name or "【" in name


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
    return _bare_number_evidence(text, bracketed, video)


def _bare_number_evidence(text: str, bracketed: bool, video: bool) -> int:
    """_episode_evidence from the bare numbers themselves: 2 for one after ` - ` (any, in
    a fansub's name), 1 for one in a name with a video word, 0 for none (a year is none)."""
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
