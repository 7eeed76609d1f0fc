"""Names and categories for people: display names, file names, stems, Newznab categories."""

from __future__ import annotations

import csv
import gzip
import html
import itertools
import random
import re
from re import _parser as regex_parser
from re._constants import (
    BRANCH,
    CATEGORY,
    CATEGORY_DIGIT,
    CATEGORY_SPACE,
    IN,
    LITERAL,
    MAX_REPEAT,
    RANGE,
    SUBPATTERN,
)

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import naming_reference as reference
from bench.naming import compare, load_baseline, record_calls
from kernels.subject import parse_subject_list
from pipelines import naming
from pipelines.generate import generate_range_lines
from pipelines.index.warm import write_range
from pipelines.naming import (
    categories,
    category_of,
    display_name,
    file_name,
    identity,
    keywords,
    stem,
    to_text,
    tv,
    usable_name,
)
from pipelines.rfc2047 import decode_subject
from pipelines.subjects import rules as subject_rules
from tests import shared_data

needs_data = shared_data.needs_data()
DATA = shared_data.DATA


def test_to_text_falls_back_from_utf8_to_cp1252_to_latin1():
    assert to_text("Mädels".encode()) == "Mädels"
    assert to_text(b"\x93quoted\x94 caf\xe9") == "“quoted” café"
    assert to_text(b"a\x81b") == "a\x81b"  # undefined in cp1252: Latin-1 takes it


@pytest.mark.parametrize(
    "name, expected",
    [
        ("Name.part01.rar", "Name"),
        ("Name.r05", "Name"),
        ("Name.s00", "Name"),
        ("Name.t12", "Name"),
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
            "Taffe Mädels XivD",
        ),
        (b"just a post", "just a post"),
        # tags go until none is left
        (b"Show <TOWN> yEnc", "Show"),  # a tag in the one bracket kind no other rule has
        (b"<TOWN> Show.Name", "Show.Name"),
        (b"Show {12345} yEnc", "Show"),
        (b"Name [12[345]] x", "Name x"),  # dropping the inner tag makes the outer one
        (b"Name (12[3]) x", "Name x"),
        (b"Re: [PRiVATE] Name <www.town.ag>", "Name"),
        # a year in brackets is the name's, a longer number is a posting tag
        (b"Ulrich Walsh - Light (1994) [FLAC]", "Ulrich Walsh - Light (1994) [FLAC]"),
        (
            b'[123456]-[FULL]-[#a.b.x]- Movie.Title [2019] 1080p - [01/40] - "a.rar" yEnc (1/2)',
            "Movie.Title [2019] 1080p",
        ),
        (
            b'Movie Title (2019) [01/40] - "movie.title.2019.part01.rar" yEnc (1/50)',
            "Movie Title (2019)",
        ),
        (b"[19940]-[ Movie Title ( 2024 ) ]", "Movie Title ( 2024 )"),
    ],
)
def test_display_name(subject, expected):
    assert display_name(subject) == expected
    assert reference.display_name(subject) == expected


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


# --- the same results as the reference (bench.naming_reference) -----------------------

# fmt: off
SUBJECT_PIECES = [
    b"[PRiVATE]", b"[FULL]", b"[#a.b.teevee@EFNet]", b"[278997]", b"[######]", b"<TOWN>",
    b"[ www.town.ag ]", b"(altbinEFNet)", b"[a.b.multimedia]", b"Re: ", b"AW:", b"fwd :",
    b"(", b")", b"[", b"]", b"{", b"}", b"<", b">", b"( )", b"[ ]", b"[ ( ) ]", b"{}", b'"',
    b'""', b"yEnc", b"YENC", b"xyenc", b"yenc2", b"(1/50)", b"(12/50)", b"(1/1) 22458",
    b"[01/20]", b"[3 of 9]", b"( 2 / 7 )", b"{1/3}", b"File 1 of 5", b"file 02 of 10:",
    b"01/20", b"20/01", b"12 MB", b"1,234 bytes", b"2.5GB", b"700 kib", b"1.5 TB", b"2tib",
    b"3.1.b",
    b"Name.part01.rar", b"x.vol03+04.par2", b"Show.S01E02.7z.001", b"a.r00", b"b.nfo",
    b"a.s00", b"a.t17", b"a.y99", b"a.S01", b"x.z01",
    b".mkv", b"(Name.rar)", b"[c.zip]:", b" ", b"  ", b" - ", b"-", b"--", b"- -", b"_", b".",
    b"|", b":", b"~", "Mädels".encode(), "日本語".encode(), "Привет мир".encode(),
    "【字幕】".encode(), b"\x93q\x94", b"caf\xe9", b"\xff\xfe", b"\t",
    b"8b33bf5960714efbe6cfcf13dd0f618f", b"12345", b"2013", b"Title", b"title",
    b"Show.Name", b"Movie (2013) 1080p", b"=?UTF-8?B?0J/RgNC40LLQtdGC?=",
]
# fmt: on
subjects = st.lists(
    st.sampled_from(SUBJECT_PIECES)
    | st.binary(max_size=4)
    | st.text(max_size=4).map(lambda t: t.encode("utf-8", "surrogatepass")),
    max_size=24,
).map(b"".join)


def _same_display(subject: bytes) -> None:
    assert identity._display_text(subject) == reference.display_text(subject), subject
    assert subject_rules.display_text(subject) == reference.display_text(subject), subject
    assert display_name(subject) == reference.display_name(subject), subject


@settings(max_examples=1000, deadline=None)
@given(subjects)
def test_display_name_is_the_reference(subject):
    _same_display(subject)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=60))
def test_display_name_is_the_reference_on_any_bytes(subject):
    _same_display(subject)


@pytest.mark.parametrize("seed", range(4))
def test_display_name_is_the_reference_on_huge_subjects(seed):
    rng = random.Random(seed)
    subject = b"".join(rng.choice(SUBJECT_PIECES) for _ in range(3000))
    _same_display(subject)
    _same_display(subject[: rng.randrange(len(subject))])


# fmt: off
NAME_PIECES = [
    *(w for rule, _ in categories._CONTENT for w in rule.words),
    *keywords._VIDEO.words, *keywords._UHD.words, *keywords._HD.words, *keywords._DISC.words,
    "blu-ray", "Blu-Ray", "web-dl", "WEB-DL", "h.264", "H.265", "complete.bluray",
    "COMPLETE BLU-RAY", "complete-blu-ray", "24-bit", "e-book", "E-Books", "audio-book",
    "web-flac", "320 kbps", "320kbps", "1320kbps", "192\x1ckbps", "hörbuch", "HÖRBUCH",
    "ſingle", "Kelvin\u212a", "4\u212a", "İso", "ıos", "٣٢٠kbps", "S01E02", "s01", "S1",
    "E05", "e12", "ep07", "1x02", "2013x05", "3of6", "Season 2", "Saison.3", "staffel-1",
    "Episodio 4", "Folge 7", "afl 2", "Bölüm 12", "12 bölüm", "12 Bolum", "3.bolum", "blm",
    "1of05", "12of10", "2013.05.03",
    "03-05-2013", "2013 12 31", "1999_01_01", "31.13.2013", "第12话", "[ABCDEF12]",
    "(0123abcd)", "[HorribleSubs]", "【Sub】", "[01]", "[12v2]", "[07end]", "- 07 -", " 031 ",
    "1080", "720", "19", "2160", "1984", "2049", "1920x1080", "640*480", "v2", "#3",
    "8b33bf5960714efbe6cfcf13dd0f618f", "0e895c37245186812cb08aab1529cf8ee389dd05",
    "Show", "Name", "Title", "The", " ", ".", "_", "-", " - ", "[", "]", "(", ")", "~", "#",
    "\u00a0", "\t", "Été", "日本",
]
# fmt: on
names = st.lists(st.sampled_from(NAME_PIECES) | st.text(max_size=3), min_size=0, max_size=14).map(
    "".join
)
# fmt: off
GROUPS = [
    "alt.binaries.teevee", "alt.binaries.anime", "alt.binaries.erotica",
    "alt.binaries.movies.divx", "alt.binaries.sounds.mp3", "alt.binaries.e-book",
    "alt.binaries.misc", "alt.binaries.tv", "alt.binaries.mac", "alt.binaries.games",
    "alt.binaries.hdtv.x264", "alt.binaries.sounds.lossless", "alt.binaries.pc",
    "ALT.BINARIES.ANIME",
]
# fmt: on
group_lists = st.lists(st.sampled_from(GROUPS) | st.text(max_size=12), max_size=3)


@settings(max_examples=2000, deadline=None)
@given(names, group_lists)
def test_category_of_is_the_reference(name, groups):
    assert category_of(name, groups) == reference.category_of(name, groups), (name, groups)


def test_the_tv_rule_is_the_union_of_its_parts():
    assert tv._TV.pattern == reference._TV.pattern
    assert tv._TV.flags == reference._TV.flags


def _expand(items) -> list[str]:
    """Every string a regex without look-arounds or unbounded repeats matches (lower
    case, `\\d` as ASCII digits, `\\s` as a space or a tab)."""
    out = [""]
    for op, av in items:
        if op is LITERAL:
            options = [chr(av)]
        elif op is IN:
            options = []
            for kind, value in av:
                if kind is LITERAL:
                    options.append(chr(value))
                elif kind is RANGE:
                    options += [chr(c) for c in range(value[0], value[1] + 1)]
                elif kind is CATEGORY and value is CATEGORY_DIGIT:
                    options += list("0123456789")
                elif kind is CATEGORY and value is CATEGORY_SPACE:
                    options += [" ", "\t"]
                else:
                    raise AssertionError(f"unexpected class item {kind} {value}")
        elif op is BRANCH:
            options = [s for alternative in av[1] for s in _expand(alternative)]
        elif op is SUBPATTERN:
            options = _expand(av[-1])
        elif op is MAX_REPEAT:
            low, high, sub = av
            parts = _expand(sub)
            options = [
                "".join(p) for k in range(low, high + 1) for p in itertools.product(parts, repeat=k)
            ]
        else:
            raise AssertionError(f"unexpected regex item {op}")
        out = [a + b for a in out for b in options]
    return out


# fmt: off
KEYWORD_RULES = [
    "_VIDEO", "_UHD", "_HD", "_DISC", "_LOSSLESS", "_AUDIOBOOK", "_MUSIC", "_COMIC", "_EBOOK",
    "_GAME", "_ANDROID", "_IOS", "_MAC", "_SOFTWARE",
]
# fmt: on


@pytest.mark.parametrize("rule_name", KEYWORD_RULES)
def test_keyword_rules_words_and_hints(rule_name):
    rule = getattr(keywords, rule_name)
    assert rule.pattern.pattern == getattr(reference, rule_name).pattern
    head, tail = "(?<![a-z0-9])(?:", ")(?![a-z0-9])"
    inner = rule.pattern.pattern
    assert inner.startswith(head) and inner.endswith(tail)
    matched = set(_expand(regex_parser.parse(inner[len(head) : -len(tail)])))
    # the words are one-word alternatives, and every other ASCII alternative holds one of
    # the hints (non-ASCII ones never match an ASCII name)
    words = {m for m in matched if m.isascii() and m.isalnum()}
    assert rule.words <= words
    for m in matched:
        if m.isascii() and m not in rule.words:
            assert any(hint in m for hint in rule.hints), m


@st.composite
def releases(draw):
    """A release's name and its files' names and random-name flags."""
    stems = st.sampled_from(
        [
            "Show.Name.S01E02",
            "d6780yrxiaxcmed8osjbg3owp5zkct",
            "6VuiLwnPvgoVZygr0PwQFPEdupe",
            "8b33bf5960714efbe6cfcf13dd0f618f",
            "fgt-hourlighsile78",
            "Été",
            "",
            "[x]",
            "a b",
            "Xenia_Fischer-Alone_Free-FLAC-1984-ENRAGED",
            "rImqXEefJjZSfaYCtxc",
        ]
    ) | st.text(max_size=30)
    suffixes = st.sampled_from(["", ".part01.rar", ".part02.rar", ".r00", ".par2", ".nfo"])
    n = draw(st.integers(0, 8))
    files = [(draw(stems) + draw(suffixes)).encode("utf-8", "surrogateescape") for _ in range(n)]
    files = [f if draw(st.booleans()) else f + b"\xe9" for f in files]
    flags = [draw(st.booleans()) for _ in range(n)]
    name = draw(stems | names)
    return name, files, flags


@settings(max_examples=800, deadline=None)
@given(releases())
def test_usable_name_is_the_reference(release):
    name, files, flags = release
    naming.random_token.cache_clear()
    assert usable_name(name, files, flags) == reference.usable_name(name, files, flags)
    assert usable_name(name, files, flags) == reference.usable_name(name, files, flags)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40))
def test_random_token_is_the_reference(token):
    assert naming.random_token(token) == reference.random_token(token)


def test_long_one_case_tokens_with_a_digit_are_random_names():
    """A renamed set's piece (`hdabbrbhkiwwq9yuzfcahpo58bpedj`: two digit runs, too few for
    the strewn-digits test) is a hash; a long CamelCase title with a year, or one without a
    digit, is not."""
    assert naming.random_token("hdabbrbhkiwwq9yuzfcahpo58bpedj")
    assert naming.random_token("HDABBRBHKIWWQ9YUZFCAHPO58BPEDJ")
    assert not naming.random_token("TheBeatlesAbbeyRoad1969Remastered")
    assert not naming.random_token("thebeatlesabbeyroadremastered")
    assert not naming.random_token("abbeyroad1969remaster")  # shorter than 24


def test_usable_name_wants_a_flag_per_file():
    with pytest.raises(ValueError):
        usable_name("8b33bf5960714efbe6cfcf13dd0f618f", [b"a.rar", b"b.rar"], [True])


def _data_subjects() -> list[bytes]:
    found = []
    with open(DATA / "subjects" / "collection_examples.tsv", newline="", encoding="utf-8") as fh:
        found += [row["subject"].encode() for row in csv.DictReader(fh, delimiter="\t")]
    with open(DATA / "subjects" / "binsearch_subjects.tsv", encoding="utf-8") as fh:
        found += [line.split("\t")[2].encode() for line in fh if not line.startswith("#")]
    for path in sorted((DATA / "nzb").rglob("*.nzb")):
        text = path.read_bytes()
        found += [html.unescape(m.decode()).encode() for m in _NZB_SUBJECT.findall(text)]
    for folder in ("articles", "spotnet"):
        for path in sorted((DATA / folder).rglob("*")):
            if path.is_file():
                found += _HEADER_SUBJECT.findall(path.read_bytes())
    return found


_NZB_SUBJECT = re.compile(rb'subject="([^"]*)"')
_HEADER_SUBJECT = re.compile(rb"^Subject: ?([^\r\n]*)", re.MULTILINE)


@needs_data
def test_the_reference_on_real_subjects():
    found = _data_subjects()
    assert len(found) > 800
    for subject in found:
        _same_display(subject)
        _same_display(decode_subject(subject))
        name = reference.display_name(subject)
        for groups in ([], ["alt.binaries.teevee"], ["alt.binaries.anime"]):
            assert category_of(name, groups) == reference.category_of(name, groups), name
        files = [file_name(subject).encode("utf-8", "surrogateescape")] * 3
        for flags in ([False] * 3, [True, False, False]):
            assert usable_name(name, files, flags) == reference.usable_name(name, files, flags)


def _data_titles() -> list[str]:
    titles = []
    with open(DATA / "names" / "sonarr_parser_testcases.tsv", encoding="utf-8") as fh:
        titles += [line.split("\t")[3] for line in fh if not line.startswith("#")]
    for path in sorted((DATA / "predb").glob("*.csv.gz")):
        with gzip.open(path, "rt", encoding="utf-8", errors="surrogateescape") as fh:
            titles += [line.split("\t", 1)[0].strip("'") for line in fh]
    for path in sorted((DATA / "newznab").rglob("*.xml")):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        titles += [html.unescape(t) for t in _XML_TITLE.findall(text)]
    return titles


_XML_TITLE = re.compile(r"<title>([^<]*)</title>")


@needs_data
@pytest.mark.slow
def test_the_reference_on_real_release_titles():
    titles = _data_titles()
    assert len(titles) > 10_000
    for title in titles:
        for groups in ([], ["alt.binaries.erotica"], ["alt.binaries.sounds.mp3"]):
            assert category_of(title, groups) == reference.category_of(title, groups), title
        assert usable_name(title, [], []) == reference.usable_name(title, [], [])


@pytest.mark.slow
def test_the_reference_on_a_generated_range():
    data, _, _ = generate_range_lines(40_000, seed=3)
    lines = [line.split(b"\t") for line in data.split(b"\r\n")[:-1]]
    # one line per file: the subject without its part counter
    by_file = {}
    for fields in lines:
        subject = decode_subject(fields[1])
        by_file.setdefault(_PART.sub(b"", subject), (subject, fields[8]))
    rows = list(by_file.values())
    assert len(rows) > 1000
    parsed = parse_subject_list([subject for subject, _ in rows])
    releases: dict[int, list[int]] = {}
    for i, (subject, _) in enumerate(rows):
        _same_display(subject)
        releases.setdefault(int(parsed.identity_key[i]) or -i, []).append(i)
    for members in releases.values():
        subject, xref = rows[members[0]]
        name = reference.display_name(subject)
        files = [file_name(rows[i][0]).encode() for i in members]
        flags = [bool(parsed.random_name[i]) for i in members]
        naming.random_token.cache_clear()
        want = reference.usable_name(name, files, flags)
        assert usable_name(name, files, flags) == want, (name, files, flags)
        groups = [g.split(":")[0] for g in xref.decode("latin-1").split()[1:]]
        assert category_of(want[0], groups) == reference.category_of(want[0], groups), want


_PART = re.compile(rb"\(\d+/\d+\)")


@pytest.mark.slow
def test_naming_bench_records_the_output_calls_and_compares(tmp_path, monkeypatch):
    write_range(tmp_path / "corpus", 3000, 2, 100_000)
    calls = record_calls(str(tmp_path / "corpus"))
    assert all(calls[name] for name in ("display_name", "usable_name", "category_of"))
    lines = compare(calls, rounds=1, baseline=load_baseline(naming.__file__))
    assert [line.split(":")[0] for line in lines] == ["display_name", "usable_name", "category_of"]
    assert all("; baseline " in line for line in lines)
    monkeypatch.setattr(naming, "category_of", lambda name, groups, content="": 8010)
    with pytest.raises(AssertionError, match="category_of"):
        compare(calls, rounds=1)
