"""The PreDB import: nZEDb's real daily dumps, JSON lines and CSV; idempotent, every
source kept, nuke history kept, bad lines counted and never costing a good one."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import numpy as np

from pipelines.predb import keys as K
from pipelines.predb import lookup as L
from pipelines.predb.importer import import_files
from pipelines.predb.lines import dump_line, size_bytes
from pipelines.predb.store import batches
from tests.predb_catalog import MIB
from tests.shared_data import DATA, needs_data

DUMPS = DATA / "predb"
needs_dumps = needs_data("predb")


def _titles_by_hand(folder: Path) -> set[str]:
    """The dumps' distinct titles, read the plain way: the first quoted field."""
    out = set()
    for f in sorted(folder.glob("*.gz")):
        for line in gzip.open(f, "rt", errors="surrogateescape"):  # noqa: SIM115
            first = line.split("\t\t", 1)[0]
            if first.startswith("'") and first.endswith("'") and len(first) > 2:
                out.add(first[1:-1].replace("\\'", "'"))
    return out


@needs_dumps
def test_real_dumps_import_every_pre_once(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    first = import_files(cat, [str(DUMPS)])
    expected = _titles_by_hand(DUMPS)
    assert first.pres == len(expected) > 10_000
    assert first.bad.total == 0, first.bad.counts
    assert first.nuke_events > 0
    lookup = L.load(cat)
    assert lookup.n == len(expected)
    assert lookup.generation  # the compact lookup was written
    rows = lookup.rows_of_titles(sorted(expected))
    assert None not in rows
    events = batches(cat, "events")
    again = import_files(cat, [str(DUMPS)])
    assert (again.pres, again.nuke_events) == (0, 0)
    assert again.known == first.lines
    assert batches(cat, "events") == events  # nothing written


@needs_dumps
def test_a_real_nuked_pre_keeps_its_reason() -> None:
    line = None
    for f in sorted(DUMPS.glob("*.gz")):
        for raw in gzip.open(f, "rt", errors="surrogateescape"):  # noqa: SIM115
            if "\t\t'2'\t\t'" in raw:
                line = raw
                break
        if line:
            break
    assert line is not None
    pre = dump_line(line, "dump")
    assert not isinstance(pre, str)
    assert pre.nuke == "nuke" and pre.reason


def test_dump_fields_read_as_nzedb_writes_them() -> None:
    line = (
        "'Ania_Iwinska-Dangerous_EP-(SLEAZYG015)-WEB-2014-CBR'\t\t\\N\t\t'59.8MB'\t\t'6x60'\t\t"
        "''\t\t'0'\t\t\\N\t\t'MP3'\t\t'2014-07-08 13:25:01'\t\t'orlydb'\t\t'365475'\t\t"
        "'alt.binaries.inner-sanctum'\n"
    )
    pre = dump_line(line, "f")
    assert not isinstance(pre, str)
    assert pre.title == "Ania_Iwinska-Dangerous_EP-(SLEAZYG015)-WEB-2014-CBR"
    assert pre.size == int(59.8 * (1 << 20)) and pre.files == 6
    assert (pre.category, pre.source, pre.nuke) == ("MP3", "orlydb", "")
    assert (pre.request_id, pre.request_group) == (365475, "alt.binaries.inner-sanctum")
    assert pre.pre_time == 1404825901
    assert size_bytes("2400MB") == 2400 << 20 and size_bytes("D5") is None


def _dump_line(
    title: str, nuked: int = 0, reason: str | None = None, when: str = "2020-01-02 03:04:05"
) -> str:
    r = "\\N" if reason is None else f"'{reason}'"
    return (
        f"'{title}'\t\t\\N\t\t'100MB'\t\t'10F'\t\t''\t\t'{nuked}'\t\t{r}\t\t'TV'\t\t'{when}'\t\t"
        f"'src'\t\t'0'\t\t\\N\n"
    )


def test_malformed_lines_are_counted_and_cost_no_good_line(tmp_path: Path) -> None:
    good = [_dump_line(f"Good.Title.{i}-GRP") for i in range(50)]
    bad = [
        "'Too.Few-GRP'\t\t\\N\n",  # fields
        _dump_line("Bad.Time-GRP", when="yesterday"),  # time
        _dump_line("Bad.Nuke-GRP", nuked=9),  # nuke state unknown
        _dump_line("Bad.Nuke-GRP").replace("'0'", "zero", 1),  # quoting
        "\x00\x01garbage\t\tline\n",
        _dump_line(" Spaced.Title-GRP"),  # title
    ]
    lines = []
    for i, g in enumerate(good):
        lines.append(g)
        lines.append(bad[i % len(bad)])
    path = tmp_path / "1700000000_predb_dump.csv.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("".join(lines))
    s = import_files(str(tmp_path / "cat"), [str(path)])
    assert s.pres == 50
    assert s.bad.total == 50
    assert set(s.bad.counts) == {"fields", "time", "nuke", "quoting", "title"}


def test_nukes_unnukes_and_renukes_keep_their_history(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    title = "Some.Show.S01E01.720p.HDTV.x264-GRP"
    steps = [
        {"title": title, "time": 1_700_000_000, "source": "first-source", "size": "700MB"},
        {"title": title, "time": 1_700_000_000, "source": "second", "nuked": 2, "reason": "dupe.A"},
        {"title": title, "time": 1_700_000_000, "source": "second", "nuked": 1, "reason": "fine"},
        {
            "title": title,
            "time": 1_700_000_000,
            "source": "third",
            "nuke": "renuked",
            "reason": "dupe.B",
        },
    ]
    clock = iter(range(1_800_000_000, 1_800_000_100))
    for i, rec in enumerate(steps):
        p = tmp_path / f"step{i}.jsonl"
        p.write_text(json.dumps(rec) + "\n")
        import_files(cat, [str(p)], now=lambda: next(clock))
    lookup = L.load(cat)
    (row,) = lookup.rows_of_titles([title])
    assert row is not None
    pre = lookup.pre(row)
    assert (pre["source"], pre["seen_at"]) == ("first-source", 1_800_000_000)
    assert (pre["nuke"], pre["nuke_reason"], pre["nuke_events"], pre["nuked"]) == (
        "renuke",
        "dupe.B",
        3,
        True,
    )
    again = import_files(cat, [str(tmp_path / "step3.jsonl")])
    assert (again.pres, again.nuke_events) == (0, 0)


def test_csv_and_json_lines(tmp_path: Path) -> None:
    csv_path = tmp_path / "pres.csv"
    csv_path.write_text(
        "title,pre_time,category,size,files,source\n"
        "A.Movie.2020.1080p.BluRay.x264-GRP,2020-05-01T10:00:00Z,Movie HD-1080p,8000MB,80,csvsrc\n"
        "B.Show.S02E03.720p.WEB.h264-GRP,1588327200,TV-X264,1.2GB,,csvsrc\n"
        ",1588327200,TV,,,\n"
    )
    jl = tmp_path / "pres.jsonl"
    jl.write_text('{"title": "C.Album-WEB-2020-GRP", "time": 1588327200}\n{not json}\n["list"]\n')
    s = import_files(str(tmp_path / "cat"), [str(csv_path), str(jl)])
    assert s.pres == 3
    assert dict(s.bad.counts) == {"title": 1, "json": 1, "not_object": 1}
    lookup = L.load(str(tmp_path / "cat"))
    row = lookup.rows_of_titles(["B.Show.S02E03.720p.WEB.h264-GRP"])[0]
    assert row is not None
    assert lookup.pre(row)["size"] == int(1.2 * (1 << 30))


def test_the_lookup_finds_every_hash_kind(tmp_path: Path) -> None:
    title = "Mixed.Case.Title.2020.720p.WEB.h264-GRP"
    p = tmp_path / "p.jsonl"
    p.write_text(json.dumps({"title": title, "time": 1_600_000_000}) + "\n")
    cat = str(tmp_path / "cat")
    import_files(cat, [str(p)])
    lookup = L.load(cat)
    spelled = {
        "md5": hashlib.md5(title.encode()).hexdigest(),
        "md5_md5": hashlib.md5(hashlib.md5(title.encode()).hexdigest().encode()).hexdigest(),
        "sha1": hashlib.sha1(title.encode()).hexdigest(),
        "sha256": hashlib.sha256(title.encode()).hexdigest(),
        "md5_lower": hashlib.md5(title.lower().encode()).hexdigest(),
        "sha256_lower": hashlib.sha256(title.lower().encode()).hexdigest().upper(),
    }
    for method, name in spelled.items():
        _, _, variants = lookup.find(K.name_keys(name + ".part01.rar"))
        got = {K.VARIANTS[int(v)][0] for v in variants.tolist() if v}
        assert method in got, (method, got)
        assert all(K.verify(title, int(v), name) for v in variants.tolist())
    assert not K.verify(title, 1, "0" * 32)


def test_every_line_is_counted_once_repeats_in_one_chunk_too(tmp_path: Path) -> None:
    """A title repeated within one chunk counts its repeats as known; a nuke of a pre first
    seen in that same line is one line that added two events (the pre and its nuke)."""
    jl = tmp_path / "pres.jsonl"
    lines = ['{"title": "D.Pre-GRP", "time": 1588327200}'] * 4 + [
        '{"title": "E.Pre-GRP", "time": 1588327200, "nuke": "nuke", "reason": "dupe"}',
        '{"title": "F.Pre-GRP", "time": 1588327200}',
    ]
    jl.write_text("\n".join(lines) + "\n")
    s = import_files(str(tmp_path / "cat"), [str(jl)])
    assert (s.lines, s.pres, s.nuke_events, s.known) == (6, 3, 1, 3)
    again = import_files(str(tmp_path / "cat"), [str(jl)])
    assert (again.pres, again.nuke_events, again.known) == (0, 0, 6)


def test_a_later_line_fills_in_what_the_pre_lacks_and_never_overwrites(tmp_path: Path) -> None:
    """An IRC channel announces a pre bare (`NEW:`) and tells its size and files later
    (`UPD:`): the pre takes them (an `upd` event), keeps its first source and time, keeps
    a size once told, and a repeat of the update adds nothing; a new generation holds it."""
    from pipelines.predb.announce import parse_announce
    from pipelines.predb.importer import ImportSummary, add_lines

    cat = str(tmp_path / "cat")
    title = "Some.Show.S02E03.1080p.WEB.h264-GRP"
    when = "[DT: 2026-08-14 05:12:33]"
    new = parse_announce(f"NEW: {when} [TT: {title}] [SC: PRE] [CT: N/A]", "pre")
    upd = parse_announce(f"UPD: {when} [TT: {title}] [SZ: 520MB] [FL: 15] [CT: TV-X264]", "x")
    again = parse_announce(f"UPD: {when} [TT: {title}] [SZ: 999MB] [FN: other.r00]", "x")
    assert new is not None and upd is not None and again is not None
    lookup = L.load(cat)
    s = ImportSummary()
    add_lines(cat, [new], lookup, s, live=True, now=lambda: 100)
    (row,) = lookup.rows_of_titles([title])
    assert row is not None and lookup.pre(row)["size"] is None
    add_lines(cat, [upd], lookup, s, live=True, now=lambda: 200)
    add_lines(cat, [upd], lookup, s, live=True, now=lambda: 300)  # a repeat: nothing
    add_lines(cat, [again], lookup, s, live=True, now=lambda: 400)  # the size is held
    assert (s.pres, s.updates, s.known) == (1, 2, 1)
    for view in (lookup, L.load(cat)):  # in memory, and as every reader folds the events
        pre = view.pre(row)
        assert (pre["size"], pre["files"], pre["category"]) == (520 * MIB, 15, "TV-X264")
        assert (pre["filename"], pre["source"], pre["seen_at"]) == ("other.r00", "PRE", 100)
        assert view.column("size", np.array([row])).to_pylist() == [520 * MIB]
    L.rebuild(lookup)
    assert L.load(cat).pre(row)["size"] == 520 * MIB


def test_lines_of_one_chunk_fill_in_a_new_pre(tmp_path: Path) -> None:
    cat = str(tmp_path / "cat")
    title = "Film.Name.2024.720p.BluRay.x264-GRP"
    path = tmp_path / "pres.jsonl"
    path.write_text(
        json.dumps({"title": title, "time": 1_700_000_000, "source": "a"}) + "\n"
        + json.dumps({"title": title, "time": 1_700_000_000, "source": "b", "size": "700MB"})
        + "\n"
    )  # fmt: skip
    s = import_files(cat, [str(path)])
    assert (s.pres, s.updates, s.known) == (1, 0, 1)
    lookup = L.load(cat)
    (row,) = lookup.rows_of_titles([title])
    assert row is not None
    assert (lookup.pre(row)["source"], lookup.pre(row)["size"]) == ("a", 700 * MIB)
