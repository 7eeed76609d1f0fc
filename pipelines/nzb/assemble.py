"""A release's `release_files` rows -> its NZB files: merged per file, column-wise.

A release's files are spread over the ranges it was seen in: each range wrote the
segments it saw. The NZB is the union of all those rows, merged per file (same name),
segments deduplicated by number and sorted. Finding the rows is `lookup.py` (a server's
downloads) or `export.py` (every release at once).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.nzb.writer import NzbFile, NzbFiles, string_buffers

# What `merge_file_rows` reads of `release_files` (and the key, to pick the rows).
MERGED_COLUMNS = ["release_key", "written_range", "name", "subject", "poster", "date", "groups",
                  "file_index", "seg_numbers", "seg_bytes", "seg_ids"]  # fmt: skip


def _numbers(column: pa.ChunkedArray | pa.Array, fill: int) -> np.ndarray:
    if column.null_count:
        column = pc.fill_null(column, fill)
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.int64)


def merge_file_rows(rows: pa.Table) -> list[NzbFile]:
    """`merge_release_rows` as one NzbFile per file (pages that list files)."""
    return merge_release_rows(rows).files()


def merge_release_rows(rows: pa.Table) -> NzbFiles:
    """The release's files from `release_files` rows of every version and range, merged
    per file name, column-wise (no Python object per segment).

    A file's header fields come from its earliest row (lowest `written_range`), its date
    is the earliest, its groups the union in that order; of a segment number seen twice
    the earliest row's copy is kept. Files come ordered by (file index, name), segments
    by number; they stay positions into the rows' own segment columns.
    """
    n = rows.num_rows
    if n == 0:
        return NzbFiles.of([])
    rows = rows.combine_chunks()
    # Each row's place in written_range order (stable: ties keep their table order).
    by_range = np.argsort(_numbers(rows.column("written_range"), 0), kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[by_range] = np.arange(n)
    # A hundred-odd rows: Python lists and a dict beat Arrow's kernels' fixed costs here.
    names = [name or "" for name in rows.column("name").to_pylist()]
    file_of: dict[str, int] = {}
    row_file = np.array([file_of.setdefault(name, len(file_of)) for name in names], np.int64)
    file_names = list(file_of)
    n_files = len(file_names)
    first_rank = np.full(n_files, n, dtype=np.int64)
    np.minimum.at(first_rank, row_file, rank)
    first_row = by_range[first_rank]
    dates = np.full(n_files, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(dates, row_file, _numbers(rows.column("date"), 0))
    index = _numbers(rows.column("file_index"), 1 << 30)[first_row].tolist()
    in_order = np.array(sorted(range(n_files), key=lambda f: (index[f], file_names[f])), np.int64)
    place = np.empty(n_files, dtype=np.int64)
    place[in_order] = np.arange(n_files)
    numbers, sizes, id_offsets, id_data, seg_row = _segment_columns(rows)
    # Segments sorted by (file's place, number, row rank); the first of a number is kept.
    seg_place = place[row_file[seg_row]]
    order = np.lexsort((rank[seg_row], numbers, seg_place))
    sorted_place, sorted_numbers = seg_place[order], numbers[order]
    keep = np.ones(len(order), dtype=bool)
    keep[1:] = (sorted_place[1:] != sorted_place[:-1]) | (sorted_numbers[1:] != sorted_numbers[:-1])
    source = order[keep]
    bounds = np.searchsorted(sorted_place[keep], np.arange(n_files + 1)).astype(np.int64)
    firsts = first_row[in_order].tolist()
    subjects = rows.column("subject").to_pylist()
    posters = rows.column("poster").to_pylist()
    return NzbFiles(
        subjects=[subjects[r] or names[r] for r in firsts],
        posters=[posters[r] or "" for r in firsts],
        dates=dates[in_order].tolist(),
        groups=_file_groups(rows, by_range, row_file, first_row, in_order, n > n_files),
        bounds=bounds,
        source=source,
        numbers=numbers,
        sizes=sizes,
        id_offsets=id_offsets,
        id_data=id_data,
    )


def _flat(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """A list column's lengths and its values in row order (the child's slice the rows
    cover: no Arrow kernel, whose fixed cost is most of the work at this size)."""
    lists = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    if lists.null_count:  # a null list may cover child values: let Arrow drop them
        counts = pc.list_value_length(lists).fill_null(0)
        return np.asarray(counts, dtype=np.int64), pc.list_flatten(lists)
    raw = np.frombuffer(lists.buffers()[1], np.int32)
    offsets = raw[lists.offset : lists.offset + len(lists) + 1]
    first, last = int(offsets[0]), int(offsets[-1])
    return np.diff(offsets).astype(np.int64), lists.values.slice(first, last - first)


def _segment_columns(
    rows: pa.Table,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows' segments flattened: numbers, bytes, message-id offsets and data (views of
    the Arrow buffers where possible), and each segment's row."""
    counts, numbers = _flat(rows.column("seg_numbers"))
    size_counts, sizes = _flat(rows.column("seg_bytes"))
    id_counts, ids = _flat(rows.column("seg_ids"))
    if not (np.array_equal(counts, size_counts) and np.array_equal(counts, id_counts)):
        raise ValueError("a release_files row has unequal segment numbers, bytes and message-ids")
    id_offsets, id_data = string_buffers(ids)
    seg_row = np.repeat(np.arange(rows.num_rows), counts)
    return _numbers(numbers, 0), _numbers(sizes, 0), id_offsets, id_data, seg_row


def _file_groups(
    rows: pa.Table,
    by_range: np.ndarray,
    row_file: np.ndarray,
    first_row: np.ndarray,
    in_order: np.ndarray,
    several: bool,
) -> list[tuple[str, ...]]:
    """Each file's groups: the union over its rows in written_range order."""
    groups = rows.column("groups").to_pylist()
    if not several:  # one row a file
        return [tuple(dict.fromkeys(groups[r] or ())) for r in first_row[in_order].tolist()]
    rows_of: list[list[int]] = [[] for _ in range(len(first_row))]
    file_list = row_file.tolist()
    for r in by_range.tolist():
        rows_of[file_list[r]].append(r)
    return [
        tuple(dict.fromkeys(g for r in rows_of[f] for g in (groups[r] or ())))
        for f in in_order.tolist()
    ]


def head_meta(name: str, category: str | None, password: str | None) -> Sequence[tuple[str, str]]:
    """The NZB head: title always; category when known; `password` only when the
    article pass knows the archive's password itself (`release_probes.password_text`).
    Never "yes" or "no" for a passworded flag: SABnzbd and NZBGet take the meta's value
    as the password to try."""
    meta = [("title", name)]
    if category:
        meta.append(("category", category))
    if password:
        meta.append(("password", password))
    return meta
