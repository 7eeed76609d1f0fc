"""The generator's TV and film uploads named after the id tables, and their ids through
the header pass (`generate --id-titles`, `ids score`)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.generate.config import GenerateConfig
from pipelines.generate.corpus import generate_corpus
from pipelines.generate.id_names import read_titles
from pipelines.ids.score import score_ids
from pipelines.ids.stage import ids_catalog
from pipelines.index.replay import replay
from pipelines.index.rules import Rules
from tests.test_ids_import import FIXTURES, import_all


def generated(out: Path, articles: int = 20_000) -> Path:
    config = GenerateConfig(groups=1, articles=articles, seed=3, id_titles=str(FIXTURES))
    generate_corpus(str(out), config, bodies=False)
    return out


def test_uploads_are_named_after_the_tables_with_their_truth(tmp_path: Path) -> None:
    out = generated(tmp_path / "a")
    truth = pq.read_table(out / "truth" / "ids.parquet").to_pylist()
    uploads = pq.read_table(out / "truth" / "uploads.parquet").to_pylist()
    assert truth
    named = {u["name"]: u for u in uploads}
    titles = {imdb: title for imdb, _, title, _ in read_titles(str(FIXTURES))}
    for row in truth:
        upload = named[row["name"]]  # an upload of the corpus carries the name
        assert upload["category"] == ("movie" if row["kind"] == "movie" else "tv")
        words = titles[row["imdb"]].lower().replace(":", "").split()[0]
        assert words.strip(",") in row["name"].lower().replace("_", " ").replace(".", " ")
    again = generated(tmp_path / "b")  # the same arguments, the same bytes
    assert (again / "truth" / "ids.parquet").read_bytes() == (
        out / "truth" / "ids.parquet"
    ).read_bytes()
    config = GenerateConfig(groups=1, articles=20_000, seed=3).to_json()
    assert "id_titles" not in config  # a corpus without it: generate.json as it was


@pytest.mark.slow
def test_generated_uploads_get_the_right_ids_through_the_header_pass(tmp_path: Path) -> None:
    out = generated(tmp_path / "gen", articles=60_000)
    catalog = str(tmp_path / "catalog")
    replay(str(out / "corpus"), catalog, Rules(), progress=False)
    import_all(catalog)
    ids_catalog(catalog)
    score = score_ids(str(out), catalog)
    a = score.accuracy
    assert a.unique >= 10, score.text()
    assert a.right / a.unique >= 0.99 and a.wrong == 0 and a.doubtful_wrong == 0, score.text()
