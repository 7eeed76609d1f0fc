"""`import-nzb`: NZB files become catalog releases (issue 28), on real NZBs and broken ones."""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.synthetic_catalog import write_synthetic_catalog
from cli.main import main
from pipelines.catalog.layout import IMPORT_BASE
from pipelines.catalog.partitions import list_table
from pipelines.corpus.fs import open_fs
from pipelines.nzb.export import export_nzbs
from pipelines.nzbimport.document import MalformedNzb, read_nzb
from pipelines.nzbimport.release import build_release, category_id, normalise_group
from pipelines.nzbimport.run import Importer, import_paths
from pipelines.nzbimport.store import INTENT, undo_unlogged
from tests.catalogs import app_client, catalog_files
from tests.shared_data import DATA, needs_data

NZBS = DATA / "nzb"
pytestmark = needs_data("nzb")
NOW = 1_700_000_000


def nzb(*files: str, head: str = "") -> bytes:
    return (f'<?xml version="1.0"?><nzb xmlns="http://www.newzbin.com/DTD/2003/nzb">'
            f"<head>{head}</head>{''.join(files)}</nzb>").encode()  # fmt: skip


def file_entry(subject: str, ids: list[str], groups: str = "alt.binaries.test",
               date: int = NOW, first: int = 1) -> str:  # fmt: skip
    segs = "".join(
        f'<segment bytes="700000" number="{n}">{i}</segment>' for n, i in enumerate(ids, first)
    )
    subject = subject.replace('"', "&quot;")
    group_tags = "".join(f"<group>{g}</group>" for g in groups.split())
    return (f'<file poster="p &lt;p@x&gt;" date="{date}" subject="{subject}">'
            f"<groups>{group_tags}</groups><segments>{segs}</segments></file>")  # fmt: skip


def released(data: bytes, path: str = "x.nzb"):
    rel = build_release(read_nzb(data), path, NOW)
    assert rel is not None
    return rel


def expected_names(txt: Path) -> list[str]:
    lines = [x for x in txt.read_text().splitlines() if x and not x.startswith("#")]
    return sorted(lines[1:])


@pytest.mark.parametrize("name", ["plain", "dotless"])
def test_real_nzbs_give_the_files_their_expected_parse_lists(name):
    rel = released((NZBS / f"{name}.nzb").read_bytes(), f"{name}.nzb")
    assert sorted(str(f["name"]) for f in rel.files) == expected_names(NZBS / f"{name}.txt")


def test_the_name_comes_from_the_title_then_the_file_name_then_the_subjects():
    entry = file_entry('Some.Show.S01E02.720p [1/1] - "abc.mkv" yEnc (1/2)', ["a@x", "b@x"])
    titled = nzb(entry, head='<meta type="title">The Title</meta>')
    assert released(titled, "dir/other.nzb").release["name"] == "The Title"
    assert released(nzb(entry), "dir/Named.Release.nzb.gz").release["name"] == "Named.Release"
    assert released(nzb(entry), "").release["name"] == "Some.Show.S01E02.720p"


def test_the_category_comes_from_the_meta_else_the_name():
    entry = file_entry('"Some.Show.S01E02.720p.HDTV.x264-GRP.mkv" yEnc (1/1)', ["a@x"])
    assert (
        released(nzb(entry, head='<meta type="category">TV &gt; HD</meta>')).release["category"]
        == 5040
    )
    assert (
        released(nzb(entry), "Some.Show.S01E02.720p.HDTV.x264-GRP.nzb").release["category"] // 1000
        == 5
    )
    assert category_id("Apps > ISO") == 4020 and category_id("2040") == 2040
    assert category_id("nonsense") is None


def test_groups_are_normalised_and_unknown_groups_accepted():
    assert normalise_group(" A.B.TeeVee") == "alt.binaries.teevee"
    entry = file_entry('"x.rar" yEnc (1/1)', ["a@x"], groups="a.b.teevee my.own.group")
    rel = released(nzb(entry))
    assert rel.release["groups"] == ["alt.binaries.teevee", "my.own.group"]
    assert rel.group == "alt.binaries.teevee"


def test_duplicate_file_entries_collapse():
    one = file_entry('"x.part1.rar" yEnc (1/3)', ["a@x", "b@x"])
    again = file_entry('"x.part1.rar" yEnc (1/3)', ["b@x", "c@x"], first=2)
    rel = released(nzb(one, again, one))
    assert len(rel.files) == 1
    assert rel.files[0]["seg_numbers"] == [1, 2, 3]
    assert rel.files[0]["seg_ids"] == ["a@x", "b@x", "c@x"]
    assert rel.release["segments"] == 3


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"<nzb><file subject='x'><segments><segment number='1'>a@x", "broken_xml"),
        (b"this is no NZB at all", "not_xml"),
        (b'<?xml version="1.0"?><error code="201" description="x"/>', "not_nzb"),
        (gzip.compress(b"<nzb></nzb>")[:-6], "bad_gzip"),
    ],
)
def test_malformed_input_is_a_reason(data, reason):
    with pytest.raises(MalformedNzb) as e:
        read_nzb(data)
    assert e.value.reason == reason


def test_bad_segments_are_dropped_and_counted():
    doc = read_nzb(
        b"<nzb><file subject='\"x.rar\" yEnc (1/3)'><segments>"
        b"<segment number='1'>a@x</segment><segment number='z'>b@x</segment>"
        b"<segment number='3'></segment></segments></file></nzb>"
    )
    assert doc.bad_segments == 2 and len(doc.files[0].segments) == 1


def write(folder: Path, name: str, data: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    return folder / name


def test_every_outcome_is_counted_and_logged_and_a_second_run_adds_nothing(tmp_path):
    src, cat = tmp_path / "in", str(tmp_path / "cat")
    entry = file_entry('"a.mkv" yEnc (1/2)', ["1@a", "2@a"])
    write(src, "one.nzb", nzb(entry))
    write(src / "sub", "one-again.nzb.gz", gzip.compress(nzb(entry, head="<!-- -->")))
    write(src, "part.nzb", nzb(file_entry('"a.mkv" yEnc (1/2)', ["2@a"], first=2),
                               file_entry('"b.mkv" yEnc (1/1)', ["3@a"])))  # fmt: skip
    write(src, "empty.nzb", nzb())
    write(src, "broken.nzb", b"<nzb><file")
    write(src, "other.txt", b"not read: not an NZB's name")
    first = import_paths([str(src)], cat, now=NOW)
    assert dict(first.outcomes) == {
        "inserted": 1, "duplicate": 1, "linked": 1, "empty": 1, "malformed": 1
    }  # fmt: skip
    fs, root = open_fs(cat)
    log = pq.read_table(f"{cat}/_imports/log").to_pylist()
    assert sorted(r["outcome"] for r in log) == ["duplicate", "empty", "inserted", "linked",
                                                 "malformed"]  # fmt: skip
    inserted = next(r for r in log if r["outcome"] == "inserted")
    assert inserted["path"].endswith("one.nzb") and inserted["article"] == IMPORT_BASE
    linked = next(r for r in log if r["outcome"] == "linked")
    assert linked["release_key"] == inserted["release_key"] and linked["shared_segments"] == 1
    assert next(r for r in log if r["outcome"] == "malformed")["reason"] == "broken_xml"
    before = catalog_files(Path(cat))
    again = import_paths([str(src)], cat, now=NOW)
    assert again.outcomes["duplicate"] == 5 and catalog_files(Path(cat)) == before
    assert len(list_table(fs, root, "releases")) == 1


def test_an_nzb_of_a_release_the_catalog_holds_links_to_it(tmp_path):
    cat = str(tmp_path / "cat")
    write_synthetic_catalog(cat, 300, groups=1, per_range=100, seed=4)
    export_nzbs(cat, str(tmp_path / "nzbs"))
    nzbs = sorted((tmp_path / "nzbs").glob("*.nzb"))[:20]
    before = catalog_files(Path(cat))
    s = import_paths([str(p) for p in nzbs], cat, now=NOW)
    assert s.outcomes["linked"] == len(nzbs), s.text()
    log = pq.read_table(f"{cat}/_imports/log").to_pylist()
    assert {r["release_key"].hex() + ".nzb" for r in log} == {p.name for p in nzbs}
    after = catalog_files(Path(cat))
    assert {k: v for k, v in after.items() if not k.startswith("_imports")} == before
    assert s.partitions_read < 10


def test_another_posters_nzb_of_the_same_articles_still_links_before_inserting(tmp_path):
    cat = str(tmp_path / "cat")
    write_synthetic_catalog(cat, 100, groups=1, per_range=100, seed=4)
    export_nzbs(cat, str(tmp_path / "nzbs"))
    path = sorted((tmp_path / "nzbs").glob("*.nzb"))[0]
    renamed = re.sub(rb'poster="[^"]*"', b'poster="someone else &lt;x@y&gt;"', path.read_bytes())
    (tmp_path / "other.nzb").write_bytes(renamed)
    with Importer(cat, now=NOW) as importer:
        # waiting (a spot's NZB): only its posters' releases are looked at
        assert importer.add("spot", "s@spot.net", renamed, insert=False).outcome == "waiting"
        # before inserting, any release of its groups and days
        linked = importer.add("file", str(tmp_path / "other.nzb"), renamed)
    assert linked.outcome == "linked" and linked.release_key == bytes.fromhex(path.stem)


def test_an_imported_release_is_searched_and_its_nzb_downloaded(tmp_path):
    cat = str(tmp_path / "cat")
    write_synthetic_catalog(cat, 100, groups=1, per_range=100, seed=4)
    shutil.copy(NZBS / "plain.nzb", tmp_path / "ubuntu-desktop.nzb")
    s = import_paths([str(tmp_path / "ubuntu-desktop.nzb")], cat, now=NOW)
    assert s.outcomes["inserted"] == 1
    key = pq.read_table(f"{cat}/_imports/log")["release_key"][0].as_py()
    with app_client(cat) as client:
        found = client.get("/api", params={"t": "search", "q": "ubuntu-desktop", "apikey": "k1",
                                           "o": "json"})  # fmt: skip
        assert key.hex() in found.text, found.text[:500]
        got = client.get("/api", params={"t": "get", "id": key.hex(), "apikey": "k1"})
        assert got.status_code == 200
        doc = read_nzb(got.content)
        ids = sorted(s.message_id for f in doc.files for s in f.segments)
        assert ids == sorted(s.message_id for f in read_nzb((NZBS / "plain.nzb").read_bytes())
                             .files for s in f.segments)  # fmt: skip


def test_a_batch_killed_before_its_log_is_undone(tmp_path):
    src, cat = tmp_path / "in", str(tmp_path / "cat")
    write(src, "one.nzb", nzb(file_entry('"a.mkv" yEnc (1/1)', ["1@a"])))
    import_paths([str(src)], cat, now=NOW)
    fs, root = open_fs(cat)
    log = next(Path(cat, "_imports/log").glob("*.parquet"))
    log.unlink()  # as if killed between the partitions and the log: the intent stays
    Path(cat, INTENT).write_text(
        f'{{"first": {IMPORT_BASE}, "last": {IMPORT_BASE}, "groups": ["alt.binaries.test"]}}'
    )
    assert undo_unlogged(fs, root) == 2
    assert list_table(fs, root, "releases") == []
    assert import_paths([str(src)], cat, now=NOW).outcomes["inserted"] == 1


@pytest.mark.slow
def test_an_nzb_of_100k_segments_is_imported(tmp_path):
    ids = [f"{n}@big" for n in range(100_000)]
    files = [file_entry(f'"big.part{k:03d}.rar" yEnc (1/1000)', ids[k * 1000 : (k + 1) * 1000])
             for k in range(100)]  # fmt: skip
    write(tmp_path / "in", "big.nzb", nzb(*files))
    s = import_paths([str(tmp_path / "in")], str(tmp_path / "cat"), now=NOW)
    assert s.outcomes["inserted"] == 1 and s.segments == 100_000


def test_the_command_prints_the_summary(tmp_path, capsys):
    assert main(["import-nzb", str(NZBS), "--catalog", str(tmp_path / "cat"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "inserted" in out and "malformed" not in out.split("\n")[0].split("(")[0]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 100_000), st.binary(max_size=6), st.integers(0, 4)),
                min_size=1, max_size=5))  # fmt: skip
def test_a_mangled_nzb_is_an_outcome_never_a_crash(tmp_path_factory, edits):
    data = bytearray((NZBS / "nyuu_posted.nzb").read_bytes())
    for at, piece, cut in edits:
        at %= len(data)
        data[at : at + cut] = piece
    with Importer(str(tmp_path_factory.mktemp("cat")), now=NOW) as importer:
        out = importer.add("file", "x.nzb", bytes(data))
    assert out.outcome in ("inserted", "linked", "duplicate", "empty", "malformed")
