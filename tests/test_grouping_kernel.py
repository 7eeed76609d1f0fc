"""kernels.grouping.file_runs against its reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels.grouping import FIRST_TABLE_BITS, file_runs
from tests.reference import grouping as ref

GAP = 3 * 3600


def _kernel_runs(key, date, number, article, nbytes):
    runs = file_runs(key, date, number, article, nbytes, GAP)
    out = []
    for r in range(len(runs)):
        a, b = runs.bounds[r], runs.bounds[r + 1]
        out.append(
            {
                "rows": runs.order[a:b].tolist(),
                "duplicate": runs.duplicate[a:b].tolist(),
                "first_date": int(runs.first_date[r]),
                "last_date": int(runs.last_date[r]),
                "first_article": int(runs.first_article[r]),
                "last_article": int(runs.last_article[r]),
                "parts": int(runs.parts[r]),
                "bytes": int(runs.bytes[r]),
            }
        )
    return out


segments = st.lists(
    st.tuples(
        st.integers(0, 4),  # key
        st.integers(0, 5).map(lambda k: k * 3000),  # date: gaps above and below 3 h
        st.integers(1, 6),  # part number (repeats are duplicates)
        st.integers(0, 10**6),  # bytes
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(segments)
def test_matches_reference(rows):
    key = np.array([r[0] * 0x9E3779B97F4A7C15 % 2**64 for r in rows], np.uint64)
    date = np.array([r[1] * (1 + r[0]) for r in rows], np.int64)
    number = np.array([r[2] for r in rows], np.int32)
    article = np.arange(100, 100 + len(rows), dtype=np.int64)[::-1].copy()
    nbytes = np.array([r[3] for r in rows], np.int64)
    got = _kernel_runs(key, date, number, article, nbytes)
    want = ref.file_runs(key, date, number, article, nbytes, GAP)
    assert got == want  # the same runs, in the order of their first article


def test_a_repost_hours_later_is_a_run_of_its_own():
    key = np.array([7, 7, 7, 7], np.uint64)
    date = np.array([0, 60, 5 * 3600, 5 * 3600 + 60], np.int64)
    number = np.array([1, 2, 1, 2], np.int32)
    runs = file_runs(key, date, number, np.arange(4), np.ones(4, np.int64), GAP)
    assert len(runs) == 2 and runs.parts.tolist() == [2, 2]


def test_empty():
    z = np.zeros(0, np.int64)
    assert len(file_runs(z.astype(np.uint64), z, z.astype(np.int32), z, z, GAP)) == 0


@pytest.mark.parametrize("shape", ["sorted", "late_parts", "reversed", "shuffled", "ties"])
def test_long_runs_in_every_order_match_reference(shape):
    # a few long runs: parts in order, a few late, reversed (past the insertion sort's
    # budget), shuffled, and rows tied on part number and article (the row breaks the tie)
    rng = np.random.default_rng(len(shape))
    n = 600
    key = (np.arange(n) % 3).astype(np.uint64)
    number = (np.arange(n) // 3 + 1).astype(np.int32)
    if shape == "late_parts":
        number[::50] += 7
    elif shape == "reversed":
        number = number[::-1].copy()
    elif shape == "shuffled":
        number = rng.permutation(number)
    elif shape == "ties":
        number = (number % 5).astype(np.int32)
    article = np.arange(1000, 1000 + n, dtype=np.int64)
    if shape == "ties":
        article = article // 4
    date = rng.integers(0, 3600, n).astype(np.int64)
    nbytes = rng.integers(0, 10**6, n).astype(np.int64)
    got = _kernel_runs(key, date, number, article, nbytes)
    assert got == ref.file_runs(key, date, number, article, nbytes, GAP)


@settings(max_examples=300, deadline=None)
@given(segments, st.integers(1, 3))
def test_rows_in_article_order_match_reference(rows, step):
    # a chunk's rows come in article order: the kernel groups them by hash, not by lexsort
    key = np.array([r[0] * 0x9E3779B97F4A7C15 % 2**64 for r in rows], np.uint64)
    date = np.array([r[1] * (1 + r[0]) for r in rows], np.int64)
    number = np.array([r[2] for r in rows], np.int32)
    article = np.arange(100, 100 + step * len(rows), step, dtype=np.int64)
    nbytes = np.array([r[3] for r in rows], np.int64)
    got = _kernel_runs(key, date, number, article, nbytes)
    assert got == ref.file_runs(key, date, number, article, nbytes, GAP)


def test_more_files_than_the_first_table_holds():
    # thousands of keys: past the first hash table's room, grouped again in a bigger one
    rng = np.random.default_rng(5)
    n = 30000
    files = 2 ** (FIRST_TABLE_BITS - 1) + 2000
    key = rng.integers(0, 2**64, n, dtype=np.uint64) % np.uint64(files)
    key = key * np.uint64(0x9E3779B97F4A7C15)
    date = rng.integers(0, 10 * 3600, n).astype(np.int64)
    number = rng.integers(1, 30, n).astype(np.int32)
    article = np.arange(n, dtype=np.int64) * 2 + 7
    nbytes = rng.integers(0, 10**6, n).astype(np.int64)
    got = _kernel_runs(key, date, number, article, nbytes)
    assert got == ref.file_runs(key, date, number, article, nbytes, GAP)


def test_runs_ranked_again_when_a_date_goes_back():
    # rows in article order; key 7's first article is dated hours after its second, so in
    # date order its runs start at articles 11 and 10: the runs are ranked by first article
    key = np.array([7, 7, 9, 7, 9], np.uint64)
    date = np.array([5 * 3600, 0, 60, 10, 5 * 3600 + 60], np.int64)
    number = np.array([1, 1, 1, 2, 2], np.int32)
    article = np.array([10, 11, 12, 13, 14], np.int64)
    nbytes = np.arange(5, dtype=np.int64)
    got = _kernel_runs(key, date, number, article, nbytes)
    assert got == ref.file_runs(key, date, number, article, nbytes, GAP)
    assert [r["rows"] for r in got] == [[0], [1, 3], [2], [4]]
