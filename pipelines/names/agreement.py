"""How far `parse_name` agrees with Sonarr's own parser cases, fixture by fixture.

The cases (`../shared/data/names/sonarr_parser_testcases.tsv`) are the arguments of
Sonarr's NUnit test cases: a release name and what Sonarr's parser must read from it.
Only the test methods whose expectations are fields this parser claims are counted (a
title, a year, a season, episodes, absolute numbers, a broadcast day, a quality); each
case agrees when every field it states agrees. Titles agree in their comparable form
(`title_key`: case, punctuation, small words), with the year ending a title counted as
part of it, as Sonarr's titles keep it (`Series Title 2010`).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from pipelines.names.clean import title_key
from pipelines.names.parse import ParsedName, parse_name

# the cases' own latest day is 2025-09-01; "today" is fixed so that the figures do not move
TODAY = date(2025, 12, 31)

Check = Callable[[ParsedName, list[str]], bool]


def _title(parsed: ParsedName, expected: str) -> bool:
    want = title_key(expected)
    with_year = f"{parsed.title} {parsed.year}" if parsed.year else parsed.title
    return want in (title_key(parsed.title), title_key(with_year))


def _ints(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", text)]


def _single(p: ParsedName, a: list[str]) -> bool:
    return _title(p, a[1]) and p.season == int(a[2]) and p.episodes == (int(a[3]),)


def _multi(p: ParsedName, a: list[str]) -> bool:
    return _title(p, a[1]) and p.season == int(a[2]) and list(p.episodes) == _ints(a[3])


def _daily(p: ParsedName, a: list[str]) -> bool:
    return _title(p, a[1]) and p.air_date == date(int(a[2]), int(a[3]), int(a[4]))


def _no_day(p: ParsedName, a: list[str]) -> bool:
    return p.air_date is None


def _absolute(p: ParsedName, a: list[str]) -> bool:
    season, episode = int(a[3]), int(a[4])
    numbers = p.episodes == (episode,) and p.season == season if episode else True
    return _title(p, a[1]) and p.absolute[:1] == (int(a[2]),) and numbers


def _absolute_range(p: ParsedName, a: list[str]) -> bool:
    return _title(p, a[1]) and p.absolute[:1] == (int(a[2]),) and p.absolute[-1:] == (int(a[3]),)


def _season(p: ParsedName, a: list[str]) -> bool:
    return _title(p, a[1]) and p.season == int(a[2]) and p.full_season


def _multi_season(p: ParsedName, a: list[str]) -> bool:
    return _title(p, a[1]) and p.season == int(a[2])


def _title_info(p: ParsedName, a: list[str]) -> bool:
    year = int(a[2]) if len(a) > 2 and a[2] else None
    return title_key(p.title) == title_key(a[1]) and p.year == year


def _quality(expected: str) -> Check:
    return lambda p, a: p.quality == expected


_QUALITY_METHODS = {
    "sdtv": "SDTV",
    "dvd": "DVD",
    "webdl480p": "WEBDL-480p",
    "webrip480p": "WEBRip-480p",
    "bluray480p": "Bluray-480p",
    "bluray576p": "Bluray-576p",
    "hdtv720p": "HDTV-720p",
    "hdtv1080p": "HDTV-1080p",
    "hdtv2160p": "HDTV-2160p",
    "webdl720p": "WEBDL-720p",
    "webrip720p": "WEBRip-720p",
    "bluray720p": "Bluray-720p",
    "webdl1080p": "WEBDL-1080p",
    "webrip1080p": "WEBRip-1080p",
    "bluray1080p": "Bluray-1080p",
    "bluray1080p_remux": "Bluray-1080p Remux",
    "webdl2160p": "WEBDL-2160p",
    "webrip2160p": "WEBRip-2160p",
    "bluray2160p": "Bluray-2160p",
    "bluray2160p_remux": "Bluray-2160p Remux",
    "raw": "RAWHD",
}

# (fixture, test method) -> the field it claims and the check of one case
CHECKS: dict[tuple[str, str], tuple[str, Check]] = {
    ("SingleEpisodeParserFixture", "should_parse_single_episode"): ("episode", _single),
    ("MultiEpisodeParserFixture", "should_parse_multiple_episodes"): ("episodes", _multi),
    ("DailyEpisodeParserFixture", "should_parse_daily_episode"): ("air date", _daily),
    ("DailyEpisodeParserFixture", "should_not_accept_future_dates"): ("air date", _no_day),
    ("DailyEpisodeParserFixture", "should_not_accept_ancient_daily_series"): ("air date", _no_day),
    ("DailyEpisodeParserFixture", "should_not_parse_ambiguous_daily_episode"): (
        "air date",
        _no_day,
    ),
    ("AbsoluteEpisodeNumberParserFixture", "should_parse_absolute_numbers"): (
        "absolute",
        _absolute,
    ),
    ("AbsoluteEpisodeNumberParserFixture", "should_parse_multi_episode_absolute_numbers"): (
        "absolute",
        _absolute_range,
    ),
    ("SeasonParserFixture", "should_parse_full_season_release"): ("season", _season),
    ("SeasonParserFixture", "should_parse_multi_season_release"): ("season", _multi_season),
    ("ParserFixture", "should_parse_series_title_info"): ("title and year", _title_info),
}
for _method, _expected in _QUALITY_METHODS.items():
    CHECKS[("QualityParserFixture", f"should_parse_{_method}_quality")] = (
        "quality",
        _quality(_expected),
    )


@dataclass
class FixtureAgreement:
    fixture: str
    method: str
    claims: str
    cases: int = 0
    agreed: int = 0
    disagreed: list[str] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.agreed / self.cases if self.cases else 1.0


def read_cases(path: Path) -> Iterator[tuple[str, str, list[str]]]:
    """(fixture, test method, arguments) of each case; C# string escapes are kept."""
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if not row or row[0].startswith("#") or len(row) < 4:
                continue
            yield row[0].removesuffix(".cs"), row[1], row[3:]


def agreement(path: Path) -> list[FixtureAgreement]:
    """Each claimed test method's agreement over its cases (empty names skipped: they
    are the cases of Sonarr tests that take no name)."""
    found: dict[tuple[str, str], FixtureAgreement] = {}
    for fixture, method, args in read_cases(path):
        claimed = CHECKS.get((fixture, method))
        if claimed is None or not args[0].strip():
            continue
        claims, check = claimed
        row = found.setdefault((fixture, method), FixtureAgreement(fixture, method, claims))
        row.cases += 1
        parsed = parse_name(args[0], today=TODAY)
        if check(parsed, args):
            row.agreed += 1
        else:
            row.disagreed.append(args[0])
    return list(found.values())


def overall(rows: list[FixtureAgreement]) -> float:
    cases = sum(r.cases for r in rows)
    return sum(r.agreed for r in rows) / cases if cases else 1.0
