"""Where a release name says which episode it holds: the markers and what each reads.

A *marker* is a span of the name that numbers an episode, a season or a broadcast day:
`S02E15`, `4x05`, `Season 1 Episode 5`, `2011.04.18`, `S03`, `Cap.201`. The title is the
text before the earliest one; the numbers come from the most specific kind present
(the `rank` below), so `Series 2015 02 09 s01e13` keeps both its day and its episode.

Scene names without a marker number an episode as digits alone (`Title.103.720p` is
season 1 episode 3; `Title.10708` episodes 7 and 8); fansub names number it absolutely
(`[Group] Title - 031`). Which of the two a bare number is depends on the shape of the
name, never on its words: see `weak_marker`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

# a marker's rank: the lower, the more specific its numbers
RANK_EPISODE = 0  # S01E02, 1x02, Season 1 Episode 2, Cap.102
RANK_DAILY = 1
RANK_SEASON = 2  # S01, Season 1: a whole season
RANK_SERIES_WORD = 3  # `Series 1` (a British season); only when nothing else is found


@dataclass(frozen=True)
class Marker:
    start: int
    end: int
    rank: int
    season: int | None = None
    episodes: tuple[int, ...] = ()
    absolute: tuple[int, ...] = ()
    air_date: date | None = None
    last_season: int | None = None  # a multi-season pack's last season


def numbers_span(first: int, last: int) -> tuple[int, ...]:
    """Episodes first..last (a range or a list, named by its ends); one if last is not after."""
    if last <= first or last - first > 500:
        return (first,)
    return tuple(range(first, last + 1))


_SXXEXX = re.compile(
    r"(?<![a-z0-9'])s(?P<season>\d{1,4})(?:[ ._]{0,2}|[ ._]?-[ ._]?(?=e\d)|-)"
    r"ep?\.?[ ._]?(?P<first>\d{1,5})(?![0-9])"
    r"(?P<more>(?:(?:[ ._]?[-~&+][ ._]?|[ ._])?(?:s\d{1,4}[ ._]?)?ep?[ ._]?\d{1,5}(?![0-9])"
    r"|[-_]\d{1,5}(?![0-9a-z])|[ ._]?-[ ._]?e?\d{1,5}(?![0-9p])(?=[ ._]*(?:of|\)|$)))*)",
    re.I,
)
_NXN = re.compile(
    r"(?<![a-z0-9])(?P<season>\d{1,4})x(?P<first>\d{1,4})(?![0-9p])"
    r"(?P<more>(?:(?:x\d{1,4}|[-_](?:\d{1,4}x|x)?\d{1,4}|[ ._]*-?[ ._]*(?:\d{1,4}x|x)\d{1,4})"
    r"(?![0-9p]))*)",
    re.I,
)
# `Title.s06.01.1999`: season and episode apart, a dot between
_SEASON_DOT_EPISODE = re.compile(
    r"(?<![a-z0-9'])s(?P<season>\d{1,2})\.(?P<first>\d{2})(?=[ ._-])", re.I
)
_WORDS = re.compile(
    r"(?<![a-z0-9])(?:season|saison|temporada|stagione|staffel|se)[ ._]?\.?(?P<season>\d{1,4})"
    r"[ ._-]*(?:episode|episodio|ep|afl|e)[ ._]?\.?(?P<first>\d{1,4})(?![0-9])"
    r"(?P<more>(?:[ ._]?(?:-|en|&)[ ._]?\d{1,4}(?![0-9]))*)",
    re.I,
)
_WORD_HINTS = ("season", "saison", "temporada", "stagione", "staffel")
_SE_DOT_HINT = re.compile(r"se[ ._]?\.?\d")  # `Se.1 afl.2`
_CAP = re.compile(
    r"\[Cap\.\s?(?P<season>\d{1,2})(?P<first>\d\d)(?:_\d{1,2}(?P<last>\d\d))?\]", re.I
)
_SEASON = re.compile(
    r"(?<![a-z0-9'])(?:s|season|saison|stagione|staffel|temporada)[ ._]?(?P<season>\d{1,4})"
    r"(?![0-9])(?![ ._-]{0,3}e[p0-9])(?!x\d)"
    r"(?:(?:-|[ ._]+-[ ._]+(?=s|season)|[ ._]+)(?:s|season[ ._]?)?(?P<last>\d{1,2})(?![0-9a-z]))?",
    re.I,
)
_SEASON_THEN_NUMBER = re.compile(
    r"[ ._]+(?:(?P<number>\d{3,4})|\[(?P<bracketed>\d{1,4})\])(?![0-9a-z])"
)
_SERIES_WORD = re.compile(r"(?<=[ ._-])series[ ._](?P<season>\d{1,2})(?![0-9a-z])", re.I)
_DAILY_YMD = re.compile(
    r"(?<![0-9])(?P<y>(?:19|20)\d\d)(?P<s>[-_. ])(?P<a>\d\d)(?P=s)(?P<b>\d\d)(?![0-9])"
)
_DAILY_DMY = re.compile(
    r"(?<![0-9])(?P<a>\d\d)(?P<s>[-_. ])(?P<b>\d\d)(?P=s)(?P<y>(?:19|20)\d\d)(?![0-9])"
)
_DAILY_COMPACT = re.compile(
    r"(?<![0-9a-z])(?P<y>20\d\d|19\d\d|1\d|2\d)(?P<a>[01]\d)(?P<b>[0-3]\d)(?![0-9])", re.I
)
_EPISODE_ONLY = re.compile(
    r"(?<![a-z0-9])(?P<word>e|ep|episode|episodio)[ ._]?(?P<first>\d{1,4})(?![0-9a-z])"
    r"(?:[ ._]?[-~][ ._]?(?:ep?[ ._]?)?(?P<last>\d{1,4})(?![0-9a-z]))?",
    re.I,
)


def _last_number(more: str) -> int | None:
    found = re.findall(r"\d+", more)
    return int(found[-1]) if found else None


def _episode_markers(text: str) -> list[Marker]:
    found: list[Marker] = []
    low = text.lower()
    # a regex runs only on a name holding what it needs (most names hold none of it)
    words = any(w in low for w in _WORD_HINTS) or bool(_SE_DOT_HINT.search(low))
    for pattern in (_SXXEXX, _WORDS) if words else (_SXXEXX,):
        m = pattern.search(text)
        if m:
            first = int(m.group("first"))
            last = _last_number(m.group("more"))
            episodes = numbers_span(first, last) if last is not None else (first,)
            found.append(Marker(m.start(), m.end(), RANK_EPISODE, int(m.group("season")), episodes))
    m = _SEASON_DOT_EPISODE.search(text)
    if m:
        found.append(
            Marker(
                m.start(), m.end(), RANK_EPISODE, int(m.group("season")), (int(m.group("first")),)
            )
        )
    for m in _NXN.finditer(text):
        season, first = int(m.group("season")), int(m.group("first"))
        if _resolution(season, first) or (season >= 100 and not 1900 <= season < 2100):
            continue
        more = re.sub(r"\d{1,4}x", "", m.group("more"))
        last = _last_number(more)
        episodes = numbers_span(first, last) if last is not None else (first,)
        found.append(Marker(m.start(), m.end(), RANK_EPISODE, season, episodes))
        break
    m = _CAP.search(text) if "cap" in low else None
    if m:
        first = int(m.group("first"))
        last = int(m.group("last")) if m.group("last") else first
        found.append(
            Marker(
                m.start(), m.end(), RANK_EPISODE, int(m.group("season")), numbers_span(first, last)
            )
        )
    return found


def _resolution(width: int, height: int) -> bool:
    """Whether NxM reads as a picture's size (`1280x720`) rather than season x episode."""
    return width >= 320 and height >= 240 and 1.2 <= width / height <= 2.7


def _valid_day(year: int, month: int, day: int, today: date) -> date | None:
    try:
        d = date(year, month, day)
    except ValueError:
        return None
    return d if date(1930, 1, 1) <= d <= today else None


def _daily_marker(text: str, today: date) -> Marker | None:
    for m in _DAILY_YMD.finditer(text):
        y, a, b = int(m.group("y")), int(m.group("a")), int(m.group("b"))
        d = _valid_day(y, a, b, today) or _valid_day(y, b, a, today)
        if d:
            return Marker(m.start(), m.end(), RANK_DAILY, air_date=d)
    for m in _DAILY_DMY.finditer(text):
        y, a, b = int(m.group("y")), int(m.group("a")), int(m.group("b"))
        if a > 12:
            d = _valid_day(y, b, a, today)
        elif b > 12:
            d = _valid_day(y, a, b, today)
        else:
            continue  # 04.05.2014: April or May? A doubtful day is no day
        if d:
            return Marker(m.start(), m.end(), RANK_DAILY, air_date=d)
    for m in _DAILY_COMPACT.finditer(text):
        y = int(m.group("y"))
        if y < 100:
            # yymmdd: only this century's later years, so that a scene number of six
            # digits (`010910`: season 1, episodes 9 and 10) is not read as a day
            if y < 10:
                continue
            y += 2000
        d = _valid_day(y, int(m.group("a")), int(m.group("b")), today)
        if d:
            return Marker(m.start(), m.end(), RANK_DAILY, air_date=d)
    return None


def _season_marker(text: str) -> Marker | None:
    for m in _SEASON.finditer(text):
        if re.match(r"\)?[ ._]+-[ ._]+(?:ep?)?\d", text[m.end() :], re.I):
            continue  # `[Group] Title S3 - 12`: the season belongs to the anime's title
        season = int(m.group("season"))
        number = _SEASON_THEN_NUMBER.match(text, m.end())
        if number:
            digits = number.group("number") or number.group("bracketed")
            if not re.fullmatch(r"(?:19|20)\d\d", digits):
                # `Title S21 999`, `[Group] Title S2 [05]`: an anime's episode after a
                # season that belongs to its title, as the fansub names it
                start = (
                    number.start("number")
                    if number.group("number")
                    else number.start("bracketed") - 1
                )
                return Marker(start, number.end(), RANK_EPISODE, absolute=(int(digits),))
        last = int(m.group("last")) if m.group("last") else None
        return Marker(
            m.start(),
            m.end(),
            RANK_SEASON,
            season,
            last_season=last if last and last > season else None,
        )
    word = _SERIES_WORD.search(text) if "series" in text.lower() else None
    if word:
        return Marker(word.start(), word.end(), RANK_SERIES_WORD, int(word.group("season")))
    return None


_NUMBER_THEN_WORD = re.compile(
    r"(?<![0-9])(?P<first>\d{1,4})\.?[ ._]?(?:b[oö]l[uü]m|blm)(?![a-z])", re.I
)


def episode_only_marker(text: str, anime: bool) -> Marker | None:
    """`E07-E08` (a mini-series' episodes, season 1), `Ep01-12`, `Episode 99-100` or
    `60. Bölüm` (numbered absolutely, as anime batches and daily soaps are), or any of
    them in a fansub's name."""
    m = _EPISODE_ONLY.search(text)
    if not m:
        low = text.lower()
        hinted = "bl" in low or "bol" in low or "böl" in low
        w = _NUMBER_THEN_WORD.search(text) if hinted else None
        return (
            Marker(w.start(), w.end(), RANK_EPISODE, absolute=(int(w.group("first")),))
            if w
            else None
        )
    first = int(m.group("first"))
    numbers = numbers_span(first, int(m.group("last"))) if m.group("last") else (first,)
    # three digits and more, or `Ep`/`Episode` spelled out: counted from the show's start
    if anime or m.group("word").lower() != "e" or first >= 100:
        return Marker(m.start(), m.end(), RANK_EPISODE, absolute=numbers)
    return Marker(m.start(), m.end(), RANK_EPISODE, 1, numbers)


def strong_markers(text: str, today: date, anime: bool) -> list[Marker]:
    """Every marker of an episode, a day or a season found in the name."""
    found = _episode_markers(text)
    daily = _daily_marker(text, today)
    if daily:
        found.append(daily)
    season = _season_marker(text)
    if season and (season.rank == RANK_SEASON or not found):
        found.append(season)
    only = episode_only_marker(text, anime)
    if only:
        found.append(only)
    return found


_PART = re.compile(
    r"(?<![a-z0-9])(?:part[ ._]?(?P<part>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)"
    r"|(?P<of>\d{1,2})of\d{1,2})(?![0-9a-z])",
    re.I,
)
_WORD_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def part_marker(text: str) -> Marker | None:
    """A mini-series' `Part 2`, `Part.Two` or `5of9`: season 1, that episode."""
    low = text.lower()
    m = _PART.search(text) if "part" in low or "of" in low else None
    if not m:
        return None
    word = (m.group("part") or m.group("of")).lower()
    number = int(word) if word.isdigit() else _WORD_NUMBERS.index(word) + 1
    return Marker(m.start(), m.end(), RANK_EPISODE, 1, (number,))
