"""kernels.classes.subject_classes against its reference, and what a class promises."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.classes import FIRST_TABLE_BITS, NO_COUNTER, RANDOM, member_rows, subject_classes
from pipelines.subjects.file_names import random_subject
from pipelines.subjects.rules import PART_RE
from tests.reference import classes as ref

# fragments that make counters, near-counters and encoded words meet in odd ways
FRAGMENTS = [
    b"(1/5)",
    b"(12/50)",
    b"(05/50)",
    b"(1/)",
    b"((2/3)",
    b"(1/2))",
    b"[1/5]",
    b"=?UTF-8?B?w6k=?=",
    b"=?utf-8?q?a_b?=",
    b"?=",
    b"=?",
    b" yEnc ",
    b'"a.rar"',
    b" ",
    b"x",
    b"(",
    b"/",
    b")",
    b"7",
    b"\xc3\xa9",
    b"5a4d4b89c647dc0a",  # random tokens: judged here, no class
    b"[PRiVATE]",
    b"Zm9vYmFy+",
    b"Re: ",
    b"YeNc",
    b"-",
    b"=",
    b".",  # a name's extension or quotes: a yEnc line without a counter is parsed
    b'"',
    b"x.nfo",
]
subjects = st.lists(
    st.lists(st.sampled_from(FRAGMENTS), max_size=8).map(b"".join), min_size=0, max_size=40
)


def _run(subs: list[bytes]) -> dict[str, list[int]]:
    buf = b"".join(subs)
    ends = np.cumsum([len(s) for s in subs], dtype=np.int64)
    starts = ends - np.array([len(s) for s in subs], dtype=np.int64)
    c = subject_classes(buf, starts, ends)
    return {
        "cls": c.cls.tolist(),
        "key": [int(k) for k in c.key],
        "part": c.part.tolist(),
        "part_total": c.part_total.tolist(),
        "tail": c.tail.tolist(),
        "counter_len": c.counter_len.tolist(),
        "first": c.first.tolist(),
    }


@settings(max_examples=400, deadline=None)
@given(subjects)
def test_matches_reference(subs):
    assert _run(subs) == ref.subject_classes(subs)


@settings(max_examples=200, deadline=None)
@given(subjects)
def test_members_differ_only_in_their_counter(subs):
    got = _run(subs)
    for line, s in enumerate(subs):
        if got["cls"][line] == RANDOM:
            assert random_subject(s) and b"/" not in s and b"(" not in s
            continue
        if got["cls"][line] == NO_COUNTER:
            assert not PART_RE.search(s) and b"?=" not in s
            assert not random_subject(s)
            assert b"yenc" not in s.lower() or (b'"' not in s and b"." not in s)
            continue
        rep = subs[got["first"][got["cls"][line]]]
        if got["part"][line] < 0:
            assert s == rep  # no shared counter: only identical subjects share a class
        else:
            cut = len(s) - got["tail"][line]
            rcut = len(rep) - got["tail"][got["first"][got["cls"][line]]]
            assert s[:cut] == rep[:rcut]
            assert (
                s[cut + got["counter_len"][line] :]
                == rep[rcut + got["counter_len"][got["first"][got["cls"][line]]] :]
            )


def test_the_parts_of_one_file_are_one_class():
    subs = [f'[3/7] - "a.part03.rar" yEnc ({k}/{120}) 1234'.encode() for k in range(1, 121)]
    subs.append(b'[3/7] - "a.part03.rar" yEnc (1/120) 1235')  # another Nyuu size: another file
    subs.append(b"=?UTF-8?B?w6k=?= (1/2)")  # a counter after the encoded word is shared
    subs.append(b"=?UTF-8?B?w6k=?= (2/2)")
    subs.append(b"(1/2) =?UTF-8?B?w6k=?=")  # one before it is not
    subs.append(b"(2/2) =?UTF-8?B?w6k=?=")
    got = _run(subs)
    assert set(got["cls"][:120]) == {0}
    assert got["part"][:120] == list(range(1, 121))
    assert got["cls"][120:] == [1, 2, 2, 3, 4]
    assert got["part"][123:] == [-1, -1]


def test_random_subjects_join_no_class():
    subs = [
        b"5a4d4b89c647dc0ace625dc250e9b939",
        b"[PRiVATE] 3c249aeab15a54d4e56f1bcab8a4dc5e9e2193cd ",
        b"5a4d4b89c647dc0ace625dc250e9b939 (1/2)",  # a counter: parsed
        b"[PRiVATE] Zm9vYmFyYmF6+1/2=",  # random, but could hold a bare counter: parsed
    ]
    got = _run(subs)
    assert got["cls"] == [RANDOM, RANDOM, 0, 1]
    assert got["first"] == [2, 3]


def test_lines_without_a_part_counter_join_no_class():
    subs = [
        b"Re: anyone have the 2019 remaster?",  # a text post
        b'[12/40] - "a.part12.rar" - 1,2 GB',  # a file counter, no part counter
        b"a.part12.rar yEnc",  # yEnc: maybe a whole file in one segment, parsed
        b"[PRiVATE] 9611340d2e854afa45e15ebf1224d1cb yEnc",  # yEnc but no name possible
        b'yEnc "9611340d2e854afa"',  # a quoted name: parsed
        b"Re: anyone (1/2) here",  # a counter: parsed
        b"=?UTF-8?B?KDEvMik=?= x",  # decodes to a counter: parsed
        b"[PRiVATE] Zm9vYmFyYmF6/cXV4",  # random, but a `/`: parsed
    ]
    got = _run(subs)
    assert got["cls"] == [NO_COUNTER, NO_COUNTER, 0, NO_COUNTER, 1, 2, 3, 4]
    assert got["key"][:2] == [0, 0]


def test_more_classes_than_the_first_table_holds():
    # past the first table's room the lines are classed again in a bigger one
    n = 2 ** (FIRST_TABLE_BITS - 1) + 500
    subs = [b'"f%d.rar" yEnc (%d/3)' % (i // 2, 1 + i % 2) for i in range(2 * n)]
    subs += [b"=?UTF-8?B?w6k=?= x%d" % i for i in range(50)]  # no shared counter
    got = _run(subs)
    assert got == ref.subject_classes(subs)
    assert len(got["first"]) == n + 50


def test_empty():
    assert _run([])["first"] == []


@settings(max_examples=200, deadline=None)
@given(subjects, st.data())
def test_member_rows_match_reference(subs, data):
    buf = b"".join(subs)
    ends = np.cumsum([len(s) for s in subs], dtype=np.int64)
    starts = ends - np.array([len(s) for s in subs], dtype=np.int64)
    c = subject_classes(buf, starts, ends)
    # a table a row per class, then RANDOM's and NO_COUNTER's: any counters, -1 for none
    counters = st.lists(st.integers(-1, 999), min_size=c.classes + 2, max_size=c.classes + 2)
    class_part, class_total = data.draw(counters), data.draw(counters)
    row, part, total = member_rows(c, np.array(class_part), np.array(class_total))
    expected = ref.member_rows(
        c.cls.tolist(), c.part.tolist(), c.part_total.tolist(), c.classes, class_part, class_total
    )
    assert list(zip(row.tolist(), part.tolist(), total.tolist(), strict=True)) == expected
    assert part.dtype == np.int32 and total.dtype == np.int32


def test_member_rows_want_a_row_per_class_and_verdict():
    c = subject_classes(b"a (1/2)b (2/2)", np.array([0, 7]), np.array([7, 14]))
    with pytest.raises(ValueError, match="2 classes need 4 table rows"):
        member_rows(c, np.zeros(3, np.int32), np.zeros(3, np.int32))
