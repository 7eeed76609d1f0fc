"""release_files rows' segment spans: rows to spans of consecutive rows and back."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.file_segments import file_segments
from pipelines.index.file_rows import spans_of


def _places(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The places of spans laid end to end, as the row groups read them (one file)."""
    numbers = np.zeros(int((starts + lengths).max(initial=0)), np.int32)
    sizes = np.zeros(len(numbers), np.int64)
    return file_segments(numbers, sizes, starts, lengths, np.array([lengths.sum()]))[0]


# no deadline: the first example loads file_segments' compiled kernel (~0.3 s)
@settings(deadline=None)
@given(st.sets(st.integers(0, 200), min_size=1))
def test_spans_lay_out_the_rows_again(rows_set):
    rows = np.array(sorted(rows_set), np.int64)
    starts, lengths = spans_of(rows)
    assert (lengths > 0).all()
    # maximal: a gap between each span and the next
    assert (starts[1:] > starts[:-1] + lengths[:-1]).all()
    assert _places(starts, lengths).tolist() == rows.tolist()


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 5)), max_size=20))
def test_places_of_spans_in_order(spans):
    starts = np.array([s for s, _ in spans], np.int64)
    lengths = np.array([n for _, n in spans], np.int64)
    want = [s + k for s, n in spans for k in range(n)]
    assert _places(starts, lengths).tolist() == want
