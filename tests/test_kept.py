"""`pipelines.catalog.kept.NewestRows`: a folder of write-once files folded into each
key's newest row, reading only the files written since the last call in this process."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from pipelines.catalog import kept
from pipelines.catalog.kept import NewestRows
from pipelines.catalog.newest import newest_by
from pipelines.corpus.fs import open_fs

SCHEMA = pa.schema([("release_key", pa.binary(20)), ("at", pa.int64()), ("what", pa.string())])


def key(i: int) -> bytes:
    return i.to_bytes(20, "big")


def write(folder: Path, name: str, rows: list[tuple[int, int, str]]) -> None:
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    table = pa.table(
        [pa.array([key(k) for k, _, _ in rows], pa.binary(20)),
         pa.array([a for _, a, _ in rows], pa.int64()),
         pa.array([w for _, _, w in rows], pa.string())],
        schema=SCHEMA,
    )  # fmt: skip
    pq.write_table(table, folder / name)


def fold(folder: Path, consumer: str = "t") -> NewestRows:
    fs, _ = open_fs(str(folder))
    return NewestRows(fs, str(folder), consumer, "at", SCHEMA)


def as_dict(t: pa.Table) -> dict[bytes, tuple[int, str]]:
    cols = (t["release_key"].to_pylist(), t["at"].to_pylist(), t["what"].to_pylist())
    return {k: (a, w) for k, a, w in zip(*cols, strict=True)}


def expected(folder: Path) -> dict[bytes, tuple[int, str]]:
    """What reading every file now and taking the newest row per key gives."""
    import pyarrow.parquet as pq

    names = sorted(n for n in os.listdir(folder) if n.endswith(".parquet"))
    rows = pa.concat_tables([pq.read_table(folder / n).cast(SCHEMA) for n in names])
    return as_dict(newest_by(rows, "at"))


def test_the_fold_is_what_reading_every_file_gives_as_files_come(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kept, "MIN_DELTA", 5)  # the delta goes into the base often
    rng = np.random.default_rng(7)
    folder = tmp_path / "f"
    for n in range(12):
        rows = [(int(k), int(rng.integers(0, 50)), f"w{n}") for k in rng.integers(0, 40, 9)]
        write(folder, f"{n:04d}.parquet", rows)
        f = fold(folder)
        assert as_dict(f.table()) == expected(folder)
        # (numpy's S20 drops trailing zero bytes when it gives them back: key(0))
        asked = [key(i) for i in range(0, 45, 3)]
        want = {k: v for k, v in expected(folder).items() if k in set(asked)}
        assert as_dict(f.rows_of(np.array(asked, dtype="S20"))) == want


def test_a_later_call_reads_only_the_new_files(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    write(folder, "0001.parquet", [(1, 10, "a")])
    fold(folder)
    # the second call reads the new file only
    write(folder, "0002.parquet", [(2, 20, "b")])
    seen: list[str] = []
    real = NewestRows._read

    def spy(self: NewestRows, path: str, damaged: list[str]) -> pa.Table | None:
        seen.append(path.rsplit("/", 1)[-1])
        return real(self, path, damaged)

    NewestRows._read = spy  # type: ignore[method-assign]
    try:
        f = fold(folder)
    finally:
        NewestRows._read = real  # type: ignore[method-assign]
    assert seen == ["0002.parquet"]
    assert as_dict(f.table()) == {key(1): (10, "a"), key(2): (20, "b")}


def test_a_file_gone_starts_the_fold_over(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    write(folder, "0001.parquet", [(1, 10, "a")])
    write(folder, "0002.parquet", [(1, 30, "b")])
    assert as_dict(fold(folder).table()) == {key(1): (30, "b")}
    os.remove(folder / "0002.parquet")
    assert as_dict(fold(folder).table()) == {key(1): (10, "a")}


def test_equal_times_the_file_stored_last_wins(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    write(folder, "0001.parquet", [(1, 10, "old")])
    fold(folder)
    write(folder, "0002.parquet", [(1, 10, "new")])
    assert as_dict(fold(folder).rows_of(np.array([key(1)], "S20"))) == {key(1): (10, "new")}


def test_a_damaged_file_is_told_and_read_once_whole(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    write(folder, "0001.parquet", [(1, 10, "a")])
    (folder / "0002.parquet").write_bytes(b"PAR1 not a parquet file")
    f = fold(folder)
    assert len(f.damaged) == 1 and "0002.parquet" in f.damaged[0]
    assert as_dict(f.table()) == {key(1): (10, "a")}
    write(folder, "0002.parquet", [(1, 40, "mended")])
    assert as_dict(fold(folder).table()) == {key(1): (40, "mended")}


def test_an_object_store_reads_every_file_each_call() -> None:
    import fsspec

    fs = fsspec.filesystem("memory")
    folder = "/kept-test/f"
    for n, rows in enumerate([[(1, 10, "a")], [(1, 5, "b"), (2, 7, "c")]]):
        import pyarrow.parquet as pq

        sink = pa.BufferOutputStream()
        t = pa.table({"release_key": pa.array([key(k) for k, _, _ in rows], pa.binary(20)),
                      "at": [a for _, a, _ in rows], "what": [w for _, _, w in rows]})  # fmt: skip
        pq.write_table(t, sink)
        fs.pipe(f"{folder}/{n:04d}.parquet", sink.getvalue().to_pybytes())
    f = NewestRows(fs, folder, "t", "at", SCHEMA)
    assert as_dict(f.table()) == {key(1): (10, "a"), key(2): (7, "c")}
    fs.rm(f"{folder}/0000.parquet")
    f = NewestRows(fs, folder, "t", "at", SCHEMA)
    assert as_dict(f.table()) == {key(1): (5, "b"), key(2): (7, "c")}


def test_per_file_reads_a_file_again_only_when_it_changed(tmp_path: Path) -> None:
    from pipelines.catalog.kept import per_file

    fs, _ = open_fs(str(tmp_path))
    path = tmp_path / "log.txt"
    path.write_text("one")
    reads: list[str] = []

    def read() -> str:
        reads.append(path.read_text())
        return reads[-1]

    assert per_file(fs, str(path), "t", read) == "one"
    assert per_file(fs, str(path), "t", read) == "one"
    assert reads == ["one"]
    path.write_text("three")  # written again: another size and time
    assert per_file(fs, str(path), "t", read) == "three"
    assert per_file(fs, str(path), "other reader", read) == "three"
    assert reads == ["one", "three", "three"]
    path.unlink()
    with pytest.raises(FileNotFoundError):
        per_file(fs, str(path), "t", read)
