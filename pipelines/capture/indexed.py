"""What the indexer has taken, as the catalog says: the prefetch's `consumed` callback.

A range is indexed when the catalog holds its range log (`ranges/<group>/<span>.parquet`)
and the window snapshot it left (`_window/<group>/<span>.snapshot`): the range
scheduler's rule (`pipelines.index.schedule`: without either, a range is "not indexed"
and due). Read here from two listings per group rather than range by range, because the
prefetch asks about every range of a long history on each pass; a listing is kept for
`refresh` seconds, so a capture that runs for hours sees the indexer advance.

Between listings, a group whose two folders have not moved (`pipelines.catalog.changes`:
their stamp, a `stat` each) keeps its listing however old it is: a capture pass over 200
groups of a quiet catalog lists nothing.

A range whose log cannot be read back, or that is stale under a new rule set, is still
taken: it is due for the indexer again, but it is captured, and capturing it once more
would change nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pipelines.catalog.changes import UNKNOWN, stamp_of, table_folders
from pipelines.catalog.layout import snapshot_path
from pipelines.catalog.partitions import list_group
from pipelines.corpus.fs import is_temporary, open_fs
from pipelines.corpus.layout import RangeRef, parse_span

SNAPSHOT_SUFFIX = ".snapshot"


class IndexedRanges:
    def __init__(
        self,
        catalog: str,
        storage_options: dict[str, Any] | None = None,
        refresh: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.catalog = catalog
        self.fs, self.root = open_fs(catalog, storage_options)
        self.refresh = refresh
        self._clock = clock
        self._listed: dict[str, tuple[float, frozenset[tuple[int, int]]]] = {}
        self._stamps: dict[str, str] = {}

    def __call__(self, ref: RangeRef) -> bool:
        return (ref.first, ref.last) in self.spans(ref.group)

    def spans(self, group: str) -> frozenset[tuple[int, int]]:
        """(first, last) of every range of the group the indexer has taken."""
        now = self._clock()
        listed = self._listed.get(group)
        if listed is None or now - listed[0] >= self.refresh:
            # taken before the listing: a range indexed meanwhile moves it for next time
            stamp = stamp_of(self.fs, table_folders(self.root, ("ranges", "_window"), group))
            if listed is None or stamp == UNKNOWN or stamp != self._stamps.get(group):
                listed = (now, self._list(group))
                self._stamps[group] = stamp
            else:
                listed = (now, listed[1])
            self._listed[group] = listed
        return listed[1]

    def _list(self, group: str) -> frozenset[tuple[int, int]]:
        logged = {
            (p.first, p.last)
            for p in list_group(self.fs, self.root, "ranges", group, stat=False)
            if not p.compact
        }
        if not logged:
            return frozenset()
        folder = snapshot_path(self.root, group, 0, 0).rsplit("/", 1)[0]
        try:
            names = [p.rsplit("/", 1)[-1] for p in self.fs.ls(folder, detail=False)]
        except FileNotFoundError:
            return frozenset()
        snapshots = set()
        for name in names:
            if not name.endswith(SNAPSHOT_SUFFIX) or is_temporary(name):
                continue
            span = parse_span(name[: -len(SNAPSHOT_SUFFIX)])
            if span is not None:
                snapshots.add(span)
        return frozenset(logged & snapshots)
