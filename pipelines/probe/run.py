"""A probe run: every due span of the catalog (or the ones asked for), span by span.

Resumable: each span's outputs are written when its climbs end, the cache after every
span, so a run stopped anywhere redoes at most one span, and fetches nothing that a
stored result answers. `limit` caps the releases climbed in the run (the rest of a span
stays waiting, and the span due).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pipelines.probe.cache import ProbeCache
from pipelines.probe.ladder import (
    DISCARDED,
    EXHAUSTED,
    NAMED,
    PROBED,
    WAITING,
    SignatureCounts,
    climb_all,
)  # fmt: skip
from pipelines.probe.nzbs import NzbTap, import_span
from pipelines.probe.source import ArticleSource
from pipelines.probe.spans import (
    Span,
    due,
    due_spans,
    group_signature_counts,
    span_work,
    spans,
    write_outputs,
)


@dataclass
class ProbeSummary:
    spans: int = 0
    releases: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    articles: int = 0  # read by the climbs, from the cache or the source
    fetched: int = 0
    from_cache: int = 0
    transport: int = 0
    rounds: int = 0
    gave_up: bool = False
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    cache_damaged: list[str] = field(default_factory=list)
    nzbs: Counter[str] = field(default_factory=Counter)  # NZBs found, by import outcome

    def add_outcome(self, outcome: str) -> None:
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1

    def text(self) -> str:
        per = {k: self.outcomes.get(k, 0) for k in (NAMED, EXHAUSTED, DISCARDED, WAITING, PROBED)}
        rate = self.fetched / self.seconds if self.seconds else 0.0
        lines = [
            f"probed {self.releases:,} releases in {self.spans:,} spans: "
            + ", ".join(f"{n:,} {k}" for k, n in per.items()),
            f"articles: {self.articles:,} read, {self.fetched:,} fetched "
            f"({rate:,.1f}/s), {self.from_cache:,} from the cache, "
            f"{self.transport:,} transport failures",
            f"{self.seconds:.1f} s, {self.cpu_seconds:.1f} CPU-s",
        ]
        if self.nzbs:
            lines.append(
                f"NZBs posted in uploads: {sum(self.nzbs.values()):,} imported: "
                + ", ".join(f"{n:,} {k}" for k, n in sorted(self.nzbs.items()))
            )
        if self.gave_up:
            lines.append("stopped fetching after a run of transport failures: the server is down?")
        lines += [f"damaged cache file skipped: {d}" for d in self.cache_damaged]
        return "\n".join(lines)


Progress = Callable[[str, int], None]  # (what, how many more)


def spans_within(catalog: str, group: str, first: int, last: int) -> list[Span]:
    """The due spans of a range: its own partition, or the tail parts written of it."""
    return [
        s for s in spans(catalog, [group])
        if first <= s.first and s.last <= last and due(catalog, s)
    ]  # fmt: skip


def probe_catalog(
    catalog: str,
    source: ArticleSource | None,
    groups: Iterable[str] | None = None,
    only: list[Span] | None = None,
    limit: int | None = None,
    rules_version: str = "",
    progress: Progress | None = None,
) -> ProbeSummary:
    started, cpu_started = time.perf_counter(), time.process_time()
    todo = only if only is not None else due_spans(catalog, groups)
    if not todo:  # nothing due: the cache is not read
        return ProbeSummary(seconds=time.perf_counter() - started,
                            cpu_seconds=time.process_time() - cpu_started)  # fmt: skip
    cache = ProbeCache(catalog)
    summary = ProbeSummary(cache_damaged=list(cache.damaged))
    tap = NzbTap(source) if source is not None else None
    left = limit
    signatures_by_group: dict[str, SignatureCounts] = {}
    for span in todo:
        if left is not None and left <= 0:
            break
        work = span_work(catalog, span)
        climbs = work.climbs if left is None else work.climbs[:left]
        if span.group not in signatures_by_group:
            signatures_by_group[span.group] = group_signature_counts(catalog, span.group, span)
        signatures = signatures_by_group[span.group]
        counts = climb_all(
            climbs, tap, cache, signatures,
            progress=(lambda n: progress("articles", n)) if progress else None,
        )  # fmt: skip
        if tap is not None:  # before the cache: its answers do not hold the NZBs' bytes
            summary.nzbs += import_span(catalog, span, climbs, tap)
        cache.flush()
        # every release of the span gets its row: those past the limit as waiting
        write_outputs(catalog, work, work.climbs, int(time.time()), rules_version)
        summary.spans += 1
        summary.releases += len(climbs)
        for c in climbs:
            summary.add_outcome(c.outcome or WAITING)
            summary.articles += c.probes
        summary.fetched += counts.fetched
        summary.from_cache += counts.from_cache
        summary.transport += counts.transport
        summary.rounds += counts.rounds
        if left is not None:
            left -= len(climbs)
        if progress:
            progress("releases", len(climbs))
        if source is not None and source.gave_up:
            summary.gave_up = True
            break
    summary.seconds = time.perf_counter() - started
    summary.cpu_seconds = time.process_time() - cpu_started
    return summary
