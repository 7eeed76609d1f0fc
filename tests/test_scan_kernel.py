"""The scanner kernel against its plain-Python reference, on generated and hostile chunks."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.scan import DUPLICATE, OK, OUT_OF_SPAN, TOO_FEW_FIELDS, UNTERMINATED, scan_chunk
from tests.reference.scan import scan_lines

FIELD_BYTES = st.binary(max_size=12).map(lambda b: b.replace(b"\t", b"").replace(b"\n", b""))


def _line(number: bytes, fields: list[bytes], crlf: bool) -> bytes:
    return b"\t".join([number, *fields]) + (b"\r\n" if crlf else b"\n")


lines_st = st.lists(
    st.builds(
        _line,
        st.one_of(st.integers(0, 40).map(lambda n: str(n).encode()), FIELD_BYTES),
        st.lists(FIELD_BYTES, min_size=0, max_size=10),
        st.booleans(),
    ),
    max_size=30,
)


def _compare(data: bytes, first: int, last: int, terminated: bool) -> None:
    index = scan_chunk(data, first, last, terminated)
    expected = scan_lines(data, first, last, terminated)
    assert len(index) == len(expected)
    for i, row in enumerate(expected):
        assert (index.line_start[i], index.line_end[i]) == row["line"]
        assert [tuple(p) for p in zip(index.field_start[i], index.field_end[i], strict=True)] == [
            tuple(p) for p in row["fields"]
        ]
        assert index.n_fields[i] == row["n_fields"]
        assert index.number[i] == row["number"]
        assert index.status[i] == row["status"], (i, data)
        assert bool(index.non_utf8[i]) == row["non_utf8"]


@settings(max_examples=300, deadline=None)
@given(lines_st, st.integers(0, 20), st.integers(0, 30), st.booleans(), st.integers(0, 5))
def test_scan_matches_reference(lines, first, extra, terminated, cut):
    data = b"".join(lines)
    if cut and data:
        data = data[: max(0, len(data) - cut)]
    _compare(data, first, first + extra, terminated)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200), st.booleans())
def test_scan_survives_random_bytes(data, terminated):
    _compare(data, 0, 100, terminated)


def test_statuses_on_a_hostile_chunk():
    data = (
        b"5\ts\tf\td\t<a@b>\t\t10\t2\tXref: h g:5\r\n"
        b"6\tshort\r\n"
        b"99\ts\tf\td\t<a@b>\t\t10\t2\r\n"
        b"5\ts\tf\td\t<a@b>\t\t10\t2\r\n"
        b"7\ts\xff\xfe\tf\td\t<a@b>\t\t10\t2\r\n"
        b"8\ts\tf\td\t<a"
    )
    index = scan_chunk(data, 5, 10, terminated=False)
    assert list(index.status) == [OK, TOO_FEW_FIELDS, OUT_OF_SPAN, DUPLICATE, OK, UNTERMINATED]
    assert list(index.non_utf8) == [False, False, False, False, True, False]
    assert index.number.dtype == np.int64


def test_empty_chunk():
    assert len(scan_chunk(b"", 1, 10)) == 0


# --- the word-at-a-time scanner's edges: 8-byte words, 64-byte blocks, the partial tail ---

LINE = b"17\tsubject\tposter\tdate\t<id@x>\t\t100\t2\tXref: h a.b:17\r\n"


def test_separators_at_every_position_of_a_block():
    # a field one byte longer each time moves every TAB and LF behind it one position on
    for pad in range(130):
        data = b"3\t" + b"s" * pad + b"\tf\td\t<m>\t\t1\t2\n" + LINE
        _compare(data, 0, 40, True)
        _compare(data.replace(b"\n", b"\r\n"), 0, 40, True)


def test_every_length_and_cut():
    # lengths across whole words and blocks, with and without the last LF
    data = b"".join(LINE.replace(b"17", str(n).encode()) for n in range(10, 14))
    for cut in range(len(data) + 1):
        for terminated in (True, False):
            _compare(data[:cut], 0, 40, terminated)


def test_non_ascii_near_line_and_block_ends():
    for pad in range(70):
        for tail in (b"\xc3\xa9", b"\xff", b"\xc3", b"\xe2\x82"):
            head = b"5\t" + b"s" * pad + tail + b"\tf\td\t<m>\t\t1\t2"
            # valid and invalid UTF-8 ending the line, in the last partial word, and a
            # plain ASCII line after one: it must not be flagged
            for data in (head, head + b"\n" + LINE, LINE + head + b"\r\n" + LINE):
                _compare(data, 0, 40, True)
                _compare(data, 0, 40, False)


def test_more_lines_than_the_span_holds():
    # the scanner sizes its output by the span: a chunk of junk lines overflows that guess
    data = b"1\ts\tf\td\t<m>\t\t1\t2\n" * 3000 + LINE
    index = scan_chunk(data, 1, 1)
    assert len(index) == 3001
    assert index.status[0] == OK and (index.status[1:3000] == DUPLICATE).all()
    assert index.status[3000] == OUT_OF_SPAN
    _compare(data[:500], 1, 1, True)


CONTROL_BYTES = st.lists(
    st.sampled_from(
        [0, 1, 8, 9, 9, 9, 10, 10, 11, 12, 13, 32, 48, 49, 55, 97, 0x80, 0xC3, 0xA9, 0xFF]
    ),
    max_size=400,
).map(bytes)


@settings(max_examples=300, deadline=None)
@given(CONTROL_BYTES, st.booleans(), st.integers(0, 60))
def test_scan_survives_separator_heavy_bytes(data, terminated, first):
    _compare(data, first, first + 20, terminated)


def test_a_buffer_at_any_alignment():
    # the scanner reads the buffer as 8-byte words: an array at an odd address reads alike
    data = LINE * 9 + b"18\ts\tf"
    for shift in range(8):
        buf = np.frombuffer(b"x" * shift + data, np.uint8)[shift:]
        index = scan_chunk(buf, 0, 40, terminated=False)
        expected = scan_lines(data, 0, 40, terminated=False)
        assert index.status.tolist() == [row["status"] for row in expected]
        assert index.line_end.tolist() == [row["line"][1] for row in expected]
