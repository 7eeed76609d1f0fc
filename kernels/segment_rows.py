"""A chunk's segments as rows: the lines in play, then the kept ones in file-run order.

The header pass reads a dozen values for each line it keeps, from three places: per line
of the chunk (`Lines`: poster hash, size, date, article number, message-id bounds), per
line in play of the subjects (`Live`: its line, class and part counter) and per subject
class (`Classes`: keys, file counter, extension class). Taken one numpy fancy index a
column, that was ~25 passes over ~50 k rows a chunk, each with its temporary; here it is
two loops, one for the rows whose file runs are cut (`in_play`) and one for the rows the
window takes, in run order (`kept`).

Each bundle is a NamedTuple of equally long, contiguous 1-D arrays: numba compiles an
attribute of one to the same load as an array passed on its own.
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar

import numpy as np

from kernels.hashing import _mix2, leaf_kernel


class Lines(NamedTuple):
    """One row a line of the chunk."""

    poster: np.ndarray  # uint64 From hash
    nbytes: np.ndarray  # int64 `:bytes`, <= 0 where not a number
    date: np.ndarray  # int64 effective date
    number: np.ndarray  # int64 article number
    mid_start: np.ndarray  # int64 bounds of the message-id field in the chunk
    mid_end: np.ndarray  # int64


class Live(NamedTuple):
    """One row a live line (not dropped before its subject was parsed)."""

    line: np.ndarray  # int64 line of the chunk
    cls: np.ndarray  # int64 row of the subject table
    part: np.ndarray  # int64 part counter
    part_total: np.ndarray  # int64


class Classes(NamedTuple):
    """One row a subject class (a row of the subject table)."""

    file_key: np.ndarray  # uint64
    ident: np.ndarray  # uint64 release identity
    source: np.ndarray  # uint8
    file_index: np.ndarray  # int32
    file_total: np.ndarray  # int32
    ext_class: np.ndarray  # uint8
    volume: np.ndarray  # int32
    random_name: np.ndarray  # bool


class InPlay(NamedTuple):
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


class Kept(NamedTuple):
    """One row a kept segment, in file-run order (ParsedChunk's per-segment columns)."""

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


I64, U64, I32, U8 = np.int64, np.uint64, np.int32, np.uint8
# each bundle's column types, in field order
_DTYPES: dict[type, tuple[type, ...]] = {
    Lines: (U64, I64, I64, I64, I64, I64),
    Live: (I64, I64, I64, I64),
    Classes: (U64, U64, U8, I32, I32, U8, I32, np.bool_),
    InPlay: (I64, I64, U64, U64, U64, I64, I64, I64, I64, I64),
    Kept: (I64, I64, U64, U64, U64, U8, I32, I32, I32, I32, U8, I32, np.bool_, I64, I64,
           I64, I64, I64),
}  # fmt: skip


@leaf_kernel
def _outside(i, n):
    return i < 0 or i >= n


@leaf_kernel
def _row(rows, j, of, n_lines, n_cls, out):
    """Row rows[j] of `of` (a bundle with line and cls columns), its line and its class,
    the two written to out's at j; -1 for the row where any falls outside its table."""
    r = rows[j]
    if _outside(r, of.line.shape[0]):
        return -1, 0, 0
    li = of.line[r]
    c = of.cls[r]
    if _outside(li, n_lines) or _outside(c, n_cls):
        return -1, 0, 0
    out.line[j] = li
    out.cls[j] = c
    return r, li, c


@leaf_kernel
def _in_play(pos, live, lines, classes, out):
    for j in range(pos.shape[0]):
        p, li, c = _row(pos, j, live, len(lines.poster), len(classes.ident), out)
        if p < 0:
            return j
        h = lines.poster[li]
        out.poster[j] = h
        out.file_key[j] = _mix2(h, classes.file_key[c])
        out.ident[j] = _mix2(h, classes.ident[c])
        b = lines.nbytes[li]
        out.nbytes[j] = b if b > 0 else 0
        out.date[j] = lines.date[li]
        out.part[j] = live.part[p]
        out.part_total[j] = live.part_total[p]
        out.article[j] = lines.number[li]
    return -1


@leaf_kernel
def _kept(keep, play, lines, classes, out):
    for j in range(keep.shape[0]):
        k, li, c = _row(keep, j, play, len(lines.mid_start), len(classes.source), out)
        if k < 0:
            return j
        out.file_key[j] = play.file_key[k]
        out.ident[j] = play.ident[k]
        out.poster[j] = play.poster[k]
        out.number[j] = play.part[k]
        out.part_total[j] = play.part_total[k]
        out.nbytes[j] = play.nbytes[k]
        out.article[j] = play.article[k]
        out.date[j] = play.date[k]
        out.source[j] = classes.source[c]
        out.file_index[j] = classes.file_index[c]
        out.file_total[j] = classes.file_total[c]
        out.ext_class[j] = classes.ext_class[c]
        out.volume[j] = classes.volume[c]
        out.random_name[j] = classes.random_name[c]
        out.mid_start[j] = lines.mid_start[li]
        out.mid_end[j] = lines.mid_end[li]
    return -1


B = TypeVar("B", Lines, Live, Classes, InPlay, Kept)


def typed(bundle: B) -> B:
    """The bundle with each column contiguous and of its type (no copy of a column that
    is); ValueError if its columns differ in length."""
    columns: list[np.ndarray] = [
        np.ascontiguousarray(a, dtype=t) for a, t in zip(bundle, _DTYPES[type(bundle)], strict=True)
    ]
    if len({len(a) for a in columns}) > 1:
        raise ValueError(f"{_WHAT[type(bundle)]}' columns differ in length")
    return type(bundle)(*columns)


_WHAT = {
    Lines: "the chunk's lines",
    Live: "the live lines",
    Classes: "the subject classes",
    InPlay: "the rows in play",
    Kept: "the kept rows",
}


def _empty(kind: type[B], n: int) -> B:
    return kind(*(np.empty(n, t) for t in _DTYPES[kind]))


def in_play(pos: np.ndarray, live: Live, lines: Lines, classes: Classes) -> InPlay:
    """The rows `pos` of the live lines, with their line's and their class's values."""
    error = "row {} in play points past the live lines, chunk or classes"
    return _rows(_in_play, InPlay, pos, typed(live), lines, classes, error)


def kept(keep: np.ndarray, play: InPlay, lines: Lines, classes: Classes) -> Kept:
    """The rows `keep` of the lines in play (file-run order), with their class's values
    and their message-id's bounds."""
    error = "kept row {} points past the rows in play, chunk or classes"
    return _rows(_kept, Kept, keep, typed(play), lines, classes, error)


R = TypeVar("R", InPlay, Kept)


def _rows(
    kernel: Any, kind: type[R], rows: np.ndarray, source: Any, lines: Lines, classes: Classes,
    error: str,
) -> R:  # fmt: skip
    """The kernel's rows `rows` of `source`, into a new bundle of `kind`."""
    out = _empty(kind, len(rows))
    bad = kernel(np.ascontiguousarray(rows, np.int64), source, typed(lines), typed(classes), out)
    if bad >= 0:
        raise IndexError(error.format(bad))
    return out
