"""Reading catalog Parquet files: the rows, and a process that exits cleanly after."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.catalog.reader import parquet_rows, read_parquet
from pipelines.corpus.fs import open_fs

ROOT = Path(__file__).resolve().parents[1]


def _write(path: Path, rows: int = 5000) -> pa.Table:
    table = pa.table(
        {
            "release_key": pa.array([i.to_bytes(20, "big") for i in range(rows)], pa.binary(20)),
            "name": [f"Show.S01E{i:02d}.1080p" for i in range(rows)],
            "size": pa.array(range(rows), pa.int64()),
        }
    )
    pq.write_table(table, path, row_group_size=1000)
    return table


def test_reads_every_row_and_the_columns_asked_for(tmp_path: Path) -> None:
    table = _write(tmp_path / "part.parquet")
    fs, root = open_fs(str(tmp_path))
    assert read_parquet(fs, f"{root}/part.parquet").equals(table)
    picked = read_parquet(fs, f"{root}/part.parquet", ["size", "name"])
    assert picked.column_names == ["size", "name"]
    assert picked.column("size").to_pylist() == list(range(5000))
    assert parquet_rows((tmp_path / "part.parquet").read_bytes(), ("name",)).equals(
        table.select(["name"])
    )


def test_rows_are_decoded_from_a_buffer_arrow_owns(tmp_path: Path, monkeypatch) -> None:
    """A pool thread may drop the last page reader after `read` returns: over Python-owned
    bytes that needs the GIL, and a process exiting then aborts (exit 134). The reader
    decodes from a copy Arrow allocated, never from the caller's bytes."""
    import pipelines.catalog.reader as reader

    _write(tmp_path / "part.parquet", rows=50)
    payload = (tmp_path / "part.parquet").read_bytes()
    seen: list[pa.Buffer] = []
    real = pa.BufferReader

    def recording(source: pa.Buffer) -> pa.BufferReader:
        seen.append(source)
        return real(source)

    monkeypatch.setattr(reader.pa, "BufferReader", recording)
    assert parquet_rows(payload, ["size"]).column("size").to_pylist() == list(range(50))
    (source,) = seen
    assert isinstance(source, pa.Buffer) and source.to_pybytes() == payload
    assert source.address != pa.py_buffer(payload).address  # a copy, not a view of the bytes


def test_not_parquet_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bad.parquet").write_bytes(b"not a parquet file at all")
    fs, root = open_fs(str(tmp_path))
    with pytest.raises(pa.ArrowInvalid):
        read_parquet(fs, f"{root}/bad.parquet")


@pytest.mark.slow
def test_process_exits_cleanly_after_reading(tmp_path: Path) -> None:
    """pq.read_table over a file object aborted up to 1 in 5 such processes at exit (code
    134, "terminate called without an active exception"; how often depends on timing):
    30 clean exits in a row, each right after its read."""
    path = tmp_path / "part.parquet"
    _write(path)
    script = (
        "from pipelines.catalog.reader import read_parquet\n"
        "from pipelines.corpus.fs import open_fs\n"
        f"fs, root = open_fs({str(tmp_path)!r})\n"
        "read_parquet(fs, root + '/part.parquet', ['name'])\n"
    )
    for run in range(30):
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, f"run {run}: exit {done.returncode}: {done.stderr[-500:]}"


def test_project_code_reads_parquet_without_the_scanner() -> None:
    """Every whole-file read of the project goes through pipelines.catalog.reader (DuckDB
    and ParquetFile's row-group reads are not affected)."""
    offenders = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in ("pipelines", "serving", "assets")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "read_table(" in line and not line.lstrip().startswith("#")
    ]
    assert offenders == []
