"""kernels.file_segments against its reference: generated stores and row groups, files
whose parts come in order, out of order and repeated, and the checks before the kernel."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.file_segments import file_segments
from tests.reference import file_segments as ref


@st.composite
def row_groups(draw: st.DrawFn) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    """A store (part numbers, sizes) and a row group's files as spans of it."""
    size = draw(st.integers(0, 60))
    # few distinct numbers, so files repeat and reorder them; sizes past int32 too
    numbers = draw(st.lists(st.integers(0, 12), min_size=size, max_size=size))
    sizes = draw(
        st.lists(
            st.integers(0, 5000) | st.sampled_from([(1 << 31) - 1, 1 << 31, (1 << 33) + 7]),
            min_size=size,
            max_size=size,
        )
    )
    starts, lengths, files = [], [], []
    for _ in range(draw(st.integers(0, 6)) if size else 0):
        spans = draw(st.integers(0, 3))
        total = 0
        for _ in range(spans):
            start = draw(st.integers(0, size - 1))
            length = draw(st.integers(0, size - start))
            starts.append(start)
            lengths.append(length)
            total += length
        files.append(total)
    return numbers, sizes, starts, lengths, files


def _check(numbers, sizes, starts, lengths, files) -> None:
    got = file_segments(
        np.array(numbers, np.int32),
        np.array(sizes, np.int64),
        np.array(starts, np.int64),
        np.array(lengths, np.int64),
        np.array(files, np.int64),
    )
    want = ref.file_segments(numbers, sizes, starts, lengths, files)
    assert [a.tolist() for a in got] == [list(w) for w in want]
    assert [a.dtype for a in got] == [np.int64, np.int32, np.int32, np.int64]


@settings(max_examples=400, deadline=None)
@given(row_groups())
def test_matches_reference(group):
    _check(*group)


def test_adversarial_files():
    numbers = [5, 4, 3, 2, 1, 1, 2, 2, 9, 0]
    sizes = [10, 20, 30, 40, 50, 60, 70, 80, 1 << 40, 1]
    # reversed parts; a repeated number keeps its reading order; spans out of store
    # order; an empty file between two; one span read by two files
    _check(numbers, sizes, [0], [5], [5])
    _check(numbers, sizes, [5, 0], [3, 3], [6])
    _check(numbers, sizes, [6, 2, 8], [2, 2, 2], [2, 0, 4])
    _check(numbers, sizes, [0, 0], [10, 10], [10, 10])
    _check(numbers, sizes, [], [], [])
    _check(numbers, sizes, [], [], [0, 0])
    # a long file in reverse, and one already in order
    n = 5000
    _check(list(range(n, 0, -1)), [7] * n, [0], [n], [n])
    _check(list(range(n)), [7] * n, [0, 0], [n, n], [n, n])


def test_bad_spans_are_refused():
    numbers = np.arange(4, dtype=np.int32)
    sizes = np.ones(4, np.int64)
    one = np.array([1], np.int64)
    with pytest.raises(ValueError, match="one size"):
        file_segments(numbers, sizes[:3], one, one, one)
    with pytest.raises(ValueError, match="one length"):
        file_segments(numbers, sizes, np.array([0, 1]), one, one)
    with pytest.raises(ValueError, match="outside"):
        file_segments(numbers, sizes, np.array([3]), np.array([2]), np.array([2]))
    with pytest.raises(ValueError, match="outside"):
        file_segments(numbers, sizes, np.array([-1]), one, one)
    with pytest.raises(ValueError, match="outside"):
        file_segments(numbers, sizes, one, np.array([-1]), np.array([-1]))
    with pytest.raises(ValueError, match="negative"):
        file_segments(numbers, sizes, one, one, np.array([2, -1]))
    with pytest.raises(ValueError, match="add up"):
        file_segments(numbers, sizes, one, one, np.array([2]))
