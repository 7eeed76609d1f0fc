"""Several news providers for the tests: a corpus served as another backbone would serve it.

`renumbered(corpus, to, offset, retention)` (`bench.providers`) writes a copy of a
generated corpus whose article numbers are `offset` higher (another backbone numbers the
same articles its own way), holding only the newest `retention` share of each group's
articles (a shorter retention), with the generator's bodies beside it, so a `serve-nntp`
over it answers the same message-ids under other numbers. Take-downs are
`ServerOptions.gone`; dropped connections are its faults.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from pipelines.nntp.provider import Provider
from pipelines.nntpserver.faults import Faults
from pipelines.nntpserver.server import NNTPServer, ServerOptions


def provider(server: NNTPServer, name: str, **fields: object) -> Provider:
    """An account on a test server, with short deadlines."""
    settings: dict[str, object] = {"connections": 2, "timeout": 10.0, "connect_timeout": 2.0}
    settings.update(fields)
    return Provider("127.0.0.1", server.port, name=name, **settings)  # type: ignore[arg-type]


@contextmanager
def servers(*setups: tuple[str, ServerOptions]) -> Iterator[list[NNTPServer]]:
    """Servers, one per (corpus, options), running for the block."""
    with ExitStack() as stack:
        yield [stack.enter_context(NNTPServer(c, options=o)) for c, o in setups]


def options(
    gone: frozenset[str] = frozenset(), faults: str = "", **fields: object
) -> ServerOptions:
    """A server's options: its take-downs, its faults (`serve-nntp --faults`), the rest."""
    return ServerOptions(gone=gone, faults=Faults.parse(faults), **fields)  # type: ignore[arg-type]
