"""kernels.spans against its reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels import spans
from tests.reference import spans as ref


@st.composite
def buf_and_spans(draw):
    buf = draw(st.binary(max_size=200))
    n = draw(st.integers(0, 20))
    starts, ends = [], []
    for _ in range(n):
        a = draw(st.integers(0, len(buf)))
        b = draw(st.integers(0, len(buf)))
        starts.append(a)
        ends.append(b)
    return buf, starts, ends


@settings(max_examples=200, deadline=None)
@given(buf_and_spans())
def test_gather_matches_reference(case):
    buf, starts, ends = case
    data, offsets = spans.gather(np.frombuffer(buf, np.uint8), np.array(starts), np.array(ends))
    want_data, want_offsets = ref.gather(buf, starts, ends)
    assert data.tobytes() == want_data and offsets.tolist() == want_offsets


@settings(max_examples=200, deadline=None)
@given(buf_and_spans())
def test_strip_matches_reference(case):
    buf, starts, ends = case
    ends = [max(a, b) for a, b in zip(starts, ends, strict=True)]
    s, e = spans.strip_angle_brackets(
        np.frombuffer(buf, np.uint8), np.array(starts), np.array(ends)
    )
    got = [buf[a:b] for a, b in zip(s.tolist(), e.tolist(), strict=True)]
    assert got == ref.strip_angle_brackets(buf, starts, ends)


# bytes that the stripping meets: brackets and spaces at either end, inside, or all of it
ids = st.lists(
    st.lists(
        st.sampled_from([b"<", b">", b" ", b"a", b"@", b"x.y", b"0123456789"]), max_size=9
    ).map(b"".join),
    max_size=20,
)


@settings(max_examples=200, deadline=None)
@given(buf_and_spans())
def test_gather_stripped_matches_reference(case):
    buf, starts, ends = case  # ends before starts too: empty, as gather has them
    data, offsets = spans.gather_stripped(
        np.frombuffer(buf, np.uint8), np.array(starts), np.array(ends)
    )
    want_data, want_offsets = ref.gather_stripped(buf, starts, ends)
    assert data.tobytes() == want_data and offsets.tolist() == want_offsets


@settings(max_examples=200, deadline=None)
@given(ids)
def test_gather_stripped_of_bracketed_ids_matches_reference(items):
    buf = b"".join(items)
    ends = np.cumsum([len(i) for i in items], dtype=np.int64)
    starts = ends - np.array([len(i) for i in items], dtype=np.int64)
    data, offsets = spans.gather_stripped(np.frombuffer(buf, np.uint8), starts, ends)
    want_data, want_offsets = ref.gather_stripped(buf, starts.tolist(), ends.tolist())
    assert data.tobytes() == want_data and offsets.tolist() == want_offsets


def test_gather_stripped_every_length_and_offset_up_to_the_buffer_end():
    # the 8-byte steps past a value's end and the buffer's end at every position, with
    # brackets to strip or not
    for buf in (b"<" + bytes(range(65, 103)) + b">", b" <<" + bytes(range(65, 100)) + b"> >"):
        arr = np.frombuffer(buf, np.uint8)
        n = len(buf)
        starts = [a for a in range(n + 1) for z in range(a, n + 1)]
        ends = [z for a in range(n + 1) for z in range(a, n + 1)]
        for order in (slice(None), slice(None, None, -1)):
            s, e = starts[order], ends[order]
            data, offsets = spans.gather_stripped(arr, np.array(s), np.array(e))
            want_data, want_offsets = ref.gather_stripped(buf, s, e)
            assert data.tobytes() == want_data and offsets.tolist() == want_offsets


def test_message_ids():
    buf = b"<abc@x> < def@y >"
    s, e = spans.strip_angle_brackets(
        np.frombuffer(buf, np.uint8), np.array([0, 8]), np.array([7, 17])
    )
    assert [buf[a:b] for a, b in zip(s, e, strict=True)] == [b"abc@x", b"def@y"]


def test_spans_outside_the_buffer_are_refused():
    buf = np.frombuffer(b"<abc@x>", np.uint8)
    for starts, ends in (([-1], [3]), ([0], [8]), ([8], [8])):
        with pytest.raises(ValueError, match="outside the buffer"):
            spans.gather(buf, np.array(starts), np.array(ends))
        with pytest.raises(ValueError, match="outside the buffer"):
            spans.strip_angle_brackets(buf, np.array(starts), np.array(ends))
        with pytest.raises(ValueError, match="outside the buffer"):
            spans.gather_stripped(buf, np.array(starts), np.array(ends))


def test_gather_every_length_and_offset_up_to_the_buffer_end():
    # 8 bytes a step, with the spans' last words and the buffer's end at every position
    buf = bytes(range(1, 41))
    arr = np.frombuffer(buf, np.uint8)
    starts = [a for a in range(41) for z in range(a, 41)]
    ends = [z for a in range(41) for z in range(a, 41)]
    for order in (slice(None), slice(None, None, -1)):
        s, e = starts[order], ends[order]
        data, offsets = spans.gather(arr, np.array(s), np.array(e))
        want_data, want_offsets = ref.gather(buf, s, e)
        assert data.tobytes() == want_data and offsets.tolist() == want_offsets


@st.composite
def text_columns(draw):
    """Up to four columns over buffers of their own; some texts hold the line feed that
    ends each text in the gathered buffer, some start at -1 (no text)."""
    columns = []
    for _ in range(draw(st.integers(0, 4))):
        buf = draw(st.binary(max_size=120) | st.sampled_from([b"a\nb", b"\n", b"abc def"]))
        n = draw(st.integers(0, 12))
        starts, ends = [], []
        for _ in range(n):
            starts.append(draw(st.integers(-1, len(buf))))
            ends.append(draw(st.integers(0, len(buf))))
        columns.append((buf, starts, ends))
    return columns


def _gather_texts(columns):
    return spans.gather_texts(
        [
            (np.frombuffer(b, np.uint8), np.array(s, np.int64), np.array(e, np.int64))
            for b, s, e in columns
        ]
    )


@settings(max_examples=300, deadline=None)
@given(text_columns())
def test_gather_texts_matches_reference(columns):
    assert _gather_texts(columns) == ref.gather_texts(columns)


def test_gather_texts_with_line_feeds_and_without_texts():
    # a text holding the separator takes the offsets' way; no texts at all, empty columns
    columns = [(b"x\ny", [0, -1, 2], [3, 2, 3]), (b"abc", [0], [2])]
    assert _gather_texts(columns) == [[b"x\ny", b"", b"y"], [b"ab"]]
    columns = [(b"a\n", [1], [2])]
    assert _gather_texts(columns) == [[b"\n"]]
    assert _gather_texts([(b"abc", [], []), (b"", [], [])]) == [[], []]
    assert _gather_texts([]) == []


def test_gather_texts_every_length_and_offset_up_to_the_buffer_end():
    # 8 bytes a step from every offset, the last words at the buffers' ends, two buffers
    one, two = bytes(range(65, 105)), bytes(range(97, 120))
    for buf in (one, two):
        n = len(buf)
        starts = [a for a in range(n + 1) for z in range(a, n + 1)]
        ends = [z for a in range(n + 1) for z in range(a, n + 1)]
        columns = [(buf, starts, ends), (one, starts[::-1][:40], ends[::-1][:40])]
        assert _gather_texts(columns) == ref.gather_texts(columns)


def test_gather_texts_refuses_spans_outside_the_buffer():
    buf = np.frombuffer(b"abc", np.uint8)
    for starts, ends in (([0], [4]), ([4], [4])):
        with pytest.raises(ValueError, match="outside the buffer"):
            spans.gather_texts([(buf, np.array(starts), np.array(ends))])
