"""`serve-nntp`: a small NNTP server in front of a corpus, for the tests and the demo.

It speaks enough RFC 3977 for a reader (GROUP, LIST ACTIVE, LIST OVERVIEW.FMT, OVER/XOVER,
STAT/HEAD/BODY/ARTICLE, DATE, CAPABILITIES, MODE READER, AUTHINFO, STARTTLS, QUIT) and the
three compressed overview variants, paces each connection like a provider, and can
misbehave on purpose (`faults.py`). One thread a connection.
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import ssl
import threading
import zlib
from dataclasses import dataclass, field

from pipelines.nntpserver.faults import Faults
from pipelines.nntpserver.replies import ReplyCache
from pipelines.nntpserver.served import ServedCorpus
from pipelines.nntpserver.session import OVERVIEW_FMT, Closed, Session

__all__ = ["OVERVIEW_FMT", "NNTPServer", "ServerOptions", "ServerStats"]


@dataclass
class ServerOptions:
    user: str | None = None
    password: str | None = None
    lines_per_second: float = 0.0  # per connection; 0: as fast as the socket goes
    offer: tuple[str, ...] = ("xfeature", "xzver", "deflate")
    gzip_flavour: str = "raw"
    overview_lag: int = 0  # the newest articles whose overview is not there yet
    faults: Faults = field(default_factory=Faults)
    tls_context: ssl.SSLContext | None = None
    implicit_tls: bool = False
    cache_bytes: int = 512 << 20  # built replies kept for the next asker
    # a group being posted to: articles become visible at grow_rate a second (0: all at
    # once), grow_from articles above the low mark being visible at the start
    grow_rate: float = 0.0
    grow_from: int = 0
    # message-ids (without angle brackets) taken down: article commands answer 430/423,
    # the overview still lists them (gone.py)
    gone: frozenset[str] = frozenset()


@dataclass
class ServerStats:
    connections: int = 0
    open: int = 0
    peak: int = 0
    overview_replies: int = 0
    lines_sent: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class _Handler(socketserver.BaseRequestHandler):
    server: _TCPServer

    def handle(self) -> None:
        owner = self.server.owner
        sock: socket.socket = self.request
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        opts = owner.options
        try:
            if opts.implicit_tls and opts.tls_context is not None:
                sock = opts.tls_context.wrap_socket(sock, server_side=True)
            session = Session(owner, sock)
        except (OSError, ssl.SSLError):
            return
        owner.track(session, +1)
        try:
            session.run()
        except (Closed, OSError, ssl.SSLError, zlib.error):
            pass
        finally:
            owner.track(session, -1)
            with contextlib.suppress(OSError):
                session.sock.close()


class _TCPServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # twenty connections opening at once must not wait for SYN retries
    owner: NNTPServer


class NNTPServer:
    """A running server: `start()` binds (port 0 picks a free one), `stop()` ends everything."""

    def __init__(
        self,
        corpus: ServedCorpus | str,
        host: str = "127.0.0.1",
        port: int = 0,
        options: ServerOptions | None = None,
    ) -> None:
        self.corpus = corpus if isinstance(corpus, ServedCorpus) else ServedCorpus(corpus)
        self.options = options or ServerOptions()
        self.replies = ReplyCache(self.corpus, self.options.gzip_flavour, self.options.cache_bytes)
        self.stats = ServerStats()
        self.host, self.port = host, port
        self._tcp: _TCPServer | None = None
        self._thread: threading.Thread | None = None
        self._sessions: set[Session] = set()
        self._ids: dict[str, tuple[str, int]] | None = None
        self._ids_lock = threading.Lock()

    def _grow(self) -> None:
        if self.options.grow_rate > 0:  # the groups start growing when the server listens
            self.corpus.grow(self.options.grow_rate, self.options.grow_from)

    def start(self) -> NNTPServer:
        self._tcp = _TCPServer((self.host, self.port), _Handler)
        self._tcp.owner = self
        self.port = self._tcp.server_address[1]
        self._grow()
        self._thread = threading.Thread(target=self._tcp.serve_forever, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._tcp = _TCPServer((self.host, self.port), _Handler)
        self._tcp.owner = self
        self.port = self._tcp.server_address[1]
        self._grow()
        self._tcp.serve_forever()

    def stop(self) -> None:
        if self._tcp is not None:
            self._tcp.shutdown()
            self._tcp.server_close()
        with self.stats.lock:
            sessions = list(self._sessions)
        for session in sessions:
            with contextlib.suppress(OSError):
                session.sock.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> NNTPServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def track(self, session: Session, delta: int) -> None:
        with self.stats.lock:
            if delta > 0:
                self._sessions.add(session)
                self.stats.connections += 1
            else:
                self._sessions.discard(session)
            self.stats.open += delta
            self.stats.peak = max(self.stats.peak, self.stats.open)

    def drop_connections(self) -> int:
        """Close every open connection without a word, as a provider restart does."""
        with self.stats.lock:
            sessions = list(self._sessions)
        for session in sessions:
            with contextlib.suppress(OSError):
                session.sock.shutdown(socket.SHUT_RDWR)
        return len(sessions)

    def by_message_id(self, message_id: str) -> tuple[str, int] | None:
        with self._ids_lock:
            if self._ids is None:
                self._ids = self._index_ids()
        return self._ids.get(message_id)

    def _index_ids(self) -> dict[str, tuple[str, int]]:
        ids: dict[str, tuple[str, int]] = {}
        for name, group in self.corpus.groups.items():
            for chunk in group.chunks:
                text = self.corpus.text(chunk)
                for i, number in enumerate(text.numbers):
                    line = text.text[text.starts[i] : text.ends[i]]
                    fields = line.split(b"\t")
                    if len(fields) > 4:
                        ids.setdefault(fields[4].decode("utf-8", "replace"), (name, int(number)))
        return ids
