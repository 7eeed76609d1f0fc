"""kernels.segment_rows against its plain-Python reference, and its bad-index errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernels import segment_rows
from tests.reference import segment_rows as ref

U64 = st.integers(0, 2**64 - 1)
CLS_COLUMNS = {
    "source": (np.uint8, st.integers(1, 3)),
    "file_index": (np.int32, st.integers(-1, 999)),
    "file_total": (np.int32, st.integers(-1, 999)),
    "ext_class": (np.uint8, st.integers(0, 20)),
    "volume": (np.int32, st.integers(-1, 99)),
    "random_name": (np.bool_, st.booleans()),
}


@st.composite
def chunks(draw):
    """A chunk's per-line values, its live lines, its subject classes, the rows in play
    (an ordered subset of the live lines) and the kept rows (any order, a subset)."""
    n_lines = draw(st.integers(0, 40))
    n_cls = draw(st.integers(1, 8))
    lines = {
        "poster": draw(st.lists(U64, min_size=n_lines, max_size=n_lines)),
        # -1: `:bytes` was not a number
        "nbytes": draw(st.lists(st.integers(-1, 10**9), min_size=n_lines, max_size=n_lines)),
        "date": draw(st.lists(st.integers(0, 2**40), min_size=n_lines, max_size=n_lines)),
        "number": draw(st.lists(st.integers(0, 2**40), min_size=n_lines, max_size=n_lines)),
        "mid_start": draw(st.lists(st.integers(0, 2**30), min_size=n_lines, max_size=n_lines)),
        "mid_end": draw(st.lists(st.integers(0, 2**30), min_size=n_lines, max_size=n_lines)),
    }
    live_line = draw(st.lists(st.integers(0, n_lines - 1), max_size=n_lines)) if n_lines else []
    n_live = len(live_line)
    live = {
        "line": live_line,
        "cls": draw(st.lists(st.integers(0, n_cls - 1), min_size=n_live, max_size=n_live)),
        "part": draw(st.lists(st.integers(-1, 5000), min_size=n_live, max_size=n_live)),
        "part_total": draw(st.lists(st.integers(-1, 5000), min_size=n_live, max_size=n_live)),
    }
    cls = {
        "file_key": draw(st.lists(U64, min_size=n_cls, max_size=n_cls)),
        "ident": draw(st.lists(U64, min_size=n_cls, max_size=n_cls)),
    }
    for name, (_dtype, values) in CLS_COLUMNS.items():
        cls[name] = draw(st.lists(values, min_size=n_cls, max_size=n_cls))
    pos = sorted(draw(st.sets(st.integers(0, n_live - 1)))) if n_live else []
    keep = draw(st.permutations(range(len(pos))))[: draw(st.integers(0, len(pos)))]
    return lines, live, cls, pos, keep


# the dtypes the header pass hands over (the wrappers convert the rest)
LINE_DTYPES = {"poster": np.uint64, "nbytes": np.int64, "date": np.int64, "number": np.int64}
LINE_DTYPES |= {"mid_start": np.int64, "mid_end": np.int64}
LIVE_DTYPES = {"line": np.int64, "cls": np.int64, "part": np.int32, "part_total": np.int32}
CLS_DTYPES = {"file_key": np.uint64, "ident": np.uint64}
CLS_DTYPES |= {name: dtype for name, (dtype, _values) in CLS_COLUMNS.items()}


def _bundle(kind, columns, dtypes):
    return kind(**{name: np.array(columns[name], dtypes[name]) for name in kind._fields})


def _in_play(lines, live, cls, pos):
    return segment_rows.in_play(
        np.array(pos, np.int64),
        _bundle(segment_rows.Live, live, LIVE_DTYPES),
        _bundle(segment_rows.Lines, lines, LINE_DTYPES),
        _bundle(segment_rows.Classes, cls, CLS_DTYPES),
    )


def _kept(play, lines, cls, keep):
    return segment_rows.kept(
        np.array(keep, np.int64),
        play,
        _bundle(segment_rows.Lines, lines, LINE_DTYPES),
        _bundle(segment_rows.Classes, cls, CLS_DTYPES),
    )


def _rows(out) -> list[dict[str, int]]:
    names = list(out._fields)
    columns = [getattr(out, name).tolist() for name in names]
    return [dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True)]


@settings(max_examples=300, deadline=None)
@given(chunks())
def test_rows_match_reference(case):
    lines, live, cls, pos, keep = case
    play = _in_play(lines, live, cls, pos)
    expected_play = ref.in_play(pos, live, lines, cls)
    assert _rows(play) == expected_play
    got = _kept(play, lines, cls, keep)
    expected = ref.kept(keep, expected_play, lines, cls)
    assert _rows(got) == [{k: row[k] for k in got._fields} for row in expected]
    # the columns ParsedChunk declares
    assert got.number.dtype == np.int32 and got.source.dtype == np.uint8
    assert got.random_name.dtype == np.bool_ and got.file_key.dtype == np.uint64


def _small():
    lines = {k: [1, 2, 3] for k in ("poster", "nbytes", "date", "number", "mid_start", "mid_end")}
    live = {"line": [0, 2], "cls": [0, 1], "part": [1, 2], "part_total": [2, 2]}
    cls = {"file_key": [7, 8], "ident": [9, 10]}
    cls |= {name: [1, 1] for name in CLS_COLUMNS}
    return lines, live, cls


@pytest.mark.parametrize(
    "change",
    [
        lambda lines, live, cls: {"pos": [2]},  # past the live lines
        lambda lines, live, cls: {"pos": [-1]},
        lambda lines, live, cls: live.update(line=[0, 3]) or {},  # past the chunk
        lambda lines, live, cls: live.update(cls=[0, 2]) or {},  # past the classes
    ],
)
def test_in_play_refuses_rows_out_of_bounds(change):
    lines, live, cls = _small()
    pos = change(lines, live, cls).get("pos", [0, 1])
    with pytest.raises(IndexError, match="in play"):
        _in_play(lines, live, cls, pos)


def test_kept_refuses_rows_out_of_bounds():
    lines, live, cls = _small()
    play = _in_play(lines, live, cls, [0, 1])
    with pytest.raises(IndexError, match="kept row 1"):
        _kept(play, lines, cls, [1, 2])
    short = {k: [1] for k in lines}  # the chunk's lines: fewer than play reads
    with pytest.raises(IndexError, match="kept row 0"):
        _kept(play, short, cls, [1])


def test_columns_of_different_lengths_are_refused():
    lines, live, cls = _small()
    with pytest.raises(ValueError, match="live lines"):
        _in_play(lines, {**live, "part": [1]}, cls, [0])
    with pytest.raises(ValueError, match="chunk's lines"):
        _in_play({**lines, "date": [1]}, live, cls, [0])
    with pytest.raises(ValueError, match="classes"):
        _in_play(lines, live, {**cls, "ident": [1]}, [0])
    play = _in_play(lines, live, cls, [0, 1])
    with pytest.raises(ValueError, match="classes"):
        _kept(play, lines, {**cls, "volume": [1]}, [0])
    with pytest.raises(ValueError, match="chunk's lines"):
        _kept(play, {**lines, "mid_end": [1]}, cls, [0])
