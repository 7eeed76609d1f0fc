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

# The first hash table of a chunk's file keys: 2**14 slots (256 kB, in L2), at most half
# full. A chunk holds up to ~2,000 files; 2**12 slots held them too, but at up to half
# full its probe chains made grouping the keys ~20 % dearer (38 against 30 ms over the
# 2 M-line corpus, interleaved in one process).
FIRST_TABLE_BITS = 14


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
def _run_starts(key, date, order, gap):
    """Where each run starts in `order` (rows by key, date, article), and the end."""
    n = order.shape[0]
    starts = np.empty(n + 1, np.int64)
    r = 0
    for i in range(n):
        j = order[i]
        if i == 0 or key[j] != key[order[i - 1]] or date[j] - date[order[i - 1]] > gap:
            starts[r] = i
            r += 1
    starts[r] = n
    return starts[: r + 1]


@kernel
def _first_articles(order, starts, article):
    n_runs = starts.shape[0] - 1
    first = np.empty(n_runs, np.int64)
    for r in range(n_runs):
        m = article[order[starts[r]]]
        for i in range(starts[r] + 1, starts[r + 1]):
            m = min(m, article[order[i]])
        first[r] = m
    return first


@kernel
def _before(a, b, first, second):
    # rows a, b by first[], then second[], then row: (part, article) for a run's final
    # order, (date, article) for the order runs are cut in
    if first[a] != first[b]:
        return first[a] < first[b]
    if second[a] != second[b]:
        return second[a] < second[b]
    return a < b


@kernel
def _sort_rows(rows, lo, hi, number, article, tmp):
    """Sort rows[lo:hi] in place by (number[], article[], row): what is sorted here mostly
    comes nearly in order (a run's parts, a poster's dates), so an insertion sort costs
    about a pass; rows far out of order are merge-sorted."""
    # insertion sort while the moves stay few (a run out of order by a few late parts)
    budget = 8 * (hi - lo) + 64
    done = True
    for i in range(lo + 1, hi):
        x = rows[i]
        j = i
        while j > lo and _before(x, rows[j - 1], number, article):
            rows[j] = rows[j - 1]
            j -= 1
        rows[j] = x
        budget -= i - j
        if budget < 0:
            done = False
            break
    if done:
        return
    width = 1
    src = rows
    dst = tmp
    in_tmp = False
    while width < hi - lo:
        for a in range(lo, hi, 2 * width):
            m = min(a + width, hi)
            z = min(a + 2 * width, hi)
            i, j, k = a, m, a
            while i < m and j < z:
                if _before(src[j], src[i], number, article):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < m:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < z:
                dst[k] = src[j]
                j += 1
                k += 1
        src, dst = dst, src
        in_tmp = not in_tmp
        width *= 2
    if in_tmp:
        rows[lo:hi] = tmp[lo:hi]


@kernel
def _place_by_label(label, starts):
    """The rows 0..n-1 laid out label after label, in rising row order within each: row i
    at the next free place from starts[label[i]] on (a counting sort's scatter)."""
    fill = starts.copy()
    out = np.empty(label.shape[0], np.int64)
    for i in range(label.shape[0]):
        g = label[i]
        out[fill[g]] = i
        fill[g] += 1
    return out


@kernel
def _order_runs(by_date, starts, rank_order, number, article):
    """Rows run after run (in the order given), each by part number; and each row's run.

    A run's rows are laid out in input (article) order, in which a file's parts mostly
    come already in order, so sorting them costs about a pass; in date order (how the
    runs were found) the parts of one second come shuffled.
    """
    n = by_date.shape[0]
    n_runs = starts.shape[0] - 1
    run_of = np.empty(n, np.int64)
    bounds = np.zeros(n_runs + 1, np.int64)
    for r in range(n_runs):
        run = rank_order[r]
        for i in range(starts[run], starts[run + 1]):
            run_of[by_date[i]] = r
        bounds[r + 1] = bounds[r] + starts[run + 1] - starts[run]
    order = _place_by_label(run_of, bounds[:-1])
    tmp = np.empty(n, np.int64)
    for r in range(n_runs):
        _sort_rows(order, bounds[r], bounds[r + 1], number, article, tmp)
    return order, run_of


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


@kernel
def _runs_of_rising_articles(key, date, number, article, nbytes, gap, bits):
    """file_runs of rows whose articles rise row by row, in one pass of each kind.

    The rows of a key are gathered in row order, which is already their (date, article)
    order unless a date goes back (a few keys a chunk): only those are sorted, and a key
    without a gap of more than `gap` is one run whose first row has its first article.
    The runs then mostly come ranked already; the rows of each are sorted by part number
    where they lie and their aggregates taken in the same pass. Returns ok=False (and
    nothing else of use) when more than half of 2**bits keys turn up.
    """
    n = key.shape[0]
    size = 1 << bits
    mask = size - 1
    shift = np.uint64(64 - bits)
    table_key = np.empty(size, np.uint64)
    table_group = np.full(size, -1, np.int64)
    group = np.empty(n, np.int64)
    n_groups = 0
    for i in range(n):
        k = key[i]
        slot = np.int64(k >> shift)  # the keys are hashes: their top bits spread well
        while table_group[slot] >= 0 and table_key[slot] != k:
            slot = (slot + 1) & mask
        if table_group[slot] < 0:
            if 2 * (n_groups + 1) > size:
                z = np.zeros(0, np.int64)
                return False, z, z, np.zeros(0, np.bool_), z, z, z, z, np.zeros(0, np.int32), z
            table_key[slot] = k
            table_group[slot] = n_groups
            n_groups += 1
        group[i] = table_group[slot]
    # each key's rows, in row order, between bound[g] and bound[g + 1]
    bound = np.zeros(n_groups + 1, np.int64)
    for i in range(n):
        bound[group[i] + 1] += 1
    for g in range(n_groups):
        bound[g + 1] += bound[g]
    rows = _place_by_label(group, bound[:-1])
    # runs: cut where a key's date jumps by more than the gap; first article of each
    tmp = np.empty(n, np.int64)
    starts = np.empty(n + 1, np.int64)
    first = np.empty(n, np.int64)
    n_runs = 0
    ranked = True
    for g in range(n_groups):
        lo = bound[g]
        hi = bound[g + 1]
        in_order = True
        for i in range(lo + 1, hi):
            if date[rows[i]] < date[rows[i - 1]]:
                in_order = False
                break
        if not in_order:
            _sort_rows(rows, lo, hi, date, article, tmp)
        for i in range(lo, hi):
            j = rows[i]
            if i == lo or date[j] - date[rows[i - 1]] > gap:
                starts[n_runs] = i
                first[n_runs] = article[j]
                if n_runs > 0 and first[n_runs - 1] >= article[j]:
                    ranked = False
                n_runs += 1
            elif not in_order:
                # in date order a run's first row need not hold its first article
                first[n_runs - 1] = min(first[n_runs - 1], article[j])
                ranked = False
    starts[n_runs] = n
    # runs numbered by their first article (no two share one), their rows laid out so
    order = rows
    if not ranked:
        rank_order = np.argsort(first[:n_runs], kind="mergesort")
        order = np.empty(n, np.int64)
        o = 0
        for r in range(n_runs):
            run = rank_order[r]
            for i in range(starts[run], starts[run + 1]):
                order[o] = rows[i]
                o += 1
        bounds = np.zeros(n_runs + 1, np.int64)
        for r in range(n_runs):
            run = rank_order[r]
            bounds[r + 1] = bounds[r] + starts[run + 1] - starts[run]
    else:
        bounds = starts[: n_runs + 1].copy()
    duplicate = np.zeros(n, np.bool_)
    first_date = np.empty(n_runs, np.int64)
    last_date = np.empty(n_runs, np.int64)
    first_article = np.empty(n_runs, np.int64)
    last_article = np.empty(n_runs, np.int64)
    parts = np.zeros(n_runs, np.int32)
    total = np.zeros(n_runs, np.int64)
    for r in range(n_runs):
        lo = bounds[r]
        hi = bounds[r + 1]
        _sort_rows(order, lo, hi, number, article, tmp)
        j = order[lo]
        d_lo = d_hi = date[j]
        a_lo = a_hi = article[j]
        count = 1
        size_sum = nbytes[j]
        for i in range(lo + 1, hi):
            j = order[i]
            if number[j] == number[order[i - 1]]:
                duplicate[i] = True
                continue
            count += 1
            size_sum += nbytes[j]
            d_lo = min(d_lo, date[j])
            d_hi = max(d_hi, date[j])
            a_lo = min(a_lo, article[j])
            a_hi = max(a_hi, article[j])
        first_date[r] = d_lo
        last_date[r] = d_hi
        first_article[r] = a_lo
        last_article[r] = a_hi
        parts[r] = count
        total[r] = size_sum
    return (
        True,
        order,
        bounds,
        duplicate,
        first_date,
        last_date,
        first_article,
        last_article,
        parts,
        total,
    )


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
    number = np.ascontiguousarray(number, np.int64)
    article = np.ascontiguousarray(article, np.int64)
    nbytes = np.ascontiguousarray(nbytes, np.int64)
    # a chunk's lines come in article order: its keys are grouped by a hash table, in
    # which the runs mostly come ranked and sorted by date already
    if n > 1 and bool(np.all(article[1:] > article[:-1])):
        for bits in (FIRST_TABLE_BITS, max(FIRST_TABLE_BITS, (2 * n).bit_length())):
            ok, *runs = _runs_of_rising_articles(
                key, date, number, article, nbytes, np.int64(gap), bits
            )
            if ok:
                return FileRuns(*runs)
    return _sorted_file_runs(key, date, number, article, nbytes, gap)


def _sorted_file_runs(
    key: np.ndarray,
    date: np.ndarray,
    number: np.ndarray,
    article: np.ndarray,
    nbytes: np.ndarray,
    gap: int,
) -> FileRuns:
    """file_runs of rows in any order: a lexsort by (key, date, article) cuts the runs
    (runs of an equal first article are ranked by key)."""
    by_date = np.lexsort((article, date, key))
    starts = _run_starts(key, date, by_date, np.int64(gap))
    # runs numbered by their first article, so the window meets files in posting order;
    # within a run, part number order (article order breaks ties, so the first copy wins)
    first = _first_articles(by_date, starts, article)
    rank_order = np.argsort(first, kind="stable")
    order, run_of = _order_runs(by_date, starts, rank_order, number, article)
    parts = _aggregate(order, run_of, number, date, article, nbytes, len(first))
    return FileRuns(order, *parts)
