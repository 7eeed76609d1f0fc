"""Several news providers for the tests: a corpus served as another backbone would serve it.

`renumbered(corpus, to, offset, retention)` writes a copy of a generated corpus whose
article numbers are `offset` higher (another backbone numbers the same articles its own
way), holding only the newest `retention` share of each group's articles (a shorter
retention), with the generator's bodies beside it, so a `serve-nntp` over it answers the
same message-ids under other numbers. Take-downs are `ServerOptions.gone`; dropped
connections are its faults.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from pipelines.articles.store import BODIES_FILE, bodies_url
from pipelines.corpus.codec import inflate
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.reader import CorpusReader
from pipelines.corpus.writer import CorpusWriter
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.faults import Faults
from pipelines.nntpserver.server import NNTPServer, ServerOptions


def renumbered(corpus: str, to: Path, offset: int, retention: float = 1.0) -> str:
    """A copy of `corpus` under `to/corpus` numbered `offset` higher, keeping the newest
    `retention` share of each group's articles; returns the copy's corpus folder."""
    reader = CorpusReader(corpus)
    writer = CorpusWriter(str(to / "corpus"))
    for group in reader.groups():
        lines: list[tuple[int, bytes]] = []
        for info in reader.ranges(group):
            assert info.manifest is not None
            folder = info.ref.path(reader.root)
            for entry in info.manifest.chunks:
                text = inflate(reader.fs.cat_file(f"{folder}/{entry.file}")).data
                for line in text.split(b"\r\n"):
                    if line:
                        number, rest = line.split(b"\t", 1)
                        lines.append((int(number) + offset, rest))
        lines.sort()
        kept = lines[int(len(lines) * (1.0 - retention)) :]
        first, last = lines[0][0], lines[-1][0]
        ref = RangeRef(group, first, last)
        body = b"".join(b"%d\t%s\r\n" % (n, rest) for n, rest in kept)
        writer.write_manifest(ref, [writer.write_chunk(ref, first, last, body)], complete=True)
    source = bodies_url(corpus)
    if source is not None:
        (to / BODIES_FILE).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, to / BODIES_FILE)
    return str(to / "corpus")


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
