"""File grouping within one chunk: segments into file runs.

A *file run* is the segments of one file key in one chunk, posted within the upload gap
of each other (a repost of the same subject later starts a run of its own). Runs come
out in the order of their first article, each sorted by part number, duplicates of a
part number marked, and with the aggregates the window needs, so the window touches
each run once instead of each segment.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels._jit import kernel


@dataclass(frozen=True)
class FileRuns:
    order: np.ndarray  # int64: row order, runs contiguous, part numbers ascending
    bounds: np.ndarray  # int64 (runs + 1): run r is order[bounds[r]:bounds[r + 1]]
    duplicate: np.ndarray  # bool, in sorted order: a part number already seen in the run
    first_date: np.ndarray  # int64 per run
    last_date: np.ndarray
    first_article: np.ndarray
    last_article: np.ndarray
    parts: np.ndarray  # int32: distinct part numbers in the run
    bytes: np.ndarray  # int64: bytes of the distinct parts

    def __len__(self) -> int:
        return len(self.bounds) - 1


@kernel
def _split(key, date, order, gap):
    n = order.shape[0]
    run_of = np.empty(n, np.int64)
    r = -1
    for i in range(n):
        j = order[i]
        if i == 0 or key[j] != key[order[i - 1]] or date[j] - date[order[i - 1]] > gap:
            r += 1
        run_of[j] = r
    return run_of


@kernel
def _aggregate(order, run_of, number, date, article, nbytes, n_runs):
    n = order.shape[0]
    bounds = np.zeros(n_runs + 1, np.int64)
    duplicate = np.zeros(n, np.bool_)
    first_date = np.full(n_runs, np.iinfo(np.int64).max, np.int64)
    last_date = np.full(n_runs, np.iinfo(np.int64).min, np.int64)
    first_article = np.full(n_runs, np.iinfo(np.int64).max, np.int64)
    last_article = np.full(n_runs, np.iinfo(np.int64).min, np.int64)
    parts = np.zeros(n_runs, np.int32)
    total = np.zeros(n_runs, np.int64)
    for i in range(n):
        j = order[i]
        r = run_of[j]
        bounds[r + 1] = i + 1
        if i > 0 and run_of[order[i - 1]] == r and number[order[i - 1]] == number[j]:
            duplicate[i] = True
            continue
        parts[r] += 1
        total[r] += nbytes[j]
        first_date[r] = min(first_date[r], date[j])
        last_date[r] = max(last_date[r], date[j])
        first_article[r] = min(first_article[r], article[j])
        last_article[r] = max(last_article[r], article[j])
    return bounds, duplicate, first_date, last_date, first_article, last_article, parts, total


def file_runs(
    key: np.ndarray,
    date: np.ndarray,
    number: np.ndarray,
    article: np.ndarray,
    nbytes: np.ndarray,
    gap: int,
) -> FileRuns:
    """Group one chunk's kept segments into file runs (see the module docstring)."""
    n = len(key)
    if n == 0:
        z = np.zeros(0, np.int64)
        return FileRuns(
            z, np.zeros(1, np.int64), np.zeros(0, np.bool_), z, z, z, z, np.zeros(0, np.int32), z
        )
    key = np.ascontiguousarray(key, np.uint64)
    date = np.ascontiguousarray(date, np.int64)
    by_date = np.lexsort((article, date, key))
    run_of = _split(key, date, by_date, np.int64(gap))
    n_runs = int(run_of.max()) + 1
    # runs numbered by their first article, so the window meets files in posting order
    first = np.full(n_runs, np.iinfo(np.int64).max, np.int64)
    np.minimum.at(first, run_of, article)
    rank = np.empty(n_runs, np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(n_runs)
    run_of = rank[run_of]
    # within a run, part number order (article order breaks ties, so the first copy wins)
    order = np.lexsort((article, number, run_of))
    parts = _aggregate(
        order,
        run_of,
        np.ascontiguousarray(number, np.int32),
        date,
        np.ascontiguousarray(article, np.int64),
        np.ascontiguousarray(nbytes, np.int64),
        n_runs,
    )
    return FileRuns(order, *parts)
