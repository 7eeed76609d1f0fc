"""Where a probe's articles come from: what the ladder asks of a fetcher
(`pipelines.probe.fetch`: a server's connection pool, or stored bodies)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from pipelines.probe.inspection import Inspection

# (message-id, its result; None for a transport failure: no result, ask again later)
OnResult = Callable[[str, Inspection | None], None]


class ArticleSource(Protocol):
    def fetch(self, message_ids: Iterable[str], on_result: OnResult) -> None:
        """Fetch and inspect each article, calling `on_result` once for each (from any
        thread, one at a time)."""

    @property
    def gave_up(self) -> bool:
        """Whether the source stopped on a run of transport failures."""
