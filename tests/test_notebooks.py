"""The notebooks run top to bottom on a tiny generated corpus, so they cannot rot."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from tests.corpora import generate  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


@pytest.fixture(scope="module")
def tiny_corpus(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("nb") / "demo"
    return generate(out, groups=2, articles=3_000, seed=3, range_size=1_000, chunk=500).corpus


def _execute(name: str, tmp_path: Path) -> nbformat.NotebookNode:
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    client.execute()
    return notebook


def _outputs(notebook: nbformat.NotebookNode) -> str:
    texts = []
    for cell in notebook.cells:
        for out in cell.get("outputs", []):
            texts.append(str(out.get("text", "")))
            texts.append(str(out.get("data", {}).get("text/plain", "")))
    return "\n".join(texts)


@pytest.mark.slow
def test_corpus_study_runs(
    tiny_corpus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORPUS", tiny_corpus)
    notebook = _execute("corpus_study.ipynb", tmp_path)
    text = _outputs(notebook)
    assert "headers" in text and "alt.binaries." in text
    images = [
        o for c in notebook.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})
    ]
    assert images, "the study draws its size and rate plots"


@pytest.mark.slow
def test_rule_sweep_runs(tiny_corpus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORPUS", tiny_corpus)
    monkeypatch.setenv("SAMPLE", "3")
    notebook = _execute("rule_sweep.ipynb", tmp_path)
    text = _outputs(notebook)
    assert "garbage_signature" in text  # the added signature shows in the drops table
    images = [
        o for c in notebook.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})
    ]
    assert images, "the sweep draws its drops plot"
