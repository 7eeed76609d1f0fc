"""The tail: a growing range indexed as capture stores it (`pipelines.index.tail`).

A corpus's newest range is made to grow by rewriting its range.json with the first k of
its chunks listed and `complete` false, as capture leaves it between polls."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipelines.catalog.views import CatalogViews
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.manifest import RangeManifest
from pipelines.corpus.reader import CorpusReader
from pipelines.generate import GenerateConfig
from pipelines.index.replay import replay
from pipelines.index.rules import Rules
from pipelines.index.tail import growing_range, index_tail, read_log
from tests.catalogs import catalog_files, shown_releases
from tests.corpora import generate

CONFIG = GenerateConfig(groups=1, articles=9000, seed=5, range_size=3000, chunk=500, days=10)


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A generated corpus and its batch replay."""
    out = tmp_path_factory.mktemp("tail")
    gen = generate(out / "gen", CONFIG)
    # the generated span ends early in its last range: the one before it is full
    folder, _ = _newest(Path(gen.corpus))
    shutil.rmtree(folder)
    catalog = out / "batch"
    replay(gen.corpus, str(catalog), Rules(), progress=False)
    return Path(gen.corpus), catalog


def _newest(corpus: Path) -> tuple[Path, RangeManifest]:
    group = next(p for p in corpus.iterdir() if p.is_dir())
    folder = sorted(
        (p for p in group.iterdir() if p.is_dir()), key=lambda p: int(p.name.split("-")[0])
    )[-1]
    return folder, RangeManifest.loads((folder / "range.json").read_bytes())


def _grow_to(corpus: Path, full: RangeManifest, k: int | None) -> None:
    """The newest range as capture leaves it with k chunks stored (None: complete)."""
    folder, _ = _newest(corpus)
    chunks = full.chunks if k is None else full.chunks[:k]
    manifest = RangeManifest(full.group, full.first, full.last, k is None, chunks)
    (folder / "range.json").write_bytes(manifest.dumps())


def _copy(corpus: Path, tmp_path: Path) -> tuple[Path, RangeManifest]:
    grown = tmp_path / "corpus"
    shutil.copytree(corpus, grown)
    return grown, _newest(grown)[1]


def test_a_tail_grown_to_its_end_is_the_batch_replay(whole, tmp_path: Path) -> None:
    corpus, batch = whole
    grown, full = _copy(corpus, tmp_path)
    catalog = tmp_path / "catalog"
    n = len(full.chunks)
    assert n >= 4
    for k in (1, 3, n - 1):
        _grow_to(grown, full, k)
        summary = replay(str(grown), str(catalog), Rules(), progress=False)
        (done,) = summary.tails
        assert done.cursor == full.chunks[k - 1].last
        assert list(catalog.glob("releases/*/tail-*.parquet")), "the tail wrote nothing"
    # a call with nothing new stored indexes nothing and changes nothing
    before = catalog_files(catalog)
    again = replay(str(grown), str(catalog), Rules(), progress=False)
    assert again.tails[0].part is None and catalog_files(catalog) == before

    _grow_to(grown, full, None)
    summary = replay(str(grown), str(catalog), Rules(), progress=False)
    assert summary.ranges_indexed == 1 and not summary.tails
    # the same files, the same bytes as the batch replay: no tail partition, log or window
    assert catalog_files(catalog) == catalog_files(batch)


def test_open_releases_are_provisional_and_keep_their_key(whole, tmp_path: Path) -> None:
    corpus, _ = whole
    grown, full = _copy(corpus, tmp_path)
    catalog = tmp_path / "catalog"
    _grow_to(grown, full, 2)
    replay(str(grown), str(catalog), Rules(), progress=False)
    views = CatalogViews(str(catalog))
    views.refresh()
    open_keys = {
        r["release_key"]
        for r in views.query("SELECT release_key FROM releases WHERE NOT finished").to_pylist()
    }
    assert open_keys, "no release still being posted at the tail's end"
    views.close()
    _grow_to(grown, full, None)
    replay(str(grown), str(catalog), Rules(), progress=False)
    views = CatalogViews(str(catalog))
    views.refresh()
    later = {
        r["release_key"]: r["finished"]
        for r in views.query("SELECT release_key, finished FROM releases").to_pylist()
    }
    views.close()
    # every release shown provisional is still there under its key, most now finished
    assert open_keys <= set(later)
    assert any(later[k] for k in open_keys)


def test_a_call_stopped_before_its_log_is_redone(whole, tmp_path: Path) -> None:
    corpus, _ = whole
    grown, full = _copy(corpus, tmp_path)
    straight, stopped = tmp_path / "straight", tmp_path / "stopped"
    _grow_to(grown, full, 2)
    for catalog in (straight, stopped):
        replay(str(grown), str(catalog), Rules(), progress=False)
    ref = RangeRef(full.group, full.first, full.last)
    folder = stopped / "_tail" / ref.group / ref.name
    kept = {p.name: p.read_bytes() for p in folder.iterdir()}  # the log and its window
    _grow_to(grown, full, 3)
    replay(str(grown), str(stopped), Rules(), progress=False)
    # as if it stopped after its partitions and window, before its log: the log says 2
    for name, payload in kept.items():
        (folder / name).write_bytes(payload)
    assert len(list(folder.glob("window-*"))) == 2
    _grow_to(grown, full, 4)
    for catalog in (straight, stopped):
        replay(str(grown), str(catalog), Rules(), progress=False)
    assert catalog_files(stopped) == catalog_files(straight)
    log = read_log(str(straight), ref.group, ref.first, ref.last)
    assert log is not None and log.cursor == full.chunks[3].last


def test_a_rule_change_starts_the_tail_over(whole, tmp_path: Path) -> None:
    corpus, _ = whole
    grown, full = _copy(corpus, tmp_path)
    catalog = tmp_path / "catalog"
    _grow_to(grown, full, 2)
    replay(str(grown), str(catalog), Rules(), progress=False)
    other = Rules(window=12 * 3600)
    summary = replay(str(grown), str(catalog), other, progress=False)
    (done,) = summary.tails
    assert done.part is not None and done.part.first == full.first  # from the range's start
    log = read_log(str(catalog), full.group, full.first, full.last)
    assert log is not None and log.rules == other.fingerprint and len(log.parts) == 1


def test_no_tail_without_a_growing_range(whole) -> None:
    corpus, batch = whole
    reader = CorpusReader(str(corpus))
    group = reader.groups()[0]
    assert growing_range(reader, group) is None
    assert index_tail(reader, str(batch), Rules(), [group], group).part is None


def test_a_tail_in_parts_shows_what_one_part_would(whole, tmp_path: Path) -> None:
    corpus, _ = whole
    grown, full = _copy(corpus, tmp_path)
    parts, once = tmp_path / "parts", tmp_path / "once"
    for k in (1, 2, 4):
        _grow_to(grown, full, k)
        replay(str(grown), str(parts), Rules(), progress=False)
    replay(str(grown), str(once), Rules(), progress=False)
    assert len(list(parts.glob("releases/*/tail-*"))) == 3
    assert shown_releases(parts) == shown_releases(once)
