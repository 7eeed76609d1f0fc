"""Same arguments, same bytes; lines independent of how they are stored; the CLI and API."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from cli.commands import generate as command
from kernels.scan import OK, scan_chunk
from pipelines.corpus.reader import CorpusReader
from pipelines.generate import GenerateConfig, generate_corpus, generate_range_lines

SMALL = GenerateConfig(groups=2, articles=3_000, seed=3, range_size=5_000, chunk=1_000)


def files_of(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def lines_of(root: Path) -> dict[str, bytes]:
    """Each group's inflated lines, all ranges and chunks joined in article order."""
    reader = CorpusReader(str(root / "corpus"))
    return {
        g: b"".join(c.data for info in reader.ranges(g) for c in reader.read_range(info))
        for g in reader.groups()
    }


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    generate_corpus(str(tmp_path / "a"), SMALL)
    generate_corpus(str(tmp_path / "b"), SMALL)
    a, b = files_of(tmp_path / "a"), files_of(tmp_path / "b")
    assert any(name.endswith(".xover.zz") for name in a)
    assert a == b


def test_same_bytes_in_another_process(tmp_path: Path) -> None:
    """No dependence on string hashing (PYTHONHASHSEED) or anything else per process."""
    generate_corpus(str(tmp_path / "a"), SMALL)
    code = (
        "import sys; from pipelines.generate import GenerateConfig, generate_corpus; "
        f"generate_corpus(sys.argv[1], GenerateConfig(**{SMALL.to_json()!r}))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "b")], check=True, env=env)
    assert files_of(tmp_path / "a") == files_of(tmp_path / "b")


def test_other_seed_other_corpus(tmp_path: Path) -> None:
    generate_corpus(str(tmp_path / "a"), SMALL)
    other = GenerateConfig(**{**SMALL.to_json(), "seed": 4})
    generate_corpus(str(tmp_path / "b"), other)
    a, b = lines_of(tmp_path / "a"), lines_of(tmp_path / "b")
    assert a.keys() == b.keys()
    assert all(a[g] != b[g] for g in a)


def test_lines_do_not_depend_on_storage(tmp_path: Path) -> None:
    generate_corpus(str(tmp_path / "a"), SMALL)
    stored = GenerateConfig(
        **{**SMALL.to_json(), "range_size": 20_000, "chunk": 7_000, "codec": "gzip"}
    )
    generate_corpus(str(tmp_path / "b"), stored)
    assert lines_of(tmp_path / "a") == lines_of(tmp_path / "b")
    for name in ("uploads", "noise"):
        a = pq.read_table(tmp_path / "a" / "truth" / f"{name}.parquet")
        b = pq.read_table(tmp_path / "b" / "truth" / f"{name}.parquet")
        assert a.equals(b)
    chunk = next((tmp_path / "b" / "corpus").rglob("*.xover.gz")).read_bytes()
    assert chunk[:2] == b"\x1f\x8b"


def test_refuses_to_overwrite_unless_forced(tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    generate_corpus(out, SMALL)
    before = files_of(tmp_path / "out")
    with pytest.raises(FileExistsError):
        generate_corpus(out, SMALL)
    assert files_of(tmp_path / "out") == before  # nothing touched
    other = GenerateConfig(**{**SMALL.to_json(), "range_size": 3_000, "chunk": 3_000})
    generate_corpus(out, other, force=True)
    ranges = [p.name for p in (tmp_path / "out" / "corpus").glob("*/*") if p.is_dir()]
    assert ranges and all(int(r.split("-")[0]) % 3_000 == 0 for r in ranges)  # no stale range


@pytest.mark.parametrize(
    "bad",
    [
        {"groups": 0},
        {"articles": 10},
        {"codec": "zstd"},
        {"chunk": 10_000, "range_size": 5_000},
        {"days": 0.0},
    ],
)
def test_config_rejects_bad_values(bad: dict) -> None:
    with pytest.raises(ValueError):
        GenerateConfig(**{**SMALL.to_json(), **bad})


def test_range_lines_shape() -> None:
    data, first, last = generate_range_lines(5_000, seed=9)
    lines = data.split(b"\r\n")
    assert lines[-1] == b"" and len(lines) == 5_001
    assert b"\n" not in data.replace(b"\r\n", b"")
    numbers = [int(line.split(b"\t", 1)[0]) for line in lines[:-1]]
    assert numbers[0] == first and numbers[-1] == last
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    assert all(line.count(b"\t") == 8 for line in lines[:-1])
    index = scan_chunk(data, first, last)
    assert len(index) == 5_000 and bool(np.all(index.status == OK))
    again, _, _ = generate_range_lines(5_000, seed=9)
    other, _, _ = generate_range_lines(5_000, seed=10)
    assert again == data and other != data
    with pytest.raises(ValueError):
        generate_range_lines(0)


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    command.add_parser(parser.add_subparsers())
    args = parser.parse_args(["generate", *argv])
    return int(args.run(args))


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "demo")
    argv = [out, "--groups", "2", "--articles", "2000", "--seed", "1", "--quiet"]
    assert _run([*argv, "--range-size", "4000", "--chunk", "1000"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("generated ") and "lines/s" in printed
    assert (tmp_path / "demo" / "generate.json").exists()
    assert _run(argv) == 2  # already there
    assert "already holds" in capsys.readouterr().err
    assert _run([*argv, "--force", "--json"]) == 0
    assert '"uploads_per_kind"' in capsys.readouterr().out
    assert _run([out + "2", "--chunk", "10", "--range-size", "5", "--quiet"]) == 2
    assert "chunk" in capsys.readouterr().err


def test_writes_through_fsspec() -> None:
    """OUT can be any fsspec URL; here the in-memory file system."""
    import fsspec

    from pipelines.corpus.check import check_corpus

    url = f"memory://generate-test-{os.getpid()}/out"
    try:
        summary = generate_corpus(url, SMALL)
        check = check_corpus(f"{url}/corpus")
        assert check.clean and check.lines == summary.lines
        fs = fsspec.filesystem("memory")
        assert fs.exists(f"{url}/truth/uploads.parquet") and fs.exists(f"{url}/generate.json")
    finally:
        fsspec.filesystem("memory").rm(f"memory://generate-test-{os.getpid()}", recursive=True)
