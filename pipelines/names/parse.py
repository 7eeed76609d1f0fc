"""A release name read as a title, a year, and the episode, season or day it holds.

`parse_name` is what the id lookup (`pipelines.ids`) and the clients' searches need of a
name: the show's or the film's title, its year, its season and episodes (several, or a
range), its broadcast day, its absolute numbers (anime) and its quality. The markers
(`markers.py`) and the bare numbers (`bare.py`) find where the numbers are; the title is
the text before the first of them (for a film, before its year).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from pipelines.names.bare import absolute_beside, absolute_marker, scene_marker
from pipelines.names.clean import display_title, prepare, title_key
from pipelines.names.markers import (
    RANK_DAILY,
    RANK_EPISODE,
    Marker,
    part_marker,
    strong_markers,
)
from pipelines.names.quality import quality_of

_GROUP = re.compile(r"^\s*[\[【](?P<group>[^\]】]*)[\]】][ ._-]*(?:\[[^\]]*\][ ._-]*)*")
_CRC = re.compile(r"[\[(][0-9A-F]{8}[\])]")
_YEAR = re.compile(r"(?<=[ ._(\[-])[(\[]?(?P<year>(?:19|20)\d\d)[)\]]?(?![0-9])")
# tags in brackets between a title and its episode (`Series [HDTV 720p][Cap.101]`)
_TRAILING_TAGS = re.compile(r"(?:\s*\[(?!(?:19|20)\d\d\])[^\]]*\])+\s*$")
_PACK_WORDS = re.compile(
    r"[ ._-]+complete(?:[ ._]series)?[ ._-]*$", re.I
)  # a pack's, not the title's
# where a name's tags start (a height, a source, a codec): no bare episode number after it
_QUALITY_TAG = re.compile(
    r"(?<![a-z0-9])(?:\d{3,4}[pi]|hdtv|web-?dl|webrip|web|blu-?ray|bdrip|dvdrip|x26[45]|"
    r"h[ .]?26[45]|xvid|hevc)(?![a-z0-9])",
    re.I,
)
_TRAILING_YEAR = re.compile(r"[ ._\-(\[]+[(\[]?(?P<year>(?:19|20)\d\d)[)\]]?$")


@dataclass(frozen=True)
class ParsedName:
    title: str  # without its year
    year: int | None = None
    season: int | None = None
    episodes: tuple[int, ...] = ()
    absolute: tuple[int, ...] = ()
    air_date: date | None = None
    full_season: bool = False
    last_season: int | None = None
    quality: str = ""
    group: str = ""  # a fansub's leading [group]

    @property
    def title_key(self) -> str:
        return title_key(self.title)

    @property
    def kind(self) -> str:
        """episode, daily, absolute, season, movie (a title and a year only) or title."""
        if self.episodes and self.season is not None:
            return "episode"
        if self.air_date is not None:
            return "daily"
        if self.absolute:
            return "absolute"
        if self.full_season:
            return "season"
        return "movie" if self.year is not None else "title"


def parse_name(name: str, today: date | None = None) -> ParsedName:
    """Read a release name (a file name too). `today` bounds a broadcast day (none later)."""
    today = today or date.today()
    text = prepare(name)
    anime = bool(_GROUP.match(text) or _CRC.search(text))
    group = ""
    lead = _GROUP.match(text)
    if lead and lead.end() < len(text):
        group, text = lead.group("group").strip(), text[lead.end() :]
    quality = quality_of(name)
    markers = strong_markers(text, today, anime)
    if markers:
        return _from_markers(text, markers, anime, group, quality)
    weak = _weak_marker(text, anime)
    tags = _QUALITY_TAG.search(text)
    if weak and tags and weak.start > tags.start():
        weak = None  # a number among the tags (`DDP5 1`, `10 bit`) numbers no episode
    if weak:
        title, year = _title_and_year(text[: weak.start])
        return ParsedName(
            title, year, weak.season, weak.episodes, weak.absolute, group=group, quality=quality
        )
    title, year = _film_title(text)
    return ParsedName(title, year, group=group, quality=quality)


def _weak_marker(text: str, anime: bool) -> Marker | None:
    if anime:
        return absolute_marker(text) or part_marker(text)
    return scene_marker(text) or part_marker(text) or absolute_marker(text)


def _from_markers(
    text: str, markers: list[Marker], anime: bool, group: str, quality: str
) -> ParsedName:
    title_end = min(m.start for m in markers)
    episode = next((m for m in markers if m.rank == RANK_EPISODE and m.episodes), None)
    only_absolute = next((m for m in markers if m.rank == RANK_EPISODE and m.absolute), None)
    daily = next((m for m in markers if m.rank == RANK_DAILY), None)
    season = next((m for m in markers if m.rank > RANK_DAILY), None)
    absolute: tuple[int, ...] = only_absolute.absolute if only_absolute else ()
    if episode is not None:
        beside, end = absolute_beside(text, episode)
        if beside and (anime or _zero_padded(text, episode)):
            absolute, title_end = beside, min(title_end, end)
    title, year = _title_and_year(text[:title_end])
    whole = episode is not None and _whole_season(text, episode)
    return ParsedName(
        title,
        year,
        season=episode.season if episode else (season.season if season else None),
        episodes=episode.episodes if episode and not whole else (),
        absolute=absolute,
        air_date=daily.air_date if daily else None,
        full_season=whole
        or (episode is None and daily is None and not absolute and season is not None),
        last_season=season.last_season if season and episode is None else None,
        quality=quality,
        group=group,
    )


def _whole_season(text: str, episode: Marker) -> bool:
    """`S1E1-8 of 8`: every episode of the season, a season pack."""
    m = re.match(r"[ ._]*of[ ._]*(\d{1,3})(?![0-9])", text[episode.end :])
    count = int(m.group(1)) if m else 0
    return count > 1 and episode.episodes == tuple(range(1, count + 1))


def _zero_padded(text: str, episode: Marker) -> bool:
    """Whether an absolute number follows the episode written as `001` (`S01E01 - 001`)."""
    return bool(re.match(r"^[ ._]*-?[ ._]*\(?0\d\d(?![0-9])", text[episode.end :]))


def _title_and_year(raw: str) -> tuple[str, int | None]:
    """A show's title and the year that ends it (`Series (2010)`, `Series.2010`)."""
    title = display_title(_PACK_WORDS.sub("", _TRAILING_TAGS.sub("", raw)))
    m = _TRAILING_YEAR.search(title)
    if m and m.start() > 0:
        return display_title(title[: m.start()]), int(m.group("year"))
    return title, None


def _film_title(text: str) -> tuple[str, int | None]:
    """A film's title: the text before its year (the last one, `2001 A Space Odyssey 1968`)."""
    years = [m for m in _YEAR.finditer(text) if m.start() > 0]
    if not years:
        return display_title(text), None
    last = years[-1]
    return display_title(text[: last.start()]), int(last.group("year"))
