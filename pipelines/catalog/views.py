"""DuckDB views over the catalog's Parquet partitions (through fsspec).

Each view reads an explicit list of whole partitions taken at the last refresh, never
a glob at query time: a partition being written (a `.tmp-*` name) is never listed, and
a refresh re-creates the views in one step, so a query sees one consistent listing.
A damaged partition (`pipelines.catalog.health`) is left out of the listing: DuckDB reads
every listed file's footer when a view is made, so one truncated file failed them all.

- `release_versions`: every row of `releases`; `releases`: the newest version of each
  key, tombstoned keys hidden (`versions.newest_sql`); `release_files`, `ranges`,
  `pending_releases`: the tables as written; `release_probe_rows`: every row of
  `release_probes`, `release_probes` the newest (`probed_at`) per key; `groups` and
  `categories`: counts of `releases`.
- What the merges, the health sweep and the judge write (`JUDGED_TABLES`, listed by
  `table_files`: any Parquet file under the table's folder): `release_merges` as
  written; `release_health_rows` / `release_verdict_rows` every row, `release_health` /
  `release_verdicts` the newest (`checked_at`, `judged_at`) per key, a verdict's rule
  null when it was taken back. A table with no file yet and no declared schema has no
  view (`has`).

The server's status page and the Dagster `catalog_views` asset read these; searches,
feeds, pages and downloads do not (the search index and `pipelines.nzb.lookup` serve
them, docs/SERVING.md).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import duckdb
import pyarrow as pa
from fsspec import AbstractFileSystem

from pipelines.catalog.health import PartitionHealth, footer_problem
from pipelines.catalog.partitions import is_local, list_table, stat_of
from pipelines.catalog.schema import SCHEMAS
from pipelines.catalog.versions import MERGED, newest_sql
from pipelines.corpus.fs import is_temporary, open_fs

VIEW_TABLES = ["releases", "release_files", "ranges", "pending_releases", "release_probes"]
# Views of every row where the table's name is the newest-per-key view.
RAW_VIEWS = {"releases": "release_versions", "release_probes": "release_probe_rows",
             "release_health": "release_health_rows",
             "release_verdicts": "release_verdict_rows"}  # fmt: skip
# Tables of issue 20's passes, and the column whose newest value per key is the current
# row (None: every row is one, as merges are).
JUDGED_TABLES = {"release_merges": None, "release_health": "checked_at",
                 "release_verdicts": "judged_at"}  # fmt: skip


def table_files(fs: AbstractFileSystem, root: str, table: str) -> list[dict[str, Any]]:
    """Every whole Parquet file under `<root>/<table>/` (any depth, temporary names
    skipped), sorted by path: path, size, mtime (as `partitions.stat_of` gives them)."""
    base = f"{root.rstrip('/')}/{table}"
    found: list[dict[str, Any]] = []
    if is_local(fs):
        for folder, _, names in os.walk(base):
            for name in names:
                if not name.endswith(".parquet") or is_temporary(name):
                    continue
                try:
                    info = os.stat(f"{folder}/{name}")
                except FileNotFoundError:  # replaced or removed while listing
                    continue
                found.append({"path": f"{folder}/{name}", "size": info.st_size,
                              "mtime": str(info.st_mtime)})  # fmt: skip
    else:
        try:
            listed = fs.find(base, detail=True)
        except FileNotFoundError:
            listed = {}
        for path, info in listed.items():
            name = str(path).rsplit("/", 1)[-1]
            if name.endswith(".parquet") and not is_temporary(name):
                size, mtime = stat_of(info)
                found.append({"path": str(path), "size": size, "mtime": mtime})
    return sorted(found, key=lambda f: f["path"])


def connect(fs: AbstractFileSystem) -> tuple[duckdb.DuckDBPyConnection, str]:
    """A DuckDB connection that reads `fs`, and the prefix `fs`'s paths take in its SQL."""
    con = duckdb.connect()
    if is_local(fs):
        return con, ""
    con.register_filesystem(fs)
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return con, f"{protocol}://"


def parquet_sql(paths: Sequence[str]) -> str:
    """The SQL relation of these Parquet files' rows. union_by_name: partitions written
    before a column was added lack it."""
    files = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
    return f"read_parquet([{files}], union_by_name = true)"


def columns_of(con: duckdb.DuckDBPyConnection, relation: str) -> set[str]:
    return {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()}


class CatalogViews:
    def __init__(self, catalog: str, health: PartitionHealth | None = None) -> None:
        self.catalog = catalog
        self.health = health or PartitionHealth()
        self.fs, self.root = open_fs(catalog)
        self.con, self._prefix = connect(self.fs)
        self.con.execute("SET threads TO 1")  # requests run in parallel; queries stay small
        self._lock = threading.Lock()
        self.files: dict[str, list[str]] = {}
        self._views: set[str] = set()
        self.refresh()

    def _list(self, table: str) -> list[str]:
        """The table's readable partitions (sizes and mtimes tell a replaced file)."""
        listed = list_table(self.fs, self.root, table)
        self.health.forget_missing(table, {p.path for p in listed})
        return [
            self._prefix + p.path
            for p in listed
            if self.health.problem(self.fs, table, p.path, p.size, p.mtime) is None
        ]

    def refresh(self) -> bool:
        """Re-list the partitions; re-create the views when the listing changed."""
        listing = self._listing()
        if listing == self.files:
            return False
        try:
            self._create(listing)
        except duckdb.Error:
            # A footer that passed the quick check but does not parse: find the files
            # DuckDB could not read, leave them out and make the views once more.
            if not self._mark_unreadable(listing):
                raise
            listing = self._listing()
            self._create(listing)
        return True

    def _listing(self) -> dict[str, list[str]]:
        listing = {t: self._list(t) for t in VIEW_TABLES}
        for table in JUDGED_TABLES:
            files = table_files(self.fs, self.root, table)
            self.health.forget_missing(table, {f["path"] for f in files})
            listing[table] = [
                self._prefix + f["path"]
                for f in files
                if self.health.problem(self.fs, table, f["path"], f["size"], f["mtime"]) is None
            ]
        return listing

    def has(self, view: str) -> bool:
        """Whether the view exists (a table of `JUDGED_TABLES` with no file yet and no
        declared schema has none)."""
        return view in self._views

    def _mark_unreadable(self, listing: dict[str, list[str]]) -> bool:
        found = False
        for table, paths in listing.items():
            for path in paths:
                bare = path.removeprefix(self._prefix)
                size, mtime = stat_of(self.fs.info(bare))
                problem = footer_problem(self.fs, bare, size)
                if problem is not None:
                    self.health.mark(table, bare, size, mtime, problem)
                    found = True
        return found

    def _create(self, listing: dict[str, list[str]]) -> None:
        with self._lock:
            views = set()
            for table, paths in listing.items():
                name = RAW_VIEWS.get(table, table)
                if paths:
                    sql = f"SELECT * FROM {parquet_sql(paths)}"
                elif table not in SCHEMAS:  # not declared (yet): no view
                    self.con.execute(f"DROP VIEW IF EXISTS {name}")
                    if table in JUDGED_TABLES:
                        self.con.execute(f"DROP VIEW IF EXISTS {table}")
                    continue
                else:
                    # A real (empty) table: registered Arrow objects are not seen by cursors.
                    empty = f"_empty_{table}"
                    self.con.register("_schema", SCHEMAS[table].empty_table())
                    self.con.execute(f"CREATE OR REPLACE TABLE {empty} AS FROM _schema")
                    self.con.unregister("_schema")
                    sql = f"SELECT * FROM {empty}"
                self.con.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")
                views.add(name)
                newest = JUDGED_TABLES.get(table)
                if newest is not None:  # the current row per key
                    self.con.execute(
                        f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM {name} QUALIFY "
                        f"row_number() OVER (PARTITION BY release_key ORDER BY {newest} DESC) = 1"
                    )
                    views.add(table)
            hide = MERGED in columns_of(self.con, "release_versions")
            self.con.execute(
                f"CREATE OR REPLACE VIEW releases AS {newest_sql('release_versions', hide)}"
            )
            # what the article pass learned, per release: the newest probe wins
            self.con.execute(
                "CREATE OR REPLACE VIEW release_probes AS SELECT * FROM release_probe_rows "
                "QUALIFY row_number() OVER (PARTITION BY release_key ORDER BY probed_at DESC) = 1"
            )
            self.con.execute(
                'CREATE OR REPLACE VIEW groups AS SELECT "group", count(*) AS releases, '
                "sum(bytes) AS bytes, max(posted_first) AS newest FROM releases GROUP BY 1"
            )
            self.con.execute(
                "CREATE OR REPLACE VIEW categories AS SELECT category, count(*) AS releases "
                "FROM releases GROUP BY 1"
            )
            self.files = listing
            self._views = views

    def query(self, sql: str, params: list[Any] | None = None) -> pa.Table:
        """Run one read query on its own cursor (DuckDB cursors are per thread)."""
        with self._lock:
            cursor = self.con.cursor()
        try:
            return cursor.sql(sql, params=params or None).to_arrow_table()
        finally:
            cursor.close()

    def close(self) -> None:
        self.con.close()
