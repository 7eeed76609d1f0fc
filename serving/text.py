"""How release names become search words; the index builder and the query parser share it.

Dots, underscores, dashes and other ASCII punctuation separate words; letters and
digits of any script are kept, case-folded with `str.lower` (Arrow's `utf8_lower`
agrees with it). The separator class is written out in ASCII because the index builder
runs it through Arrow's RE2 and the query side through Python's `re`: spelled this
way both engines split identically.
"""

from __future__ import annotations

import re

SEPARATORS = r"[\s\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+"
_SPLIT = re.compile(SEPARATORS)
# Filter terms live in the same dictionary as words; \x1f never survives the split.
FILTER = "\x1f"
_EPISODE = re.compile(r"^s(\d{1,3})e(\d{1,4})$|^(\d{1,2})x(\d{1,3})$")
_SEASON = re.compile(r"^s(\d{1,3})$")


def words(text: str) -> list[str]:
    """The distinct search words of a query or name, in order."""
    return list(dict.fromkeys(w for w in _SPLIT.split(text.lower()) if w))


def group_term(group: str) -> str:
    return f"{FILTER}g:{group.lower()}"


def poster_term(poster: str) -> str:
    return f"{FILTER}p:{poster.lower()}"


def category_term(category: int) -> str:
    return f"{FILTER}c:{category}"


def id_term(kind: str, value: int) -> str:
    """A film's or series' id a release carries (`pipelines/ids`): imdb, tvdb, tvmaze,
    tvrage or tmdb."""
    return f"{FILTER}id:{kind}:{value}"


def season_term(season: int, episode: int | None = None) -> str:
    return f"{FILTER}se:{season}" if episode is None else f"{FILTER}se:{season}:{episode}"


def episode_terms(word: str) -> list[str]:
    """The season/episode terms a name word carries: `s03e02` -> season 3, episode 2."""
    m = _EPISODE.match(word)
    if m:
        season = int(m.group(1) or m.group(3))
        episode = int(m.group(2) or m.group(4))
        return [season_term(season), season_term(season, episode)]
    m = _SEASON.match(word)
    return [season_term(int(m.group(1)))] if m else []
