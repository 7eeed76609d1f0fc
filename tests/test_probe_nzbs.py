"""NZBs the article pass finds in uploads (issue 28): an upload's own `.nzb` (posted as
its file 0) and an NZB posted as an upload of its own are probe candidates; the article
pass reads them and imports them on the path every NZB takes (`pipelines.nzbimport`).

On the generator's truth: every `.nzb` an upload posts lists that upload's other files, so
it links to the release the header pass built of them and adds nothing; a second pass
fetches and imports nothing; a pass killed after its import and before its cache batch
imports nothing twice. An NZB listing articles the catalog does not hold becomes a release
of its own, shown at once; a malformed one and one cut over several parts are counted,
never a crash.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.articles.store import BodyStore, open_bodies
from pipelines.catalog.partitions import list_table
from pipelines.corpus.fs import open_fs
from pipelines.nzbimport.release import SOURCE as IMPORTED
from pipelines.probe import inspection as ins
from pipelines.probe import nzbs, run
from pipelines.probe.cache import ProbeCache
from pipelines.probe.fetch import StoreSource
from pipelines.probe.inspect import inspect_body
from pipelines.probe.inspection import Inspection
from pipelines.probe.ladder import Climb
from pipelines.probe.magic import is_nzb
from pipelines.probe.nzbs import NzbTap, import_span
from pipelines.probe.run import ProbeSummary, probe_catalog
from pipelines.probe.source import OnResult
from pipelines.probe.spans import Span
from pipelines.probe.yenc import encode_part
from tests.catalogs import shown_releases
from tests.corpora import indexed

NZB = (
    b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE nzb PUBLIC "-//newzBin//DTD NZB 1.1//EN"'
    b' "http://www.newzbin.com/DTD/nzb/nzb-1.1.dtd">\n<nzb xmlns="http://www.newzbin.com/DTD/'
    b'2003/nzb"><head><meta type="title">Foreign.Upload.2024.1080p.WEB.h264-GRP</meta></head>'
    b'<file poster="a &lt;a@b&gt;" date="1489440000" subject="&quot;foreign.mkv&quot; yEnc (1/2)">'
    b"<groups><group>alt.binaries.elsewhere</group></groups><segments>"
    b'<segment bytes="700000" number="1">f1@elsewhere</segment>'
    b'<segment bytes="300000" number="2">f2@elsewhere</segment></segments></file></nzb>\n'
)


def _rows(catalog: Path, table: str) -> list[dict[str, Any]]:
    fs, root = open_fs(str(catalog))
    return [r for p in list_table(fs, root, table, stat=False)
            for r in pq.read_table(p.path).to_pylist()]  # fmt: skip


def _imports(catalog: Path) -> list[dict[str, Any]]:
    out = []
    for path in sorted((catalog / "_imports").rglob("*.parquet")):
        t = pq.read_table(path)
        if "origin" in t.column_names:
            out += t.to_pylist()
    return out


class Swapped:
    """Stored bodies, but these message-ids answer with other bodies (an NZB posted to a
    group, whatever the generator put there)."""

    def __init__(self, store: BodyStore, bodies: dict[str, bytes]) -> None:
        self.inner = StoreSource(store)
        self.bodies = bodies

    @property
    def gave_up(self) -> bool:
        return False

    def fetch(self, message_ids: Iterable[str], on_result: OnResult) -> None:
        rest = []
        for mid in message_ids:
            if mid in self.bodies:
                on_result(mid, inspect_body(self.bodies[mid]))
            else:
                rest.append(mid)
        self.inner.fetch(rest, on_result)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("nzbs")
    return indexed(tmp, groups=2, articles=40_000, seed=3, range_size=10_000, chunk=2_500)


def _nzb_candidates(catalog: Path) -> list[dict[str, Any]]:
    return [r for r in _rows(catalog, "probe_candidates") if r["kind"] == "nzb_file"]


def test_an_uploads_own_nzb_links_to_its_release_and_adds_nothing(
    corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    out, built = corpus
    catalog = tmp_path / "cat"
    _copy(built, catalog)
    candidates = _nzb_candidates(catalog)
    assert candidates, "the generator's nzb_first uploads give NZB candidates"
    summary = probe_catalog(str(catalog), StoreSource(open_bodies(str(out))))
    logged = _imports(catalog)
    # each read NZB lists its upload's other files: the release holding them is its own
    assert {r["release_key"] for r in logged} == {c["release_key"] for c in candidates}
    assert all(r["outcome"] == "linked" and r["origin"] == "posted" for r in logged)
    assert summary.nzbs == {"linked": len(candidates)}
    by_key = {c["release_key"]: c["message_id"] for c in candidates}
    assert all(f"<{by_key[r['release_key']]}>" in r["path"] for r in logged)
    after, _ = shown_releases(catalog)
    assert not [r for r in after if r["source"] == IMPORTED]  # linked: nothing inserted

    again = probe_catalog(str(catalog), StoreSource(open_bodies(str(out))))
    assert again.fetched == 0 and not again.nzbs and len(_imports(catalog)) == len(logged)


def test_an_nzb_of_articles_the_catalog_lacks_is_a_release_shown_at_once(
    corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    catalog, target, summary = _probe_posting(corpus, tmp_path, NZB)
    assert summary.nzbs["inserted"] == 1
    shown, segments = shown_releases(catalog)
    mine = [r for r in shown if r["name"] == "Foreign.Upload.2024.1080p.WEB.h264-GRP"]
    assert len(mine) == 1 and mine[0]["source"] == IMPORTED
    assert {s["n"] for s in segments if s["release_key"] == mine[0]["release_key"]} == {1, 2}
    (row,) = [r for r in _imports(catalog) if r["outcome"] == "inserted"]
    assert target["message_id"] in row["path"] and row["group"]


def test_a_pass_killed_after_its_import_imports_nothing_twice(
    corpus: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, built = corpus
    catalog = tmp_path / "cat"
    _copy(built, catalog)

    imported: list[int] = []
    flush, import_span = ProbeCache.flush, run.import_span

    def importing(*args: Any) -> Any:
        found = import_span(*args)
        imported.append(sum(found.values()))
        return found

    def killed(self: ProbeCache) -> int:
        if any(imported):
            raise KeyboardInterrupt  # the process dies between the import and the cache
        return flush(self)

    with monkeypatch.context() as m:
        m.setattr(run, "import_span", importing)
        m.setattr(ProbeCache, "flush", killed)
        with pytest.raises(KeyboardInterrupt):
            probe_catalog(str(catalog), StoreSource(open_bodies(str(out))))
    first = _imports(catalog)
    assert first
    summary = probe_catalog(str(catalog), StoreSource(open_bodies(str(out))))
    assert summary.fetched > 0  # the articles were not cached: fetched again
    assert summary.nzbs["duplicate"] == len(first)  # those imported before the kill
    kept = [r for r in _imports(catalog) if r["outcome"] != "duplicate"]
    assert all(r in kept for r in first)
    assert len({r["nzb_sha1"] for r in kept}) == len(kept) == len(_nzb_candidates(catalog))


def _probe_posting(
    corpus: tuple[Path, Path], tmp_path: Path, nzb: bytes
) -> tuple[Path, dict[str, Any], ProbeSummary]:
    """The module's catalog copied and probed, its first NZB candidate's article holding
    `nzb` (an NZB posted to a group): the catalog, that candidate, the summary."""
    out, built = corpus
    catalog = tmp_path / "cat"
    _copy(built, catalog)
    target = _nzb_candidates(catalog)[0]
    posted = {target["message_id"]: encode_part(nzb, "posted.nzb", file_size=len(nzb))}
    return catalog, target, probe_catalog(str(catalog), Swapped(open_bodies(str(out)), posted))


def _copy(src: Path, dst: Path) -> None:
    import shutil

    shutil.copytree(src, dst)  # the module's catalog, never probed: each test probes its own


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (NZB, "x.nzb"),
        (b"\xef\xbb\xbf" + NZB, "x.bin"),  # a BOM, and a name that says nothing
        (gzip.compress(NZB), "x.nzb.gz"),
    ],
)
def test_an_nzb_part_is_read_whole_or_said_cut(data: bytes, name: str) -> None:
    one = inspect_body(encode_part(data, name, file_size=len(data)))
    assert one.status == ins.OK and one.kind == ins.NZB and one.nzb == data
    cut = inspect_body(encode_part(data[:300], name, file_size=len(data), total=2))
    assert cut.kind == ins.NZB and cut.nzb == data[:300] and cut.nzb_at == 0
    assert "several" in cut.detail


def test_what_is_no_nzb_is_not_taken_for_one() -> None:
    assert not is_nzb(b'<?xml version="1.0"?><rss version="2.0">', "feed.xml")
    assert not is_nzb(b"<nzbx>", "x.nzb")
    assert not is_nzb(gzip.compress(b"hello"), "x.tar.gz")
    assert is_nzb(b"  <nzb>", None)


def test_a_malformed_nzb_is_counted_never_a_crash(
    corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    broken = NZB[: len(NZB) // 2]  # cut mid-document: the XML never ends
    catalog, _, summary = _probe_posting(corpus, tmp_path, broken)
    assert summary.nzbs["malformed"] == 1
    (row,) = [r for r in _imports(catalog) if r["outcome"] == "malformed"]
    assert row["reason"]


def _posted_in_parts(tmp_path: Path, data: bytes, name: str, size: int, lost: int = 0):
    """A span whose one release is an NZB posted in parts of `size` bytes (the header
    pass's `release_files` row holding their message-ids), and a source serving them
    (but part `lost`, 1-based, when given)."""
    cat = tmp_path / "cat"
    key = bytes(20)
    chunks = [data[i : i + size] for i in range(0, len(data), size)]
    mids = [f"part{k}@nzb" for k in range(1, len(chunks) + 1)]
    bodies = {
        mid: encode_part(chunk, name, begin=k * size, file_size=len(data), part=k + 1,
                         total=len(chunks))
        for k, (mid, chunk) in enumerate(zip(mids, chunks, strict=True))
        if k + 1 != lost
    }  # fmt: skip
    folder = cat / "release_files" / "alt.binaries.nzb"
    folder.mkdir(parents=True)
    pq.write_table(
        pa.table({"release_key": pa.array([key], pa.binary(20)),
                  "seg_numbers": [list(range(len(mids), 0, -1))], "seg_ids": [mids[::-1]]}),
        folder / "0-999.parquet",
    )  # fmt: skip
    span = Span(
        "alt.binaries.nzb", 0, 999, str(cat / "probe_candidates/alt.binaries.nzb/0-999.parquet")
    )
    climb = Climb(key, span.group, False, "", "", 0, [(1, [mids[0]])])
    return cat, span, climb, Scripted(bodies)


class Scripted:
    """Bodies by message-id; any other is missing (430)."""

    def __init__(self, bodies: dict[str, bytes]) -> None:
        self.bodies = bodies
        self.gave_up = False

    def fetch(self, message_ids: Iterable[str], on_result: OnResult) -> None:
        for mid in message_ids:
            body = self.bodies.get(mid)
            on_result(mid, inspect_body(body) if body else Inspection(ins.MISSING))


@pytest.mark.parametrize("packed", [False, True])
def test_an_nzb_posted_in_parts_is_read_whole(tmp_path: Path, packed: bool) -> None:
    data = gzip.compress(NZB) if packed else NZB
    name = "foreign.nzb.gz" if packed else "foreign.nzb"
    cat, span, climb, source = _posted_in_parts(tmp_path, data, name, size=len(data) // 3 + 1)
    tap = NzbTap(source)
    tap.fetch([climb.steps[0][1][0]], lambda mid, result: None)  # the climb's read
    assert import_span(str(cat), span, [climb], tap) == {"inserted": 1}
    (row,) = _imports(cat)
    assert row["name"] == "Foreign.Upload.2024.1080p.WEB.h264-GRP" and row["segments"] == 2


def test_an_nzb_missing_a_part_is_counted_incomplete(tmp_path: Path) -> None:
    cat, span, climb, source = _posted_in_parts(tmp_path, NZB, "x.nzb", size=200, lost=2)
    tap = NzbTap(source)
    tap.fetch([climb.steps[0][1][0]], lambda mid, result: None)
    assert import_span(str(cat), span, [climb], tap) == {"incomplete": 1}
    assert not _imports(cat)


def test_an_nzb_of_too_many_parts_is_not_fetched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(nzbs, "MAX_PARTS", 2)
    cat, span, climb, source = _posted_in_parts(tmp_path, NZB, "x.nzb", size=200)
    tap = NzbTap(source)
    tap.fetch([climb.steps[0][1][0]], lambda mid, result: None)
    asked: list[str] = []
    fetch = source.fetch
    source.fetch = lambda mids, on: fetch(asked.extend(mids) or mids, on)  # type: ignore[method-assign]
    assert import_span(str(cat), span, [climb], tap) == {"too_large": 1}
    assert asked == []
