"""Connection pools: at most the account's connections per provider, idle ones closed.

Providers drop connections that sit idle without saying so, and a dead socket costs a
whole command timeout to discover; so the pool closes connections itself once they have
been idle for `idle_close` seconds and opens new ones on demand. A connection returned
as broken is closed and its slot freed for a fresh one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from pipelines.nntp.client import NNTPClient
from pipelines.nntp.errors import NNTPError, PoolBusy
from pipelines.nntp.provider import Provider

Connector = Callable[[Provider], NNTPClient]


def _connect(provider: Provider) -> NNTPClient:
    return NNTPClient(provider).connect()


class ConnectionPool:
    """One provider's connections, shared by threads."""

    def __init__(self, provider: Provider, connector: Connector = _connect) -> None:
        self.provider = provider
        self._connector = connector
        self._idle: list[tuple[float, NNTPClient]] = []  # (idle since, client)
        self._open = 0  # connections out and idle
        self._cond = threading.Condition()
        self._closed = False
        self.opened = 0  # connections opened over the pool's life
        self.replaced = 0  # connections dropped as broken
        self.idle_closed = 0

    @property
    def size(self) -> int:
        return self.provider.connections

    def acquire(self, timeout: float | None = None) -> NNTPClient:
        """A ready connection; opens one when under the limit, else waits for one."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                if self._closed:
                    raise PoolBusy("the connection pool is closed")
                self._close_idle_locked()
                if self._idle:
                    return self._idle.pop()[1]
                if self._open < self.size:
                    self._open += 1
                    break
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise PoolBusy(f"no free connection to {self.provider.label}")
                self._cond.wait(remaining)
        try:
            client = self._connector(self.provider)
        except BaseException:
            with self._cond:
                self._open -= 1
                self._cond.notify()
            raise
        self.opened += 1
        return client

    def release(self, client: NNTPClient, broken: bool = False) -> None:
        """Give a connection back; a broken one is closed and its slot freed."""
        with self._cond:
            if broken or self._closed or not client.connected:
                self._open -= 1
                self.replaced += broken
                client.close()
            else:
                self._idle.append((time.monotonic(), client))
            self._cond.notify()

    @contextmanager
    def connection(self) -> Iterator[NNTPClient]:
        client = self.acquire()
        try:
            yield client
        except NNTPError as exc:
            self.release(client, broken=exc.retryable or not client.connected)
            raise
        except BaseException:
            self.release(client, broken=True)
            raise
        else:
            self.release(client)

    def _close_idle_locked(self) -> None:
        now = time.monotonic()
        keep = []
        for since, client in self._idle:
            if now - since >= self.provider.idle_close:
                client.close()  # no QUIT: the server may already have dropped it
                self._open -= 1
                self.idle_closed += 1
            else:
                keep.append((since, client))
        self._idle = keep

    def close_idle(self) -> None:
        with self._cond:
            self._close_idle_locked()
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._open -= len(idle)
            self._cond.notify_all()
        for _, client in idle:
            client.quit()


class ProviderPools:
    """Several providers, each with its own pool; work goes to whichever has a free slot."""

    def __init__(self, providers: list[Provider], connector: Connector = _connect) -> None:
        if not providers:
            raise ValueError("at least one provider is needed")
        self.pools = [ConnectionPool(p, connector) for p in providers]

    @property
    def connections(self) -> int:
        return sum(pool.size for pool in self.pools)

    def slots(self) -> list[ConnectionPool]:
        """One entry per connection slot: a worker thread per entry keeps every slot busy."""
        return [pool for pool in self.pools for _ in range(pool.size)]

    def close(self) -> None:
        for pool in self.pools:
            pool.close()
