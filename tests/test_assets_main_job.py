"""The main job: `usenet-indexer demo` and scripts/run.sh on a small demo corpus."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from cli.main import main
from pipelines.catalog.partitions import list_group
from pipelines.corpus.fs import open_fs

ROOT = Path(__file__).resolve().parent.parent
SMALL = ["--groups", "2", "--articles", "1500", "--range-size", "1000", "--quiet"]
TINY = ["--groups", "1", "--articles", "1000", "--range-size", "5000", "--quiet"]


@pytest.mark.slow
def test_demo_indexes_compacts_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    state = tmp_path / "var"
    assert main(["demo", "--state", str(state), *SMALL]) == 0
    out = capsys.readouterr().out
    assert "http://127.0.0.1:8000/" in out and "/api?t=caps" in out
    assert "dagster dev -m assets" in out and f"DAGSTER_HOME={state / 'dagster'}" in out
    assert "(0 were already done)" in out
    assert (state / "dagster" / "dagster.yaml").exists()

    catalog = str(state / "catalog")
    fs, root = open_fs(catalog)
    groups = sorted(p.rsplit("/", 1)[-1] for p in fs.ls(f"{root}/releases"))
    assert len(groups) == 2
    for group in groups:  # compacted: one sorted file per group
        files = list_group(fs, root, "releases", group)
        assert len(files) == 1 and files[0].compact
    releases = pq.read_table(f"{catalog}/releases").num_rows
    assert releases > 0

    # a second run finds everything done and changes nothing
    assert main(["demo", "--state", str(state), *SMALL]) == 0
    again = capsys.readouterr().out
    assert "materialized 0 range partitions" in again
    assert pq.read_table(f"{catalog}/releases").num_rows == releases


@pytest.mark.slow
def test_run_script_without_serving(tmp_path: Path) -> None:
    env = dict(
        os.environ, STATE_DIR=str(tmp_path / "var"), USENET_INDEXER_NO_SERVE="1", PORT="8123"
    )
    env.pop("DAGSTER_HOME", None)
    done = subprocess.run(
        ["bash", "scripts/run.sh", *TINY],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "http://127.0.0.1:8123/" in done.stdout
    assert "not serving" in done.stdout
    assert (tmp_path / "var" / "catalog" / "releases").is_dir()
