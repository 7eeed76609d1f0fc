"""`ids import`: IMDb, TVmaze and TMDB files into the lookup, idempotent and refreshable."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.ids.build import build_lookup, current_build
from pipelines.ids.formats import UnknownFormat, format_of
from pipelines.ids.lookup import IdLookup
from pipelines.ids.sources import import_file
from pipelines.names import title_key

FIXTURES = Path(__file__).parent / "fixtures" / "ids"


def import_all(catalog: str, files: list[Path] | None = None) -> None:
    for path in files or sorted(FIXTURES.iterdir()):
        import_file(catalog, path)
    build_lookup(catalog)


def test_formats_are_told_by_their_first_line(tmp_path: Path) -> None:
    found = {p.name: format_of(p) for p in FIXTURES.iterdir()}
    assert found == {
        "title.basics.tsv": "imdb_basics",
        "title.episode.tsv": "imdb_episodes",
        "title.akas.tsv.gz": "imdb_akas",
        "tvmaze_shows.jsonl": "tvmaze",
        "tmdb_ids.csv": "tmdb",
    }
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    with pytest.raises(UnknownFormat):
        format_of(other)


def test_entries_carry_every_source_s_ids(tmp_path: Path) -> None:
    import_all(str(tmp_path))
    lookup = IdLookup.load(str(tmp_path))
    assert lookup is not None
    (thrones,) = lookup.named(title_key("Game of Thrones"))  # the video game is no entry
    assert lookup.ids_of(int(thrones)) == {
        "imdb": 944947, "tvdb": 121361, "tvmaze": 82, "tvrage": 24493, "tmdb": 1399,
    }  # fmt: skip
    assert lookup.episode(int(thrones), 1, 2) == 1668746
    assert lookup.episode(int(thrones), 1, 3) == 0
    # alternative titles (IMDb's akas, gzipped) name the same entry
    assert list(lookup.named(title_key("Juego de tronos"))) == [thrones]
    avengers = lookup.named(title_key("The Avengers"))
    assert sorted(int(lookup.years[e]) for e in avengers) == [1998, 2012]
    assert list(lookup.named(title_key("Avengers Assemble"))) == list(lookup.with_id("tmdb", 24428))
    # a show only TVmaze knows, a film only TMDB knows: entries of their own
    (maze,) = lookup.named(title_key("A Show Only TVmaze Knows"))
    assert lookup.ids_of(int(maze)) == {"tvdb": 400001, "tvmaze": 99999}
    (film,) = lookup.named(title_key("A Film Only TMDB Knows"))
    assert lookup.ids_of(int(film)) == {"tmdb": 777777}


def test_bad_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    done = import_file(str(tmp_path), FIXTURES / "tvmaze_shows.jsonl")
    assert (done.rows, done.rejected) == (6, 1)
    broken = tmp_path / "title.basics.tsv"
    text = (FIXTURES / "title.basics.tsv").read_text()
    broken.write_text(text + "tt7777777\tmovie\tToo Few Fields\n")
    done = import_file(str(tmp_path / "cat"), broken)
    assert done.rows == 19 and done.rejected == 1


def test_import_again_is_idempotent_and_a_newer_file_refreshes(tmp_path: Path) -> None:
    catalog = str(tmp_path / "catalog")
    import_all(catalog)
    first = current_build(catalog)
    assert first is not None
    again = import_file(catalog, FIXTURES / "title.basics.tsv")
    assert again.unchanged
    assert build_lookup(catalog).unchanged
    # a newer title.basics, gzipped this time: it takes the old one's place
    newer = tmp_path / "title.basics.tsv.gz"
    with gzip.open(newer, "wt", encoding="utf-8") as f:
        f.write((FIXTURES / "title.basics.tsv").read_text())
        f.write("tt1234567\tmovie\tA Brand New Film\tA Brand New Film\t0\t2024\t\\N\t90\tDrama\n")
    assert not import_file(catalog, newer).unchanged
    built = build_lookup(catalog)
    assert not built.unchanged and built.build != first["build"]
    lookup = IdLookup.load(catalog)
    assert lookup is not None and len(lookup.named(title_key("A Brand New Film"))) == 1
    sources = list((tmp_path / "catalog" / "_ids" / "sources" / "imdb_basics").iterdir())
    assert len(sources) == 2  # the older source stays, written once; the pointer moved


def test_lookup_files_are_parquet_of_the_declared_schemas(tmp_path: Path) -> None:
    import_all(str(tmp_path))
    current = current_build(str(tmp_path))
    assert current is not None
    folder = tmp_path / "_ids" / "lookup" / str(current["build"])
    names = pq.read_table(folder / "names.parquet")
    hashes = names["key_hash"].to_pylist()
    assert hashes == sorted(hashes)
    assert not list(folder.glob("*.tmp-*"))


def test_an_import_copied_from_elsewhere_reads_the_same(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(FIXTURES, copy)
    import_all(str(tmp_path / "a"))
    import_all(str(tmp_path / "b"), sorted(copy.iterdir()))
    a, b = current_build(str(tmp_path / "a")), current_build(str(tmp_path / "b"))
    assert a is not None and b is not None and a["build"] == b["build"]
