"""Headers from several backbones: each backbone's corpus apart, the primary filled in by
message-id from the others (`pipelines/index/fill.py`)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import shutil
from pathlib import Path

import pytest

from bench.backbone_split import SplitSettings, split_corpus
from cli.main import main
from pipelines.capture.filled import consumed_by_backbone
from pipelines.corpus.backbones import backbone_root, corpus_backbones, write_order
from pipelines.corpus.fs import open_fs
from pipelines.corpus.manifest import RangeManifest
from pipelines.corpus.reader import CorpusReader
from pipelines.generate import GenerateConfig
from pipelines.index import fill as fill_module
from pipelines.index.fill_state import read_pin
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


def _split(whole: tuple[Path, Path], tmp_path: Path) -> tuple[Path, int]:
    """The whole corpus split over two backbones in `tmp_path/split`; how many articles
    the primary lacks."""
    split = tmp_path / "split"
    return split, split_corpus(str(whole[0]), str(split), SPLIT).lacking_a


def _header_files(catalog: Path) -> dict[str, bytes]:
    """The catalog's files but the fill's own state (a catalog of one backbone has none)."""
    return {k: v for k, v in catalog_files(catalog).items() if not k.startswith("_fill/")}


@pytest.mark.parametrize("retention", [SPLIT.retention, 1200])
def test_a_corpus_split_over_two_backbones_gives_the_one_providers_catalog(
    whole: tuple[Path, Path], tmp_path: Path, retention: int
) -> None:
    """The primary lacks its oldest articles (part of its first chunk, or its first two
    chunks whole) and 1 in 20 of the rest; the other backbone, numbered apart, lacks
    another 1 in 20."""
    corpus, expected = whole
    settings = dataclasses.replace(SPLIT, retention=retention)
    split = split_corpus(str(corpus), str(tmp_path / "split"), settings)
    assert split.lacking_a > 100 and split.lacking_b > 100
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
    split, lacking = _split(whole, tmp_path)
    expected = whole[1]
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
    split, _ = _split(whole, tmp_path)
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


def _cut_b(split: Path, cut: int, fetched_at: str, aside: Path) -> dict[Path, bytes]:
    """Backbone b as its capture leaves it stored through its article `cut`: later ranges
    moved aside, the one holding `cut` listing its chunks up to it (written `fetched_at`).
    Returns the manifests it rewrote, to put back."""
    (group,) = CorpusReader(str(split / "@b")).groups()
    kept = {}
    aside.mkdir()
    for folder in _ranges(split / "@b"):
        manifest = RangeManifest.loads((folder / "range.json").read_bytes())
        if manifest.first > cut:
            folder.rename(aside / folder.name)
        elif manifest.last > cut:
            kept[folder] = (folder / "range.json").read_bytes()
            chunks = tuple(c for c in manifest.chunks if c.last <= cut)
            extra = {"backbone": "b", "fetched_at": fetched_at}
            cut_manifest = RangeManifest(group, manifest.first, manifest.last, False, chunks,
                                         extra=extra)  # fmt: skip
            (folder / "range.json").write_bytes(cut_manifest.dumps())
    return kept


def _put_back(split: Path, kept: dict[Path, bytes], aside: Path) -> None:
    for folder, manifest in kept.items():
        (folder / "range.json").write_bytes(manifest)
    group_folder = _ranges(split / "@b")[0].parent
    for folder in aside.iterdir():
        folder.rename(group_folder / folder.name)


def test_a_range_waits_for_a_backbone_still_being_captured(
    whole: tuple[Path, Path], tmp_path: Path
) -> None:
    split, _ = _split(whole, tmp_path)
    expected = whole[1]
    last = _ranges(split / "@a")[-1]
    first_of_last = int(last.name.split("-")[0])
    now = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    kept = _cut_b(split, first_of_last + 1000 + SPLIT.offset, now, tmp_path / "aside")
    catalog = tmp_path / "catalog"
    held = replay(str(split), str(catalog), Rules(), progress=False, tail=False)
    assert [s for s in held.stopped if "waits: backbone b" in s and last.name in s]
    assert held.totals.ranges == len(_ranges(split / "@a")) - 1
    _put_back(split, kept, tmp_path / "aside")
    done = replay(str(split), str(catalog), Rules(), progress=False, tail=False)
    assert done.totals.ranges == 1 and not done.stopped
    assert _header_files(catalog) == _header_files(expected)


def test_a_range_held_for_a_backbone_that_then_stalls_goes_on(
    whole: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing on disk moves when a backbone stalls: the held group is not remembered as
    idle, and the next run lets the range go on once the backbone counts as stalled."""
    split, _ = _split(whole, tmp_path)
    last = _ranges(split / "@a")[-1]
    cut = int(last.name.split("-")[0]) + 1000 + SPLIT.offset
    now = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    _cut_b(split, cut, now, tmp_path / "aside")
    catalog = tmp_path / "catalog"
    held = replay(str(split), str(catalog), Rules(), progress=False, tail=False)
    assert held.totals.ranges == len(_ranges(split / "@a")) - 1
    again = replay(str(split), str(catalog), Rules(), progress=False, tail=False)
    assert again.totals.ranges == 0 and [s for s in again.stopped if "waits" in s]
    monkeypatch.setattr(fill_module, "STALLED_AFTER", 0.0)
    after = replay(str(split), str(catalog), Rules(), progress=False, tail=False)
    assert after.totals.ranges == 1 and after.filled["behind:b"] == 1 and not after.stopped


def test_a_stalled_backbone_holds_nothing_back(whole: tuple[Path, Path], tmp_path: Path) -> None:
    split, _ = _split(whole, tmp_path)
    last = _ranges(split / "@a")[-1]
    cut = int(last.name.split("-")[0]) + 1000 + SPLIT.offset
    _cut_b(split, cut, "2020-01-01T00:00:00+00:00", tmp_path / "aside")
    summary = replay(str(split), str(tmp_path / "catalog"), Rules(), progress=False, tail=False)
    assert summary.totals.ranges == len(_ranges(split / "@a")) and not summary.stopped
    assert summary.filled["behind:b"] == 1


def test_a_growing_range_is_indexed_from_the_primary_then_whole_with_the_fill(
    whole: tuple[Path, Path], tmp_path: Path
) -> None:
    """The tail of the primary's newest range is indexed as it grows (the primary's lines
    alone); once complete the range is indexed whole, filled, as if never a tail."""
    split, _ = _split(whole, tmp_path)
    expected = whole[1]
    last = _ranges(split / "@a")[-1]
    full = (last / "range.json").read_bytes()
    manifest = RangeManifest.loads(full)
    growing = RangeManifest(manifest.group, manifest.first, manifest.last, False,
                            manifest.chunks[:3], extra=manifest.extra)  # fmt: skip
    (last / "range.json").write_bytes(growing.dumps())
    catalog = tmp_path / "catalog"
    first = replay(str(split), str(catalog), Rules(), progress=False)
    assert [t for t in first.tails if t.part is not None]
    (last / "range.json").write_bytes(full)
    done = replay(str(split), str(catalog), Rules(), progress=False)
    assert done.totals.ranges == 1 and done.filled["filled"] > 0
    assert _header_files(catalog) == _header_files(expected)


def test_corpus_check_goes_backbone_by_backbone(
    whole: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    split, _ = _split(whole, tmp_path)
    assert main(["corpus", "check", str(split)]) == 0
    out = capsys.readouterr().out
    assert "backbone a (" in out and "backbone b (" in out
    newest_a = _ranges(split / "@a")[-1]
    (newest_a / next(newest_a.glob("*.xover.zz")).name).unlink()
    assert main(["corpus", "check", str(split)]) == 1


def test_the_prefetch_counts_each_backbones_ranges_the_header_pass_has_not_taken(
    whole: tuple[Path, Path], tmp_path: Path
) -> None:
    split, _ = _split(whole, tmp_path)
    catalog = tmp_path / "catalog"
    newest = _ranges(split / "@a")[-1]
    newest.rename(tmp_path / "held")  # the header pass stops one range short of the end
    replay(str(split), str(catalog), Rules(), progress=False, tail=False)
    consumed = consumed_by_backbone(str(catalog), ["a", "b"])
    taken_a, taken_b = consumed("a"), consumed("b")
    refs_a = CorpusReader(str(split / "@a")).range_refs(newest.parent.name)
    refs_b = CorpusReader(str(split / "@b")).range_refs(newest.parent.name)
    assert all(taken_a(ref) for ref in refs_a)
    taken = [taken_b(ref) for ref in refs_b]
    # b's ranges the fill read through are taken, its newest ones not yet
    assert taken[0] and not taken[-1] and taken == sorted(taken, reverse=True)


def test_a_group_indexed_from_one_backbone_keeps_it_when_another_comes_first(
    whole: tuple[Path, Path], tmp_path: Path
) -> None:
    """A catalog indexed from a corpus of one unnamed backbone; then a backbone listed
    before it is captured: the group's primary stays the one its numbers are from."""
    corpus, expected = whole
    grown = tmp_path / "corpus"
    shutil.copytree(corpus, grown)
    catalog = tmp_path / "catalog"
    shutil.copytree(expected, catalog)
    split, _ = _split(whole, tmp_path)
    (split / "@b").rename(grown / "@b")
    fs, root = open_fs(str(grown))
    write_order(fs, root, ["b", ""])
    assert corpus_backbones(str(grown)) == ["b", ""]
    again = replay(str(grown), str(catalog), Rules(), progress=False, tail=False)
    assert again.totals.ranges == 0 and not again.filled  # nothing new to index
    (group,) = CorpusReader(str(grown)).groups()
    assert read_pin(str(catalog), group) == ""
    assert _header_files(catalog) == _header_files(expected)
