"""The subject parser against its reference, on real subjects and hostile ones."""

from __future__ import annotations

import csv
import dataclasses
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels import subject as k
from kernels.subject import parse_subject_list, parse_subjects
from pipelines.subjects import rules as ref
from tests import shared_data

DATA = shared_data.DATA / "subjects"
needs_data = shared_data.needs_data("subjects")


def _rows(fields: k.SubjectFields, subjects: list[bytes]) -> list[dict]:
    """Kernel output as one dict a subject, name offsets relative to the subject."""
    rows = []
    off = 0
    for i, s in enumerate(subjects):
        row = {f.name: getattr(fields, f.name)[i].item() for f in dataclasses.fields(fields)}
        for key in ("name_start", "name_end"):
            if row[key] >= 0:
                row[key] -= off
        rows.append(row)
        off += len(s)
    return rows


def _check_against_reference(subjects: list[bytes]) -> list[dict]:
    rows = _rows(parse_subject_list(subjects), subjects)
    for s, row in zip(subjects, rows, strict=True):
        expected = dataclasses.asdict(ref.parse(s)[0])
        assert row == expected, s
    return rows


# --- generated subjects ---------------------------------------------------------------

WORDS = [
    "Show",
    "Name",
    "S01E02",
    "720p",
    "WEB-DL",
    "x264",
    "GROUP",
    "The",
    "Best",
    "Of",
    "2013",
    "FLAC",
    "Ãrvíztűrő",
    "東京",
    "Москва",
    "IMG_0001",
    "Re:",
    "[PRiVATE]",
    "[FULL]",
    "[#a.b.teevee@EFNet]",
    "[12345]-",
    "[ # ]",
    "[req]",
    "www.town.ag",
]
EXTS = [
    "rar",
    "part01.rar",
    "part2.rar",
    "PART10.RAR",
    "r00",
    "r99",
    "s00",
    "T42",
    "y99",
    "7z",
    "7z.001",
    "7z.012",
    "001",
    "002",
    "zip",
    "z01",
    "par2",
    "vol03+04.par2",
    "VOL0+1.PAR2",
    "nfo",
    "sfv",
    "nzb",
    "mkv",
    "mp4",
    "avi",
    "mp3",
    "flac",
    "jpg",
    "epub",
    "iso",
    "exe",
    "srt",
    "xyz",
    "",
    "md5",
]
NOISE = st.sampled_from(
    [
        "",
        " ",
        "-",
        " - ",
        "[",
        "]",
        "(",
        ")",
        "{",
        "}",
        '"',
        "/",
        ":",
        "_",
        ".",
        ",",
        "  ",
        "yEnc",
        "YENC",
        "yencx",
        "<",
        ">",
        "=?",
    ]
)


def _counter(kind: int, i: int, n: int) -> str:
    return [
        f"[{i}/{n}]",
        f"({i}/{n})",
        f"File {i} of {n}:",
        f"{{{i}/{n}}}",
        f"- {i}/{n} -",
        f"[ {i}/{n} ]",
        f"{i}/{n}",
        f"file {i} OF {n}",
        f"[{i} of {n}]",
        f"({i}  Of {n} )",
        f"({i}/{n}]",  # mismatched brackets: the `[i/N]` kind
        f"[{i}/{n})",
        f"( {i} of {n}]",
        f"[{i}/{n} )",
        f"[{i}/ {n}]",  # spaces around the `/`
        f"( {i} / {n})",
        f"- {i} of {n} -",  # bare counters (issue 26)
        f"[{i} of {n} - {n} kb]",
        f"{i}/{n}]",
        f"{i} of {n}",
        f"[{i}/{n} -  1,5 MB)",
    ][kind]


def _size(x: float, unit: str, style: int) -> str:
    text = f"{x:,.2f} {unit}" if style % 2 else f"{x:.1f}{unit}"
    return [text, f"({text})", f"[{text}]", f"- {text} -"][style % 4]


NUM = st.integers(0, 120)
token = st.one_of(
    st.sampled_from(WORDS),
    st.text("0123456789abcdefABCDEF", min_size=8, max_size=40),
    st.text("0123456789abcdefXYZxyz-_", min_size=10, max_size=50),
    st.text(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=1, max_size=30
    ),
)
piece = st.one_of(
    token,
    NOISE,
    st.builds(_counter, st.integers(0, 20), NUM, NUM),
    st.builds(
        lambda stem, ext: f'"{stem}.{ext}"' if ext else f'"{stem}"',
        st.one_of(token, st.just("")),
        st.sampled_from(EXTS),
    ),
    st.builds(lambda stem, ext: f"{stem}.{ext}", token, st.sampled_from(EXTS)),
    # unquoted names of several words: a track number before them, the words repeated
    st.builds(
        lambda n, words, ext, dash: f"{dash}{n} - {' '.join(words)}.{ext}",
        st.sampled_from(["1", "01", "007", "1234", "0"]),
        st.lists(token, min_size=1, max_size=3),
        st.sampled_from(EXTS),
        st.sampled_from(["", "- ", "-- ", "-", " - "]),
    ),
    st.builds(
        lambda words, ext, sep: f"{' '.join(words)}{sep}{' '.join(words).upper()}.{ext}",
        st.lists(token, min_size=1, max_size=3),
        st.sampled_from(EXTS),
        st.sampled_from([" ", " - ", "-", "  --  ", ' "']),
    ),
    st.builds(
        _size,
        st.floats(0, 99999, allow_nan=False),
        st.sampled_from(["B", "KB", "MB", "GB", "kib", "bytes", "TB", "Mbit"]),
        st.integers(0, 7),
    ),
    st.builds(lambda a, b: f"({a}/{b})", NUM, NUM),
    st.integers(0, 10**12).map(str),
)
subject_st = st.lists(piece, max_size=12).map(lambda ps: " ".join(ps).encode("utf-8"))
noise_st = st.lists(
    st.one_of(
        st.sampled_from(
            [
                b"(",
                b")",
                b"[",
                b"]",
                b"/",
                b'"',
                b" ",
                b"-",
                b".",
                b"1",
                b"22",
                b"yEnc",
                b"File",
                b"of",
                b"rar",
                b"par2",
                b"vol",
                b"+",
                b"GB",
                b"x",
                b"\xff",
                b"\xc3\xa9",
                b"{",
                b"}",
                b",",
                b"7z",
                b"001",
                b"_",
            ]
        ),
        st.binary(max_size=3),
    ),
    max_size=30,
).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(st.lists(subject_st, max_size=8))
def test_generated_subjects_match_reference(subjects):
    _check_against_reference(subjects)


@settings(max_examples=400, deadline=None)
@given(st.lists(noise_st, max_size=8))
def test_byte_soup_matches_reference(subjects):
    _check_against_reference(subjects)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(max_size=60), max_size=8))
def test_random_bytes_match_reference(subjects):
    _check_against_reference(subjects)


# --- adversarial cases ---------------------------------------------------------------

ADVERSARIAL = [
    b"",
    b" ",
    b"(1/5)",
    b"[1/5] (1/5)",
    b'""',
    b'"',
    b'"unbalanced.rar yEnc (1/2)',
    b'a "b" "c.rar',
    b"[[[(((",
    b")))]]]",
    b"((1/2))",
    b"(1234567890/5) [99999999999/1]",
    b"(999999999/999999999)",
    b"File 1 of 2 File 3 of 4",
    b'\xff\xfe\x80 "\xe9t\xe9.mkv" yEnc (1/2)',
    b"=?UTF-8?B?KDEvNSk=?=",
    b'"a.part0001.rar" "b.vol1234567+1.par2"',
    b".rar",
    b'".rar" yEnc (1/1)',
    b'"x.rar.par2" yEnc (1/1)',
    b"- - - [] () {} - -",
    b"(1/5] (1/5)",
    b"[1/5) [2/5] (3/5] (1/5)",
    b"((1/2]) [(3/4)] ([5/6)]",
    b"(1/2}",
    b"{1/2]",
    b"[1/2}",
    b'Name-GROUP(51/65]"rld-name.r48" yEnc',
    b"x(1 of 2]y [3 of 4)z",
    b"[02/ 50] ( 1 / 2 ) {3 /4} [1  /  2) (5 /6] [7/ ] [/8] [9 /of 9]",
    # several quoted texts: the last one with a known extension is the file's
    b'"a.epub" "b" "c"',
    b'"a" "b.epub" "c.rar" "d"',
    b'"a.264" "b" ""',
    b'"" "a b.mp3"  "',
    # a name without quotes reaching back over its words
    b"01.mp3",
    b"1 - .mp3",
    b"- 01 - .mp3 yEnc (1/2)",
    b"- 01 -.mp3",
    b"a - a.mp3",
    b"A A.mp3",
    b"ab - AB.mp3",
    b"xab - ab.mp3",
    b"a_b - b.mp3",
    b"a b - a b - a b.mp3",
    b'"" 01 - x y.mp3',
    b'x"01 - a b.mp3',
    b"[1/2]x y.mp3",
    b"[1/2]-x y.mp3",
    b"[1/2] - - x y.mp3 (1/2)",
    b"[1/3]  x.mp3",
    b"[1/3] -",
    b"(1/2) 01 - x.mp3 (1/2)",
    b"01 - x (1/2) y.mp3 (3/4)",
    b"a - 01 (1/2) - b.mp3",
    b"x.rar 01 - y z.mp3",
    b"[1/5] a.rar b c.mp3",
    b"[1/5] (a.rar) b c.mp3",
    b"File 1 of 2: 01 - a.flac",
    b"File 1 of 2:a b.flac",
    b"a - 1234 - b.mp3",
    b"a  -  01  -  b.mp3",
    b"\xff\xfe - \xff\xfe.mp3",
    b"\xc3\xa9 x - \xc3\x89 X.mp3",
    b"a.par2 a.par2",
    b"a b.vol00+01.par2 - a b.vol00+01.par2",
    b"a.b - a.b.rar.par2",
    # the stem: a bare `.001` goes only last in the name
    b'"Name.H.264.mkv" "Name.H.264.par2" "Name.H.264.vol0+1.PAR2" (1/2)',
    b'"x.264.001" yEnc (1/2)',
    b'"x.7z.264" yEnc (1/2)',
    b'"x.264.7z.001" "x.001.002" "x.r00.001" (1/2)',
]


def test_adversarial_subjects_match_reference():
    rows = _check_against_reference(ADVERSARIAL)
    empty = rows[0]
    assert empty["part"] == -1 and empty["name_start"] == -1 and empty["identity_key"] == 0


def test_empty_input():
    fields = parse_subjects(b"", np.zeros(0, np.int64), np.zeros(0, np.int64))
    assert len(fields) == 0


def test_spans_are_validated():
    with pytest.raises(ValueError):
        parse_subjects(b"abc", np.array([0]), np.array([9]))


# --- hand-checked expectations ----------------------------------------------------------

NAMED = [
    # subject, part, part_total, file_index, file_total, name, ext_class, volume
    (
        b"[######]-[FULL]-[#a.b.teevee@EFNet]-[ Misfits.S01.SUBPACK.DVDRip.XviD-P0W4DVD ] [1/5] - "
        b'"Misfits.S01.SUBPACK.DVDRip.XviD-P0W4DVD.nfo" yEnc (1/3)',
        1,
        3,
        1,
        5,
        b"Misfits.S01.SUBPACK.DVDRip.XviD-P0W4DVD.nfo",
        k.NFO,
        -1,
    ),
    (
        b'fhdbg34rgjdsfd008c (42/43) "fhdbg34rgjdsfd008c.vol062+64.par2" - 3,68 GB - yEnc (7/9)',
        7,
        9,
        42,
        43,
        b"fhdbg34rgjdsfd008c.vol062+64.par2",
        k.PAR2_VOL,
        62,
    ),
    (
        b"ugMBqtZw3vFnmrmr16EQhaAz9mMri9mD - File 01 of 98: "
        b'"1vJ7wswi9ZG6YrzE5OGBFPKeuRv9X86xgYdK.par2" yEnc (1/2)',
        1,
        2,
        1,
        98,
        b"1vJ7wswi9ZG6YrzE5OGBFPKeuRv9X86xgYdK.par2",
        k.PAR2_INDEX,
        -1,
    ),
    (
        b'- [01/10] - "file.xyz" yEnc - [001/107] - "86u1Qr8mm56jGiW7nUPTM.par2" yEnc (1/1)',
        1,
        1,
        1,
        107,
        b"86u1Qr8mm56jGiW7nUPTM.par2",
        k.PAR2_INDEX,
        -1,
    ),
    (
        b'05VANmA80DckBho "05VANmA80DckBho.part07.rar"08/94 yEnc (3/50)',
        3,
        50,
        8,
        94,
        b"05VANmA80DckBho.part07.rar",
        k.ARCHIVE_VOL,
        7,
    ),
    (
        b"(1/9)<<<www.town.ag>>> sponsored by ssl-news.info<<<[HorribleSubs]_AIURA_-_01_[480p].mkv "
        b'"[HorribleSubs]_AIURA_-_01_[480p].par2" yEnc (1/4)',
        1,
        4,
        1,
        9,
        b"[HorribleSubs]_AIURA_-_01_[480p].par2",
        k.PAR2_INDEX,
        -1,
    ),
    (  # the name without quotes repeats the words before it: they are the name's
        b"[n/60] Shogun I (1980) Shogun I (1980).avi.012 (3/40)",
        3,
        40,
        -1,
        -1,
        b"Shogun I (1980).avi.012",
        k.ARCHIVE_VOL,
        12,
    ),
    (
        b"reftestnzb_100MB_a82beff8e340 [01/20] - "
        b'"sometestfile-100MB.part01.rar" yEnc (2/15) 10485760',
        2,
        15,
        1,
        20,
        b"sometestfile-100MB.part01.rar",
        k.RAR_FIRST,
        1,
    ),
    (
        b'Test2 - [1/2] - "ubuntu-12.04.4-server-amd64.iso" yEnc (1/1855)',
        1,
        1855,
        1,
        2,
        b"ubuntu-12.04.4-server-amd64.iso",
        k.DISC,
        -1,
    ),
    (b'[00/27] - "Show.nzb" yEnc (1/5)', 1, 5, 0, 27, b"Show.nzb", k.NZB, -1),
    (
        b'77 Sunset Strip 409 [1 of 23] "77 Sunset Strip 409.avi.vol63+34.par2" yEnc (1/2)',
        1,
        2,
        1,
        23,
        b"77 Sunset Strip 409.avi.vol63+34.par2",
        k.PAR2_VOL,
        63,
    ),
    (b'"Name.7z.001" yEnc (1/50)', 1, 50, -1, -1, b"Name.7z.001", k.RAR_FIRST, 1),
    (b'"Name.z03" yEnc (1/50)', 1, 50, -1, -1, b"Name.z03", k.ARCHIVE_VOL, 3),
    (b'"Name.r05" yEnc (1/50)', 1, 50, -1, -1, b"Name.r05", k.ARCHIVE_VOL, 5),
    # an old-style RAR set past .r99 goes on with .s00: the 101st volume after .r00
    (b'"Name.s00" yEnc (1/50)', 1, 50, -1, -1, b"Name.s00", k.ARCHIVE_VOL, 100),
    (b'"Name.t07" yEnc (1/50)', 1, 50, -1, -1, b"Name.t07", k.ARCHIVE_VOL, 207),
    (b"My.Song.mp3 yEnc (1/3)", 1, 3, -1, -1, b"My.Song.mp3", k.AUDIO, -1),
    (b"Scan (01/12) IMG_0001.jpg [3/12] yEnc (2/2)", 2, 2, 3, 12, b"IMG_0001.jpg", k.IMAGE, -1),
]


@pytest.mark.parametrize("row", NAMED, ids=[r[0][:40].decode("latin-1") for r in NAMED])
def test_hand_checked_subjects(row):
    subject, part, total, fi, ft, name, ext_class, volume = row
    f = _check_against_reference([subject])[0]
    assert (f["part"], f["part_total"], f["file_index"], f["file_total"]) == (part, total, fi, ft)
    assert subject[f["name_start"] : f["name_end"]] == name
    assert (f["ext_class"], f["volume"]) == (ext_class, volume)


def _identity(s: bytes) -> bytes:
    return ref.identity_text(s)


def test_identity_drops_file_parts_and_keeps_the_release():
    a = b'[01/24] - "Parks.S01E01.720p-CtrlHD.nfo" - 1.46 GB yEnc (1/1)'
    b = b'[12/24] - "Parks.S01E01.720p-CtrlHD.part11.rar" - (123.4 MB) yEnc (13/50)'
    prefix = b"[#a.b.teevee] Parks.and.Recreation.S01E01.720p.WEB-DL.DD5.1.H.264-CtrlHD - "
    assert _identity(prefix + a) == _identity(prefix + b)
    assert (
        _identity(prefix + a)
        == b"[#a.b.teevee] parks.and.recreation.s01e01.720p.web-dl.dd5.1.h.264-ctrlhd"
    )
    rows = _check_against_reference([prefix + a, prefix + b, b"Other " + a])
    assert rows[0]["identity_key"] == rows[1]["identity_key"] != rows[2]["identity_key"]
    assert rows[0]["file_key"] != rows[1]["file_key"]


def test_identity_empty_when_subject_is_only_the_file_part():
    rows = _check_against_reference(
        [
            b'"Name.part01.rar" yEnc (1/50)',
            b'[3/9] - "Name.r05" yEnc (2/50)',
            b'"name.vol07+08.par2" yEnc (1/3)',
            b'"Name.nfo" yEnc (1/1)',
            b'"Other.nfo" yEnc (1/1)',
        ]
    )
    assert all(r["identity_key"] == 0 for r in rows)
    stems = [r["stem_key"] for r in rows]
    assert len(set(stems[:4])) == 1 and stems[4] != stems[0] and stems[0] != 0


def test_file_key_ignores_only_the_part_counter():
    rows = _check_against_reference(
        [
            b'x [1/3] - "a.rar" yEnc (1/20)',
            b'x [1/3] - "a.rar" yEnc (17/20)',
            b'x [2/3] - "b.rar" yEnc (1/20)',
        ]
    )
    assert rows[0]["file_key"] == rows[1]["file_key"] != rows[2]["file_key"]
    assert rows[0]["identity_key"] == rows[2]["identity_key"] != 0


@pytest.mark.parametrize(
    "subject, random_name, random_subject",
    [
        (b"8b33bf5960714efbe6cfcf13dd0f618f", True, True),
        (b"[PRiVATE] UmVndWxhci5TaG93LlMwMkUyOC4xMDgwcC5CbHVSYXkueDI2NC1ERWlNT1M=", False, True),
        (b"3f2504e0-4f89-11d3-9a0c-0305e82c3301", True, True),
        (
            b"[PRiVATE] UmVndWxhci5TaG93 [06/32] - "
            b'"89769f0736162e1cb113655cb10e42ff.part02.rar" yEnc',
            True,
            False,
        ),
        (
            b't2EI3CdWdF0hi5b8L9tkx[08/52] - "t2EI3CdWdF0hi5b8L9tkx.part07.rar" yEnc (1/9)',
            True,
            False,
        ),
        (b'nmlsrgnb - [04/37] - "htwlngmrstdsntdnh.part03.rar" yEnc (1/9)', True, False),
        (b'[01/38] - "8q0q8qu0j1v92zsy83igdjsw2tmh88.par2" - [2,83 GB] -  yEnc (1/1)', True, False),
        (b'(001/101) - P2H - "L62WD8P4U539A7.par2" - 4,66 GB - yEnc (1/1)', True, False),
        (b'(001/101)  "654258ItB1418pBRDNS264159.par2" - 9,74 GB - yEnc (1/1)', True, False),
        (b'Show [1/5] - "Show.Name.S01E01.720p.HDTV.x264.mkv" yEnc (1/9)', False, False),
        (b'Pics [1/5] - "IMG_0001.jpg" yEnc (1/1)', False, False),
        (b'Pics [1/5] - "TheWalkingDeadS01E01720p.mkv" yEnc (1/1)', False, False),
        (b'[1/5] - "MYFAVORITESONGS2013.zip" yEnc (1/1)', False, False),
        ('[1/5] - "Война и мир Толстой.epub" yEnc (1/1)'.encode(), False, False),
        ('"東京ラブストーリー第一話完全版.mkv" yEnc (1/1)'.encode(), False, False),
        (b"Some readable post without counters", False, False),
        (b"DSC01234567890", False, False),
        (b'[1/2] - "96e323468c5a8a7b948c06ec84511839-u4e.mkv" yEnc (1/1)', True, False),
        (b'[1/2] - "Habariyaasubuhi_12352_TvPYrS1128.mp4" yEnc (1/1)', False, False),
        (b'[1/2] - "A_Perfect_Circle-aMOTION-CD-FLAC-2004-SCORN.rar" yEnc (1/1)', False, False),
    ],
)
def test_random_names_and_subjects(subject, random_name, random_subject):
    row = _check_against_reference([subject])[0]
    assert (row["random_name"], row["random_subject"]) == (random_name, random_subject)


def test_has_yenc_any_case_as_a_word():
    rows = _check_against_reference([b"a YENC (1/2)", b"ayenc b", b'"x.rar"yEnc(1/2)', b"yEnc_x"])
    assert [r["has_yenc"] for r in rows] == [True, False, True, False]


def test_encoded_word_hides_the_counter_until_decoded():
    # base64 of "(1/5)": the kernel sees no counter; rfc2047 decoding must run first
    row = _check_against_reference([b"=?UTF-8?B?KDEvNSk=?="])[0]
    assert row["part"] == -1


# --- real subjects ---------------------------------------------------------------------


def _collection_subjects() -> list[bytes]:
    with open(DATA / "collection_examples.tsv", newline="", encoding="utf-8") as fh:
        return [row["subject"].encode() for row in csv.DictReader(fh, delimiter="\t")]


@needs_data
def test_real_subjects_match_reference():
    subjects = _collection_subjects()
    assert len(subjects) > 700
    # real headers carry the part counter that the collected examples had stripped
    rows = _check_against_reference([s + b" (1/7)" for s in subjects])
    with_name = sum(r["name_start"] >= 0 for r in rows)
    with_counter = sum(r["file_index"] >= 0 for r in rows)
    assert all(r["part"] == 1 and r["part_total"] == 7 for r in rows)
    assert with_name / len(rows) > 0.9
    assert with_counter / len(rows) > 0.76  # the others have none (ebooks, music)


@needs_data
def test_binsearch_subjects():
    with open(DATA / "binsearch_subjects.tsv", encoding="utf-8") as fh:
        lines = [ln.rstrip("\n").split("\t") for ln in fh if not ln.startswith("#")]
    subjects = [ln[2].encode() for ln in lines if len(ln) > 3]
    rows = _check_against_reference(subjects)
    assert all(r["part"] >= 1 and r["name_start"] >= 0 for r in rows)
    # all but one (a lone quoted .zip) carry a file counter
    assert sum(r["file_index"] < 0 for r in rows) == 1
    assert all(r["has_yenc"] and not r["random_subject"] for r in rows)


@needs_data
def test_real_counters_with_mismatched_brackets():
    # `Uploader.Presents-Name-COMPLEX(02/92]"complex-name.nfo" yEnc`, `(00/24]  Artist - ...`
    mismatched = re.compile(rb"\[ *\d+(?:/| of )\d+ *\)|\( *\d+(?:/| of )\d+ *\]")
    subjects = [s + b" (1/7)" for s in _collection_subjects() if mismatched.search(s)]
    assert len(subjects) >= 3
    rows = _check_against_reference(subjects)
    for subject, row in zip(subjects, rows, strict=True):
        m = mismatched.search(subject)
        assert m is not None
        numbers = re.findall(rb"\d+", m.group())
        assert (row["file_index"], row["file_total"]) == tuple(int(x) for x in numbers), subject
        assert (row["part"], row["part_total"]) == (1, 7)
        assert m.group() not in ref.identity_text(subject)


def _sibling(subject: bytes, row: dict) -> bytes | None:
    """Another file of the same upload, written the same way: next counter, other name."""
    if row["name_start"] < 0 or row["file_index"] < 0:
        return None
    name = subject[row["name_start"] : row["name_end"]]
    base = ref.stem(name) or b"x"
    other = base + (b".vol07+08.par2" if not name.lower().endswith(b".par2") else b".part02.rar")
    out = subject[: row["name_start"]] + other + subject[row["name_end"] :]
    old = f"{row['file_index']}/{row['file_total']}".encode()
    new = f"{row['file_index'] + 1}/{row['file_total']}".encode()
    return out.replace(old, new, 1) if old in out else None


@needs_data
def test_files_of_one_real_upload_share_the_identity():
    subjects = [s + b" (1/7)" for s in _collection_subjects()]
    rows = _check_against_reference(subjects)
    pairs = [(s, _sibling(s, r)) for s, r in zip(subjects, rows, strict=True)]
    pairs = [(a, b.replace(b" (1/7)", b" (3/9)")) for a, b in pairs if b is not None]
    assert len(pairs) > 400
    siblings = _check_against_reference([b for _, b in pairs])
    originals = _check_against_reference([a for a, _ in pairs])
    same = [
        o["identity_key"] == s["identity_key"] for o, s in zip(originals, siblings, strict=True)
    ]
    assert sum(same) / len(same) > 0.97, [
        (a, b) for (a, b), ok in zip(pairs, same, strict=True) if not ok
    ][:5]
    # and different uploads do not collide: distinct identities stay distinct
    identities = {ref.identity_text(a) for a, _ in pairs}
    keys = {o["identity_key"] for o in originals}
    assert len(keys) == len(identities)


@pytest.mark.parametrize(
    "subject, part, file_counter, name, identity",
    [
        (b"[1/5] (1/5)", (1, 5), (1, 5), None, b""),  # only counters
        (b'"unbalanced.rar yEnc (1/2)', (1, 2), (-1, -1), b"unbalanced.rar", b'"'),
        (b"(1234567890/5) [99999999999/1]", (-1, -1), (-1, -1), None, None),  # too long
        (b"(999999999/999999999)", (999999999, 999999999), (-1, -1), None, b""),
        (b"((1/2))", (1, 2), (-1, -1), None, b""),  # nested: both parens left empty
        (
            b'\xff\xfe\x80 "\xe9t\xe9.mkv" yEnc (1/2)',
            (1, 2),
            (-1, -1),
            b"\xe9t\xe9.mkv",
            b"\xff\xfe\x80",
        ),
        (b"- - - [] () {} - -", (-1, -1), (-1, -1), None, b""),
        (b'a "b" "c.rar', (-1, -1), (-1, -1), b"b", b'a "c.rar'),
        # mismatched brackets: the file counter, never the part counter
        (b"(1/5]", (-1, -1), (1, 5), None, b""),
        (b"[2/5)", (-1, -1), (2, 5), None, b""),
        (b"(3/5] (1/5)", (1, 5), (3, 5), None, b""),
        (b"(1/2} {1/2] [1/2}", (-1, -1), (-1, -1), None, None),  # braces do not mix
        (
            b'Name-GROUP(51/65]"rld-name.r48" yEnc',
            (-1, -1),
            (51, 65),
            b"rld-name.r48",
            b"name-group",
        ),
        (b'Name [02/27) - "a.rar" yEnc (1/3)', (1, 3), (2, 27), b"a.rar", b"name"),
        (b'Name (02/14] - "a.rar" yEnc (2/3)', (2, 3), (2, 14), b"a.rar", b"name"),
        # of the `[i/N]` kind, the last before the name, mismatched or not
        (b'A (1/3] B [02/14] - "a.rar" yEnc (1/3)', (1, 3), (2, 14), b"a.rar", b"a (1/3] b"),
        (b'A [1/3] B (02/14] - "a.rar" yEnc (1/3)', (1, 3), (2, 14), b"a.rar", b"a [1/3] b"),
        # spaces around the `/` (a real subject)
        (
            b'40 Italo Dance Tunes (2CD) - "00. 40 Italo Dance Tunes 2011.nfo" [02/ 50] '
            b"nightsteff  yEnc (1/1)",
            (1, 1),
            (2, 50),
            b"00. 40 Italo Dance Tunes 2011.nfo",
            b"40 italo dance tunes (2cd) - nightsteff",
        ),
        (b"Name ( 3 / 9 ) x.rar (1/2)", (1, 2), (3, 9), b"x.rar", b"name"),
        (b"Name [1 /of 2] x.rar (1/2)", (1, 2), (-1, -1), b"x.rar", None),
        # several counters: the file's is the last of the first kind before the name
        (
            b'[EnJoY] =>A Blast (1/3)<= (00/14] - "Name.part.nzb" yEnc (1/1)',
            (1, 1),
            (0, 14),
            b"Name.part.nzb",
            b"[enjoy] =>a blast (1/3)<=",
        ),
        (
            b'- [01/10) - "file.xyz" yEnc - (001/107] - "86u1Qr8mm5.par2" yEnc (1/2)',
            (1, 2),
            (1, 107),
            b"86u1Qr8mm5.par2",
            b'[01/10) - "file.xyz"',
        ),
        # several quoted texts: the last with a known extension is the file's
        (
            b'(01/05) "8791296743.epub" - 1.23 MB - "Title Words - epub" yEnc (1/3)',
            (1, 3),
            (1, 5),
            b"8791296743.epub",
            b'"title words - epub"',
        ),
        (
            b'"Release.Name.DTS"(15/56) "Release.Name.part22.rar" - 2.40 GB yEnc (1/9)',
            (1, 9),
            (15, 56),
            b"Release.Name.part22.rar",
            b'"release.name.dts"',
        ),
        (
            b'REQ: "Title" by Author "Title - Author.epub" yEnc (1/2)',
            (1, 2),
            (-1, -1),
            b"Title - Author.epub",
            b'req: "title" by author',
        ),
        (b'"Name" - "Other" yEnc (1/2)', (1, 2), (-1, -1), b"Other", b'"name"'),
        # a name without quotes takes in its track number and words
        (
            b"Attn: user - Artist - Album (1993) - 01 - Track Words.mp3 yEnc (1/4)",
            (1, 4),
            (-1, -1),
            b"01 - Track Words.mp3",
            b"attn: user - artist - album (1993)",
        ),
        (
            b"Artist - Album (2013) MP3 [1/19] - 01 - Star Empire Black.mp3 (1/59)",
            (1, 59),
            (1, 19),
            b"01 - Star Empire Black.mp3",
            b"artist - album (2013) mp3",
        ),
        (
            b"Album - 13 The Band - Oh Gin.flac (1/2)",
            (1, 2),
            (-1, -1),
            b"13 The Band - Oh Gin.flac",
            b"album",
        ),
        (b"Album - Volume 2 - Song.mp3 (1/2)", (1, 2), (-1, -1), b"Song.mp3", None),
        (b"Album - 1999 - Song Words.mp3 (1/2)", (1, 2), (-1, -1), b"Words.mp3", None),
        # ... or the words that repeat the text before them
        (
            b"Attn: user - Artist - Album (1993) - Artist - Album (1993).vol00+01.par2 yEnc (1/4)",
            (1, 4),
            (-1, -1),
            b"Artist - Album (1993).vol00+01.par2",
            b"attn: user - artist - album (1993)",
        ),
        (b"Big Band - Band Words.par2 (1/2)", (1, 2), (-1, -1), b"Words.par2", None),
        # ... or all the words after the file counter and a space
        (
            b"[2/4] Graham Masterton - Descendant.mobi (1/2)",
            (1, 2),
            (2, 4),
            b"Graham Masterton - Descendant.mobi",
            b"",
        ),
        (
            b"Show - [1/4] - Show Name (2021).par2 (1/2)",
            (1, 2),
            (1, 4),
            b"Show Name (2021).par2",
            b"show",
        ),
        (b"[1/4]-[Album]--x 001.sfv (1/2)", (1, 2), (1, 4), b"001.sfv", None),
        # never past another file name, a quote or the part counter
        (b"[1/5] a.rar b c.mp3 (1/2)", (1, 2), (1, 5), b"c.mp3", b"a.rar b"),
        (b'"" - 01 Words.mp3 (1/2)', (1, 2), (-1, -1), b"01 Words.mp3", b'""'),
        (b"a (3/4) - 01 - b.mp3", (3, 4), (-1, -1), b"01 - b.mp3", b"a"),
        (b"a - 01 - b (3/4) c.mp3", (3, 4), (-1, -1), b"c.mp3", None),
    ],
)
def test_adversarial_expectations(subject, part, file_counter, name, identity):
    row = _check_against_reference([subject])[0]
    assert (row["part"], row["part_total"]) == part
    assert (row["file_index"], row["file_total"]) == file_counter
    got = subject[row["name_start"] : row["name_end"]] if row["name_start"] >= 0 else None
    assert got == name
    if identity is not None:
        assert ref.identity_text(subject) == identity
        assert (row["identity_key"] == 0) == (identity == b"")


def test_posting_tags_alone_are_no_identity():
    rows = _check_against_reference(
        [
            b'[PRiVATE] [01/20] - "Show.Name.vol03+04.par2" yEnc (1/9)',
            b'[1234]-[FULL]-[#a.b.teevee@EFNet]-[01/20] - "Show.Name.part01.rar" yEnc (1/2)',
            b'[REQ] "Show.Name.nfo" yEnc (1/1)',
            b'[PRiVATE] Real Title [01/20] - "Show.Name.par2" yEnc (1/9)',
        ]
    )
    assert [r["identity_key"] == 0 for r in rows] == [True, True, True, False]
    assert rows[0]["stem_key"] == rows[1]["stem_key"] == rows[2]["stem_key"] != 0


# --- which name, when a subject has several -----------------------------------------

# real subjects (../shared/data/subjects: collection_examples.tsv), the part counter added:
# (subject, the file name, the release identity)
REAL_NAMES = [
    # an ISBN as the file name, the title quoted after it
    (
        b'(1/7) "0865779767.epub" - 88,93 MB - "Anatomic Basis of Neurologic Diagnosis - epub" '
        b"yEnc (1/7)",
        b"0865779767.epub",
        b'"anatomic basis of neurologic diagnosis - epub"',
    ),
    (
        b'"The.Draughtsmans.Contract.1982.576p.BluRay.DD2.0.x264-EA"(15/56) '
        b'"The.Draughtsmans.Contract.1982.576p.BluRay.DD2.0.x264-EA.part13.rar" - 2.37 GB yEnc '
        b"(1/7)",
        b"The.Draughtsmans.Contract.1982.576p.BluRay.DD2.0.x264-EA.part13.rar",
        b'"the.draughtsmans.contract.1982.576p.bluray.dd2.0.x264-ea"',
    ),
    (
        b'"The Absence - Riders Of The Plague" [00/14] - "the_absence-riders_of_the_plague.nzb" '
        b"yEnc (1/7)",
        b"the_absence-riders_of_the_plague.nzb",
        b'"the absence - riders of the plague"',
    ),
    (
        b'- [01/10] - "file.xyz" yEnc - [001/107] - "86u1Qr8mm56jGiW7nUPTM.par2" yEnc (1/7)',
        b"86u1Qr8mm56jGiW7nUPTM.par2",
        b'[01/10] - "file.xyz"',
    ),
    # a file name without quotes: its track number and words
    (
        b"Attn: wulf109 - Jim Reeves - There's Someone Who Loves You - 01 - Anna Marie.mp3 yEnc "
        b"(1/7)",
        b"01 - Anna Marie.mp3",
        b"attn: wulf109 - jim reeves - there's someone who loves you",
    ),
    (
        b"Attn: wulf109 - Jim Reeves - There's Someone Who Loves You - Front.jpg yEnc (1/7)",
        b"Front.jpg",
        b"attn: wulf109 - jim reeves - there's someone who loves you",
    ),
    (
        b"The Velvet Underground - Peel Slow And See (Box Set) Disc 5 of 5 - 13 The Velvet "
        b"Underground - Oh Gin.flac yEnc (1/7)",
        b"13 The Velvet Underground - Oh Gin.flac",
        b"the velvet underground - peel slow and see (box set) disc 5 of 5",
    ),
    (
        b"[1977] Joan Armatrading - Show Some Emotion - File 15 of 20: 06 Joan Armatrading - "
        b"Opportunity.flac yEnc (1/7)",
        b"06 Joan Armatrading - Opportunity.flac",
        b"[1977] joan armatrading - show some emotion",
    ),
    (
        b"Doc Watson - 1973 - The Essential Doc Watson - 01 - Tom Dooley.flac - 406.64 MB - yEnc "
        b"(1/7)",
        b"01 - Tom Dooley.flac",
        b"doc watson - 1973 - the essential doc watson",
    ),
    # ... the words that repeat the release name before them
    (
        b"(D The Best Of Leon Russell [23/28] - The Best Of Leon Russell.vol00+01.PAR2  yEnc (1/7)",
        b"The Best Of Leon Russell.vol00+01.PAR2",
        b"(d the best of leon russell",
    ),
    (
        b"[3/3 Karel Gott - Die Biene Maja Original MP3 Karel Gott - Die Biene Maja Original "
        b'MP3.mp3.vol0+1.PAR2" yEnc (1/7)',
        b"Karel Gott - Die Biene Maja Original MP3.mp3.vol0+1.PAR2",
        b'[3/3 karel gott - die biene maja original mp3 "',
    ),
    # ... every word after the file counter
    (
        b"[2/4] Graham Masterton - Descendant.mobi (1/7)",
        b"Graham Masterton - Descendant.mobi",
        b"",
    ),
    (
        b"04/63  Brave New World Revisited - Aldous Huxley.mobi  yEnc (1/7)",
        b"Brave New World Revisited - Aldous Huxley.mobi",
        b"",
    ),
    (
        b"[014/144] - The Bible (2013) - S1E01 - In the Beginning AVC 480p.vol31+27.PAR2  yEnc "
        b"(1/7)",
        b"The Bible (2013) - S1E01 - In the Beginning AVC 480p.vol31+27.PAR2",
        b"",
    ),
    # ... but not after a counter glued into a row of tags, nor past another file name
    (
        b"[0sk]-[2002-12-06]-[idm]-[vinyl]-[4/5]-[Maps_And_Diagrams_-_Ti_Sta_Bene_Marone-"
        b"(cact_001)-Vinyl-2002]--cact 001.sfv  yEnc (1/7)",
        b"001.sfv",
        b"[0sk]-[2002-12-06]-[idm]-[vinyl]- -[maps_and_diagrams_-_ti_sta_bene_marone-(cact_001)"
        b"-vinyl-2002]--cact",
    ),
    (
        b"1 - 5 July 2013 - Search for number at end of title - Bevin Alexander - How Hitler "
        b"Could Have Won World War II- The Fatal Errors That Lead to Nazi Defeat (epub).rar - "
        b"14418-25255-6053.rar.txt yEnc (1/7)",
        b"14418-25255-6053.rar.txt",
        None,
    ),
    # nothing says the words are the file's (the counter after the name): the token alone
    (
        b"Silent Witness S15E02 Death has no dominion.par2 [01/44] - yEnc (1/7)",
        b"dominion.par2",
        b"silent witness s15e02 death has no",
    ),
]


@pytest.mark.parametrize("subject, name, identity", REAL_NAMES, ids=range(len(REAL_NAMES)))
def test_the_file_name_of_real_subjects_with_several(subject, name, identity):
    row = _check_against_reference([subject])[0]
    assert subject[row["name_start"] : row["name_end"]] == name
    if identity is not None:
        assert ref.identity_text(subject) == identity


@needs_data
def test_real_files_of_one_upload_without_quotes_share_the_identity():
    # two files of one real upload, the track's name unquoted with its number and words
    subjects = [s + b" (1/7)" for s in _collection_subjects() if b"Attn: wulf109" in s]
    assert len(subjects) == 2
    rows = _check_against_reference(subjects)
    assert rows[0]["identity_key"] == rows[1]["identity_key"] != 0
    names = {s[r["name_start"] : r["name_end"]] for s, r in zip(subjects, rows, strict=True)}
    assert names == {b"01 - Anna Marie.mp3", b"Front.jpg"}


def test_a_bare_volume_number_leaves_the_stem_only_last_in_the_name():
    # `H.264` is the name's (a real title: ../shared/data/names), `.001` a split file's
    subjects = [
        b'"Series.S02E01.720p.WEB-DL.DD5.1.H.264.mkv" yEnc (1/2)',
        b'"Series.S02E01.720p.WEB-DL.DD5.1.H.264.par2" yEnc (1/2)',
        b'"Series.S02E01.720p.WEB-DL.DD5.1.H.264.vol00+01.par2" yEnc (1/2)',
        b'"Series.S02E01.720p.WEB-DL.DD5.1.H.264.mkv.001" yEnc (1/2)',
        b'"Series.S02E01.720p.WEB-DL.DD5.1.H.264.part01.rar" yEnc (1/2)',
        b'"Series.S02E01.720p.WEB-DL.DD5.1.H.264.r00" yEnc (1/2)',
    ]
    rows = _check_against_reference(subjects)
    assert len({r["stem_key"] for r in rows}) == 1
    assert ref.stem(b"Series.S02E01.720p.WEB-DL.DD5.1.H.264.par2") == (
        b"Series.S02E01.720p.WEB-DL.DD5.1.H.264"
    )
    assert ref.stem(b"Name.avi.012") == b"Name" and ref.stem(b"Name.7z.001") == b"Name"


# --- bare counters (issue 26): real subjects, and a title's own numbers left alone ----------

BARE_COUNTERS = [
    # (subject, file counter, identity): collection_examples.tsv and the issue
    (b'\'Mission: Impossible\' - 1x09 - NTSC - DivX - 28 of 48 - "MI-S01E09.r23" yEnc (1/9)',
     (28, 48), b"'mission: impossible' - 1x09 - ntsc - divx"),
    (b'"Universe S4E08.part40.rar" - [41 of 76 - 10013 kb] yEnc (1/9)', (41, 76), b""),
    (b'"Time Team - 2012 - 05 - Beadnell.par2" -  [01 of 84 - 64 kb] yEnc (1/1)', (1, 84), b""),
    (b"Sonny Landreth - 2010 - Mississippi Blues - 04 of 29 - 00 - Mississippi Blues.sfv yEnc"
     b" (1/1)", (4, 29), b"sonny landreth - 2010 - mississippi blues"),
    (b'[ABPEA - Original] Arima Zin - Tennen Koiiro Alcohol [BB, Boy] - 005 of 229 - yEnc '
     b'"Tennen_Koiiro_Alcohol-005.jpg" (1/2)', (5, 229),
     b"[abpea - original] arima zin - tennen koiiro alcohol [bb, boy]"),
    (b'"Art Tatum - Vol 1.NFO" - 1 of 6 (1/1)', (1, 6), b""),
    (b"New eBooks 20 Aug 2012 - File 001 of 409 - yEnc (1/3)", (1, 409), b"new ebooks 20 aug 2012"),
    (b"04/63  Brave New World Revisited - Aldous Huxley.mobi  yEnc (1/2)", (4, 63), b""),
    (b"-'- Doc2011 -'- 01/16 - Glorious.Accidents.2011.par2 yEnc (1/1)", (1, 16),
     b"-'- doc2011 -'-"),
    (b'Old Dad uppt Scary Movie5 WEB RiP Line XviD German 01/24] - "Scary Movie 5.par2" yEnc (1/1)',
     (1, 24), b"old dad uppt scary movie5 web rip line xvid german ]"),
    # a title's own numbers: no counter, they stay in the identity
    (b"The Velvet Underground - Peel Slow And See (Box Set) Disc 5 of 5 - 13 The Velvet "
     b"Underground - Oh Gin.flac yEnc (1/3)", (-1, -1),
     b"the velvet underground - peel slow and see (box set) disc 5 of 5"),
    (b'"Wild Russia 5 of 6 The Secret Forest 2009.part06.rar" yEnc (1/3)', (-1, -1), b""),
    (b'"Show - 03 of 10 - The Title.avi" yEnc (1/3)', (-1, -1), b""),
    (b'Show 1x09 - 2012 - 05 - 1080p - "Show.1x09.mkv" yEnc (1/3)', (-1, -1),
     b"show 1x09 - 2012 - 05 - 1080p"),
    (b'Name - 3 of 2 - "x.rar" yEnc (1/3)', (-1, -1), b"name - 3 of 2"),
    (b'Name - 1 of 2 Parts - "x.rar" yEnc (1/3)', (-1, -1), b"name - 1 of 2 parts"),
    (b'Name - 1 of 2 (Live) - "x.rar" yEnc (1/3)', (-1, -1), b"name - 1 of 2 (live)"),
]  # fmt: skip


@pytest.mark.parametrize("row", BARE_COUNTERS, ids=[r[0][:40].decode() for r in BARE_COUNTERS])
def test_bare_counters(row):
    subject, counter, identity = row
    f = _check_against_reference([subject])[0]
    assert (f["file_index"], f["file_total"]) == counter
    assert _identity(subject) == identity
    # the display path blanks the same counter (pipelines.subjects.rules.display_text)
    assert ref.display_text(subject).lower() == identity


def test_two_files_of_a_bare_counter_upload_share_the_identity():
    a = b'Show - 1x09 - DivX - 01 of 48 - "MI-S01E09.nfo" (1/1)'
    b = b'Show - 1x09 - DivX - 28 of 48 - "MI-S01E09.r23" yEnc (3/50)'
    c = b'"Time Team - 05.par2" -  [01 of 84 - 64 kb] yEnc (1/1)'
    d = b'"Time Team - 05.part01.rar" -  [02 of 84 - 47,68 MB] yEnc (7/93)'
    rows = _check_against_reference([a, b, c, d])
    assert rows[0]["identity_key"] == rows[1]["identity_key"] != 0
    assert rows[2]["identity_key"] == rows[3]["identity_key"] == 0  # by the stem
    assert rows[2]["stem_key"] == rows[3]["stem_key"]
