"""The merge rules on small catalogs: par2 by hash and by name, the name pass, sidecars,
the windows, the common-hash rule, never two uploads, completeness, and what readers see
of a merge (newest versions in DuckDB and `newest_rows`, the NZB of the whole)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.partitions import list_table
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.versions import hidden, newest_rows, newest_sql
from pipelines.catalog.views import CatalogViews
from pipelines.corpus.fs import open_fs
from pipelines.merge.run import merge_catalog
from pipelines.merge.store import merges
from pipelines.nzb.assemble import merge_release_rows
from pipelines.nzb.export import export_nzbs
from pipelines.nzb.lookup import ReleaseFilesLookup
from tests.merge_catalog import GROUP, HOUR, T0, MergeCatalog, md5

MB = 1 << 20


def shown(catalog: str) -> dict[bytes, dict]:
    """The newest visible version of each key, as the catalog's DuckDB views give it."""
    views = CatalogViews(catalog)
    rows = views.query("SELECT * FROM releases").to_pylist()
    return {r["release_key"]: r for r in rows}


def versions_table(catalog: str) -> pa.Table:
    fs, root = open_fs(catalog)
    parts = list_table(fs, root, "releases", stat=False)
    return pa.concat_tables([read_parquet(fs, p.path) for p in parts], promote_options="default")


def per_file_upload(cat: MergeCatalog, label: str, posted: int = T0, files: int = 3,
                    span: tuple[int, int] = (0, 999)) -> tuple[bytes, list[bytes]]:  # fmt: skip
    """An obfuscated upload whose files each became a pending release; its par2 index
    another, named by the article pass from the set."""
    listed = [(f"{label}.Movie.2020.part{i + 1:02d}.rar", 50 * MB, md5(f"{label}{i}"))
              for i in range(files)]  # fmt: skip
    holder = cat.release(
        f"{label}-par2", f"{label}x9f3", [(f"{label}a8e1.par2", 40_000)],
        span=span, posted=posted, pending=True, named=f"{label}.Movie.2020",
    )  # fmt: skip
    cat.par2(holder, f"{label}a8e1.par2", label, listed)
    parts = []
    for i, (_, size, head) in enumerate(listed):
        file_name = f"{label}{i}q7z2kd0{i}.bin"
        key = cat.release(f"{label}-{i}", file_name, [(file_name, size + size // 30)],
                          span=span, posted=posted + 60 * (i + 1), pending=True)  # fmt: skip
        cat.head(key, file_name, head, size)
        parts.append(key)
    return holder, parts


def test_par2_merge_joins_an_obfuscated_upload_into_its_named_holder(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    holder, parts = per_file_upload(cat, "aaa")
    catalog = cat.write()

    summary = merge_catalog(catalog)
    assert summary.absorbed == {"par2": 3} and summary.wholes == 1

    rows = shown(catalog)
    assert set(rows) == {holder}  # the parts are hidden; the whole stands under the holder
    whole = rows[holder]
    assert whole["name"] == "aaa.Movie.2020" and whole["files"] == 4
    assert whole["complete"] is True  # no counter: every file the set lists is there
    assert whole["first_article"] == min(r["first_article"] for r in cat.pending)
    record = merges(catalog).to_pylist()
    assert {(r["from_key"], r["into_key"], r["via"]) for r in record} == {
        (k, holder, "par2") for k in parts
    }
    assert all(r["par2_set"] == md5("aaa")[:16] for r in record)

    # the newest-version rule, as the search index applies it, hides the parts too
    table = versions_table(catalog)
    newest = table.take(pa.array(newest_rows(table)))
    visible = newest.filter(pa.array(~hidden(newest)))
    assert visible["release_key"].to_pylist() == [holder]
    con = duckdb.connect()
    con.register("v", table)
    assert [
        r[0] for r in con.execute(f"SELECT release_key FROM ({newest_sql('v')})").fetchall()
    ] == [holder]


def test_a_merged_release_nzb_holds_every_file(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path / "cat"))
    holder, _ = per_file_upload(cat, "bbb")
    catalog = cat.write()
    merge_catalog(catalog)
    whole = shown(catalog)[holder]
    fs, root = open_fs(catalog)
    rows = ReleaseFilesLookup(fs, root).rows(
        GROUP, holder, whole["first_article"], whole["last_article"]
    )
    expected = {f["name"] for f in cat.files}
    assert set(rows["name"].to_pylist()) == expected
    assert merge_release_rows(rows).segments == 2 * len(expected)
    out = tmp_path / "nzb"
    export_nzbs(catalog, str(out))
    nzb = (out / f"{holder.hex()}.nzb").read_text()
    assert all(name in nzb for name in expected)
    assert len(list(out.glob("*.nzb"))) == 1  # no NZB of an absorbed key


def test_two_uploads_with_different_par2_sets_never_merge(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    one, one_parts = per_file_upload(cat, "one")
    two, two_parts = per_file_upload(cat, "two", posted=T0 + HOUR)
    # a file both sets describe (one upload's file posted in the other too): neither takes it
    both = cat.release("both", "zz9f", [("zz9f.bin", 60 * MB)], pending=True)
    cat.head(both, "zz9f.bin", md5("one0"), 50 * MB)
    cat.results[-1]["head_md5"] = md5("one0")
    two_set = next(r for r in cat.results if r["par2_set"] == md5("two")[:16])
    two_set["names"].append("shared.rar")
    two_set["sizes"].append(50 * MB)
    two_set["hashes"].append(md5("one0"))
    catalog = cat.write()

    merge_catalog(catalog)
    into = {r["from_key"]: r["into_key"] for r in merges(catalog).to_pylist()}
    assert both not in into
    assert one_parts[1] in into and into[one_parts[1]] == one
    assert all(into[k] == two for k in two_parts)
    assert one not in into and two not in into  # two holders of two sets stay two releases


def test_a_common_hash_matches_nothing(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    holder, parts = per_file_upload(cat, "ccc")
    # 21 files elsewhere share the first part's (hash, size): a common file
    for i in range(21):
        key = cat.release(
            f"copy{i}", f"copy{i}", [(f"copy{i}.bin", 50 * MB)], posted=T0 - 30 * 24 * HOUR
        )
        cat.head(key, f"copy{i}.bin", md5("ccc0"), 50 * MB)
    catalog = cat.write()
    merge_catalog(catalog)
    into = {r["from_key"] for r in merges(catalog).to_pylist()}
    assert parts[0] not in into and {parts[1], parts[2]} <= into
    whole = shown(catalog)[holder]
    assert whole["files"] == 3 and whole["complete"] is False  # the common file's left out


def test_the_48_hour_window(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    listed = [(f"w{i}.mkv", 70 * MB, md5(f"w{i}")) for i in range(2)]
    holder = cat.release("wp", "Window.Test.2021", [("Window.Test.2021.par2", 30_000)])
    cat.par2(holder, "Window.Test.2021.par2", "w", listed)
    near = cat.release("near", "aa", [("aa.bin", 70 * MB)], posted=T0 + 47 * HOUR, pending=True)
    far = cat.release("far", "bb", [("bb.bin", 70 * MB)], posted=T0 + 49 * HOUR, pending=True)
    cat.head(near, "aa.bin", md5("w0"), 70 * MB)
    cat.head(far, "bb.bin", md5("w1"), 70 * MB)
    catalog = cat.write()
    merge_catalog(catalog)
    assert {r["from_key"] for r in merges(catalog).to_pylist()} == {near}
    whole = shown(catalog)[holder]
    assert whole["files"] == 2 and whole["complete"] is False  # w1 is not there


def test_par2_by_exact_name_and_the_name_pass(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    tracks = [f"Artist - Album - {i:02d} - Song {i}.flac" for i in range(1, 5)]
    listed = [(t, 30 * MB, md5(t)) for t in tracks]
    holder = cat.release("alb", "Artist - Album", [("Artist - Album.par2", 20_000),
                                                    (tracks[0], 31 * MB)])  # fmt: skip
    cat.par2(holder, "Artist - Album.par2", "alb", listed)
    exact = cat.release("t2", "Song 2", [(tracks[1], 31 * MB)], posted=T0 + 300)
    spelled = cat.release("t3", "Song 3", [("artist_-_album_-_03_-_song_3.FLAC", 31 * MB),
                                           ("cover.jpg", 200_000)], posted=T0 + 600)  # fmt: skip
    other = cat.release("t4", "Song 4", [("artist.album.04.song.4.flac", 31 * MB)],
                        posted=T0 + 900, poster="someone <else@example.com>")  # fmt: skip
    late = cat.release("t4b", "Song 4 again", [("Artist_Album_04_Song_4.flac", 31 * MB)],
                       posted=T0 + 13 * HOUR)  # fmt: skip
    catalog = cat.write()
    merge_catalog(catalog)
    via = {r["from_key"]: r["via"] for r in merges(catalog).to_pylist()}
    assert via == {exact: "par2", spelled: "name"}
    assert other not in via and late not in via  # another poster; past 12 h
    whole = shown(catalog)[holder]
    assert whole["name"] == "Artist - Album" and whole["files"] == 5
    assert whole["complete"] is False  # track 4 is not in the whole


def sidecar_setup(cat: MergeCatalog, offset: int, name: str, total: int | None = None) -> bytes:
    return cat.release(f"side{offset}{name}", name, [(f"{name}.nfo", 4000)],
                       posted=T0 + offset, file_total=total)  # fmt: skip


def test_sidecars_join_the_upload_sharing_a_word_within_ten_minutes(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    rars = [(f"s.part{i}.rar", 50 * MB) for i in range(1, 6)]
    show = cat.release("show", "Some.Show.S01E01.1080p", rars, file_total=5)
    cat.release("film", "Other.Film.2019", [(f"f.part{i}.rar", 50 * MB) for i in range(1, 4)],
                posted=T0 + 120, file_total=3)  # fmt: skip
    near = sidecar_setup(cat, 9 * 60, "Some.Show.S01E01")
    far = sidecar_setup(cat, 11 * 60 + 60, "Some.Show.S01E01.x")
    counter = sidecar_setup(cat, 5 * 60, "zz01", total=3)
    catalog = cat.write()
    summary = merge_catalog(catalog)
    into = {r["from_key"]: (r["into_key"], r["via"]) for r in merges(catalog).to_pylist()}
    assert into[near] == (show, "sidecar")
    assert far not in into  # posted 11 minutes after the upload's last post
    assert into[counter][0] != show  # no shared word: the one under its counter total
    assert summary.absorbed == {"sidecar": 2}
    assert shown(catalog)[show]["files"] == 6


def test_a_sidecar_two_uploads_would_take_equally_joins_none(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    cat.release("e1", "Some.Show.S01E01", [("a.part1.rar", 50 * MB)])
    cat.release("e2", "Some.Show.S01E02", [("b.part1.rar", 50 * MB)], posted=T0 + 60)
    side = sidecar_setup(cat, 120, "Some.Show.nfo")
    catalog = cat.write()
    merge_catalog(catalog)
    assert side not in {r["from_key"] for r in merges(catalog).to_pylist()}


def test_completeness_by_par2_needs_every_listed_file_whole(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    listed = [(f"c{i}.mkv", 70 * MB, md5(f"c{i}")) for i in range(2)]
    holder = cat.release("cp", "Complete.Test", [("Complete.Test.par2", 30_000)])
    cat.par2(holder, "Complete.Test.par2", "c", listed)
    for i in range(2):
        key = cat.release(f"c{i}", f"q{i}", [(f"q{i}.bin", 70 * MB)], pending=True,
                          short=(f"q{i}.bin",) if i == 1 else ())  # fmt: skip
        cat.head(key, f"q{i}.bin", md5(f"c{i}"), 70 * MB)
    catalog = cat.write()
    merge_catalog(catalog)
    whole = shown(catalog)[holder]
    assert whole["files"] == 3 and whole["complete"] is False  # c1 is short of parts
    assert pc.sum(merges(catalog)["written_range"]).as_py() == 2 * 1000


def test_names_compare_without_case_or_punctuation() -> None:
    from pipelines.merge.rules import plain_name, words

    assert plain_name("Artist_-_01_-_Intro.MP3") == plain_name("artist - 01 - intro.mp3")
    assert plain_name("CD1\\Ｔｒａｃｋ 01.flac") == "track01flac"  # folders cut, width folded
    assert plain_name("01 - Intro.mp3") != plain_name("01 - Outro.mp3")
    assert words("Some.Show.S01E01.1080p-GRP") == {"some", "show"}


def test_the_server_shows_the_whole_and_serves_its_nzb(tmp_path: Path) -> None:
    from tests.catalogs import app_client

    cat = MergeCatalog(str(tmp_path))
    holder, _ = per_file_upload(cat, "srv")
    cat.release("other", "Other.Thing.2020", [("o.mkv", MB)])
    catalog = cat.write()
    merge_catalog(catalog)
    with app_client(catalog) as client:
        feed = client.get("/api", params={"t": "search", "q": "", "apikey": "k1"}).text
        assert 'total="2"' in feed and "srv.Movie.2020" in feed
        assert '<newznab:attr name="files" value="4"/>' in feed
        nzb = client.get("/api", params={"t": "get", "id": holder.hex(), "apikey": "k1"})
        assert nzb.status_code == 200
        assert all(f["name"] in nzb.text for f in cat.files if f["name"].startswith("srv"))
        assert nzb.text.count("<file ") == 4


def test_a_first_part_the_ladder_read_without_a_candidate_counts(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    listed = [(f"Set.7z.{i:03d}", 70 * MB, md5(f"7z{i}")) for i in range(1, 3)]
    holder = cat.release("7p", "Seven.Set", [("Seven.Set.par2", 30_000)])
    cat.par2(holder, "Seven.Set.par2", "7z", listed)
    parts = []
    for i in range(1, 3):
        name = f"k2j{i}x.7z.{i:03d}"
        key = cat.release(f"7z{i}", name, [(name, 72 * MB)], pending=True)
        cat.first_part_read(key, name, md5(f"7z{i}"), 70 * MB)
        parts.append(key)
    catalog = cat.write()
    merge_catalog(catalog)
    assert {r["from_key"] for r in merges(catalog).to_pylist()} == set(parts)


def test_par2_volumes_posted_apart_join_the_named_index(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    holder, parts = per_file_upload(cat, "vol", posted=T0 + 600)
    # a recovery volume, its own unnamed pending release posted first: it holds the set
    # (its packets name the set id, not the files)
    vol = cat.release("vol-v", "p0w9", [("p0w9.bin", 5 * MB)], posted=T0, pending=True)
    cat.par2(vol, "p0w9.bin", "vol", [])
    catalog = cat.write()
    merge_catalog(catalog)
    into = {r["from_key"]: (r["into_key"], r["via"]) for r in merges(catalog).to_pylist()}
    assert into == {k: (holder, "par2") for k in [*parts, vol]}  # the named index keeps it
    assert shown(catalog)[holder]["files"] == 5


def test_a_repost_holding_the_same_par2_set_stays_apart(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path))
    listed = [(f"Re.Post.2020.part{i}.rar", 50 * MB, md5(f"re{i}")) for i in range(1, 3)]
    files = [(n, s + s // 30) for n, s, _ in listed] + [("Re.Post.2020.par2", 30_000)]
    first = cat.release("first", "Re.Post.2020", files, file_total=3)
    again = cat.release("again", "Re.Post.2020", files, file_total=3, posted=T0 + 6 * HOUR)
    for key in (first, again):  # the same set: the repost carries the same par2 files
        cat.par2(key, "Re.Post.2020.par2", "repost", listed)
    # a recovery volume posted apart after the first post still joins it
    vol = cat.release("rvol", "zq1", [("zq1.bin", 5 * MB)], posted=T0 + 300, pending=True)
    cat.par2(vol, "zq1.bin", "repost", [])
    catalog = cat.write()
    merge_catalog(catalog)
    into = {r["from_key"]: r["into_key"] for r in merges(catalog).to_pylist()}
    assert into == {vol: first}
    assert set(shown(catalog)) == {first, again}
