"""What the indexer has taken of each backbone: the prefetch's `consumed`, per backbone.

A group's primary backbone is consumed as one backbone always was: a range is taken once
indexed (`indexed.IndexedRanges`). Another backbone's ranges are read by the header
pass's fill (`pipelines/index/fill.py`): one is taken once the fill's cursor for that
backbone, in the group's newest fill state, is past it. The primary is the one pinned
in the catalog, else the first backbone of the capture's order that holds the group (the
header pass's rule, `pipelines/index/backbones.py`). Listings are kept `refresh` seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pipelines.capture.indexed import IndexedRanges
from pipelines.corpus.fs import is_temporary, open_fs
from pipelines.corpus.layout import RangeRef, parse_span
from pipelines.index.fill_state import FOLDER, load_state, read_pin


class FilledRanges:
    def __init__(self, catalog: str, backbone: str, refresh: float = 5.0) -> None:
        self.catalog = catalog
        self.fs, self.root = open_fs(catalog)
        self.backbone = backbone
        self.refresh = refresh
        self._cursor: dict[str, tuple[float, int]] = {}

    def __call__(self, ref: RangeRef) -> bool:
        return ref.last < self.cursor(ref.group)

    def cursor(self, group: str) -> int:
        """The backbone's first article the fill has not taken in the group (-1: none)."""
        now = time.monotonic()
        seen = self._cursor.get(group)
        if seen is None or now - seen[0] >= self.refresh:
            seen = (now, self._read(group))
            self._cursor[group] = seen
        return seen[1]

    def _read(self, group: str) -> int:
        folder = f"{self.root.rstrip('/')}/{FOLDER}/{group}"
        try:
            names = [p.rsplit("/", 1)[-1] for p in self.fs.ls(folder, detail=False)]
        except FileNotFoundError:
            return -1
        spans = [
            span
            for name in names
            if name.endswith(".npz") and not is_temporary(name)
            if (span := parse_span(name[: -len(".npz")])) is not None
        ]
        for first, last in sorted(spans, reverse=True):
            state = load_state(self.catalog, group, first, last)
            if state is not None:
                source = state.sources.get(self.backbone)
                return source.cursor if source and source.cursor is not None else -1
        return -1


def consumed_by_backbone(
    catalog: str, order: list[str], refresh: float = 5.0
) -> Callable[[str], Callable[[RangeRef], bool]]:
    """`consumed(backbone)` for `BackboneCapture`: each backbone's ranges taken by the
    header pass, read as the primary or by the fill, group by group. One backbone: what
    the catalog indexed, as always."""
    indexed = IndexedRanges(catalog, refresh=refresh)
    if len(order) == 1:
        return lambda backbone: indexed
    pins: dict[str, tuple[float, str | None]] = {}  # group -> (read at, pinned primary)

    def primary(group: str) -> str:
        now = time.monotonic()
        seen = pins.get(group)
        if seen is None or (seen[1] is None and now - seen[0] >= refresh):
            seen = (now, read_pin(catalog, group))  # pinned once: never read again
            pins[group] = seen
        return seen[1] if seen[1] is not None else order[0]

    def consumed(backbone: str) -> Callable[[RangeRef], bool]:
        filled = FilledRanges(catalog, backbone, refresh)
        return lambda ref: indexed(ref) if primary(ref.group) == backbone else filled(ref)

    return consumed
