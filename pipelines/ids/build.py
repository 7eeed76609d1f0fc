"""The id lookup built from the sources in use: entries, their names, their episodes.

- `entries`: one row per film or series, with every id the sources give it: IMDb's
  films and series, with TVmaze's ids (tvdb, tvmaze, tvrage) and TMDB's joined by IMDb
  number; a TVmaze show or a TMDB title without an IMDb number the others know is an
  entry of its own.
- `names`: the hash of each comparable title (`title_key`) of an entry (its title, its
  original title, IMDb's alternative titles, TVmaze's and TMDB's names) and the entry,
  sorted by hash: a release's title finds its candidates by a binary search.
- `episodes`: a series' season and episode numbers and the episode's IMDb number.

DuckDB does the joins (spilling past its memory limit), and its result is streamed into
the Parquet files. A build is named by the sources it was made from
(`_ids/lookup/<build>/`): the same sources build nothing again; `current.json` names the
build in use, replaced atomically, so a reader sees the old lookup or the new one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass

import duckdb
import pyarrow as pa

from pipelines.catalog.schema import SCHEMAS
from pipelines.catalog.writer import write_file
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.ids.formats import FORMATS
from pipelines.ids.keys import title_key_sql
from pipelines.ids.sources import BATCH_ROWS, IDS_FOLDER, connect, source_in_use

LOOKUP_TABLES = ("entries", "names", "episodes")
KEEP_BUILDS = 2  # the one in use and the one before (a reader may still hold it)


@dataclass(frozen=True)
class Built:
    build: str
    counts: dict[str, int]
    unchanged: bool


def lookup_folder(root: str) -> str:
    return f"{root.rstrip('/')}/{IDS_FOLDER}/lookup"


def current_build(catalog: str) -> dict[str, object] | None:
    fs, root = open_fs(catalog)
    try:
        doc = json.loads(fs.cat_file(f"{lookup_folder(root)}/current.json"))
    except (FileNotFoundError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def build_lookup(catalog: str) -> Built:
    """Build the lookup from the sources in use (nothing when it is built already)."""
    fs, root = open_fs(catalog)
    pointers = {fmt: source_in_use(catalog, fmt) for fmt in FORMATS}
    files = {fmt: str(p["file"]) for fmt, p in pointers.items() if p}
    build = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:20]
    current = current_build(catalog)
    if current and current.get("build") == build:
        known = current.get("counts")
        return Built(build, dict(known) if isinstance(known, dict) else {}, True)
    con = connect()
    for fmt in FORMATS:
        _source_view(con, fs, root, fmt, files.get(fmt))
    con.execute(_ENTRIES_SQL)
    folder = f"{lookup_folder(root)}/{build}"
    counts: dict[str, int] = {}
    for table in LOOKUP_TABLES:
        rows = [0]
        parts = _batches(con, _TABLE_SQL[table], SCHEMAS[f"ids_{table}"], rows)
        write_file(fs, f"{folder}/{table}.parquet", parts, f"ids_{table}")
        counts[table] = rows[0]
    con.close()
    doc = {"build": build, "sources": files, "counts": counts}
    atomic_put(fs, f"{lookup_folder(root)}/current.json", json.dumps(doc, sort_keys=True).encode())
    _drop_old_builds(fs, lookup_folder(root), build)
    return Built(build, counts, False)


def _batches(
    con: duckdb.DuckDBPyConnection, sql: str, schema: pa.Schema, rows: list[int]
) -> Iterator[pa.Table]:
    """The query's rows as Arrow tables of the schema, counted into rows[0]."""
    for batch in con.sql(sql).to_arrow_reader(BATCH_ROWS):
        rows[0] += batch.num_rows
        yield pa.Table.from_batches([batch]).cast(schema)


def _source_view(
    con: duckdb.DuckDBPyConnection, fs: object, root: str, fmt: str, file: str | None
) -> None:
    name = fmt
    if file is None:
        con.register(f"_{name}_empty", SCHEMAS[f"ids_{fmt}"].empty_table())
        con.execute(f"CREATE TEMP VIEW {name} AS SELECT * FROM _{name}_empty")
        return
    path = f"{root.rstrip('/')}/{IDS_FOLDER}/sources/{file}".replace("'", "''")
    con.execute(f"CREATE TEMP VIEW {name} AS SELECT * FROM read_parquet('{path}')")


def _drop_old_builds(fs: object, folder: str, keep: str) -> None:
    """Remove builds older than the one before `keep` (by modification time)."""
    try:
        found = [p for p in fs.ls(folder, detail=True) if p["type"] == "directory"]  # type: ignore[attr-defined]
    except FileNotFoundError:
        return
    found.sort(key=lambda p: p.get("mtime", 0), reverse=True)
    old = [p["name"] for p in found if not p["name"].endswith(f"/{keep}")][KEEP_BUILDS - 1 :]
    for path in old:
        fs.rm(path, recursive=True)  # type: ignore[attr-defined]


_ENTRIES_SQL = """
CREATE TEMP TABLE entries AS
WITH maze AS (
    SELECT imdb, min(tvmaze) AS tvmaze, min(tvdb) AS tvdb, min(tvrage) AS tvrage
    FROM tvmaze WHERE imdb IS NOT NULL GROUP BY imdb
), movie_db AS (
    SELECT imdb, kind, min(tmdb) AS tmdb FROM tmdb WHERE imdb IS NOT NULL GROUP BY imdb, kind
), known AS (SELECT DISTINCT imdb FROM imdb_basics), all_entries AS (
    SELECT b.kind, b.title, b.year, b.imdb,
           m.tvdb, m.tvmaze, m.tvrage, t.tmdb
    FROM imdb_basics b
    LEFT JOIN maze m ON b.kind = 'series' AND m.imdb = b.imdb
    LEFT JOIN movie_db t ON t.imdb = b.imdb AND t.kind = b.kind
    UNION ALL
    SELECT 'series', v.title, v.year, v.imdb, v.tvdb, v.tvmaze, v.tvrage,
           (SELECT min(tmdb) FROM tmdb d WHERE d.imdb = v.imdb AND d.kind = 'series')
    FROM tvmaze v WHERE v.imdb IS NULL OR v.imdb NOT IN (SELECT imdb FROM known)
    UNION ALL
    SELECT d.kind, d.title, d.year, d.imdb, NULL, NULL, NULL, d.tmdb
    FROM tmdb d
    WHERE d.kind IS NOT NULL AND d.title IS NOT NULL
      AND (d.imdb IS NULL OR (d.imdb NOT IN (SELECT imdb FROM known)
           AND d.imdb NOT IN (SELECT imdb FROM tvmaze WHERE imdb IS NOT NULL)))
)
SELECT CAST(row_number() OVER (ORDER BY kind, imdb NULLS LAST, tvmaze, tmdb, title) - 1
            AS INTEGER) AS entry,
       kind, title, year, imdb, tvdb, tvmaze, tvrage, tmdb
FROM all_entries
"""

_NAMED = f"""
SELECT DISTINCT md5_number_lower({title_key_sql("t")}) AS key_hash, entry FROM (
    SELECT entry, title AS t FROM entries
    UNION ALL SELECT e.entry, b.original_title FROM entries e JOIN imdb_basics b USING (imdb)
    UNION ALL SELECT e.entry, a.title FROM entries e JOIN imdb_akas a USING (imdb)
    UNION ALL SELECT e.entry, v.title FROM entries e JOIN tvmaze v USING (tvmaze)
    UNION ALL SELECT e.entry, d.title FROM entries e JOIN tmdb d USING (tmdb)
) WHERE t IS NOT NULL AND {title_key_sql("t")} <> ''
"""
_NAMES_SQL = f"SELECT key_hash, entry FROM ({_NAMED}) ORDER BY key_hash, entry"
_EPISODES_SQL = """
SELECT e.entry, p.season, p.episode, min(p.imdb) AS imdb
FROM imdb_episodes p JOIN entries e ON e.imdb = p.parent AND e.kind = 'series'
WHERE p.season IS NOT NULL AND p.episode IS NOT NULL
GROUP BY e.entry, p.season, p.episode
ORDER BY e.entry, p.season, p.episode
"""
_TABLE_SQL = {
    "entries": "SELECT * FROM entries ORDER BY entry",
    "names": _NAMES_SQL,
    "episodes": _EPISODES_SQL,
}
