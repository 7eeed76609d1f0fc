"""The connection pool: the account's limit, idle connections closed, broken ones replaced."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from pipelines.nntp.errors import NNTPError, ServiceGone
from pipelines.nntp.pool import ConnectionPool, ProviderPools
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.faults import Faults
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from tests.fixtures.sample_corpus import write_sample_corpus

pytestmark = pytest.mark.timeout(60)
GROUP = "alt.binaries.pool"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = str(tmp_path_factory.mktemp("pool"))
    write_sample_corpus(folder, {GROUP: (1, 2000)}, 1000, 500)
    return folder


@pytest.fixture()
def server(root: str) -> Iterator[NNTPServer]:
    with NNTPServer(root, options=ServerOptions(lines_per_second=20_000)) as srv:
        yield srv


def provider(port: int, **kw: object) -> Provider:
    return Provider("127.0.0.1", port, timeout=5.0, **kw)  # type: ignore[arg-type]


def test_never_more_than_the_accounts_connections(server: NNTPServer) -> None:
    pool = ConnectionPool(provider(server.port, connections=3))
    errors: list[BaseException] = []

    def fetch(i: int) -> None:
        try:
            with pool.connection() as client:
                client.group(GROUP)
                client.over(1 + (i % 4) * 500, 500 + (i % 4) * 500)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=fetch, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    pool.close()
    assert not errors
    assert server.stats.peak == 3
    assert pool.opened == 3  # reused, not reopened


def test_acquire_waits_and_times_out(server: NNTPServer) -> None:
    pool = ConnectionPool(provider(server.port, connections=1))
    held = pool.acquire()
    with pytest.raises(NNTPError, match="no free connection"):
        pool.acquire(timeout=0.2)
    pool.release(held)
    assert pool.acquire(timeout=0.2) is held
    pool.close()


def test_idle_connections_are_closed_and_reopened(root: str) -> None:
    # the server drops connections silent for 0.6 s, as providers do; the pool closes its
    # own after 0.3 s, so a connection it hands out is never one the server has dropped
    opts = ServerOptions(faults=Faults(idle_timeout=0.6))
    with NNTPServer(root, options=opts) as srv:
        pool = ConnectionPool(provider(srv.port, connections=2, idle_close=0.3))
        with pool.connection() as client:
            client.group(GROUP)
        time.sleep(0.8)
        with pool.connection() as client:
            assert client.group(GROUP).count > 0  # a fresh connection, not a dead one
        assert pool.opened == 2 and pool.idle_closed == 1
        pool.close()


def test_a_broken_connection_is_replaced(root: str) -> None:
    with NNTPServer(root, options=ServerOptions(faults=Faults(drop_every=2))) as srv:
        pool = ConnectionPool(provider(srv.port, connections=1))
        with pool.connection() as client:
            client.group(GROUP)
            client.over(1, 100)
        with pytest.raises(ServiceGone), pool.connection() as client:
            client.over(101, 200)
        with pool.connection() as client:
            client.group(GROUP)
            client.over(101, 200)
        assert pool.opened == 2 and pool.replaced == 1
        pool.close()


def test_several_providers_share_the_work(root: str) -> None:
    with NNTPServer(root) as one, NNTPServer(root) as two:
        pools = ProviderPools(
            [provider(one.port, connections=2, name="one"), provider(two.port, connections=3)]
        )
        slots = pools.slots()
        assert pools.connections == 5 and len(slots) == 5
        assert [p.provider.label for p in slots[:2]] == ["one", "one"]
        for pool in slots:
            with pool.connection() as client:
                client.group(GROUP)
        pools.close()
        assert one.stats.connections == 1 and two.stats.connections == 1
    with pytest.raises(ValueError):
        ProviderPools([])
    with pytest.raises(ValueError):
        Provider("h", connections=0)
