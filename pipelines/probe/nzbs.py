"""NZBs the article pass finds: an NZB posted in an upload beside its files (`[00/27] -
"Name.nzb"`) or posted as an upload of its own, imported on the path every NZB takes
(`pipelines.nzbimport`): inserted as a release, linked to the release that holds its
articles, or counted malformed.

The bytes are taken as they are fetched (`NzbTap`) and never kept in the probe cache: a
cached answer says the article is an NZB, not what it lists. A span's NZBs are imported
before its cache batch is written: a run killed between the two fetches them again, and
the import, which knows every NZB it took by its SHA-1, adds nothing twice. An NZB
posted in several parts (a large one: ~6,000 segments fill a 750 kB article) is read
whole: its first part is the candidate, the others are fetched by the message-ids the
header pass stored for its file, and the parts joined where their yEnc offsets say; one
with a part missing is counted `incomplete`, one of more than `MAX_PARTS` `too_large`.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from pipelines.corpus.fs import open_fs
from pipelines.nzbimport.run import Importer
from pipelines.probe.inspection import Inspection
from pipelines.probe.ladder import Climb
from pipelines.probe.source import ArticleSource, OnResult
from pipelines.probe.spans import Span, span_files

ORIGIN = "posted"  # the import log's origin of an NZB the article pass found
MAX_PARTS = 100  # of one NZB (75 MB of a 750 kB-article poster): more is no NZB we read


@dataclass(frozen=True)
class NzbPart:
    name: str  # the yEnc name
    at: int  # the part's first byte in the file
    size: int  # the whole file's
    data: bytes

    @property
    def whole(self) -> bool:
        return self.at == 0 and len(self.data) == self.size


class NzbTap:
    """An article source that keeps the NZB parts it fetches aside and passes on their
    results without their bytes (the cache and the climbs see the NZB's kind only)."""

    def __init__(self, inner: ArticleSource) -> None:
        self.inner = inner
        self.parts: dict[str, NzbPart] = {}  # by message-id

    @property
    def gave_up(self) -> bool:
        return self.inner.gave_up

    def fetch(self, message_ids: Iterable[str], on_result: OnResult) -> None:
        def got(mid: str, result: Inspection | None) -> None:
            if result is not None and result.nzb is not None:
                size = result.yenc_size if result.yenc_size is not None else len(result.nzb)
                self.parts[mid] = NzbPart(result.yenc_name or "", result.nzb_at, size, result.nzb)
                result = dataclasses.replace(result, nzb=None)
            on_result(mid, result)

        self.inner.fetch(message_ids, got)

    def take(self) -> dict[str, NzbPart]:
        parts, self.parts = self.parts, {}
        return parts


def import_span(catalog: str, span: Span, climbs: list[Climb], tap: NzbTap) -> Counter[str]:
    """Import the NZBs the span's climbs fetched (an NZB in several parts completed
    first); the outcomes by kind."""
    parts = tap.take()
    whole = {mid: p for mid, p in parts.items() if p.whole}
    cut = {mid: p for mid, p in parts.items() if p.at == 0 and not p.whole}
    outcomes: Counter[str] = Counter()
    if cut:
        whole.update(_completed(catalog, span, climbs, cut, tap, outcomes))
    if not whole:
        return outcomes
    where = {mid: c for c in climbs for _, mids in c.steps for mid in mids}
    with Importer(catalog) as importer:
        for mid, part in sorted(whole.items()):
            climb = where.get(mid)
            group = climb.group if climb is not None else ""
            # where it was found; its yEnc name last: an NZB naming no title is named so
            importer.add(ORIGIN, f"{group}/<{mid}>/{part.name}", part.data)
        outcomes.update(importer.summary.outcomes)
    return outcomes


def _completed(
    catalog: str, span: Span, climbs: list[Climb], cut: dict[str, NzbPart], tap: NzbTap,
    outcomes: Counter[str],
) -> dict[str, NzbPart]:  # fmt: skip
    """The NZBs posted in several parts whose first parts these are, each fetched whole
    (by first part's message-id); the others counted."""
    others = _other_parts(catalog, span, climbs, set(cut))
    large = {mid for mid, mids in others.items() if len(mids) + 1 > MAX_PARTS}
    if large:
        outcomes["too_large"] += len(large)
    wanted = [m for mid, mids in others.items() if mid not in large for m in mids]
    if wanted:
        tap.fetch(wanted, lambda mid, result: None)  # the tap keeps the parts' bytes
    later = tap.take()
    out: dict[str, NzbPart] = {}
    for mid, first in cut.items():
        if mid in large:
            continue
        found = others.get(mid)  # None: its file's segments not stored
        data = None if found is None else _joined(first, [later.get(m) for m in found])
        if data is None:
            outcomes["incomplete"] += 1
        else:
            out[mid] = NzbPart(first.name, 0, first.size, data)
    return out


def _other_parts(
    catalog: str, span: Span, climbs: list[Climb], firsts: set[str]
) -> dict[str, list[str]]:
    """Of each NZB file whose first part's message-id is given, its other parts'
    message-ids in part order (the span's `release_files`, as the header pass stored the
    file's segments)."""
    keys = {c.key for c in climbs for _, mids in c.steps if firsts & set(mids)}
    fs, _ = open_fs(catalog)
    out: dict[str, list[str]] = {}
    for row in span_files(fs, span, keys, ["release_key", "seg_numbers", "seg_ids"]):
        ordered = [m for _, m in sorted(zip(row["seg_numbers"] or [], row["seg_ids"] or [],
                                            strict=True))]  # fmt: skip
        if ordered and ordered[0] in firsts:
            out[ordered[0]] = ordered[1:]
    return out


def _joined(first: NzbPart, rest: list[NzbPart | None]) -> bytes | None:
    """The file's bytes from its parts, or None when one is missing or they leave a gap."""
    if any(p is None for p in rest):
        return None
    parts = sorted([first, *(p for p in rest if p is not None)], key=lambda p: p.at)
    at = 0
    for p in parts:
        if p.at != at:
            return None
        at += len(p.data)
    return b"".join(p.data for p in parts) if at == first.size else None
