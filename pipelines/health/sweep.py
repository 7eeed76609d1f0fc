"""A health sweep: STAT a sample of each due release's segments, store a verdict per release.

The sweep borrows the connection pool other passes use, so it keeps three ways a check
can fail to give a verdict apart; collapsing any two of them stalls the sweep or wastes
the pool:

- the pool has nothing to lend (`PoolBusy` within `lease_wait`): the pass ends at once.
  Those connections are someone else's work; waiting for them is that work's loss, and
  the releases are simply still due next time.
- a transport failure (the connection opened or held failed to read, write or answer in
  time): that release is skipped, unstamped (its doubt is the pool's, not the server's:
  it is retried next pass), and the next one is tried. Only a run of `transport_yield`
  of them in a row ends the pass: it means the pool itself is sick (a provider that
  dropped every idle session), while a provider that times out now and then costs a
  release each time, never the pass. Any release that gets an answer resets the run.
- an unusable answer (the server answered, but not with what a STAT gives): the release
  is stamped, a row with a null verdict. The server would answer the same next pass, and
  an unstamped release would lead every batch while the rest went unchecked.

With several providers (`docs/PROVIDERS.md`) each sampled segment is STATted on every
provider that could serve it (not resting, and its retention, as the newest `providers
check` found it, reaches back to the release), all at once (a connection of each), and
the row keeps what each answered
(`providers`, `provider_missing`). The release's verdict is the best provider's: it is
healthy when some provider serves all of it. A provider's transport failure costs the
release only when no other provider serves it whole (it might have); a provider that
refuses the credentials is rested for the run, and the sweep stops with that error only
when every provider refused them.

Resumable: each batch's rows are written when the batch ends (`store.write_batch`), and
candidates leave out what is stored, so a stopped sweep goes on where it stopped.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from pipelines.catalog.views import CatalogViews
from pipelines.health.cadence import DEFAULT, Cadence
from pipelines.health.candidates import Candidate, segments_of
from pipelines.health.check import Answer, stat_sample
from pipelines.health.due import due_now
from pipelines.health.sample import ReleaseSegments, sample
from pipelines.health.store import write_batch
from pipelines.health.verdicts import HEALTHY, VERDICTS, verdict
from pipelines.nntp.errors import AuthError, NNTPError, PoolBusy
from pipelines.nntp.pool import ConnectionPool
from pipelines.nntp.provider import Provider
from pipelines.providers.failover import BodyPools
from pipelines.providers.status import oldest_articles

STAMPED = "stamped"  # a row with a null verdict
SKIPPED = "skipped"  # transport: no row
# why a pass ended
DONE = "done"  # every due release was tried
POOL_BUSY = "pool busy"
TRANSPORT = "transport failures"

Progress = Callable[[str], None]  # called with each release's outcome


@dataclass(frozen=True)
class SweepSettings:
    stat_timeout: float = 10.0  # seconds for one STAT's reply
    lease_wait: float = 5.0  # seconds to wait for a pooled connection before the pool is busy
    transport_yield: int = 5  # transport failures in a row that end the pass
    connections: int | None = None  # checks at once (default: the pool's size)
    batch_size: int = 500  # releases per stored batch (and per read of their files)
    limit: int | None = None  # releases at most this pass
    groups: tuple[str, ...] | None = None
    cadence: Cadence = DEFAULT


@dataclass
class SweepSummary:
    candidates: int = 0  # due releases picked for this pass
    verdicts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    stamped: int = 0
    skipped: int = 0  # transport failures
    unchecked: int = 0  # left when the pass ended early
    stats: int = 0  # STATs answered
    batches: int = 0
    ended: str = DONE
    seconds: float = 0.0
    damaged: list[str] = field(default_factory=list)
    served: dict[str, int] = field(default_factory=dict)  # releases each provider serves whole

    @property
    def checked(self) -> int:
        return sum(self.verdicts.values())

    def text(self) -> str:
        rate = self.stats / self.seconds if self.seconds else 0.0
        lines = [
            f"checked {self.checked:,} of {self.candidates:,} due releases: "
            + ", ".join(f"{n:,} {k}" for k, n in self.verdicts.items()),
            f"{self.stamped:,} stamped (unusable answer), {self.skipped:,} skipped "
            f"(transport), {self.unchecked:,} left unchecked",
            f"{self.stats:,} STATs in {self.seconds:.1f} s ({rate:,.1f}/s)",
            f"ended: {self.ended}",
        ]
        if len(self.served) > 1:
            lines.append(
                "served whole: " + ", ".join(f"{n:,} by {p}" for p, n in self.served.items())
            )
        lines += [f"damaged health file skipped: {d}" for d in self.damaged]
        return "\n".join(lines)


def health_provider(provider: Provider, stat_timeout: float) -> Provider:
    """The account as the sweep uses it: plain replies (no overview is read, so no
    compression to negotiate) and a handshake held to the STAT deadline."""
    return dataclasses.replace(
        provider,
        compression="plain",
        timeout=min(provider.timeout, max(stat_timeout, 1.0)),
        connect_timeout=min(provider.connect_timeout, max(stat_timeout, 1.0)),
    )


class _Pass:
    """One batch's checks, a thread per connection; what ends the pass is shared."""

    def __init__(
        self, pools: BodyPools, settings: SweepSettings, summary: SweepSummary, now: int,
        progress: Progress | None,
    ) -> None:  # fmt: skip
        self.pools = pools
        pools.start_pass()
        self.settings = settings
        self.summary = summary
        self.now = now
        self.progress = progress
        # a check holds a connection of each provider at once: as many checks as the
        # smallest account has connections never wait on each other
        smallest = min(p.size for p in pools.pools)
        self.threads = max(1, min(settings.connections or smallest, smallest))
        self.lock = threading.Lock()
        self.in_a_row = 0
        self.fatal: BaseException | None = None
        self.refused: dict[str, AuthError] = {}
        self.oldest: dict[tuple[str, str], int] = {}  # (provider, group): its oldest article
        extra = self.threads * (len(pools.pools) - 1)  # a thread per check per other provider
        self.helpers = ThreadPoolExecutor(extra, "health-stat") if extra else None

    def close(self) -> None:
        if self.helpers is not None:
            self.helpers.shutdown(wait=True)

    @property
    def ended(self) -> bool:
        return self.summary.ended != DONE or self.fatal is not None

    def run(self, batch: list[Candidate], segments: dict[bytes, ReleaseSegments]) -> list[Any]:
        work: queue.SimpleQueue[Candidate] = queue.SimpleQueue()
        for c in batch:
            work.put(c)
        rows: list[dict[str, Any]] = []
        threads = [
            threading.Thread(target=self._worker, args=(work, segments, rows), daemon=True)
            for _ in range(min(self.threads, len(batch)))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        while not work.empty():  # what an ended pass left
            work.get()
            self.summary.unchecked += 1
        return rows

    def _worker(
        self, work: queue.SimpleQueue[Candidate], segments: dict[bytes, ReleaseSegments],
        rows: list[dict[str, Any]],
    ) -> None:  # fmt: skip
        while not self.ended:
            try:
                c = work.get_nowait()
            except queue.Empty:
                return
            try:
                self._one(c, segments[c.release_key], rows)
            except PoolBusy:
                with self.lock:
                    self.summary.unchecked += 1
                    if self.summary.ended == DONE:
                        self.summary.ended = POOL_BUSY
            except Exception as exc:  # credentials (AuthError), or a bug: the sweep stops
                with self.lock:
                    self.summary.unchecked += 1
                    self.fatal = exc

    def _one(self, c: Candidate, release: ReleaseSegments, rows: list[dict[str, Any]]) -> None:
        ids = sample(release, self.settings.cadence.between(self.now - c.posted_last))
        if not ids:  # no segments stored: nothing to ask, stamped so it does not lead
            self._done(c, rows, None, Answer(0, 0, 0, 0), {})
            return
        answers: dict[str, Answer] = {}
        unanswered = False  # a provider that may serve it gave no answer
        ask = self._could_serve(c)
        # the other providers' STATs at the same time as the first's, on their own
        # connections: a check waits for the slowest provider, not for their sum
        others = [self.helpers.submit(self._ask, p, ids) for p in ask[1:]] if self.helpers else []
        first = [self._ask(ask[0], ids)] if ask else []
        for pool, answer in zip(ask, first + [f.result() for f in others], strict=True):
            if answer is None:
                unanswered = unanswered or pool.provider.label not in self.refused
            else:
                answers[pool.provider.label] = answer
        if self.refused and len(self.refused) == len(self.pools.pools):
            raise next(iter(self.refused.values()))
        usable = {n: a for n, a in answers.items() if not a.unusable}
        found = {
            n: verdict(a.sent, a.missing, a.ends_missing, release.recovery)
            for n, a in usable.items()
        }  # fmt: skip
        best = min(found, key=lambda n: (VERDICTS.index(found[n]), usable[n].missing), default="")
        if (unanswered and found.get(best) != HEALTHY) or not answers:
            self._transport()  # the provider that gave no answer may serve it whole
            return
        answer = usable[best] if best else next(iter(answers.values()))
        self._done(c, rows, found.get(best), answer, usable)

    def _could_serve(self, c: Candidate) -> list[ConnectionPool]:
        """The providers not resting whose retention (the newest `providers check`) holds
        the release: its last article is no older than their oldest. All of them when the
        check rules out every one (a release older than every retention is asked anyway:
        the check may be old, and an answer is what a verdict needs)."""
        pools = self.pools.available()
        kept = [p for p in pools
                if c.posted_last >= self.oldest.get((p.provider.label, c.group), 0)]  # fmt: skip
        return kept or pools

    def _ask(self, pool: ConnectionPool, ids: list[str]) -> Answer | None:
        """The sample's STATs on one provider; None when it gave no usable reply."""
        name = pool.provider.label
        resting = self.pools.resting
        try:
            client = pool.acquire(timeout=self.settings.lease_wait)
        except PoolBusy:
            raise
        except AuthError as exc:
            self._refuse(name, exc)
            return None
        except (NNTPError, OSError) as exc:  # a new connection that failed to open
            resting.failed(name, f"{type(exc).__name__}: {exc}")
            return None
        try:
            answer = stat_sample(client, ids, self.settings.stat_timeout)
        except AuthError as exc:
            pool.release(client)
            self._refuse(name, exc)
            return None
        except (NNTPError, OSError) as exc:
            pool.release(client, broken=True)
            resting.failed(name, f"{type(exc).__name__}: {exc}")
            return None
        pool.release(client, broken=answer.unusable > 0)
        resting.answered(name)
        return answer

    def _refuse(self, name: str, exc: AuthError) -> None:
        with self.lock:
            self.refused[name] = exc
        self.pools.resting.refused(name, str(exc))

    def _transport(self) -> None:
        with self.lock:
            self.summary.skipped += 1
            self.in_a_row += 1
            if self.in_a_row >= self.settings.transport_yield and self.summary.ended == DONE:
                self.summary.ended = TRANSPORT
        if self.progress is not None:
            self.progress(SKIPPED)

    def _done(
        self, c: Candidate, rows: list[Any], found: str | None, answer: Answer,
        by_provider: dict[str, Answer],
    ) -> None:  # fmt: skip
        with self.lock:
            if answer.sent:  # the server answered: the connections work
                self.in_a_row = 0
            self.summary.stats += sum(a.sent for a in by_provider.values()) or answer.sent
            if found is None:
                self.summary.stamped += 1
            else:
                self.summary.verdicts[found] += 1
            for name, a in by_provider.items():
                self.summary.served[name] = self.summary.served.get(name, 0) + (a.missing == 0)
            rows.append(
                {
                    "release_key": c.release_key,
                    "group": c.group,
                    "checked_at": self.now,
                    "verdict": found,
                    "segments": answer.sent,
                    "missing": answer.missing,
                    "posted_last": c.posted_last,
                    "providers": list(by_provider) if by_provider else None,
                    "provider_missing": [a.missing for a in by_provider.values()] or None,
                }
            )
        if self.progress is not None:
            self.progress(found or STAMPED)


def sweep(
    catalog: str,
    pool: ConnectionPool | BodyPools,
    settings: SweepSettings | None = None,
    now: int | None = None,
    progress: Progress | None = None,
) -> SweepSummary:
    """Check the releases due at `now` (default: the clock) over `pool` (one provider's,
    or the body providers' `BodyPools`); store a row per release that got an answer.
    AuthError when every provider refuses the credentials (what was checked before, the
    batch in hand included, is stored)."""
    settings = settings or SweepSettings()
    started = time.monotonic()
    now = int(time.time()) if now is None else now
    summary = SweepSummary()
    # only the groups that moved or fell due are read (`due.py`); the catalog's views,
    # for the segments of what is checked, only when something is due
    due = due_now(catalog, now, settings.cadence, settings.groups, settings.limit)
    summary.damaged = due.damaged
    todo = due.candidates
    summary.candidates = len(todo)
    if not todo:
        summary.seconds = time.monotonic() - started
        return summary
    views = CatalogViews(catalog)
    checks: _Pass | None = None
    try:
        checks = _Pass(BodyPools.of(pool), settings, summary, now, progress)
        if len(checks.pools.pools) > 1:  # which providers could serve which releases
            checks.oldest = oldest_articles(catalog)
        sweep_id = time.time_ns()
        for start in range(0, len(todo), settings.batch_size):
            batch = todo[start : start + settings.batch_size]
            if checks.ended:
                summary.unchecked += len(batch)
                continue
            rows = checks.run(batch, segments_of(views, batch))
            if rows:
                write_batch(catalog, rows, sweep_id, summary.batches)
                summary.batches += 1
        if checks.fatal is not None:
            raise checks.fatal
    finally:
        if checks is not None:
            checks.close()
        views.close()
        summary.seconds = time.monotonic() - started
    return summary
