"""Which version of a release is current: the catalog's one rule, for every reader.

A release is written once per range that saw it (docs/CATALOG.md): provisional while
open, then finished under the same `release_key`. Per key the *newest* version is the
current one: a finished version before any provisional one, then the highest
`written_range`. A missing `finished` counts as provisional and a missing
`written_range` as 0. When the newest version is a finished *tombstone* (`merged_into`
set: the release went into an album, or a merge joined it to another), the key is hidden;
it still outranks the older versions, so they stay hidden too. A merge's version of the
release it joined others into is finished, its `written_range` above every version it
replaces (docs/MERGES.md).

The rule comes in two forms that give the same answer: SQL for DuckDB (the catalog's
views, the NZB export) and a numpy rank for the search index, whose segments each hold
their newest versions and compare ranks across segments.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

MERGED = "merged_into"  # a tombstone's target; its newest version hides the release

# The window order that puts each key's newest version first (`version_rank`'s order).
NEWEST_FIRST = "coalesce(finished, false) DESC, coalesce(written_range, 0) DESC"


def newest_sql(source: str, hide_merged: bool = True) -> str:
    """A query of the newest version of each key in `source` (a relation's SQL, with
    `release_key`, `finished` and `written_range`); `hide_merged`: keys whose newest
    version is a tombstone left out (the relation must have `merged_into`)."""
    newest = (
        f"SELECT * FROM {source} QUALIFY row_number() OVER "
        f"(PARTITION BY release_key ORDER BY {NEWEST_FIRST}) = 1"
    )
    return f"SELECT * FROM ({newest}) WHERE {MERGED} IS NULL" if hide_merged else newest


def version_rank(finished: np.ndarray, written_range: np.ndarray) -> np.ndarray:
    """The newest version has the highest rank: finished first, then the latest range
    (nulls filled as the rule says: not finished, range 0)."""
    return (finished.astype(np.int64) << 62) | written_range.astype(np.int64)


def rank_of(rows: pa.Table) -> np.ndarray:
    """`version_rank` of each row of a table with `finished` and `written_range`."""
    finished = pc.fill_null(rows.column("finished"), False).to_numpy(zero_copy_only=False)
    written = pc.fill_null(rows.column("written_range"), 0).to_numpy(zero_copy_only=False)
    return version_rank(finished, written)


def key_array(col: pa.Array | pa.ChunkedArray, copy: bool = True) -> np.ndarray:
    """A fixed_size_binary(20) column as a numpy 'S20' array (one copy at most; `copy`
    False: a view of the column's buffer, which the caller keeps alive)."""
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    buf = arr.buffers()[1]
    assert buf is not None
    start = arr.offset * 20
    view = np.frombuffer(buf, dtype="S20", count=len(arr), offset=start)
    return view.copy() if copy else view


def newest_rows(rows: pa.Table, keys: np.ndarray | None = None) -> np.ndarray:
    """The row of each key's newest version (of equal ranks, the first), in key order;
    tombstones included (`hidden` says which). `keys`: the rows' `key_array`, if made."""
    if rows.num_rows == 0:
        return np.zeros(0, dtype=np.int64)
    if keys is None:
        keys = key_array(rows.column("release_key"))
    order = np.lexsort((-rank_of(rows), keys))
    sorted_keys = keys[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = sorted_keys[1:] != sorted_keys[:-1]
    return order[first]


def hidden(rows: pa.Table) -> np.ndarray:
    """Per row, whether it is a tombstone (hides its key when it is the newest version)."""
    if MERGED not in rows.column_names:
        return np.zeros(rows.num_rows, dtype=bool)
    return rows.column(MERGED).is_valid().to_numpy(zero_copy_only=False)
