"""The per-line fields of the header pass read in one pass over a chunk's lines.

Date, `:bytes`, the Xref's owner and the From hash lie within ~250 bytes of each other
in a line, while a chunk is far larger than the caches: one kernel a field walked the
chunk four times and waited on the same lines four times. Here each line's fields are
read one after the other, through the same per-field functions as the single-field
kernels (kernels.fields, kernels.hashing), so each result is theirs exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels import scan as sc
from kernels._jit import leaf_kernel
from kernels.bytes import (
    AHEAD,
    as_buffer,
    check_spans,
    prefetch,
    same_as_before,
    same_bytes,
)
from kernels.fields import (
    DATE_CACHE,
    _date_of,
    _groups_part,
    _log2,
    _uint,
    _xref_of,
    clear_date_cache,
    group_table,
    xref_room,
)
from kernels.hashing import _hash_span


@dataclass(frozen=True)
class LineFields:
    """One value a line: what kernels.fields and kernels.hashing give for its fields."""

    date: np.ndarray  # int64 epoch seconds (parse_dates), 0 where not ok
    date_ok: np.ndarray  # bool
    owner: np.ndarray  # int32: xref_owner's owner, -1 where no indexed group is named
    nbytes: np.ndarray  # int64: parse_uint of `:bytes`, -1 where not a number
    poster: np.ndarray  # uint64: hash_spans of From


@leaf_kernel
def _line_fields(
    buf, from_s, from_e, date_s, date_e, bytes_s, bytes_e, xref_s, xref_e,
    table_hash, table_priority, seen, cache, poster, epoch, ok, nbytes, owner,
):  # fmt: skip
    n = date_s.shape[0]
    shift = np.uint64(64 - _log2(table_hash.shape[0]))
    clear_date_cache(cache)
    victim = 0
    prev_start = 0  # of the last Xref parsed, and its length up to the last `:`
    prev_len = -1
    for i in range(n):
        if i + AHEAD < n:  # the line's From to Xref: ~4 cache lines
            prefetch(buf, from_s[i + AHEAD])
            prefetch(buf, date_e[i + AHEAD])
            prefetch(buf, bytes_s[i + AHEAD])
            prefetch(buf, xref_e[i + AHEAD] - 1)
        # From (hashing._hash_spans)
        if same_as_before(buf, from_s, from_e, i):
            poster[i] = poster[i - 1]
        else:
            poster[i] = _hash_span(buf, from_s[i], from_e[i], np.uint64(0))
        # Date (fields._parse_dates)
        if same_as_before(buf, date_s, date_e, i):
            epoch[i] = epoch[i - 1]
            ok[i] = ok[i - 1]
        else:
            epoch[i], ok[i], victim = _date_of(buf, date_s[i], date_e[i], cache, victim)
        # :bytes (fields._parse_uints)
        nbytes[i] = _uint(buf, bytes_s[i], bytes_e[i])
        # Xref (fields._xref_owner)
        s = xref_s[i]
        e = xref_e[i]
        this_len = _groups_part(buf, s, e)
        if this_len >= 0 and this_len == prev_len and same_bytes(buf, prev_start, s, this_len):
            owner[i] = owner[i - 1]
            continue
        prev_start = s
        prev_len = this_len
        owner[i], _n_groups, _group_set = _xref_of(
            buf, s, e, table_hash, table_priority, shift, seen
        )


def line_fields(
    buf: np.ndarray | bytes,
    field_start: np.ndarray,
    field_end: np.ndarray,
    group_hashes: np.ndarray,
) -> LineFields:
    """From hash, Date, `:bytes` and Xref owner of every line of a chunk, from its line
    index's field bounds (kernels.scan.LineIndex; group_hashes as for xref_owner)."""
    arr = as_buffer(buf)
    if field_start.ndim != 2 or field_start.shape != field_end.shape:
        raise ValueError(f"field bounds of two shapes: {field_start.shape}, {field_end.shape}")
    spans = [
        check_spans(arr, field_start[:, k], field_end[:, k])
        for k in (sc.F_FROM, sc.F_DATE, sc.F_BYTES, sc.F_XREF)
    ]
    table_hash, table_priority = group_table(group_hashes)
    n = len(field_start)
    out = LineFields(
        date=np.zeros(n, np.int64),
        date_ok=np.zeros(n, np.bool_),
        owner=np.full(n, -1, np.int32),
        nbytes=np.empty(n, np.int64),
        poster=np.empty(n, np.uint64),
    )
    _line_fields(
        arr,
        *spans[0],
        *spans[1],
        *spans[2],
        *spans[3],
        table_hash,
        table_priority,
        xref_room(*spans[3]),
        np.zeros((DATE_CACHE, 5), np.int64),
        out.poster,
        out.date,
        out.date_ok,
        out.nbytes,
        out.owner,
    )
    return out
