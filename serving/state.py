"""The serving state: settings, the DuckDB views, the search index and the key counters.

One `Catalog` per app, created at start-up and kept fresh by a background thread;
routes reach it through the `CatalogDep` dependency.
"""

from __future__ import annotations

import logging
import threading
from typing import Annotated, Any

from fastapi import Depends, Request

from pipelines.catalog.health import PartitionHealth
from pipelines.catalog.signatures import signature_figures
from pipelines.catalog.versions import newest_sql
from pipelines.catalog.views import CatalogViews
from pipelines.nzb.assemble import head_meta, merge_file_rows, merge_release_rows
from pipelines.nzb.lookup import Mark, ReleaseFilesLookup, load_kernels
from pipelines.nzb.writer import NzbFile, write_nzb
from pipelines.providers.status import providers_status
from pipelines.spots.sources import ReleaseSources
from serving import categories
from serving.admin_log import AdminLog
from serving.index.manager import IndexManager
from serving.index.searcher import Snapshot
from serving.limits import KeyLimits
from serving.settings import Settings
from serving.wrong_keys import WrongKeys

log = logging.getLogger(__name__)


class Catalog:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # one record of damaged partitions for the views, the index and the downloads
        self.health = PartitionHealth()
        self.views = CatalogViews(settings.catalog, self.health)
        self.index = IndexManager(
            settings.catalog,
            settings.index_dir,
            in_process=settings.build_in_process,
            follow=settings.follow_index,
            result_cache=settings.search_cache,
            health=self.health,
        )
        self.files = ReleaseFilesLookup(self.views.fs, self.views.root, health=self.health)
        # in the index folder the workers share: one set of daily counts for all of them
        self.limits = KeyLimits(
            settings.api_keys,
            settings.open_api,
            settings.daily_requests,
            settings.daily_downloads,
            shared=str(self.index.index_dir / "key-counters.bin"),
            grabs=str(self.index.index_dir / "grabs.bin"),
            anonymous_requests=settings.anonymous_requests,
            anonymous_downloads=settings.anonymous_downloads,
            wrong_keys=WrongKeys(
                settings.wrong_keys_burst,
                settings.wrong_keys_per_minute,
                shared=str(self.index.index_dir / "wrong-keys.bin"),
            ),
        )
        # spots and imports of releases (spotid/source attrs, the page, NZB passwords)
        self.sources = ReleaseSources(settings.catalog)
        # who did what on the admin pages (serving/admin_log.py): beside the key counters
        self.admin_log = AdminLog(
            settings.admin_log or self.index.index_dir / "admin-actions.jsonl"
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.last_error: str | None = None

    @property
    def snapshot(self) -> Snapshot:
        return self.index.snapshot

    def refresh(self) -> None:
        """Pick up partitions that landed (and the views' listing) without a restart."""
        self.index.refresh()
        self.views.refresh()
        self.sources.refresh()

    def start(self, background: bool = True) -> None:
        # Before the first request, not beside it: a download would otherwise wait for a
        # compile (seconds) when numba's cache misses. From the cache: ~1 s.
        load_kernels()
        self.refresh()
        if background:
            self._thread = threading.Thread(target=self._loop, name="catalog-refresh", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        self._warm_footers()  # before the first refresh: downloads find their footers read
        while not self._stop.wait(self.settings.refresh_seconds):
            try:
                self.refresh()
                self.last_error = None
            except Exception as exc:  # keep serving the last good state
                log.exception("catalog refresh failed")
                self.last_error = f"{type(exc).__name__}: {exc}"
            self._warm_footers()  # a landed range's partitions, before their first download

    def _warm_footers(self) -> None:
        try:
            self.files.warm(list(self.snapshot.stats()["groups"]))
        except Exception:  # a cold cache is only slower
            log.exception("reading release_files footers failed")

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.limits.close()
        self.index.close()
        self.views.close()

    def status(self) -> dict[str, Any]:
        """The status page's figures (from the DuckDB views): ranges indexed per group,
        the last runs, pending releases (newest versions), versions stored, partitions."""
        views = self.views
        per_group = views.query(
            'SELECT "group", count(*) AS ranges, min(range_first) AS first, '
            "max(range_last) AS last, sum(headers)::BIGINT AS headers, "
            "sum(segments_kept)::BIGINT AS segments, "
            "max(indexed_at) AS indexed_at FROM ranges GROUP BY 1 ORDER BY 1"
        ).to_pylist()
        last_runs = views.query(
            'SELECT * FROM ranges ORDER BY indexed_at DESC, "group", range_first DESC LIMIT 20'
        ).to_pylist()
        newest_pending = newest_sql("pending_releases", hide_merged=False)
        pending = views.query(f"SELECT count(*) AS n FROM ({newest_pending})").to_pylist()
        versions = views.query("SELECT count(*) AS n FROM release_versions").to_pylist()
        probes = self.probe_status()
        return {
            "groups": per_group,
            "last_runs": last_runs,
            "pending": pending[0]["n"],
            "versions": versions[0]["n"],
            "partitions": {t: len(p) for t, p in views.files.items()},
            "damaged": self.health.damaged(),
            "probes": probes,
            "judged": self.judged_status(),
            "providers": providers_status(self.settings.catalog),  # issue 29
        }

    def judged_status(self) -> dict[str, dict[str, int]]:
        """Counts of the current verdicts per rule, of the current health checks per
        verdict (`unknown`: the server's answer was unusable), and of merges per way."""
        views = self.views
        counts = {
            "verdicts": ("release_verdicts", "rule", "WHERE rule IS NOT NULL"),
            "health": ("release_health", "coalesce(verdict, 'unknown')", ""),
            "merges": ("release_merges", "via", ""),
        }
        out: dict[str, dict[str, int]] = {}
        for name, (view, column, where) in counts.items():
            if not views.has(view):
                out[name] = {}
                continue
            rows = views.query(
                f"SELECT {column} AS k, count(*) AS n FROM {view} {where} GROUP BY 1 ORDER BY 1"
            ).to_pylist()
            out[name] = {r["k"]: r["n"] for r in rows}
        return out

    def merged(self, key: bytes) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """What went into the release (from_key, via, merged_at, and the name its last
        shown version had) and where it went itself (None: nowhere), from the merges'
        record."""
        if not self.views.has("release_merges"):
            return [], None
        rows = self.views.query(
            "SELECT from_key, into_key, via, merged_at FROM release_merges "
            "WHERE into_key = ? OR from_key = ? ORDER BY merged_at, from_key",
            [key, key],
        ).to_pylist()
        into = [r for r in rows if r["into_key"] == key and r["from_key"] != key]
        for r in into:
            r["name"] = self.snapshot.name_of(r["from_key"])
        went = next((r for r in reversed(rows) if r["from_key"] == key), None)
        return into, went

    def probe_status(self) -> dict[str, Any]:
        """The article pass's figures: releases probed and articles read, pending releases
        named, exhausted, discarded and waiting, and each signature's climbs (the one
        rule: `pipelines.catalog.signatures`)."""
        views = self.views
        totals = views.query(
            "SELECT count(*) AS releases, coalesce(sum(probes), 0)::BIGINT AS articles, "
            "coalesce(sum(fetched), 0)::BIGINT AS fetched, "
            "coalesce(sum(missing), 0)::BIGINT AS missing, "
            "coalesce(sum(failed), 0)::BIGINT AS failed, "
            "count(*) FILTER (WHERE password = 1) AS passworded FROM release_probes"
        ).to_pylist()[0]
        outcomes = {r["outcome"]: r["n"] for r in views.query(
            "SELECT outcome, count(*) AS n FROM release_probes WHERE pending GROUP BY 1"
        ).to_pylist()}  # fmt: skip
        pending = views.query(
            'SELECT tool, "group", poster, outcome FROM release_probes WHERE pending'
        ).to_pylist()
        figures = signature_figures(pending)
        signatures = [
            {"tool": s.tool, "group": s.group, "poster": s.poster, "climbs": f.climbs,
             "named": f.named, "skipped": f.skipped, "discarded": f.discarded}
            for s, f in sorted(figures.items(), key=lambda kv: (-kv[1].climbs, str(kv[0])))
        ]  # fmt: skip
        return {**totals, "outcomes": outcomes, "signatures": signatures[:100],
                "signature_count": len(signatures)}  # fmt: skip

    def release(self, key: bytes, columns: list[str] | None = None) -> dict[str, Any] | None:
        return self.snapshot.find(key, columns)

    def download_row(self, key: bytes) -> dict[str, Any] | None:
        """What `nzb` needs of the release (name, group, category, article span)."""
        return self.snapshot.download_row(key)

    @staticmethod
    def _span(row: dict[str, Any]) -> tuple[int, int]:
        # Versions were written in ranges from its first article to its newest version's.
        return int(row["first_article"]), max(int(row["last_article"]), int(row["written_range"]))

    def damaged_files(self, row: dict[str, Any]) -> str | None:
        """A `release_files` partition known damaged that the release's span covers."""
        return self.files.damaged_in(row["group"], *self._span(row))

    def nzb_files(self, row: dict[str, Any]) -> list[NzbFile]:
        rows = self.files.rows(row["group"], row["release_key"], *self._span(row))
        return merge_file_rows(rows)

    def nzb(self, row: dict[str, Any], mark: Mark = None) -> bytes:
        """The release's NZB (from its `download_row` or whole row); `mark(stage)` is told
        where the time went."""
        rows = self.files.rows(row["group"], row["release_key"], *self._span(row), mark)
        files = merge_release_rows(rows)
        if mark is not None:
            mark("merge")
        password = row.get("password_text") or self.sources.password(row["release_key"])
        meta = head_meta(row["name"], categories.name(int(row["category"])), password)
        body = write_nzb(files, meta)
        if mark is not None:
            mark("xml")
        return body


def get_catalog(request: Request) -> Catalog:
    catalog: Catalog = request.app.state.catalog
    return catalog


CatalogDep = Annotated[Catalog, Depends(get_catalog)]
