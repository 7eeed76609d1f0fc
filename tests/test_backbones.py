"""Headers from several backbones: each backbone's corpus apart, the primary filled in by
message-id from the others (`pipelines/index/fill.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.backbone_split import SplitSettings, split_corpus
from pipelines.corpus.backbones import backbone_root, corpus_backbones
from pipelines.corpus.reader import CorpusReader
from pipelines.generate import GenerateConfig
from pipelines.index.replay import replay
from pipelines.index.rules import Rules
from tests.catalogs import catalog_files
from tests.corpora import generate

CONFIG = GenerateConfig(groups=1, articles=9000, seed=11, range_size=3000, chunk=500, days=10)
SPLIT = SplitSettings(range_size=3000, chunk_size=500)


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A generated corpus of one provider holding everything, and its catalog."""
    out = tmp_path_factory.mktemp("backbones")
    gen = generate(out / "gen", CONFIG)
    catalog = out / "whole"
    replay(gen.corpus, str(catalog), Rules(), progress=False, tail=False)
    return Path(gen.corpus), catalog


def _header_files(catalog: Path) -> dict[str, bytes]:
    """The catalog's files but the fill's own state (a catalog of one backbone has none)."""
    return {k: v for k, v in catalog_files(catalog).items() if not k.startswith("_fill/")}


def test_a_corpus_split_over_two_backbones_gives_the_one_providers_catalog(
    whole: tuple[Path, Path], tmp_path: Path
) -> None:
    corpus, expected = whole
    split = split_corpus(str(corpus), str(tmp_path / "split"), SPLIT)
    assert split.lacking_a > SPLIT.retention and split.lacking_b > 100
    catalog = tmp_path / "catalog"
    summary = replay(str(tmp_path / "split"), str(catalog), Rules(), progress=False, tail=False)
    assert summary.filled.get("filled") == split.lacking_a, summary.text()
    assert _header_files(catalog) == _header_files(expected)


def _ranges(corpus: Path) -> list[Path]:
    group = next(p for p in corpus.iterdir() if p.is_dir())
    return sorted(
        (p for p in group.iterdir() if p.is_dir()), key=lambda p: int(p.name.split("-")[0])
    )


def test_the_fill_goes_on_from_where_the_last_range_left_it(
    whole: tuple[Path, Path], tmp_path: Path
) -> None:
    """A range indexed in a later run reads the other backbone from the cursor the range
    before it left: about a range's worth of chunks, not the backbone from its start."""
    corpus, expected = whole
    split = tmp_path / "split"
    lacking = split_corpus(str(corpus), str(split), SPLIT).lacking_a
    newest = _ranges(split / "@a")[-1]
    held = tmp_path / "held"
    newest.rename(held)  # the primary's newest range not captured yet
    catalog = tmp_path / "catalog"
    first = replay(str(split), str(catalog), Rules(), progress=False, tail=False)
    held.rename(newest)
    second = replay(str(split), str(catalog), Rules(), progress=False, tail=False)
    assert second.totals.ranges == 1
    per_range = SPLIT.range_size // SPLIT.chunk_size
    assert second.filled["chunks_read:b"] <= per_range + 2 < first.filled["chunks_read:b"]
    assert first.filled["filled"] + second.filled["filled"] == lacking
    assert _header_files(catalog) == _header_files(expected)


def test_each_backbone_is_a_corpus_of_its_own(whole: tuple[Path, Path], tmp_path: Path) -> None:
    corpus, _ = whole
    split = tmp_path / "split"
    split_corpus(str(corpus), str(split), SPLIT)
    assert corpus_backbones(str(split)) == ["a", "b", ""]
    assert CorpusReader(str(split)).groups() == []  # backbone folders are no groups
    a = CorpusReader(backbone_root(str(split), "a"))
    (group,) = a.groups()
    assert all(info.complete and info.manifest.backbone == "a" for info in a.ranges(group))
    # a range moved to another backbone's folder is refused: its numbers mean other articles
    oldest = _ranges(split / "@a")[0]
    oldest.rename(split / "@b" / group / oldest.name)
    (info,) = [
        i for i in CorpusReader(str(split / "@b")).ranges(group) if i.ref.name == oldest.name
    ]
    assert not info.complete and "names backbone a" in info.problem


def test_a_corpus_of_one_unnamed_backbone_reads_as_before(whole: tuple[Path, Path]) -> None:
    corpus, _ = whole
    assert corpus_backbones(str(corpus)) == [""]
    reader = CorpusReader(str(corpus))
    (group,) = reader.groups()
    assert all(i.complete and i.manifest.backbone == "" for i in reader.ranges(group))
