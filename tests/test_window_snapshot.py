"""Window snapshots: a window saved and loaded between ranges indexes as one carried in
memory; its bytes survive a round trip; an older or damaged snapshot makes its range be
indexed again, a newer one stops the run."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import zstandard

from pipelines.corpus.reader import CorpusReader
from pipelines.index.range_indexer import index_range
from pipelines.index.replay import replay
from pipelines.index.snapshot import (
    MAGIC,
    SNAPSHOT_VERSION,
    DamagedSnapshot,
    NewerSnapshot,
    load_window,
    read_snapshot,
    snapshot_bytes,
)
from pipelines.index.window import Window
from tests.test_header_pass import build


def _files(catalog: Path, snapshots: bool = False) -> dict[Path, bytes]:
    """Every partition's bytes but the range log's (it holds timings) and the stages'
    memos of what they saw (`_changes`); the snapshots too if asked."""
    return {
        p.relative_to(catalog): p.read_bytes()
        for p in sorted(catalog.rglob("*"))
        if p.is_file()
        and p.relative_to(catalog).parts[0] not in ("ranges", "_changes")
        and (snapshots or p.suffix != ".snapshot")
    }


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return build(tmp_path_factory.mktemp("snap"), 11, articles=16_000, range_size=2_000, groups=2)


def test_saved_and_loaded_between_ranges_writes_what_memory_does(tmp_path, corpus):
    out, rules = corpus
    reader = CorpusReader(str(out / "corpus"))
    priority = rules.priority(reader.groups())
    memory, stored = tmp_path / "memory", tmp_path / "stored"
    carried_albums = carried_copies = 0
    for group in priority:
        infos = reader.complete_ranges(group)
        assert len(infos) >= 4
        window: Window | None = None
        for info in infos:
            _, window = index_range(reader, info, str(memory), rules, priority, window)
        loaded: Window | None = None
        for info in infos:
            index_range(reader, info, str(stored), rules, priority, loaded)
            loaded = load_window(str(stored), group, info.ref.first, info.ref.last)
            assert loaded is not None
            path = stored / "_window" / group / f"{info.ref.first}-{info.ref.last}.snapshot"
            # save, load, save: the same bytes
            assert snapshot_bytes(loaded, rules.fingerprint) == path.read_bytes()
            carried_albums += len(loaded.albums.open)
            carried_copies += len(loaded.carried)
    # the catalog, and the snapshots too: the loaded window is the saved one
    assert _files(stored, snapshots=True) == _files(memory, snapshots=True)
    assert carried_albums and carried_copies  # what the snapshot must carry was there


def _old_pickle(window: Window, version: int) -> bytes:
    """A snapshot as the builds before version 3 wrote it: a pickle of the window."""
    body = zstandard.ZstdCompressor(level=3).compress(
        pickle.dumps({"version": version, "rules": "x", "window": window.position})
    )
    return body if version == 1 else MAGIC + b"%d\n" % version + body


def test_an_older_or_damaged_snapshot_makes_its_range_be_indexed_again(tmp_path, corpus):
    out, rules = corpus
    catalog = tmp_path / "catalog"
    replay(str(out / "corpus"), str(catalog), rules, progress=False)
    want = _files(catalog)
    group = rules.groups[0]
    snaps = sorted(
        (catalog / "_window" / group).glob("*.snapshot"), key=lambda p: int(p.stem.split("-")[0])
    )
    first, last = (int(x) for x in snaps[1].stem.split("-"))
    good = read_snapshot(snaps[1].read_bytes())["window"]
    for payload in (
        _old_pickle(good, 1),
        _old_pickle(good, 2),
        snaps[1].read_bytes()[:200],  # cut short
        MAGIC + b"%d\n" % SNAPSHOT_VERSION + b"not a zstd frame",
    ):
        snaps[1].write_bytes(payload)
        with pytest.raises(DamagedSnapshot, match="is damaged"):
            load_window(str(catalog), group, first, last)
        # the range after it needs its window: both are indexed again
        snaps[2].unlink()
        redo = replay(str(out / "corpus"), str(catalog), rules, progress=False)
        assert redo.ranges_indexed == 2
        assert _files(catalog) == want
        assert snaps[1].read_bytes().startswith(MAGIC + b"%d\n" % SNAPSHOT_VERSION)


def test_a_snapshot_of_a_newer_version_stops_the_run(tmp_path, corpus):
    out, rules = corpus
    catalog = tmp_path / "catalog"
    replay(str(out / "corpus"), str(catalog), rules, progress=False)
    group = rules.groups[0]
    snaps = sorted(
        (catalog / "_window" / group).glob("*.snapshot"), key=lambda p: int(p.stem.split("-")[0])
    )
    snaps[1].write_bytes(MAGIC + b"%d\n" % (SNAPSHOT_VERSION + 1) + b"whatever")
    snaps[2].unlink()
    with pytest.raises(NewerSnapshot, match=f"version {SNAPSHOT_VERSION + 1}"):
        replay(str(out / "corpus"), str(catalog), rules, progress=False)
    assert snaps[1].read_bytes().endswith(b"whatever")  # not overwritten
