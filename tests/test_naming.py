"""Names and categories for people: display names, file names, stems, Newznab categories."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.subject import parse_subject_list
from pipelines.naming import category_of, display_name, file_name, stem, to_text

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="shared test data not present")


def test_to_text_falls_back_from_utf8_to_cp1252_to_latin1():
    assert to_text("Mädels".encode()) == "Mädels"
    assert to_text(b"\x93quoted\x94 caf\xe9") == "“quoted” café"
    assert to_text(b"a\x81b") == "a\x81b"  # undefined in cp1252: Latin-1 takes it


@pytest.mark.parametrize(
    "name, expected",
    [
        ("Name.part01.rar", "Name"),
        ("Name.r05", "Name"),
        ("name.vol07+08.par2", "name"),
        ("Name.PAR2", "Name"),
        ("Name.7z.001", "Name"),
        ("Name.zip.001", "Name"),
        ("Name.nfo", "Name"),
        ("Show.S01E01.mkv", "Show.S01E01"),
        ("Karel Gott.mp3.vol0+1.PAR2", "Karel Gott"),
        ("Été.rar", "Été"),
    ],
)
def test_stem(name, expected):
    assert stem(name) == expected


def test_file_name_from_the_subject_or_the_parser_offsets():
    subject = b'Show [01/20] - "Show.S01E01.part01.rar" yEnc (1/30)'
    assert file_name(subject) == "Show.S01E01.part01.rar"
    fields = parse_subject_list([subject])
    a, b = int(fields.name_start[0]), int(fields.name_end[0])
    assert file_name(subject, a, b) == "Show.S01E01.part01.rar"
    assert file_name(b"no name here (1/2)") == ""


@pytest.mark.parametrize(
    "subject, expected",
    [
        (
            b"[######]-[FULL]-[#a.b.teevee@EFNet]-"
            b"[ Misfits.S01.SUBPACK.DVDRip.XviD-P0W4DVD ] [1/5] - "
            b'"Misfits.S01.SUBPACK.DVDRip.XviD-P0W4DVD.nfo" yEnc (1/3)',
            "Misfits.S01.SUBPACK.DVDRip.XviD-P0W4DVD",
        ),
        (
            b"Re: [147053]-[FULL]-[#a.b.teevee]-[ Top_Gear.20x04.HDTV_x264-FoV ]-[11/59] - "
            b'"top_gear.20x04.hdtv_x264-fov.r00" yEnc (1/9)',
            "Top_Gear.20x04.HDTV_x264-FoV",
        ),
        (b'"Name.part01.rar" yEnc (1/50)', "Name"),
        (b'[PRiVATE] [01/20] - "Show.Name.vol03+04.par2" yEnc (1/9)', "Show.Name"),
        (
            b'High Maintenance [23/27] - "High.Maintenance.S03E05.vol00+1.par2" yEnc (1/42)',
            "High Maintenance",
        ),
        (
            b'Old Dad uppt Taffe M\xe4dels XivD - "Taffe.par2" yEnc (1/2)',
            "Old Dad uppt Taffe Mädels XivD",
        ),
        (b"just a post", "just a post"),
    ],
)
def test_display_name(subject, expected):
    assert display_name(subject) == expected


file_part = st.builds(
    lambda i, n, name, ext, size, k: f'[{i}/{n}] - "{name}.{ext}" - {size} MB yEnc ({k}/{k + 3})',
    st.integers(0, 99),
    st.integers(1, 99),
    st.from_regex(r"[A-Za-z0-9._-]{1,20}", fullmatch=True),
    st.sampled_from(["part01.rar", "r00", "par2", "vol01+02.par2", "nfo", "mkv"]),
    st.integers(1, 9999),
    st.integers(1, 50),
)


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[A-Za-z0-9 .\[\]#@-]{0,40}", fullmatch=True), file_part, file_part)
def test_same_identity_same_display_name(base, part_a, part_b):
    a = f"{base} {part_a}".encode()
    b = f"{base.upper()} {part_b}".encode()
    keys = parse_subject_list([a, b]).identity_key
    if keys[0] == keys[1] and keys[0] != 0:
        assert display_name(a).casefold() == display_name(b).casefold()


# --- categories --------------------------------------------------------------------------


@needs_data
def test_categories_are_newznab_ids():
    with open(DATA / "newznab" / "categories.tsv", encoding="utf-8") as fh:
        ids = {int(row["id"]) for row in csv.DictReader(fh, delimiter="\t")}
    for name, groups, _ in CASES:
        assert category_of(name, groups) in ids


CASES = [
    ("Show.Name.S01E02.720p.HDTV.x264-GRP", [], 5040),
    ("Show.Name.S01E02.HDTV.x264-GRP", [], 5030),
    ("Show.Name.S02.2160p.WEB-DL.x265-GRP", [], 5045),
    ("Show.Name.S03E??.1080p", [], 5040),
    ("The.Daily.Show.2013.05.03.720p.HDTV", [], 5040),
    ("[HorribleSubs] Some Anime - 07 [720p]", [], 5070),
    ("Some Show - 031 - Title", ["alt.binaries.anime"], 5070),
    ("Movie.Title.2013.1080p.BluRay.x264-GRP", [], 2040),
    ("Movie.Title.2013.DVDRip.XviD-GRP", [], 2030),
    ("Movie.Title.2019.2160p.UHD.BluRay.x265", [], 2045),
    ("Movie.Title.2013.COMPLETE.BLURAY-GRP", [], 2050),
    ("Movie.Title.2013.1080p.BluRay.REMUX.AVC", [], 2050),
    ("Artist - Album (2013) [MP3 320kbps]", [], 3010),
    ("Artist - Album 2013 FLAC", [], 3040),
    ("Author - Book Title (Unabridged) m4b", [], 3030),
    ("Author - Book Title (retail) epub", [], 7020),
    ("Some Comic 001 (2013) cbr", [], 7030),
    ("Game.Title-CODEX", [], 4050),
    ("Some.App.v1.2.3.Incl.Keygen-GRP", [], 4010),
    ("Some.App.v2.apk", [], 4070),
    ("Anything.At.All", ["alt.binaries.erotica"], 6000),
    ("Scene.Name.1080p.x264", ["alt.binaries.erotica.divx"], 6040),
    ("random words", ["alt.binaries.teevee"], 5000),
    ("random words", ["alt.binaries.movies.divx"], 2000),
    ("random words", ["alt.binaries.sounds.mp3"], 3000),
    ("random words", ["alt.binaries.e-book"], 7020),
    ("random words", ["alt.binaries.misc"], 8010),
    ("8b33bf5960714efbe6cfcf13dd0f618f", ["alt.binaries.teevee"], 8020),
    ("0e895c37245186812cb08aab1529cf8ee389dd05.mkv", [], 8020),
]


@pytest.mark.parametrize("name, groups, expected", CASES)
def test_category_cases(name, groups, expected):
    assert category_of(name, groups) == expected


TV_FIXTURES = {
    "SingleEpisodeParserFixture.cs",
    "MultiEpisodeParserFixture.cs",
    "SeasonParserFixture.cs",
    "DailyEpisodeParserFixture.cs",
    "AbsoluteEpisodeNumberParserFixture.cs",
    "AnimeMetadataParserFixture.cs",
    "UnicodeReleaseParserFixture.cs",
    "MiniSeriesEpisodeParserFixture.cs",
}


@needs_data
def test_sonarr_tv_titles_land_in_tv():
    with open(DATA / "names" / "sonarr_parser_testcases.tsv", encoding="utf-8") as fh:
        rows = [line.rstrip("\n").split("\t") for line in fh if not line.startswith("#")]
    titles = [
        r[3]
        for r in rows
        if r[0] in TV_FIXTURES and r[1].startswith("should_parse") and r[3].strip()
    ]
    assert len(titles) > 500
    tv = sum(category_of(t, []) // 1000 == 5 for t in titles)
    assert tv / len(titles) >= 0.95, f"{tv}/{len(titles)}"
