"""NZBs the article pass finds: an NZB posted in an upload beside its files (`[00/27] -
"Name.nzb"`) or posted as an upload of its own, imported on the path every NZB takes
(`pipelines.nzbimport`): inserted as a release, linked to the release that holds its
articles, or counted malformed.

The bytes are taken as they are fetched (`NzbTap`) and never kept in the probe cache: a
cached answer says the article is an NZB, not what it lists. So a span's NZBs are
imported before its cache batch is written: a run killed between the two fetches them
again, and the import, which knows every NZB it took by its SHA-1, adds nothing twice.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable

from pipelines.nzbimport.run import Importer
from pipelines.probe.inspection import Inspection
from pipelines.probe.ladder import Climb
from pipelines.probe.source import ArticleSource, OnResult

ORIGIN = "posted"  # the import log's origin of an NZB the article pass found


class NzbTap:
    """An article source that keeps the bytes of the NZBs it fetches aside and passes on
    their results without them (the cache and the climbs see the NZB's kind only)."""

    def __init__(self, inner: ArticleSource) -> None:
        self.inner = inner
        self.found: dict[str, tuple[str, bytes]] = {}  # message-id -> (yEnc name, bytes)

    @property
    def gave_up(self) -> bool:
        return self.inner.gave_up

    def fetch(self, message_ids: Iterable[str], on_result: OnResult) -> None:
        def got(mid: str, result: Inspection | None) -> None:
            if result is not None and result.nzb is not None:
                self.found[mid] = (result.yenc_name or "", result.nzb)
                result = dataclasses.replace(result, nzb=None)
            on_result(mid, result)

        self.inner.fetch(message_ids, got)

    def take(self) -> dict[str, tuple[str, bytes]]:
        found, self.found = self.found, {}
        return found


def import_found(
    catalog: str, climbs: list[Climb], found: dict[str, tuple[str, bytes]]
) -> Counter[str]:
    """Import the NZBs fetched for these climbs; the outcomes by kind."""
    if not found:
        return Counter()
    where = {mid: c for c in climbs for _, mids in c.steps for mid in mids}
    with Importer(catalog) as importer:
        for mid, (name, data) in sorted(found.items()):
            climb = where.get(mid)
            group = climb.group if climb is not None else ""
            # where it was found; its yEnc name last: an NZB naming no title is named so
            importer.add(ORIGIN, f"{group}/<{mid}>/{name}", data)
        return Counter(importer.summary.outcomes)
