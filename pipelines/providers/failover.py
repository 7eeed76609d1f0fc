"""The providers bodies and STATs are asked of: a connection pool each, in priority order,
and which of them are being rested.

Each provider's pool holds at most its account's connections, so however many threads a
pass runs, no provider ever sees more than its limit: a thread that wants a connection of
a provider whose connections are all out waits for one. The article pass and the health
sweep both take a `BodyPools`; `BodyPools.of` also takes a single pool (one server, as
before).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pipelines.nntp.pool import ConnectionPool, Connector
from pipelines.nntp.provider import Provider
from pipelines.providers.resting import Resting


class BodyPools:
    """The body providers' pools, in priority order, with their rests."""

    def __init__(
        self,
        providers: Sequence[Provider] = (),
        resting: Resting | None = None,
        connector: Connector | None = None,
        pools: Sequence[ConnectionPool] = (),
        owned: Sequence[ConnectionPool] = (),
    ) -> None:
        self.pools = list(pools) or [
            ConnectionPool(p) if connector is None else ConnectionPool(p, connector)
            for p in providers
        ]
        if not self.pools:
            raise ValueError("no provider for bodies")
        names = [p.provider.label for p in self.pools]
        if len(set(names)) != len(names):
            raise ValueError(f"providers named twice: {names}")
        self.resting = resting or Resting()
        # pools handed in are closed by whoever opened them, but for the `owned` ones
        self._owned = list(owned) if pools else list(self.pools)

    @classmethod
    def of(cls, pools: ConnectionPool | Sequence[ConnectionPool] | BodyPools) -> BodyPools:
        """A `BodyPools` over pools opened elsewhere (not closed by this one)."""
        if isinstance(pools, BodyPools):
            return pools
        return cls(pools=[pools] if isinstance(pools, ConnectionPool) else list(pools))

    @property
    def names(self) -> list[str]:
        return [p.provider.label for p in self.pools]

    @property
    def connections(self) -> int:
        """Every provider's connections: the most a pass can use at once."""
        return sum(p.size for p in self.pools)

    def available(self) -> list[ConnectionPool]:
        """The pools of the providers not resting, in priority order."""
        return [p for p in self.pools if not self.resting.resting(p.provider.label)]

    @property
    def all_resting(self) -> bool:
        return not self.available()

    def start_pass(self) -> None:
        """A pass begins: when every provider rests, their rests end (but for refused
        credentials), as a pass that gave up is tried again the next time."""
        if self.all_resting:
            self.resting.wake(self.names)

    def close(self) -> None:
        for pool in self._owned:
            pool.close()


def open_body_pools(
    providers: Sequence[Provider],
    resting: Resting | None = None,
    adapt: Callable[[Provider], Provider] | None = None,
) -> BodyPools:
    """Pools for `providers` (each adapted by `adapt`, e.g. the health sweep's deadlines)."""
    return BodyPools([adapt(p) if adapt else p for p in providers], resting)
