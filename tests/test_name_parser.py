"""The release name parser against Sonarr's own parser cases, and cases of our own."""

from __future__ import annotations

from datetime import date

import pytest

from pipelines.names import parse_name, title_key
from pipelines.names.agreement import agreement, overall
from tests.shared_data import DATA, needs_data

TARGET = 0.98


@needs_data("names")
def test_agreement_with_sonarr_cases_meets_the_target() -> None:
    rows = agreement(DATA / "names" / "sonarr_parser_testcases.tsv")
    report = "\n".join(f"{r.share:7.1%} {r.agreed}/{r.cases} {r.fixture}.{r.method}" for r in rows)
    claims = {r.claims for r in rows}
    assert claims == {
        "episode",
        "episodes",
        "air date",
        "absolute",
        "season",
        "title and year",
        "quality",
    }
    assert sum(r.cases for r in rows) > 700, report
    assert overall(rows) >= TARGET, report
    for claim in claims:
        of_claim = [r for r in rows if r.claims == claim]
        assert overall(of_claim) >= 0.9, f"{claim}\n{report}"


@pytest.mark.parametrize(
    ("name", "title", "year", "season", "episodes"),
    [
        ("The.Show.2019.S02E03.1080p.WEB-DL.DDP5.1.H.264-GRP", "The Show", 2019, 2, (3,)),
        ("Show.Name.S01E01-E03.720p.HDTV.x264-GRP", "Show Name", None, 1, (1, 2, 3)),
        ("Show.Name.3x07.720p.HDTV", "Show Name", None, 3, (7,)),
        ("Show Name - 2x09-2x10 - Title [SDTV]", "Show Name", None, 2, (9, 10)),
        ("Show.Name.207.HDTV.XviD-GRP", "Show Name", None, 2, (7,)),
    ],
)
def test_episodes(
    name: str, title: str, year: int | None, season: int, episodes: tuple[int, ...]
) -> None:
    parsed = parse_name(name)
    assert (parsed.title, parsed.year, parsed.season, parsed.episodes) == (
        title,
        year,
        season,
        episodes,
    )
    assert parsed.kind == "episode"


def test_a_film_is_its_title_and_its_last_year() -> None:
    parsed = parse_name("2001.A.Space.Odyssey.1968.1080p.BluRay.x264-GRP")
    assert (parsed.title, parsed.year, parsed.kind) == ("2001 A Space Odyssey", 1968, "movie")
    assert parsed.quality == "Bluray-1080p"


def test_a_picture_size_codec_or_audio_layout_is_no_episode() -> None:
    for name in ("Show [1280x720 x264 AAC 5.1]", "Film.Name.2010.1920x1080.H.264.DD5.1"):
        parsed = parse_name(name)
        assert parsed.episodes == () and parsed.absolute == (), name


def test_daily_days_that_are_doubtful_or_to_come_are_none() -> None:
    assert parse_name("Talk Show 04.05.2014 HDTV").air_date is None  # April or May
    today = date(2020, 1, 1)
    assert parse_name("Talk.Show.2020.05.01.HDTV", today=today).air_date is None
    assert parse_name("Talk.Show.2019.05.01.HDTV", today=today).air_date == date(2019, 5, 1)


def test_absolute_numbers_of_a_fansub() -> None:
    parsed = parse_name("[Group] Some Show - 031 [720p][1A2B3C4D].mkv")
    assert (parsed.title, parsed.absolute, parsed.group, parsed.kind) == (
        "Some Show",
        (31,),
        "Group",
        "absolute",
    )
    assert parse_name("[Group] Some Show 01-12 [BD 1080p]").absolute == tuple(range(1, 13))


def test_title_key_folds_case_accents_punctuation_and_small_words() -> None:
    assert title_key("The Café & the Bar!") == title_key("cafe and bar")
    assert title_key("Marvel's Agents of S.H.I.E.L.D.") == "marvels agents s h i e l d"
    assert title_key("The") == "the"
