"""The judge's index of a group's releases (`pipelines.judge.where`): a base and the
changes since, so a run that read a few releases writes a few rows."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pipelines.judge import where
from pipelines.judge.where import WHERE, load_where, replaced, save_changes, save_where


def key(i: int) -> bytes:
    return (i + 1).to_bytes(20, "big")


def rows(ids: list[int], posted: int = 0) -> pa.Table:
    return pa.table(
        [pa.array([key(i) for i in ids], pa.binary(20)),
         pa.array(ids, pa.int64()), pa.array([i + 5 for i in ids], pa.int64()),
         pa.array([posted + i for i in ids], pa.int64()),
         pa.array([i % 3 == 0 for i in ids], pa.bool_())],
        schema=WHERE,
    )  # fmt: skip


def as_set(t: pa.Table | None) -> set[tuple[object, ...]]:
    assert t is not None
    return set(zip(*(t[c].to_pylist() for c in WHERE.names), strict=True))


def test_changes_are_written_beside_the_base_and_read_back_as_one_index(tmp_path: Path) -> None:
    catalog = str(tmp_path)
    save_where(catalog, "g", rows(list(range(1000))))
    base = tmp_path / "_judge" / "where" / "g.arrow"
    stamp = os.stat(base).st_mtime_ns
    rng = np.random.default_rng(3)
    expected = load_where(catalog, "g")
    assert expected is not None
    for run in range(20):
        old = load_where(catalog, "g")
        assert old is not None
        read_ids = sorted({int(i) for i in rng.integers(0, 1200, 30)})
        live = [i for i in read_ids if i % 7]  # the others were found gone
        read = pa.array([key(i) for i in read_ids], pa.binary(20))
        new = rows(live, posted=run * 10_000)
        got = save_changes(catalog, "g", old, read, new)
        expected = replaced(expected, read, new)
        assert as_set(got) == as_set(expected) == as_set(load_where(catalog, "g"))
    assert os.stat(base).st_mtime_ns == stamp  # the base was never written again
    assert (tmp_path / "_judge" / "where" / "g.delta.arrow").exists()


def test_a_delta_past_its_share_writes_the_base_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(where, "MIN_DELTA", 10)
    catalog = str(tmp_path)
    save_where(catalog, "g", rows(list(range(100))))
    old = load_where(catalog, "g")
    assert old is not None
    read = pa.array([key(i) for i in range(200, 250)], pa.binary(20))
    got = save_changes(catalog, "g", old, read, rows(list(range(200, 250))))
    assert not (tmp_path / "_judge" / "where" / "g.delta.arrow").exists()
    assert as_set(load_where(catalog, "g")) == as_set(got) and got.num_rows == 150


def test_changes_left_beside_a_base_that_holds_them_read_the_same(tmp_path: Path) -> None:
    """A stop after the base was written anew, before its changes were removed."""
    catalog = str(tmp_path)
    save_where(catalog, "g", rows(list(range(50))))
    old = load_where(catalog, "g")
    assert old is not None
    read = pa.array([key(i) for i in (3, 4, 60)], pa.binary(20))
    got = save_changes(catalog, "g", old, read, rows([4, 60], posted=9))
    delta = (tmp_path / "_judge" / "where" / "g.delta.arrow").read_bytes()
    save_where(catalog, "g", got)
    (tmp_path / "_judge" / "where" / "g.delta.arrow").write_bytes(delta)
    assert as_set(load_where(catalog, "g")) == as_set(got)


def test_unreadable_changes_read_as_no_index(tmp_path: Path) -> None:
    catalog = str(tmp_path)
    save_where(catalog, "g", rows([1, 2]))
    (tmp_path / "_judge" / "where" / "g.delta.arrow").write_bytes(b"ARROW1 cut short")
    assert load_where(catalog, "g") is None  # the group is read whole, its index anew
