"""DuckDB views over the catalog's Parquet partitions (through fsspec).

Each view reads an explicit list of whole partitions taken at the last refresh, never
a glob at query time: a partition being written (a `.tmp-*` name) is never listed, and
a refresh re-creates the views in one step, so a query sees one consistent listing.
A damaged partition (`pipelines.catalog.health`) is left out of the listing: DuckDB reads
every listed file's footer when a view is made, so one truncated file failed them all.

- `release_versions`: every row of `releases`; `releases`: the newest version of each
  key (finished first, then the latest range); `release_files`, `ranges`,
  `pending_releases`: the tables as written; `groups` and `categories`: counts.
"""

from __future__ import annotations

import threading
from typing import Any

import duckdb
import pyarrow as pa

from pipelines.catalog.health import PartitionHealth, footer_problem
from pipelines.catalog.schema import TABLES
from pipelines.corpus.fs import open_fs
from serving.listing import from_info, list_table

VIEW_TABLES = ["releases", "release_files", "ranges", "pending_releases"]


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class CatalogViews:
    def __init__(self, catalog: str, health: PartitionHealth | None = None) -> None:
        self.catalog = catalog
        self.health = health or PartitionHealth()
        self.fs, self.root = open_fs(catalog)
        self.con = duckdb.connect()
        self.con.execute("SET threads TO 1")  # requests run in parallel; queries stay small
        protocol = self.fs.protocol if isinstance(self.fs.protocol, str) else self.fs.protocol[0]
        self._prefix = "" if protocol in ("file", "local") else f"{protocol}://"
        if self._prefix:
            self.con.register_filesystem(self.fs)
        self._lock = threading.Lock()
        self.files: dict[str, list[str]] = {}
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
        listing = {t: self._list(t) for t in VIEW_TABLES}
        if listing == self.files:
            return False
        try:
            self._create(listing)
        except duckdb.Error:
            # A footer that passed the quick check but does not parse: find the files
            # DuckDB could not read, leave them out and make the views once more.
            if not self._mark_unreadable(listing):
                raise
            listing = {t: self._list(t) for t in VIEW_TABLES}
            self._create(listing)
        return True

    def _mark_unreadable(self, listing: dict[str, list[str]]) -> bool:
        found = False
        for table, paths in listing.items():
            for path in paths:
                bare = path.removeprefix(self._prefix)
                listed = from_info(bare, self.fs.info(bare))
                problem = footer_problem(self.fs, bare, listed.size)
                if problem is not None:
                    self.health.mark(table, bare, listed.size, listed.mtime, problem)
                    found = True
        return found

    def _create(self, listing: dict[str, list[str]]) -> None:
        with self._lock:
            for table, paths in listing.items():
                source = "releases" if table == "releases" else table
                name = "release_versions" if table == "releases" else table
                if paths:
                    files = ", ".join(_quote(p) for p in paths)
                    # union_by_name: partitions written before a column was added lack it
                    sql = f"SELECT * FROM read_parquet([{files}], union_by_name = true)"
                else:
                    # A real (empty) table: registered Arrow objects are not seen by cursors.
                    empty = f"_empty_{source}"
                    self.con.register("_schema", TABLES[source].empty_table())
                    self.con.execute(f"CREATE OR REPLACE TABLE {empty} AS FROM _schema")
                    self.con.unregister("_schema")
                    sql = f"SELECT * FROM {empty}"
                self.con.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")
            columns = {r[0] for r in self.con.execute("DESCRIBE release_versions").fetchall()}
            # A finished tombstone (`merged_into` set: it went into an album) hides the key.
            hide = "WHERE merged_into IS NULL" if "merged_into" in columns else ""
            self.con.execute(
                "CREATE OR REPLACE VIEW releases AS SELECT * FROM (SELECT * FROM release_versions "
                "QUALIFY row_number() OVER (PARTITION BY release_key "
                f"ORDER BY finished DESC, written_range DESC) = 1) {hide}"
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

    def query(self, sql: str, params: list[Any] | None = None) -> pa.Table:
        """Run one read query on its own cursor (DuckDB cursors are per thread)."""
        with self._lock:
            cursor = self.con.cursor()
        try:
            return cursor.sql(sql, params=params or None).to_arrow_table()
        finally:
            cursor.close()

    def status(self) -> dict[str, Any]:
        """The status page's figures: ranges indexed per group and the last runs."""
        per_group = self.query(
            'SELECT "group", count(*) AS ranges, min(range_first) AS first, '
            "max(range_last) AS last, sum(headers)::BIGINT AS headers, "
            "sum(segments_kept)::BIGINT AS segments, "
            "max(indexed_at) AS indexed_at FROM ranges GROUP BY 1 ORDER BY 1"
        ).to_pylist()
        last_runs = self.query(
            'SELECT * FROM ranges ORDER BY indexed_at DESC, "group", range_first DESC LIMIT 20'
        ).to_pylist()
        pending = self.query("SELECT count(*) AS n FROM pending_releases").to_pylist()[0]["n"]
        versions = self.query("SELECT count(*) AS n FROM release_versions").to_pylist()[0]["n"]
        return {
            "groups": per_group,
            "last_runs": last_runs,
            "pending": pending,
            "versions": versions,
            "partitions": {t: len(p) for t, p in self.files.items()},
            "damaged": self.health.damaged(),
        }

    def close(self) -> None:
        self.con.close()
