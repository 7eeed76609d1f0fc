"""One id file imported: its rows, in the catalog, as the source table of its format.

Each file becomes `_ids/sources/<format>/<digest>.parquet` (digest: the file's SHA-256),
and `_ids/sources/<format>.json` names the one in use. The same file imported again is
found by its digest and not read twice (idempotent); a newer file of a format takes its
place (refreshable). The build (`build.py`) then makes the lookup from the sources in use.

Files are streamed: IMDb's and TMDB's tables through DuckDB's CSV reader (a block at a
time, into Arrow batches, into the Parquet writer), TVmaze's JSON a line at a time. No
file is loaded whole; an IMDb table of 11 M rows passes in bounded memory.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa

from pipelines.catalog.schema import SCHEMAS
from pipelines.catalog.writer import write_file
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.ids.formats import (
    IMDB_AKAS,
    IMDB_BASICS,
    IMDB_EPISODES,
    TMDB,
    TVMAZE,
    compression_of,
    format_of,
)

IDS_FOLDER = "_ids"
BATCH_ROWS = 262_144
# DuckDB's memory for a read (it spills past it); the process stays well under 2 GB
MEMORY_LIMIT = "768MB"


@dataclass(frozen=True)
class Imported:
    path: str
    format: str
    rows: int
    rejected: int  # lines of the file that could not be read as its format
    unchanged: bool  # the same file was in use already


def digest_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()[:32]


def source_in_use(catalog: str, fmt: str) -> dict[str, object] | None:
    """The pointer of a format (`{"file", "source", "rows", "rejected"}`), None if none."""
    fs, root = open_fs(catalog)
    try:
        doc = json.loads(fs.cat_file(f"{root}/{IDS_FOLDER}/sources/{fmt}.json"))
    except (FileNotFoundError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def import_file(catalog: str, path: Path) -> Imported:
    """Import one file (its format told by its first line) as its format's source."""
    fmt = format_of(path)
    digest = digest_of(path)
    fs, root = open_fs(catalog)
    folder = f"{root}/{IDS_FOLDER}/sources"
    target = f"{folder}/{fmt}/{digest}.parquet"
    current = source_in_use(catalog, fmt)
    if current and current.get("file") == f"{fmt}/{digest}.parquet" and fs.exists(target):
        return Imported(str(path), fmt, int(str(current.get("rows", 0))), 0, True)
    counts = {"rows": 0, "rejected": 0}
    batches = _tvmaze_batches(path, counts) if fmt == TVMAZE else _csv_batches(path, fmt, counts)
    write_file(fs, target, _counted(batches, counts), f"ids_{fmt}")
    pointer = {
        "file": f"{fmt}/{digest}.parquet",
        "source": path.name,
        "rows": counts["rows"],
        "rejected": counts["rejected"],
    }
    atomic_put(fs, f"{folder}/{fmt}.json", json.dumps(pointer, sort_keys=True).encode())
    return Imported(str(path), fmt, counts["rows"], counts["rejected"], False)


def _counted(batches: Iterator[pa.Table], counts: dict[str, int]) -> Iterator[pa.Table]:
    for b in batches:
        counts["rows"] += b.num_rows
        yield b


def _imdb_id(column: str) -> str:
    return f"TRY_CAST(substr({column}, 3) AS BIGINT)"


_KINDS = (
    "CASE WHEN titleType IN ('movie', 'tvMovie') THEN 'movie' "
    "WHEN titleType IN ('tvSeries', 'tvMiniSeries') THEN 'series' END"
)
_SELECTS = {
    IMDB_BASICS: (
        f"SELECT {_imdb_id('tconst')} AS imdb, {_KINDS} AS kind, primaryTitle AS title, "
        "originalTitle AS original_title, TRY_CAST(startYear AS INTEGER) AS year, "
        "TRY_CAST(endYear AS INTEGER) AS end_year FROM src "
        "WHERE titleType IN ('movie', 'tvMovie', 'tvSeries', 'tvMiniSeries') "
        f"AND {_imdb_id('tconst')} IS NOT NULL AND primaryTitle IS NOT NULL"
    ),
    IMDB_EPISODES: (
        f"SELECT {_imdb_id('tconst')} AS imdb, {_imdb_id('parentTconst')} AS parent, "
        "TRY_CAST(seasonNumber AS INTEGER) AS season, "
        "TRY_CAST(episodeNumber AS INTEGER) AS episode FROM src "
        f"WHERE {_imdb_id('tconst')} IS NOT NULL AND {_imdb_id('parentTconst')} IS NOT NULL"
    ),
    IMDB_AKAS: (
        f"SELECT {_imdb_id('titleId')} AS imdb, title FROM src "
        f"WHERE {_imdb_id('titleId')} IS NOT NULL AND title IS NOT NULL"
    ),
    TMDB: (
        "SELECT TRY_CAST(tmdb_id AS BIGINT) AS tmdb, "
        "CASE lower(kind) WHEN 'movie' THEN 'movie' WHEN 'tv' THEN 'series' END AS kind, "
        f"{_imdb_id('imdb_id')} AS imdb, nullif(title, '') AS title, "
        "TRY_CAST(year AS INTEGER) AS year FROM src WHERE TRY_CAST(tmdb_id AS BIGINT) IS NOT NULL"
    ),
}


def connect() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
    con.execute("SET preserve_insertion_order = false")
    return con


def _csv_batches(path: Path, fmt: str, counts: dict[str, int]) -> Iterator[pa.Table]:
    """The file's rows as the source's Arrow batches, read by DuckDB a block at a time
    (IMDb's TSV: no quoting, `\\N` for nothing; bad lines counted, not fatal)."""
    con = connect()
    tsv = fmt != TMDB
    options = "delim = '\t', quote = '', escape = '', nullstr = '\\N'" if tsv else "delim = ','"
    literal = str(path).replace("'", "''")
    con.execute(
        f"CREATE VIEW src AS SELECT * FROM read_csv('{literal}', header = true, "
        f"all_varchar = true, {options}, compression = '{compression_of(path)}', "
        "store_rejects = true, ignore_errors = true)"
    )
    schema = SCHEMAS[f"ids_{fmt}"]
    reader = con.sql(_SELECTS[fmt]).to_arrow_reader(BATCH_ROWS)
    for batch in reader:
        yield pa.Table.from_batches([batch]).cast(schema)
    rejected = con.execute("SELECT count(DISTINCT line) FROM reject_errors").fetchone()
    counts["rejected"] = int(rejected[0]) if rejected else 0
    con.close()


def _tvmaze_batches(path: Path, counts: dict[str, int]) -> Iterator[pa.Table]:
    """TVmaze's shows a line at a time (a page's array, or one show, per line)."""
    rows: list[dict[str, object]] = []
    schema = SCHEMAS["ids_tvmaze"]
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                doc = json.loads(line)
            except ValueError:
                counts["rejected"] += 1
                continue
            for show in doc if isinstance(doc, list) else [doc]:
                row = _tvmaze_row(show)
                if row is None:
                    counts["rejected"] += 1
                    continue
                rows.append(row)
            if len(rows) >= BATCH_ROWS:
                yield pa.Table.from_pylist(rows, schema)
                rows = []
    if rows:
        yield pa.Table.from_pylist(rows, schema)


def _tvmaze_row(show: object) -> dict[str, object] | None:
    if not isinstance(show, dict) or not isinstance(show.get("id"), int) or not show.get("name"):
        return None
    ext = show.get("externals") or {}
    ext = ext if isinstance(ext, dict) else {}
    premiered = show.get("premiered")
    year = premiered[:4] if isinstance(premiered, str) and premiered[:4].isdigit() else None
    imdb = ext.get("imdb")
    return {
        "tvmaze": show["id"],
        "imdb": int(imdb[2:]) if isinstance(imdb, str) and imdb[2:].isdigit() else None,
        "tvdb": ext.get("thetvdb") if isinstance(ext.get("thetvdb"), int) else None,
        "tvrage": ext.get("tvrage") if isinstance(ext.get("tvrage"), int) else None,
        "title": str(show["name"]),
        "year": int(year) if year else None,
    }
