"""Each release key's newest row by a time column: the one rule of the tables written
once per run and read newest first (`release_probes`, `release_health`,
`release_verdicts`), for every reader of them."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.versions import key_array


def keys_of(t: pa.Table, column: str = "release_key") -> np.ndarray:
    """A key column as a numpy 'S20' array (a file written with plain binary keys too)."""
    col = t[column]
    if pa.types.is_fixed_size_binary(col.type):
        return key_array(col)
    return np.array(col.to_pylist(), dtype="S20")


def newest_by(t: pa.Table, when: str) -> pa.Table:
    """Per release key the row with the highest `when` (nulls lowest; of equal ones, the
    one stored last), in key order."""
    if t.num_rows == 0:
        return t
    keys = keys_of(t)
    at = pc.fill_null(t[when], -(1 << 62)).to_numpy(zero_copy_only=False).astype(np.int64)
    order = np.lexsort((-np.arange(t.num_rows), -at, keys))
    first = np.ones(len(order), dtype=bool)
    first[1:] = keys[order][1:] != keys[order][:-1]
    return t.take(pa.array(order[first]))
