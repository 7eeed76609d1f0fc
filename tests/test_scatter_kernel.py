"""kernels.scatter.scatter_spans against its reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.reference import scatter as ref
from kernels.scatter import scatter_spans


@st.composite
def cases(draw):
    src = draw(st.binary(min_size=0, max_size=200))
    spans = draw(
        st.lists(
            st.tuples(st.integers(0, len(src)), st.integers(0, len(src))).map(sorted), max_size=20
        )
    )
    size = draw(st.integers(0, 300))
    places = [draw(st.integers(0, max(size - (z - a), 0))) for a, z in spans if z - a <= size]
    spans = [s for s in spans if s[1] - s[0] <= size]
    return src, spans, size, places


@settings(max_examples=300, deadline=None)
@given(cases())
def test_matches_reference(case):
    src, spans, size, places = case
    start = np.array([a for a, _ in spans], np.int64)
    end = np.array([z for _, z in spans], np.int64)
    got = np.full(size, 7, np.uint8)
    scatter_spans(np.frombuffer(src, np.uint8), start, end, got, np.array(places, np.int64))
    want = bytearray(b"\x07" * size)
    ref.scatter_spans(src, start.tolist(), end.tolist(), want, places)
    assert got.tobytes() == bytes(want)


def test_spans_outside_either_buffer_are_refused():
    src = np.frombuffer(b"abcdef", np.uint8)
    dst = np.zeros(4, np.uint8)
    one = np.array([0], np.int64)
    with pytest.raises(ValueError, match="source"):
        scatter_spans(src, one, np.array([7]), dst, one)
    with pytest.raises(ValueError, match="destination"):
        scatter_spans(src, one, np.array([5]), dst, one)
    with pytest.raises(ValueError, match="source"):
        scatter_spans(src, np.array([3]), np.array([2]), dst, one)
    scatter_spans(src, np.array([1]), np.array([5]), dst, one)
    assert dst.tobytes() == b"bcde"
