"""A chunk's segments as rows: the lines in play, then the kept ones in file-run order.

The header pass reads a dozen values for each line it keeps, from three places: per line
of the chunk (poster hash, size, date, article number, message-id bounds), per line in
play of the subjects (part counter) and per subject class (keys, file counter, extension
class). Taken one numpy fancy index a column, that was ~25 passes over ~50 k rows a chunk,
each with its temporary; here it is two loops, one for the rows whose file runs are cut
(`in_play`) and one for the rows the window takes, in run order (`kept`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.hashing import _mix2, leaf_kernel


@dataclass(frozen=True)
class InPlay:
    """One row a line in play, in chunk order (the input of kernels.grouping.file_runs)."""

    line: np.ndarray  # int64 line of the chunk
    cls: np.ndarray  # int64 row of the subject table
    poster: np.ndarray  # uint64 From hash
    file_key: np.ndarray  # uint64: poster mixed with the class's file key
    ident: np.ndarray  # uint64: poster mixed with the class's release identity
    nbytes: np.ndarray  # int64 `:bytes`, 0 where not a number
    date: np.ndarray  # int64 effective date
    part: np.ndarray  # int64 part number
    part_total: np.ndarray  # int64
    article: np.ndarray  # int64 article number


@dataclass(frozen=True)
class Kept:
    """One row a kept segment, in file-run order (SegmentBatch's per-segment columns)."""

    line: np.ndarray  # int64 line of the chunk
    cls: np.ndarray  # int64 row of the subject table
    file_key: np.ndarray  # uint64
    ident: np.ndarray  # uint64
    poster: np.ndarray  # uint64
    source: np.ndarray  # uint8
    number: np.ndarray  # int32 part number
    part_total: np.ndarray  # int32
    file_index: np.ndarray  # int32
    file_total: np.ndarray  # int32
    ext_class: np.ndarray  # uint8
    volume: np.ndarray  # int32
    random_name: np.ndarray  # bool
    nbytes: np.ndarray  # int64
    article: np.ndarray  # int64
    date: np.ndarray  # int64
    mid_start: np.ndarray  # int64 bounds of the message-id field in the chunk
    mid_end: np.ndarray  # int64


@leaf_kernel
def _outside(i, n):
    return i < 0 or i >= n


@leaf_kernel
def _in_play(
    pos, live_line, live_cls, live_part, live_part_total,
    line_poster, line_nbytes, line_date, line_number, cls_file_key, cls_ident,
    line, cls, poster, file_key, ident, nbytes, date, part, part_total, article,
):  # fmt: skip
    n_live = live_line.shape[0]
    n_lines = line_poster.shape[0]
    n_cls = cls_file_key.shape[0]
    for j in range(pos.shape[0]):
        p = pos[j]
        if _outside(p, n_live):
            return j
        li = live_line[p]
        c = live_cls[p]
        if _outside(li, n_lines) or _outside(c, n_cls):
            return j
        line[j] = li
        cls[j] = c
        h = line_poster[li]
        poster[j] = h
        file_key[j] = _mix2(h, cls_file_key[c])
        ident[j] = _mix2(h, cls_ident[c])
        b = line_nbytes[li]
        nbytes[j] = b if b > 0 else 0
        date[j] = line_date[li]
        part[j] = live_part[p]
        part_total[j] = live_part_total[p]
        article[j] = line_number[li]
    return -1


@leaf_kernel
def _kept(
    keep, p_line, p_cls, p_file_key, p_ident, p_poster, p_nbytes, p_date, p_part,
    p_part_total, p_article, cls_source, cls_file_index, cls_file_total, cls_ext_class,
    cls_volume, cls_random_name, mid_start_of_line, mid_end_of_line,
    line, cls, file_key, ident, poster, source, number, part_total, file_index, file_total,
    ext_class, volume, random_name, nbytes, article, date, mid_start, mid_end,
):  # fmt: skip
    n_play = p_line.shape[0]
    n_cls = cls_source.shape[0]
    n_lines = mid_start_of_line.shape[0]
    for j in range(keep.shape[0]):
        k = keep[j]
        if _outside(k, n_play):
            return j
        li = p_line[k]
        c = p_cls[k]
        if _outside(li, n_lines) or _outside(c, n_cls):
            return j
        line[j] = li
        cls[j] = c
        file_key[j] = p_file_key[k]
        ident[j] = p_ident[k]
        poster[j] = p_poster[k]
        number[j] = p_part[k]
        part_total[j] = p_part_total[k]
        nbytes[j] = p_nbytes[k]
        article[j] = p_article[k]
        date[j] = p_date[k]
        source[j] = cls_source[c]
        file_index[j] = cls_file_index[c]
        file_total[j] = cls_file_total[c]
        ext_class[j] = cls_ext_class[c]
        volume[j] = cls_volume[c]
        random_name[j] = cls_random_name[c]
        mid_start[j] = mid_start_of_line[li]
        mid_end[j] = mid_end_of_line[li]
    return -1


def _as(a: np.ndarray, dtype: type) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=dtype)


def in_play(
    pos: np.ndarray,
    live_line: np.ndarray,
    live_cls: np.ndarray,
    live_part: np.ndarray,
    live_part_total: np.ndarray,
    line_poster: np.ndarray,
    line_nbytes: np.ndarray,
    line_date: np.ndarray,
    line_number: np.ndarray,
    cls_file_key: np.ndarray,
    cls_ident: np.ndarray,
) -> InPlay:
    """The rows `pos` of the live lines (live_* one a live line: its line of the chunk,
    its subject class, its counter), with their line's and their class's values."""
    n = len(pos)
    live = [_as(live_line, np.int64), _as(live_cls, np.int64)]
    live += [_as(live_part, np.int64), _as(live_part_total, np.int64)]
    if len({len(a) for a in live}) > 1:
        raise ValueError("the live lines' columns differ in length")
    per_line = [_as(line_poster, np.uint64), _as(line_nbytes, np.int64)]
    per_line += [_as(line_date, np.int64), _as(line_number, np.int64)]
    if len({len(a) for a in per_line}) > 1:
        raise ValueError("the chunk's line columns differ in length")
    per_cls = [_as(cls_file_key, np.uint64), _as(cls_ident, np.uint64)]
    if len(per_cls[0]) != len(per_cls[1]):
        raise ValueError("the subject classes' columns differ in length")
    out = InPlay(
        line=np.empty(n, np.int64),
        cls=np.empty(n, np.int64),
        poster=np.empty(n, np.uint64),
        file_key=np.empty(n, np.uint64),
        ident=np.empty(n, np.uint64),
        nbytes=np.empty(n, np.int64),
        date=np.empty(n, np.int64),
        part=np.empty(n, np.int64),
        part_total=np.empty(n, np.int64),
        article=np.empty(n, np.int64),
    )
    bad = _in_play(_as(pos, np.int64), *live, *per_line, *per_cls, *_columns(out))
    if bad >= 0:
        raise IndexError(f"row {bad} in play points past the live lines, chunk or classes")
    return out


def kept(
    keep: np.ndarray,
    play: InPlay,
    cls_source: np.ndarray,
    cls_file_index: np.ndarray,
    cls_file_total: np.ndarray,
    cls_ext_class: np.ndarray,
    cls_volume: np.ndarray,
    cls_random_name: np.ndarray,
    mid_start_of_line: np.ndarray,
    mid_end_of_line: np.ndarray,
) -> Kept:
    """The rows `keep` of the lines in play (file-run order), with their class's values
    and their message-id's bounds."""
    n = len(keep)
    per_cls = [_as(cls_source, np.uint8), _as(cls_file_index, np.int32)]
    per_cls += [_as(cls_file_total, np.int32), _as(cls_ext_class, np.uint8)]
    per_cls += [_as(cls_volume, np.int32), _as(cls_random_name, np.bool_)]
    if len({len(a) for a in per_cls}) > 1:
        raise ValueError("the subject classes' columns differ in length")
    mids = [_as(mid_start_of_line, np.int64), _as(mid_end_of_line, np.int64)]
    if len(mids[0]) != len(mids[1]):
        raise ValueError("message-id bounds differ in length")
    out = Kept(
        line=np.empty(n, np.int64),
        cls=np.empty(n, np.int64),
        file_key=np.empty(n, np.uint64),
        ident=np.empty(n, np.uint64),
        poster=np.empty(n, np.uint64),
        source=np.empty(n, np.uint8),
        number=np.empty(n, np.int32),
        part_total=np.empty(n, np.int32),
        file_index=np.empty(n, np.int32),
        file_total=np.empty(n, np.int32),
        ext_class=np.empty(n, np.uint8),
        volume=np.empty(n, np.int32),
        random_name=np.empty(n, np.bool_),
        nbytes=np.empty(n, np.int64),
        article=np.empty(n, np.int64),
        date=np.empty(n, np.int64),
        mid_start=np.empty(n, np.int64),
        mid_end=np.empty(n, np.int64),
    )
    # the in-play columns in _kept's order
    p = [play.line, play.cls, play.file_key, play.ident, play.poster, play.nbytes]
    p += [play.date, play.part, play.part_total, play.article]
    bad = _kept(_as(keep, np.int64), *p, *per_cls, *mids, *_columns(out))
    if bad >= 0:
        raise IndexError(f"kept row {bad} points past the rows in play, chunk or classes")
    return out


def _columns(out: InPlay | Kept) -> list[np.ndarray]:
    return [getattr(out, name) for name in out.__dataclass_fields__]
