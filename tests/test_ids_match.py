"""Ids on releases: one entry or none (precision first), and the incremental stage."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pyarrow as pa
import pytest

from pipelines.catalog.partitions import list_group
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import RELEASES
from pipelines.catalog.writer import write_partition
from pipelines.corpus.fs import open_fs
from pipelines.generate.id_names import upload_names
from pipelines.ids.lookup import IdLookup
from pipelines.ids.match import Accuracy, match_parsed
from pipelines.ids.stage import ids_catalog
from pipelines.names import parse_name
from tests.test_ids_import import import_all


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = str(tmp_path_factory.mktemp("ids"))
    import_all(root)
    return root


@pytest.fixture(scope="module")
def lookup(catalog: str) -> IdLookup:
    found = IdLookup.load(catalog)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("name", "imdb", "method"),
    [
        ("Game.of.Thrones.S01E02.720p.HDTV.x264-GRP", 944947, "series"),
        ("Game of Thrones - 1x01 - Winter Is Coming [HDTV-720p]", 944947, "series"),
        ("Juego.de.Tronos.S01E01.SPANISH.720p", 944947, "series"),  # an alternative title
        ("Breaking.Bad.S01.1080p.BluRay.x264-GRP", 903747, "series"),  # a season pack
        ("The.Avengers.2012.1080p.BluRay.x264-GRP", 848228, "film+year"),
        ("The.Avengers.1998.DVDRip.XviD-GRP", 118661, "film+year"),
        ("Avengers.Assemble.2012.720p.BluRay", 848228, "film+year"),
        ("Amelie.2001.1080p.BluRay.x264", 211915, "film+year"),  # accents folded
        ("Shameless.2011.S01E01.720p.HDTV", 1586680, "series+year"),
        ("The.Office.2005.S02E01.720p", 386676, "series+year"),
    ],
)
def test_a_unique_entry_gives_its_ids(lookup: IdLookup, name: str, imdb: int, method: str) -> None:
    found = match_parsed(parse_name(name), lookup)
    assert found.entry is not None and lookup.ids_of(found.entry)["imdb"] == imdb
    assert found.method == method


@pytest.mark.parametrize(
    ("name", "method"),
    [
        ("The.Avengers.1080p.BluRay.x264-GRP", "none"),  # a remake: no year, no film
        ("The.Avengers.2015.1080p.BluRay", "none"),  # no Avengers film of that year
        ("Shameless.S01E01.720p.HDTV", "ambiguous"),  # two series of that name
        ("The.Office.S01E01.720p", "ambiguous"),
        ("Shameless.2019.S01E01.720p", "ambiguous"),  # a year that decides nothing
        ("Game.of.Thrones.2012.1080p.BluRay", "none"),  # the video game is no film
        ("Some.Unknown.Show.S01E01.720p", "none"),
        ("The.Matrix.1080p.BluRay", "none"),  # a film needs its year
    ],
)
def test_a_doubtful_name_gets_no_ids(lookup: IdLookup, name: str, method: str) -> None:
    found = match_parsed(parse_name(name), lookup)
    assert (found.entry, found.method) == (None, method)


def test_the_episode_s_own_imdb_number(lookup: IdLookup) -> None:
    found = match_parsed(parse_name("Game.of.Thrones.S01E02.720p"), lookup)
    assert found.episode_imdb == 1668746
    assert match_parsed(parse_name("Game.of.Thrones.S05E02.720p"), lookup).episode_imdb == 0


def releases_table(names: list[str], group: str = "alt.binaries.test") -> pa.Table:
    rows = [
        {"release_key": hashlib.sha1(n.encode()).digest(), "name": n, "group": group,
         "finished": True, "written_range": 1}
        for n in names
    ]  # fmt: skip
    return pa.Table.from_pylist(rows, RELEASES)


def test_the_stage_matches_only_what_is_new(catalog: str, tmp_path: Path) -> None:
    group = "alt.binaries.test"
    names = ["Game.of.Thrones.S01E02.720p.HDTV", "Shameless.S01E01.720p", "Random.Files.2020"]
    write_partition(catalog, "releases", group, 1, 100, releases_table(names))
    first = ids_catalog(catalog)
    assert (first.partitions, first.releases, first.matched, first.ambiguous) == (1, 3, 1, 1)
    fs, root = open_fs(catalog)
    (written,) = list_group(fs, root, "release_ids", group)
    rows = read_parquet(fs, written.path).to_pylist()
    by_name = {r["name"]: r for r in rows}
    thrones = by_name["Game.of.Thrones.S01E02.720p.HDTV"]
    assert (thrones["imdb"], thrones["tvdb"], thrones["tvmaze"], thrones["tvrage"]) == (
        944947, 121361, 82, 24493,
    )  # fmt: skip
    assert (thrones["season"], thrones["episode"], thrones["episode_imdb"]) == (1, 2, 1668746)
    assert by_name["Shameless.S01E01.720p"]["imdb"] is None
    assert by_name["Shameless.S01E01.720p"]["method"] == "ambiguous"
    assert "Random.Files.2020" not in by_name
    # nothing new: nothing read
    assert ids_catalog(catalog).partitions == 0
    # a new partition (the article pass renaming a release): only it is read
    renamed = releases_table(["The.Avengers.2012.1080p.BluRay"])
    write_partition(catalog, "releases", group, 101, 200, renamed)
    os.utime(f"{root}/releases/{group}", ns=(1, 1))  # the folder's time moved
    later = ids_catalog(catalog)
    assert (later.partitions, later.releases, later.matched) == (1, 1, 1)
    assert len(list_group(fs, root, "release_ids", group)) == 2
    # a partition gone (compacted, a tail part replaced): its ids go too
    fs.rm(f"{root}/releases/{group}/101-200.parquet")
    os.utime(f"{root}/releases/{group}", ns=(2, 2))
    ids_catalog(catalog)
    (left,) = list_group(fs, root, "release_ids", group)
    assert left.path.endswith("/1-100.parquet")


def test_generated_uploads_of_the_sample_tables_get_the_right_ids(lookup: IdLookup) -> None:
    """Every film and series of the samples, named in each upload style a few times:
    those whose title (and year) name one entry get its ids; none gets a wrong one."""
    titles = [
        (int(lookup.ids["imdb"][e]), "series" if lookup.kinds[e] else "movie",
         lookup.titles[e], int(lookup.years[e]))
        for e in range(len(lookup)) if lookup.ids["imdb"][e]
    ]  # fmt: skip
    accuracy = Accuracy()
    for seed in range(12):
        for upload in upload_names(titles, seed):
            accuracy.add(lookup, parse_name(upload.name), upload.imdb, upload.kind == "series")
    # 19 films and series; Shameless and The Office twice each, named without a year
    assert (accuracy.unique, accuracy.doubtful) == (12 * 15, 12 * 4), accuracy.text()
    assert accuracy.right == accuracy.unique, accuracy.text()
    assert accuracy.wrong == 0 and accuracy.doubtful_wrong == 0, accuracy.text()


def test_the_live_stage_matches_after_the_header_pass(tmp_path: Path) -> None:
    from pipelines.index.replay import ReplaySummary
    from pipelines.live_stages import Stages, StageSettings

    catalog = str(tmp_path)
    import_all(catalog)
    group = "alt.binaries.test"
    write_partition(catalog, "releases", group, 1, 10, releases_table(["Breaking.Bad.S01E01.720p"]))
    only_ids = StageSettings(probe=False, merge=False, health=False, judge=False, spots=False)
    stages = Stages(catalog, [group], pool=None, settings=only_ids)  # type: ignore[arg-type]
    first = stages.run(ReplaySummary())
    assert first.ids is not None and first.ids.matched == 1
    assert "ids 1 of 1 matched" in first.text(only_ids)
    assert stages.run(ReplaySummary()).ids is None  # nothing written: the stage rests
    off = Stages(catalog, [group], pool=None, settings=StageSettings.header_only())  # type: ignore[arg-type]
    assert off.run(ReplaySummary()).ids is None
