"""Number, Date and Xref parsers against their references, on real and hostile fields."""

from __future__ import annotations

import calendar
import email.utils

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.fields import DATE_CACHE, parse_dates, parse_uint, xref_number, xref_owner
from kernels.hashing import hash_bytes
from tests.reference import fields as ref


def _spans(items: list[bytes]) -> tuple[bytes, np.ndarray, np.ndarray]:
    end = np.cumsum([len(x) for x in items], dtype=np.int64)
    start = end - np.array([len(x) for x in items], dtype=np.int64)
    return b"".join(items), start, end


def _dates_are_the_reference(items: list[bytes]) -> None:
    """The kernel's (epoch, ok) for each Date field is the reference parser's."""
    epoch, ok = parse_dates(*_spans(items))
    assert list(zip(epoch.tolist(), ok.tolist(), strict=True)) == [ref.parse_date(d) for d in items]


# --- numbers ---------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=22),
            st.integers(0, 10**20).map(lambda n: str(n).encode()),
            st.integers(0, 10**6).map(lambda n: f" {n} ".encode()),
        ),
        max_size=20,
    )
)
def test_parse_uint_matches_reference(items):
    got = parse_uint(*_spans(items))
    assert got.dtype == np.int64
    assert got.tolist() == [ref.parse_uint(x) for x in items]


def test_parse_uint_cases():
    items = [b"123456", b"", b"12a", b"-5", b"9" * 18, b"9" * 19, b" 42 "]
    assert parse_uint(*_spans(items)).tolist() == [123456, -1, -1, -1, 10**18 - 1, -1, 42]


# --- dates ---------------------------------------------------------------------------------

REAL_DATES = [
    b"Mon, 03 Jun 2013 10:11:12 +0200",
    b"3 Jun 2013 10:11:12 GMT",
    b"Thu, 14 Feb 2019 14:04:36 -0500 (EST)",
    b"Sat, 1 Jan 2000 00:00 UT",
    b"Sun, 31 Dec 1999 23:59:60 Z",
    b"Fri, 13 Mar 09 12:00:00 EDT",
    b"13 MAR 95 12:00:00 pst",
    b"Tue, 4 Jun 113 12:00:00 +0000",
    b"Wednesday, 05-Jun-13 08:00:00 GMT",
    b"05 June 2013 08:00:00 -0000",
    b"Mon,3 Jun 2013 10:11:12 UTC",
    b"  Mon, 3 Jun 2013 10:11:12 +0100 (CET)  ",
    b"Thu, 01 Jan 1970 00:00:00 +0000",
    b"Wed, 01 Jan 2099 00:00:00 +0000",
    b"Mon, 3 Jun 2013 10:11:12 A",
]
BAD_DATES = [
    b"",
    b"garbage",
    b"Mon, 3 Jun 2013 10:11:12",  # no zone
    b"Mon, 3 Jun 2013 10:11:12 CET",  # unknown zone name
    b"Mon, 3 Jun 2013 10:11:12 J",  # J is no zone
    b"Mon, 31 Jun 2013 10:11:12 GMT",  # no such day
    b"Mon, 29 Feb 2013 10:11:12 GMT",
    b"Mon, 3 Jun 2013 24:11:12 GMT",
    b"Mon, 3 Foo 2013 10:11:12 GMT",
    b"Xyz, 3 Jun 2013 10:11:12 GMT",
    b"Mon, 3 Jun 2013 10:11:12 +02000",
    b"Mon, 3 Jun 2013 10:11:12 +0260",
    b"Mon, 3 Jun 0999 10:11:12 GMT",
    b"Mon, 3 Jun 2013 10:11:12 GMT trailing",
    b"Mon, 3 Jun 2013 10:1:12 GMT",
    b"2013-06-03T10:11:12Z",
    b"Mon, 123 Jun 2013 10:11:12 GMT",
    b"Mon, 3 Jun 2013 10:11:12 GMT (unclosed",
]


def test_real_date_shapes_parse_and_match_the_standard_library():
    epoch, ok = parse_dates(*_spans(REAL_DATES))
    assert ok.all(), [d for d, o in zip(REAL_DATES, ok, strict=True) if not o]
    assert epoch.tolist() == [ref.parse_date(d)[0] for d in REAL_DATES]
    # where Python's own RFC 5322 parser agrees on the shape, the instants agree
    for text, value in zip(REAL_DATES[:4], epoch[:4], strict=True):
        parsed = email.utils.parsedate_tz(text.decode())
        assert parsed is not None
        assert calendar.timegm(parsed[:9]) - (parsed[9] or 0) == value


def test_two_and_three_digit_years():
    epoch, ok = parse_dates(
        *_spans([b"1 Jan 49 00:00 GMT", b"1 Jan 50 00:00 GMT", b"1 Jan 113 00:00 GMT"])
    )
    assert ok.all()
    years = [np.datetime64(int(x), "s").astype(object).year for x in epoch]
    assert years == [2049, 1950, 2013]


def test_bad_dates_are_not_guessed():
    epoch, ok = parse_dates(*_spans(BAD_DATES))
    assert not ok.any(), [d for d, o in zip(BAD_DATES, ok, strict=True) if o]
    assert (epoch == 0).all()


date_piece = st.sampled_from(
    [
        b"Mon",
        b"monday",
        b",",
        b" ",
        b"  ",
        b"-",
        b"3",
        b"03",
        b"31",
        b"29",
        b"Jun",
        b"feb",
        b"SEPTEMBER",
        b"13",
        b"2013",
        b"113",
        b"1999",
        b"10:11",
        b":12",
        b":60",
        b"24:00",
        b"+0200",
        b"-0530",
        b"GMT",
        b"ut",
        b"Z",
        b"EDT",
        b"j",
        b"(c)",
        b"(",
        b")",
        b"x",
        b"\xff",
        b"0",
        b"99",
    ]
)


# Date-like fields from pieces and random bytes, side by side in one column
dates_or_bytes = st.lists(date_piece, max_size=12).map(b"".join) | st.binary(max_size=40)


@settings(max_examples=600, deadline=None)
@given(st.lists(dates_or_bytes, max_size=10))
def test_date_pieces_and_random_bytes_match_reference(items):
    _dates_are_the_reference(items)


@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(min_value=__import__("datetime").datetime(1900, 1, 1)),
    st.integers(-720, 720),
    st.booleans(),
    st.booleans(),
)
def test_formatted_dates_round_trip(when, zone_minutes, weekday, seconds):
    import datetime as dt

    tz = dt.timezone(dt.timedelta(minutes=zone_minutes))
    local = when.replace(tzinfo=dt.UTC).astimezone(tz).replace(microsecond=0)
    text = local.strftime(
        ("%a, " if weekday else "") + "%d %b %Y %H:%M" + (":%S" if seconds else "") + " %z"
    )
    epoch, ok = parse_dates(*_spans([text.encode()]))
    expected = int(local.replace(second=local.second if seconds else 0).timestamp())
    assert ok[0] and epoch[0] == expected, text


# --- Xref -----------------------------------------------------------------------------------

GROUPS = [
    b"alt.binaries.boneless",
    b"alt.binaries.teevee",
    b"alt.binaries.movies",
    b"alt.binaries.dvd",
]


def _owner(fields: list[bytes], groups: list[bytes] = GROUPS):
    hashes = np.array([hash_bytes(g) for g in groups], dtype=np.uint64)
    return xref_owner(*_spans(fields), hashes)


def test_xref_owner_picks_the_lowest_priority_number():
    fields = [
        b"Xref: article.news.xs4all.nl alt.binaries.movies:51368878 alt.binaries.dvd:419435634 "
        b"alt.binaries.ftd:35220227 alt.binaries.boneless:1245016480",
        b"Xref: host alt.binaries.dvd:5",
        b"host alt.binaries.teevee:7 alt.binaries.dvd:8",
        b"Xref: host alt.binaries.other:1",
        b"",
        b"Xref: host",
        b"xref:host junk alt.binaries.dvd:x :5 alt.binaries.teevee:12",
    ]
    owner, n_groups, group_set = _owner(fields)
    assert owner.tolist() == [0, 3, 1, -1, -1, -1, 1]
    assert n_groups.tolist() == [4, 1, 2, 1, 0, 0, 1]
    assert group_set[4] == 0 and group_set[5] == 0 and (group_set[[0, 1, 2, 3, 6]] != 0).all()
    assert owner.dtype == np.int32 and n_groups.dtype == np.int32 and group_set.dtype == np.uint64


def test_group_set_ignores_order_and_numbers():
    fields = [
        b"Xref: h a.b:1 c.d:2",
        b"Xref: other c.d:9 a.b:3",
        b"Xref: h a.b:1 c.d:2 a.b:1",
        b"Xref: h a.b:1",
    ]
    _, n, group_set = _owner(fields)
    assert group_set[0] == group_set[1] == group_set[2] != group_set[3]
    assert n.tolist() == [2, 2, 2, 1]


xref_token = st.one_of(
    st.sampled_from([g + b":" + str(i).encode() for g in [*GROUPS, b"alt.x"] for i in (1, 99)]),
    st.sampled_from(
        [b"Xref:", b"xref:", b"host", b" ", b"", b"a:b:3", b":4", b"g:", b"g:1x", b"\xff:1"]
    ),
    st.binary(max_size=6),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(xref_token, max_size=8).map(b" ".join), max_size=10))
def test_xref_matches_reference(fields):
    owner, n_groups, group_set = _owner(fields)
    for i, f in enumerate(fields):
        assert (owner[i], n_groups[i], group_set[i]) == ref.xref_owner(f, GROUPS), f
    for g in (GROUPS[0], b"alt.x"):
        got = xref_number(*_spans(fields), hash_bytes(g))
        assert got.tolist() == [ref.xref_number(f, g) for f in fields]


def test_xref_number():
    fields = [
        b"Xref: h alt.binaries.dvd:419435634 alt.binaries.movies:5",
        b"Xref: h alt.binaries.movies:x",
        b"",
    ]
    assert xref_number(*_spans(fields), hash_bytes(b"alt.binaries.movies")).tolist() == [5, -1, -1]


def test_no_indexed_groups():
    owner, n, _ = _owner([b"Xref: h a:1"], groups=[])
    assert owner.tolist() == [-1] and n.tolist() == [1]


def test_spans_are_validated():
    with pytest.raises(ValueError):
        parse_dates(b"abc", np.array([1]), np.array([0]))


# --- the fast paths' edges: every path out of them must land where the general one does ---

COMMON_DATES = [
    b"Wed, 08 Jun 2016 11:10:09 GMT",
    b"Wed, 8 Jun 2016 06:41:51 -0500",
    b"Tue, 07 Jun 2016 23:43:04 +0000",
    b"8 Jun 2016 06:41:51 UT",
    b"08 Jun 2016 06:41:51 +9959",
]


def _near(date: bytes) -> list[bytes]:
    """date with each byte replaced by bytes the fast path must tell apart, and cut short."""
    out = [date[:k] for k in range(len(date))] + [date + b" ", b" " + date, date + b" (c)"]
    for i in range(len(date)):
        for c in b" ,:+-09aZ@[`{\xff":
            out.append(date[:i] + bytes([c]) + date[i + 1 :])
        out.append(date[:i] + date[i + 1 :])
        out.append(date[:i] + date[i : i + 1] * 2 + date[i + 1 :])
    return out


@pytest.mark.parametrize("date", COMMON_DATES)
def test_common_shape_and_every_near_miss_match_reference(date):
    items = _near(date)
    _dates_are_the_reference(items)


def test_common_shape_at_calendar_edges():
    items = [
        b"Thu, 29 Feb 2024 23:59:60 +0000",
        b"Wed, 29 Feb 2023 00:00:00 +0000",
        b"Thu, 29 Feb 1900 00:00:00 GMT",
        b"Tue, 29 Feb 2000 00:00:00 GMT",
        b"Mon, 31 Apr 2013 00:00:00 GMT",
        b"Mon, 31 Dec 9999 23:59:59 -9959",
        b"Mon, 01 Jan 1000 00:00:00 +0001",
        b"Mon, 01 Jan 0999 00:00:00 +0000",
        b"Mon, 00 Jan 2000 00:00:00 +0000",
        b"Mon, 1 Jan 2000 00:00:61 +0000",
        b"Mon, 1 Jan 2000 00:60:00 +0000",
        b"Mon, 1 Jan 2000 23:00:00 +0060",
        b"MON, 1 JAN 2000 23:00:00 gmt",
        *(f"Mon, 1 Jan 2000 10:00:00 {z.upper()}".encode() for z in ref.ZONES),
        *(f"{d}, 1 {m} 2000 10:00:00 +0100".encode() for d in ref.WEEKDAYS for m in ref.MONTHS),
    ]
    _dates_are_the_reference(items)


def test_xref_tokens_across_word_edges():
    # names and numbers of every length move the spaces and colons through all 8 positions
    fields = []
    for k in range(1, 20):
        name = b"alt.b" + b"x" * k
        for number in (b"7", b"1234567", b"9" * 18, b"9" * 19, b"12x"):
            fields.append(b"Xref: h" + b"o" * k + b" " + name + b":" + number)
            fields.append(name + b":" + number + b" a:b:" + number + b"  " + GROUPS[k % 4] + b":1")
    groups = [*GROUPS, *(b"alt.b" + b"x" * k for k in range(1, 20, 3))]
    owner, n_groups, group_set = _owner(fields, groups)
    for i, f in enumerate(fields):
        assert (owner[i], n_groups[i], group_set[i]) == ref.xref_owner(f, groups), f


# runs of near-identical fields: what the owner kernel copies from the line before
xref_field = st.tuples(
    st.sampled_from(
        [b"Xref: h alt.binaries.dvd:", b"Xref: h alt.binaries.teevee:", b"Xref: h a:1 b:", b"h c"]
    ),
    st.sampled_from([b"1", b"12", b"5150304", b"9" * 18, b"9" * 19, b"", b"1x", b":3", b" 4"]),
).map(b"".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(xref_field, max_size=12))
def test_xref_runs_of_similar_fields_match_reference(fields):
    groups = [*GROUPS, b"a", b"b"]
    owner, n_groups, group_set = _owner(fields, groups)
    for i, f in enumerate(fields):
        assert (owner[i], n_groups[i], group_set[i]) == ref.xref_owner(f, groups), f
    got = xref_number(*_spans(fields), hash_bytes(b"alt.binaries.dvd"))
    assert got.tolist() == [ref.xref_number(f, b"alt.binaries.dvd") for f in fields]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([*REAL_DATES[:4], *BAD_DATES[:4], *COMMON_DATES]), max_size=20))
def test_runs_of_equal_dates_match_reference(items):
    # neighbours with the same Date (what a poster's run of segments gives), good and bad
    items = [d for d in items for _ in range(1 + len(d) % 3)]
    _dates_are_the_reference(items)


# a few posters' Dates a second or so apart, interleaved: what the kernel reads from the
# dates it parsed lately (the same but for the seconds), with seconds that are no seconds
poster_date = st.tuples(
    st.sampled_from(
        [
            b"Wed, 08 Jun 2016 12:20:{} +0100",
            b"Wed, 08 Jun 2016 12:21:{} +0100",
            b"Tue, 07 Jun 2016 23:35:{} GMT",
            b"8 Jun 2016 06:41:{} UT",
            b"Thu, 29 Feb 2024 23:59:{} -0500",
            b"Wed, 08 Jun 2016 12:20:{} +01x0",
            b"Wed, 08 Jun 2016 12:20:{}  +0100",
            b"Wed, 08 Jun 2016 12:20:{} +0100 (c)",
        ]
    ),
    st.sampled_from([b"00", b"09", b"36", b"59", b"60", b"61", b"99", b"6x", b"x6", b" 6", b"-1"]),
).map(lambda t: t[0].replace(b"{}", t[1]))


@settings(max_examples=300, deadline=None)
@given(st.lists(poster_date, max_size=30))
def test_dates_apart_in_their_seconds_match_reference(items):
    _dates_are_the_reference(items)


# more Date shapes than the kernels' cache keeps, each with its seconds to fill in
TURNING_DATES = [
    b"Wed, 08 Jun 2016 12:20:%02d +0100",
    b"Tue, 07 Jun 2016 23:35:%02d GMT",
    b"8 Jun 2016 06:41:%02d UT",
    b"Thu, 29 Feb 2024 23:59:%02d -0500",
    b"Mon, 31 Dec 9999 23:59:%02d -9959",
    b"1 Jan 1000 00:00:%02d +0000",
    b"Sun, 2 Jan 2000 12:00:%02d EST",
]


def test_dates_apart_in_their_seconds_after_more_shapes_than_the_kernel_keeps():
    # more shapes than the kernel keeps take turns, each with its seconds counting up
    shapes = TURNING_DATES
    assert len(shapes) > DATE_CACHE
    items = [shape % second for second in range(62) for shape in shapes[: 1 + second % len(shapes)]]
    _dates_are_the_reference(items)
