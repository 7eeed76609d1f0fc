"""Fetching the articles a probe reads: from the news providers' connection pools, or from
a stored folder of bodies (offline replay).

Each article ends one of three ways, kept apart because they mean different things:
- a body: inspected here, in the fetching thread (the decode is C; the rest is small);
- missing: every provider asked answered 420/423/430: a result, stored like any other;
- transport: a provider that may have it gave no answer (asked twice, a fresh connection
  the second time), or the pass was stopped: no result, the release waits for the next
  run.
The providers are asked in priority order: a 430 or a dropped connection on one moves to
the next (`docs/PROVIDERS.md`). A provider whose fetches fail 8 times in a row is rested
(`pipelines/providers/resting.py`), and when every provider rests the fetching ends: a
server that is down does not get every remaining article asked of it.
Wrong credentials rest their provider for the run; when no provider is left for that
reason, the run stops with their error.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from pipelines.nntp.errors import AuthError, NNTPError, NoArticle
from pipelines.nntp.pool import ConnectionPool
from pipelines.probe import inspection as ins
from pipelines.probe.inspect import inspect_body
from pipelines.probe.inspection import Inspection
from pipelines.probe.source import OnResult
from pipelines.providers.failover import BodyPools

ATTEMPTS = 2  # per article: the second on a fresh connection


class Bodies(Protocol):
    """A stored folder of bodies (`pipelines.articles.store.BodyStore`)."""

    def body(self, message_id: str) -> bytes | None: ...


@dataclass
class FetchCounts:
    bodies: int = 0
    missing: int = 0
    transport: int = 0
    bytes_in: int = 0


def missing_result(detail: str) -> Inspection:
    return Inspection(status=ins.MISSING, detail=detail)


class StoreSource:
    """Bodies from a stored folder (`pipelines.articles.store`): a body the store does
    not hold is missing, as a server's 430."""

    def __init__(self, store: Bodies) -> None:
        self.store = store
        self.counts = FetchCounts()
        self.gave_up = False

    def fetch(self, message_ids: Iterable[str], on_result: OnResult) -> None:
        for mid in message_ids:
            body = self.store.body(mid)
            if body is None:
                self.counts.missing += 1
                on_result(mid, missing_result("not in the stored bodies"))
                continue
            self.counts.bodies += 1
            self.counts.bytes_in += len(body)
            on_result(mid, inspect_body(body))


class PoolSource:
    """Bodies over the providers' connection pools, in priority order; a thread per
    connection of them all (at most `connections`), never more than a provider allows."""

    def __init__(self, pools: ConnectionPool | BodyPools, connections: int | None = None) -> None:
        self.pools = BodyPools.of(pools)
        self.pools.start_pass()
        total = self.pools.connections
        self.threads = max(1, min(connections or total, total))
        self.counts = FetchCounts()
        self.served: dict[str, int] = dict.fromkeys(self.pools.names, 0)  # bodies by provider
        self.failed_over = 0  # articles a provider after the first answered
        self._lock = threading.Lock()
        self._refused: dict[str, AuthError] = {}

    @property
    def gave_up(self) -> bool:
        return self.pools.all_resting

    @property
    def fatal(self) -> AuthError | None:
        """Refused credentials, when every provider refused them."""
        if len(self._refused) < len(self.pools.pools):
            return None
        return next(iter(self._refused.values()))

    def fetch(self, message_ids: Iterable[str], on_result: OnResult) -> None:
        work: queue.Queue[str | None] = queue.Queue()
        n = 0
        for mid in message_ids:
            work.put(mid)
            n += 1
        if not n:
            return
        threads = [
            threading.Thread(target=self._worker, args=(work, on_result), daemon=True)
            for _ in range(min(self.threads, n))
        ]
        for _ in threads:
            work.put(None)
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if self.fatal is not None:
            raise self.fatal

    def _worker(self, work: queue.Queue[str | None], on_result: OnResult) -> None:
        while True:
            mid = work.get()
            if mid is None:
                return
            result = None if self.gave_up else self._one(mid)
            self._deliver(on_result, mid, result)

    def _one(self, mid: str) -> Inspection | None:
        """The article from the first provider that has it; missing when every provider
        asked answered 430 (one rested meanwhile counts as not asked); None when a
        provider that may have it gave no answer."""
        resting = self.pools.resting
        ask = self.pools.available()
        missing: set[str] = set()
        moved = False  # a provider before the one that answered had no answer or a 430
        for _ in range(ATTEMPTS):
            failed: list[ConnectionPool] = []
            for pool in ask:
                name = pool.provider.label
                try:
                    with pool.connection() as client:
                        body = client.body(f"<{mid}>")
                except NoArticle:
                    resting.answered(name)
                    missing.add(name)
                    moved = True
                    continue
                except AuthError as exc:  # no other article will do better on this one
                    with self._lock:
                        self._refused[name] = exc
                    resting.refused(name, str(exc))
                    moved = True
                    continue
                except (NNTPError, OSError) as exc:  # the pool replaced the connection
                    resting.failed(name, f"{type(exc).__name__}: {exc}")
                    failed.append(pool)
                    moved = True
                    continue
                resting.answered(name)
                self._note_body(name, len(body), moved)
                return inspect_body(body)
            # once more, on a fresh connection, where no answer came
            ask = [p for p in failed if not resting.resting(p.provider.label)]
            if not ask:
                break
        with self._lock:
            if missing and not ask:
                self.counts.missing += 1
                return missing_result(f"430 on {', '.join(sorted(missing))}")
            self.counts.transport += 1
        return None

    def _note_body(self, name: str, size: int, failed_over: bool) -> None:
        with self._lock:
            self.counts.bodies += 1
            self.counts.bytes_in += size
            self.served[name] += 1
            self.failed_over += failed_over

    def _deliver(self, on_result: OnResult, mid: str, result: Inspection | None) -> None:
        with self._lock:
            on_result(mid, result)
