"""The serving state: settings, the DuckDB views, the search index and the key counters.

One `Catalog` per app, created at start-up and kept fresh by a background thread;
routes reach it through the `CatalogDep` dependency.
"""

from __future__ import annotations

import logging
import threading
from typing import Annotated, Any

from fastapi import Depends, Request

from pipelines.nzb.assemble import ReleaseFilesLookup, head_meta, merge_file_rows
from pipelines.nzb.writer import NzbFile, write_nzb
from serving import categories
from serving.index.manager import IndexManager
from serving.index.searcher import Snapshot
from serving.limits import KeyLimits
from serving.settings import Settings
from serving.views import CatalogViews

log = logging.getLogger(__name__)


class Catalog:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.views = CatalogViews(settings.catalog)
        self.index = IndexManager(
            settings.catalog,
            settings.index_dir,
            in_process=settings.build_in_process,
            follow=settings.follow_index,
            result_cache=settings.search_cache,
        )
        self.files = ReleaseFilesLookup(self.views.fs, self.views.root)
        # in the index folder the workers share: one set of daily counts for all of them
        self.limits = KeyLimits(
            settings.api_keys,
            settings.open_api,
            settings.daily_requests,
            settings.daily_downloads,
            shared=str(self.index.index_dir / "key-counters.bin"),
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

    def start(self, background: bool = True) -> None:
        self.refresh()
        if background:
            self._thread = threading.Thread(target=self._loop, name="catalog-refresh", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        try:  # before the first refresh: NZB downloads then find their footers read
            self.files.warm(list(self.snapshot.stats()["groups"]))
        except Exception:  # a cold cache is only slower
            log.exception("reading release_files footers failed")
        while not self._stop.wait(self.settings.refresh_seconds):
            try:
                self.refresh()
                self.last_error = None
            except Exception as exc:  # keep serving the last good state
                log.exception("catalog refresh failed")
                self.last_error = f"{type(exc).__name__}: {exc}"

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.limits.close()
        self.index.close()
        self.views.close()

    def release(self, key: bytes) -> dict[str, Any] | None:
        return self.snapshot.find(key)

    def nzb_files(self, row: dict[str, Any]) -> list[NzbFile]:
        # Versions were written in ranges from its first article to its newest version's.
        last = max(int(row["last_article"]), int(row["written_range"]))
        rows = self.files.rows(row["group"], row["release_key"], int(row["first_article"]), last)
        return merge_file_rows(rows)

    def nzb(self, row: dict[str, Any]) -> bytes:
        meta = head_meta(row["name"], categories.name(int(row["category"])), None)
        return write_nzb(self.nzb_files(row), meta)


def get_catalog(request: Request) -> Catalog:
    catalog: Catalog = request.app.state.catalog
    return catalog


CatalogDep = Annotated[Catalog, Depends(get_catalog)]
