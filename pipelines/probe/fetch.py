"""Fetching the articles a probe reads: from a news server's connection pool, or from a
stored folder of bodies (offline replay).

Each article ends one of three ways, kept apart because they mean different things:
- a body: inspected here, in the fetching thread (the decode is C; the rest is small);
- missing: the server answered 420/423/430: a result, stored like any other;
- transport: the connection failed twice (a fresh one the second time), or the pass
  was stopped: no result, the release waits for the next run.
A run of `GIVE_UP_AFTER` transport failures in a row ends the fetching: a server that is
down does not get every remaining article asked of it. Wrong credentials stop the run
with their error.
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

GIVE_UP_AFTER = 8  # transport failures in a row that end a pass
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
    """Bodies over a provider's connection pool, one thread per connection."""

    def __init__(self, pool: ConnectionPool, connections: int | None = None) -> None:
        self.pool = pool
        self.threads = max(1, min(connections or pool.size, pool.size))
        self.counts = FetchCounts()
        self.gave_up = False
        self._lock = threading.Lock()
        self._failures_in_a_row = 0
        self.fatal: BaseException | None = None

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
            if self.gave_up or self.fatal is not None:
                self._deliver(on_result, mid, None)
                continue
            try:
                result = self._one(mid)
            except AuthError as exc:  # credentials: no other article will do better
                self.fatal = exc
                result = None
            self._deliver(on_result, mid, result)

    def _one(self, mid: str) -> Inspection | None:
        for _ in range(ATTEMPTS):
            try:
                with self.pool.connection() as client:
                    body = client.body(f"<{mid}>")
            except NoArticle as exc:
                self._note(ok=True, missing=True)
                return missing_result(str(exc))
            except AuthError:
                raise
            except (NNTPError, OSError):
                continue  # the pool replaced a broken connection; try once more
            self._note(ok=True, size=len(body))
            return inspect_body(body)
        self._note(ok=False)
        return None

    def _note(self, ok: bool, missing: bool = False, size: int = 0) -> None:
        with self._lock:
            if not ok:
                self.counts.transport += 1
                self._failures_in_a_row += 1
                if self._failures_in_a_row >= GIVE_UP_AFTER:
                    self.gave_up = True
                return
            self._failures_in_a_row = 0
            if missing:
                self.counts.missing += 1
            else:
                self.counts.bodies += 1
                self.counts.bytes_in += size

    def _deliver(self, on_result: OnResult, mid: str, result: Inspection | None) -> None:
        with self._lock:
            on_result(mid, result)
