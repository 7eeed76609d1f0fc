"""The shortcuts of pipelines.naming, each against the rule it stands for.

tests/test_naming.py holds the public functions to bench.naming_reference; these check
the pieces one by one, on the inputs where a shortcut would go wrong first.
"""

from __future__ import annotations

import uuid

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench import naming_reference as reference
from pipelines import naming
from pipelines.naming import display, identity, keywords, random_names, tv
from pipelines.subjects import file_names as names_ref
from pipelines.subjects import rules as subject_rules

# letters and digits of every class the file test counts, vowels, and the joiners
TOKEN_ALPHABET = "abcdefxyzABCDEFXYZ0123456789aeiouyAEIOUY_-"
tokens = st.one_of(
    st.text(TOKEN_ALPHABET, max_size=48).map(str.encode),
    st.text(TOKEN_ALPHABET[:-2], min_size=10, max_size=40).map(str.encode),
    st.binary(max_size=40),
    st.uuids().map(lambda u: str(u).encode()),
    st.uuids().map(lambda u: str(u).upper().encode()),
    st.text("0123456789abcdefABCDEF-", min_size=14, max_size=40).map(str.encode),
)


@settings(max_examples=1500, deadline=None)
@given(tokens)
@example(b"")
@example(b"0123456789abcdef")  # 16 hex digits
@example(b"0123456789abcde")
@example(str(uuid.UUID(int=7)).encode())
@example(b"fpwbi4qjigiwgk52dvsvh28kh5586e")
@example(b"UFUSsSqqeqcebaj5CBWjbH9WiyM")
@example(b"Xenia_Fischer-Alone_Free-FLAC-1984-ENRAGED")
@example(b"abcdefghijklmnop_8b33bf5960714efbe6cfcf13dd0f618f")
@example(b"8b33bf5960714efbe6cfcf13dd0f618f_abcdefghijklmnopq")  # the first longest part
@example(b"ScreenCapture")
@example(b"haiotednhgbe")  # a cluster of 5 consonants: no word
@example(b"DSCN0089")
@example(b"caf\xc3\xa9caf\xc3\xa9caf\xc3\xa9")
def test_random_file_token_is_the_file_test(token):
    assert random_names._random_file_token(token) == names_ref.random_token(token), token


# names whose stem starts with, or is, a long run of [A-Za-z0-9_-], behind any spaces
heads = st.sampled_from(
    [
        "8b33bf5960714efbe6cfcf13dd0f618f",
        "UFUSsSqqeqcebaj5CBWjbH9WiyM",
        "ScreenCapture",
        "qxzvbnmwrtkp",  # 12 letters, no word: the shortest run the file test holds random
        "d6780yrxiaxcmed8osjbg3owp5zkct",
        "hdabbrbhkiwwq9yuzfcahpo58bpedj",  # one case, two digit runs
        "fgt-hourlighsile78",
        "abcdef0123456789-abcdef0123456789",
    ]
)
tails = st.sampled_from(
    ["", ".mkv", ".part01.rar", ".vol01+02.par2", ".7z.001", ".nfo.par2", ".x", ".foo.bar",
     " ", "\t", " x", "-x", "_", "é", ".mkv\n", "\u3000", "\x1c"]
)  # fmt: skip
spaces = st.sampled_from(["", " ", "\t", "\u3000", "\x1c", "\u00a0", "\n "])


@settings(max_examples=800, deadline=None)
@given(spaces, heads | st.text(TOKEN_ALPHABET, max_size=30), tails, tails)
def test_random_name_takes_the_leading_run(space, head, tail, more):
    name = space + head + tail + more
    assert naming.category_of(name, []) == reference.category_of(name, []), name
    assert random_names._random_name(name) == _reference_random_name(name), name


def _reference_random_name(name: str) -> bool:
    return reference.category_of(name, []) == 8020


# the TV rule's parts each beside the texts the gates look for
tv_pieces = st.sampled_from(
    ["s01", "S1", "e05", "ep12", "p3", "1x02", "2013x05", "3of6", "12of10", "season", "saison",
     "temporada", "stagione", "staffel", "series", "episode", "episodio", "folge", "afl",
     "bolum", "BÖLÜM", "blm", "e?", "/", ".", " ", "_", "-", "1", "22", "333", "x", "of",
     "s", "e", "é", "٣", "2013.05.03", "03-05-2013", "1999_01_01", "31.13.2013", "2013 12",
     "01"]
)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(st.lists(tv_pieces, max_size=5).map("".join))
def test_dated_gate_misses_no_dated_name(name):
    dated = reference._TV.search(name) or reference._DAILY.search(name)
    assert tv._dated(keywords._Name(name)) == bool(dated), name


# one name for each word of the season alternative, and for each other part
SEASON_WORDS = (
    "season saison temporada stagione staffel series episode episodio folge afl bolum blm"
)


@pytest.mark.parametrize(
    "name",
    [f"{w}{sep}2" for w in SEASON_WORDS.split() for sep in ("", ".", " ")]
    + ["Show S01E02", "Show.s2", "Show 1x02", "Show 3of6", "12 bolum", "7.blm", "Show E05",
       "Show.ep12", "Show.S03E??", "Show.2013.05.03", "Show 31-12-1999"],
)  # fmt: skip
def test_dated_gate_passes_every_part(name):
    assert tv._dated(keywords._Name(name))
    assert reference._TV.search(name) or reference._DAILY.search(name)


# bare numbers after every kind of lead _ABSOLUTE knows, films and fansubs
episode_pieces = st.sampled_from(
    [" - ", ".-.", "_-_", " -", "- ", "-", " ", ".", "_", "[", "]", "(", ")", "#", "~",
     "07", "031", "1994", "2013", "12v2", "e05", "ep.3", "720p", "1080p", "x264", "1920x1080",
     "Movie", "Show", "[Group]", "[ABCDEF12]", "flac", "mp3", "epub", "【", "】"]
)  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(episode_pieces, max_size=10).map("".join))
def test_episode_gate_keeps_every_deciding_number(name):
    for groups in ([], ["alt.binaries.anime"]):
        assert naming.category_of(name, groups) == reference.category_of(name, groups), name


# --- display names ---------------------------------------------------------------------

# brackets, dashes, spaces and the tags _TAG knows, side by side and nested
display_pieces = st.sampled_from(
    [" ", "  ", "\t", "\u3000", "-", " - ", "--", "[", "]", "(", ")", "<", ">", "{", "}",
     "FULL", "PRiVATE", "req", "12345", "#", "#a.b.x@EFNet", "a.b.teevee", "altbinEFNet",
     "www.town.ag", "1994", "2024", "x", "Show.Name", "é", "日本"]
)  # fmt: skip
display_texts = st.lists(display_pieces | st.text(max_size=3), max_size=12).map("".join)


@settings(max_examples=600, deadline=None)
@given(display_texts)
def test_tag_scan_is_tag(text):
    assert display._TAG_SCAN.subn(" ", text) == display._TAG.subn(" ", text)


# a tag right after an opening bracket (which is no tag's start), after spaces, in turns
@pytest.mark.parametrize(
    "text", ["[[FULL]", "([FULL]", "< <TOWN>", "x  [FULL] [12345]y", "\u3000(req)", "[ [ #a ]"]
)
def test_tag_scan_starts_where_tag_does(text):
    assert display._TAG_SCAN.subn(" ", text) == display._TAG.subn(" ", text)


kept_pieces = st.sampled_from(
    [b" ", b"   ", b"-", b"--", b"- -", b"(", b")", b"[", b"]", b"{", b"}", b"a", b"-a",
     b"a-", b"B", b"\t", b"\xe9"]
)  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(kept_pieces, max_size=16).map(b"".join))
def test_normalised_is_normalise(kept):
    assert identity._normalised(kept) == subject_rules.normalise(kept, fold=False), kept


# the pieces of the common subject shape, and what breaks it or makes the parser blank more
shape_heads = st.sampled_from(
    [
        b"",
        b"Show.Name.S01E02",
        b"Artist - Album (2013)",
        b"[PRiVATE]",
        b"[FULL]-[#a.b@EFNet]-",
        b"(Movie)",
        b"( ",
        b")",
        b"[ ]",
        b"-",
        b" - ",
        b"12 MB",
        b"2.5GB",
        b"f4623b",
        b"1/2",
        b"[1/2]",
        b"(1/2)",
        b"{1/2}",
        b" of ",
        b"Of",
        b"yEnc",
        b"xyenc",
        b"CiNEFiLE",
        b"profile",
        b"file 1 of 2",
        b"File 3 of 9:",
        b"\t",
        b"\xe9",
        b"  ",
    ]
)
shape_counters = st.sampled_from(
    [
        b"",
        b"[01/20]",
        b"[ 1 of 3 ]",
        b"[1 OF 3]",
        b"[1234567890/2]",
        b"File 01 of 16:",
        b"file 2 of 9",
        b"File 1 of 1234567890",
        b"xfile 1 of 2",
        b"(1/5)",
        b"{2/3}",
    ]
)
shape_between = st.sampled_from(
    [b"", b" ", b" - ", b"-", b" -- ", b":", b"\t", b" x ", b" 01 - ", b" Artist - Album (2013) "]
)
shape_names = st.sampled_from(
    [
        b'"a.rar"',
        b'""',
        b'"x"',
        b'"file 1 of 2.rar"',
        b'"[1/2] y.nfo"',
        b'"',
        b"a.rar",
        b" a.part01.rar",
        b" (a.rar)",
        b" a.rar:",
        b" x.nfo.par2",
        b" a.bogus",
        b" -a.rar",
        b" yEnc.nfo",
        b" a.rar a.nfo",
        b" 12 MB.rar",
        b" [1/2].rar",
    ]
)
shape_posts = st.sampled_from(
    [
        b"",
        b" ",
        b" - Text",
        b" - 12 MB",
        b" yEnc",
        b"xyEnc",
        b" (2/3)",
        b" [3/4]",
        b" 1/2",
        b" of ",
        b' "',
        b" file 1 of 2",
        b"-",
    ]
)
shape_tails = st.sampled_from(
    [
        b" yEnc (1/50)",
        b" YENC (1/1)",
        b"yEnc (1/1)",
        b" (1/1)",
        b" yEnc (1/50) 22458",
        b" yEnc (1/50)22458",
        b" yEnc (1/50) x",
        b" yEnc (1/50)\t",
        b" yEnc (1/50) ",
        b" yEnc",
        b" yEnc (1234567890/2)",
        b" yEnc (1/2)\n",
    ]
)
shaped_subjects = st.tuples(
    st.lists(shape_heads, max_size=3).map(b" ".join), shape_counters, shape_between,
    shape_names, shape_posts, shape_tails,
).map(b"".join)  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(shaped_subjects)
def test_display_text_of_the_common_shape_is_the_reference(subject):
    assert identity._display_text(subject) == reference.display_text(subject), subject


@pytest.mark.parametrize(
    "subject",
    [
        b'Show.Name.S01E02 [01/20] - "Show.Name.S01E02.part01.rar" yEnc (1/50)',
        b'Show - File 01 of 16: "show.nfo" yEnc (1/1)',
        b'[01/06] - "a.mp4" - Show.Name yEnc (1/1624)',
        b'Streets.CiNEFiLE [01/10] - "streets.par2" (1/1)',
        b'Name - "name.par2" yEnc (1/1) 28101',
        b'8b33bf5960714efbe6cfcf13dd0f618f [01/30] - "x.par2" yEnc (1/1)',
        b"Show.Name - [01/16] - show.name.par2 yEnc (1/1)",
    ],
)
def test_common_subjects_take_the_short_way(subject):
    assert identity._common_shape(subject) is not None
    assert identity._display_text(subject) == reference.display_text(subject)


@pytest.mark.parametrize(
    "subject",
    [
        b"12 MB-a.rar yEnc (1/50)",  # a size that runs into a name without quotes
        b"Show 2 b.rar yEnc (1/2)",
        b"Show (a.rar yEnc (1/2)",  # brackets at a name's ends are no part of it
        b"Show a.rar) yEnc (1/2)",
        b"Show - [1 of 2].rar yEnc (1/2)",  # a counter that runs into the name
        b"Show file 1 of 2.rar yEnc (1/2)",
        b'Show [01/02] "a.rar" - 2 MB (1/2)',
        b'"a.rar" yEnc (1/2) yEnc (3/4)',
        # a name without quotes that takes in the words before it
        b"Album (1993) - 01 - Track Words.mp3 yEnc (1/2)",
        b"Album - Album.par2 yEnc (1/2)",
        b"[1/2] Author - Title.mobi yEnc (1/2)",
        b"Show - [1/2] - Show Name.par2 yEnc (1/2)",
        b"Show - [1/2] -Name.par2 yEnc (1/2)",
        b"File 1 of 2: 01 Band - Title.flac yEnc (1/2)",
    ],
)
def test_display_text_at_the_edges_of_the_shape(subject):
    assert identity._display_text(subject) == reference.display_text(subject)
