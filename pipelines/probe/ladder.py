"""The pending ladder (decision f), and the probes of catalog releases.

An unnamed release climbs, least effort first, and stops at the first step that names it:
- (0) no fetch: its signature's verdict; a discarded signature's release is discarded,
  but for a sample (`SAMPLE_SHARE`, by release key) still climbing to notice a change;
- (1) the par2 index's first article (the set names the files as posted);
- (2) the first article of the first file (its yEnc name, an archive's listing);
- (3) a 7z set's tail (its header, at the end of the last volume);
then it is exhausted. A named release whose password is still unknown climbs on to its
archive (steps 2 and 3), as a catalog release reads its first volume. A catalog release
reads its candidates at once, for its password and the inner names readers can search.

The climbs go in rounds: each round reads the next article of every climb still going,
answered from the cache where the article was read before, the rest fetched together.
An article whose fetch failed (transport) leaves its release waiting for the next run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pipelines.catalog.signatures import CLIMBED, MIN_CLIMBS, discarded, signature_figures
from pipelines.probe import learned
from pipelines.probe.cache import ProbeCache
from pipelines.probe.inspection import Inspection
from pipelines.probe.source import ArticleSource

SAMPLE_SHARE = 0.05  # of a discarded signature's releases, still probed

# outcomes (release_probes.outcome)
NAMED, EXHAUSTED, DISCARDED, WAITING, PROBED = (
    "named",
    "exhausted",
    "discarded",
    "waiting",
    "probed",
)
FINISHED_CLIMBS = CLIMBED  # what counts on a signature


Signature = tuple[str, str, str]  # (tool, group, poster); poster "" for the tool and group


@dataclass
class Climb:
    """One release's way up the ladder (or a catalog release's one step)."""

    key: bytes
    group: str
    pending: bool
    poster: str
    tool: str
    written_range: int
    steps: list[tuple[int, list[str]]]  # (step number, message-ids), empty steps left out
    at: int = 0  # the next step's index in `steps`
    read: list[Inspection] = field(default_factory=list)
    outcome: str = ""
    named: learned.Named | None = None
    step: int = 0  # the last step climbed
    probes: int = 0
    fetched: int = 0
    missing: int = 0
    failed: int = 0

    @property
    def going(self) -> bool:
        return not self.outcome

    def signatures(self) -> tuple[Signature, Signature]:
        return (self.tool, self.group, self.poster), (self.tool, self.group, "")


@dataclass
class SignatureCounts:
    """Climbs and names per signature, from earlier climbs (`release_probes`)."""

    climbs: dict[Signature, int] = field(default_factory=dict)
    named: dict[Signature, int] = field(default_factory=dict)

    def count(self, tool: str, group: str, poster: str, named: bool) -> None:
        for sig in ((tool, group, poster), (tool, group, "")):
            self.climbs[sig] = self.climbs.get(sig, 0) + 1
            self.named[sig] = self.named.get(sig, 0) + named

    def add(self, other: SignatureCounts) -> None:
        for sig, n in other.climbs.items():
            self.climbs[sig] = self.climbs.get(sig, 0) + n
        for sig, n in other.named.items():
            self.named[sig] = self.named.get(sig, 0) + n

    def dropped(self, sig: Signature) -> bool:
        return discarded(self.climbs.get(sig, 0), self.named.get(sig, 0))

    def verdict(self, climb: Climb) -> bool:
        """Whether the release's signature is discarded: by its poster's signature when
        that one has climbed enough to judge, else by its tool and group's."""
        own, wide = climb.signatures()
        if self.climbs.get(own, 0) >= MIN_CLIMBS:
            return self.dropped(own)
        return self.dropped(wide)


def sampled(key: bytes) -> bool:
    """Whether a discarded signature's release still climbs: a fixed share by its key."""
    return int.from_bytes(hashlib.sha1(b"sample" + key).digest()[:4], "big") < SAMPLE_SHARE * 2**32


@dataclass
class LadderCounts:
    rounds: int = 0
    from_cache: int = 0
    fetched: int = 0
    transport: int = 0


Progress = Callable[[int], None]  # articles read (cached or fetched) since the last call


def climb_all(
    climbs: list[Climb],
    source: ArticleSource | None,
    cache: ProbeCache,
    signatures: SignatureCounts,
    progress: Progress | None = None,
) -> LadderCounts:
    """Take every climb to its outcome (or to waiting). `source` None: the cache only (an
    article it does not hold leaves its release waiting)."""
    counts = LadderCounts()
    for c in climbs:
        if c.pending and signatures.verdict(c) and not sampled(c.key):
            c.outcome = DISCARDED
        elif not c.steps:
            c.outcome = EXHAUSTED if c.pending else PROBED
    while True:
        going = [c for c in climbs if c.going]
        if not going:
            break
        counts.rounds += 1
        wanted = {mid for c in going for mid in c.steps[c.at][1]}
        fetched: dict[str, Inspection | None] = {}
        to_fetch = sorted(mid for mid in wanted if mid not in cache)
        counts.from_cache += len(wanted) - len(to_fetch)
        if progress and len(wanted) > len(to_fetch):
            progress(len(wanted) - len(to_fetch))

        def got(
            mid: str, result: Inspection | None, fetched: dict[str, Inspection | None] = fetched
        ) -> None:
            fetched[mid] = result
            if result is not None:
                cache.add(mid, result)
            if progress:
                progress(1)

        if to_fetch and source is not None:
            source.fetch(to_fetch, got)
        counts.fetched += sum(1 for r in fetched.values() if r is not None)
        counts.transport += sum(1 for r in fetched.values() if r is None)
        for c in going:
            _advance(c, cache, fetched)
        for c in going:
            if c.pending and c.outcome in FINISHED_CLIMBS:
                signatures.count(c.tool, c.group, c.poster, c.outcome == NAMED)
    return counts


def _advance(c: Climb, cache: ProbeCache, fetched: dict[str, Inspection | None]) -> None:
    step, mids = c.steps[c.at]
    results = []
    for mid in mids:
        r = cache.get(mid)
        if r is None:  # a transport failure, or no source to fetch it from
            c.outcome = WAITING
            return
        results.append(r)
        c.probes += 1
        c.fetched += mid in fetched
        c.missing += r.status == "missing"
        c.failed += r.status not in ("ok", "missing")
    c.read.extend(results)
    c.step = step
    c.at += 1
    done = c.at >= len(c.steps)
    if not c.pending:
        if done:
            c.outcome = PROBED
        return
    if c.named is None:
        c.named = learned.usable_name(c.read)
    if c.named is not None and (done or learned.password_of(c.read) is not None):
        c.outcome = NAMED
    elif done:
        c.outcome = EXHAUSTED
    # named, its password still unknown: it climbs on to its archive, as a catalog
    # release reads its first volume (a passworded release without one is locked)


def counts_from(rows: Iterable[dict[str, object]]) -> SignatureCounts:
    """Signature counts from stored `release_probes` rows (pending ones' finished climbs),
    by the figures the status page shows (`pipelines.catalog.signatures`)."""
    pending = [r for r in rows if r.get("pending")]
    counts = SignatureCounts()
    for by_poster in (True, False):
        for sig, figures in signature_figures(pending, by_poster).items():
            key = (sig.tool or "", sig.group or "", sig.poster or "")
            counts.climbs[key] = figures.climbs
            counts.named[key] = figures.named
    return counts
