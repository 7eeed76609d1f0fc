"""One `serve-nntp` connection: the command loop and every command a reader needs.

Everything that is not one connection's business (options, counters, the listening socket)
is in `server.py`.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import logging
import socket
import ssl
import time
import zlib
from typing import TYPE_CHECKING, Any

from pipelines.nntp.wire import stuff
from pipelines.nntpserver.bodies import article_head, segment_of, yenc_body
from pipelines.nntpserver.gone import bare
from pipelines.nntpserver.replies import cut

if TYPE_CHECKING:
    from pipelines.nntpserver.server import NNTPServer

OVERVIEW_FMT = [
    "Subject:",
    "From:",
    "Date:",
    "Message-ID:",
    "References:",
    ":bytes",
    ":lines",
    "Xref:full",
]
_PIECE = 1 << 16
log = logging.getLogger(__name__)
_OPEN_VERBS = {"AUTHINFO", "CAPABILITIES", "MODE", "QUIT", "STARTTLS", "HELP", "DATE"}


class Closed(Exception):
    """The peer went away, or said nothing for too long: end the session quietly."""


class Session:
    def __init__(self, server: NNTPServer, sock: socket.socket) -> None:
        self.server = server
        self.sock = sock
        self.buf = bytearray()
        self.group: str | None = None
        self.article: int | None = None
        self.authed = server.options.user is None
        self.user: str | None = None
        self.gzip = False
        self._deflater: Any = None
        self._inflater: Any = None

    # -- I/O -------------------------------------------------------------------

    def send(self, data: bytes) -> None:
        if self._deflater is not None:
            # a full flush after every write: cached replies can then be spliced in
            data = self._deflater.compress(data) + self._deflater.flush(zlib.Z_FULL_FLUSH)
        self.sock.sendall(data)

    def send_line(self, line: str) -> None:
        self.send(line.encode("utf-8", "surrogateescape") + b"\r\n")

    def read_line(self) -> bytes:
        idle = self.server.options.faults.idle_timeout
        while True:
            end = self.buf.find(b"\n")
            if end >= 0:
                line = bytes(self.buf[:end]).rstrip(b"\r")
                del self.buf[: end + 1]
                return line
            self.sock.settimeout(idle or None)
            try:
                data = self.sock.recv(65536)
            except (TimeoutError, OSError) as exc:
                raise Closed() from exc
            if not data:
                raise Closed()
            if self._inflater is not None:
                data = self._inflater.decompress(data)
            self.buf += data

    def send_paced(self, data: bytes, lines: int, precompressed: bool) -> None:
        """Send data at the configured lines per second (raw bytes when precompressed)."""
        rate = self.server.options.lines_per_second
        seconds = lines / rate if rate and lines else 0.0
        started = time.monotonic()
        for at in range(0, len(data), _PIECE):
            piece = data[at : at + _PIECE]
            if precompressed or self._deflater is None:
                self.sock.sendall(piece)
            else:
                self.send(piece)
            if seconds:
                due = started + seconds * min(1.0, (at + len(piece)) / len(data))
                pause = due - time.monotonic()
                if pause > 0:
                    time.sleep(pause)

    # -- the loop ----------------------------------------------------------------

    def run(self) -> None:
        self.send_line("200 serve-nntp ready (posting prohibited)")
        while True:
            line = self.read_line().decode("utf-8", "surrogateescape").strip()
            if not line:
                continue
            verb, _, rest = line.partition(" ")
            verb = verb.upper()
            if not self.authed and verb not in _OPEN_VERBS:
                self.send_line("480 authentication required")
                continue
            handler = getattr(self, f"cmd_{verb.lower()}", None)
            if handler is None:
                self.send_line(f"500 unknown command {verb}")
                continue
            try:
                if handler(rest.strip()) is False:
                    return
            except (Closed, OSError, ssl.SSLError):
                raise
            except Exception as exc:  # a bug here must not look like a provider fault
                log.exception("serve-nntp: %s failed", verb)
                self.send_line(f"403 internal fault: {type(exc).__name__}")

    # -- session commands ----------------------------------------------------------

    def cmd_quit(self, _: str) -> bool:
        self.send_line("205 bye")
        return False

    def cmd_capabilities(self, _: str) -> None:
        caps = ["VERSION 2", "IMPLEMENTATION serve-nntp", "READER", "OVER", "HDR"]
        caps.append("LIST ACTIVE OVERVIEW.FMT")
        if self.server.options.user is not None and not self.authed:
            caps.append("AUTHINFO USER")
        if self.server.options.tls_context is not None and not isinstance(self.sock, ssl.SSLSocket):
            caps.append("STARTTLS")
        if "deflate" in self.server.options.offer and self._deflater is None:
            caps.append("COMPRESS DEFLATE")
        if "xfeature" in self.server.options.offer:
            caps.append("XFEATURE-COMPRESS GZIP")
        self.send_line("101 capability list follows")
        self.send(("\r\n".join(caps) + "\r\n.\r\n").encode())

    def cmd_mode(self, rest: str) -> None:
        if rest.upper() == "READER":
            self.send_line("201 reader mode, posting prohibited")
        else:
            self.send_line("501 unknown MODE")

    def cmd_authinfo(self, rest: str) -> None:
        kind, _, value = rest.partition(" ")
        kind = kind.upper()
        opts = self.server.options
        if opts.user is None:
            self.send_line("502 no authentication here")
        elif kind == "USER":
            self.user = value
            self.send_line("381 password required")
        elif kind == "PASS" and self.user is not None:
            if self.user == opts.user and value == opts.password:
                self.authed = True
                self.send_line("281 authentication accepted")
            else:
                self.send_line("481 authentication failed")
        else:
            self.send_line("482 authentication commands issued out of sequence")

    def cmd_starttls(self, _: str) -> None:
        ctx = self.server.options.tls_context
        if ctx is None or isinstance(self.sock, ssl.SSLSocket):
            self.send_line("502 STARTTLS not available")
            return
        self.send_line("382 continue with TLS negotiation")
        self.sock = ctx.wrap_socket(self.sock, server_side=True)

    def cmd_compress(self, rest: str) -> None:
        if rest.upper() != "DEFLATE" or "deflate" not in self.server.options.offer:
            self.send_line("503 compression not available")
            return
        if self._deflater is not None:
            self.send_line("502 compression already active")
            return
        self.send_line("206 compression active")
        self._deflater = zlib.compressobj(1, zlib.DEFLATED, -15)
        self._inflater = zlib.decompressobj(-15)
        pending, self.buf = bytes(self.buf), bytearray()
        if pending:
            self.buf += self._inflater.decompress(pending)

    def cmd_xfeature(self, rest: str) -> None:
        words = rest.upper().split()
        if words[:2] == ["COMPRESS", "GZIP"] and "xfeature" in self.server.options.offer:
            self.gzip = True
            self.send_line("290 feature enabled")
        else:
            self.send_line("500 unknown feature")

    def cmd_date(self, _: str) -> None:
        self.send_line("111 " + dt.datetime.now(dt.UTC).strftime("%Y%m%d%H%M%S"))

    def cmd_help(self, _: str) -> None:
        self.send_line("100 help follows")
        self.send(b"see RFC 3977\r\n.\r\n")

    # -- groups --------------------------------------------------------------------

    def cmd_group(self, rest: str) -> None:
        corpus = self.server.corpus
        if rest not in corpus.groups:
            self.send_line(f"411 no such group {rest}")
            return
        count, low, high = corpus.bounds(rest)
        self.group, self.article = rest, low if count else None
        self.send_line(f"211 {count} {low} {high} {rest}")

    def cmd_list(self, rest: str) -> None:
        words = rest.split()
        kind = words[0].upper() if words else "ACTIVE"
        if kind == "OVERVIEW.FMT":
            self.send_line("215 order of fields in overview database")
            self.send(("\r\n".join(OVERVIEW_FMT) + "\r\n.\r\n").encode())
            return
        if kind != "ACTIVE":
            self.send_line(f"503 LIST {kind} not supported")
            return
        pattern = words[1] if len(words) > 1 else "*"
        rows = []
        for name in sorted(self.server.corpus.groups):
            if any(fnmatch.fnmatchcase(name, p) for p in pattern.split(",")):
                _, low, high = self.server.corpus.bounds(name)
                rows.append(f"{name} {high} {low} n")
        self.send_line("215 list of newsgroups follows")
        self.send(("".join(r + "\r\n" for r in rows) + ".\r\n").encode())

    # -- overview --------------------------------------------------------------------

    def cmd_over(self, rest: str) -> bool | None:
        return self._overview(rest, None)

    def cmd_xover(self, rest: str) -> bool | None:
        return self._overview(rest, None)

    def cmd_xzver(self, rest: str) -> bool | None:
        if "xzver" not in self.server.options.offer:
            self.send_line("500 unknown command XZVER")
            return None
        return self._overview(rest, "xzver")

    def _span(self, rest: str) -> tuple[int, int] | None:
        assert self.group is not None
        _, _low, high = self.server.corpus.bounds(self.group)
        try:
            if not rest:
                if self.article is None:
                    return None
                return self.article, self.article
            first_s, dash, last_s = rest.partition("-")
            first = int(first_s)
            last = (int(last_s) if last_s else high) if dash else first
        except ValueError:
            return None
        limit = high - self.server.options.overview_lag
        return first, min(last, limit)

    def _overview(self, rest: str, forced: str | None) -> bool | None:
        if self.group is None:
            self.send_line("412 no newsgroup selected")
            return None
        span = self._span(rest)
        if span is None:
            self.send_line("501 bad range")
            return None
        first, last = span
        variant = forced or (
            "deflate" if self._deflater is not None else "xfeature" if self.gzip else "plain"
        )
        opts = self.server.options
        fate = opts.faults.next_overview()
        if opts.faults.first_byte_delay:
            time.sleep(opts.faults.first_byte_delay)
        if fate == "drop":
            return False
        if first > last:
            self.send_line("423 no articles in that range")
            return None
        reply = self.server.replies.overview(self.group, first, last, variant)
        tag = " [COMPRESS=GZIP]" if variant == "xfeature" else ""
        self.send_line(f"224 overview information follows{tag}")
        precompressed = variant == "deflate"
        if fate == "cut":
            data, drop = cut(reply, variant, opts.faults.cut_at_dot)
            self.send_paced(data, reply.lines // 2, precompressed)
            return False if drop else None
        self.send_paced(reply.data, reply.lines, precompressed)
        with self.server.stats.lock:
            self.server.stats.overview_replies += 1
            self.server.stats.lines_sent += reply.lines
        return None

    # -- articles ------------------------------------------------------------------

    def _locate(self, rest: str) -> tuple[str, int, list[bytes]] | None:
        corpus = self.server.corpus
        gone = self.server.options.gone
        if rest.startswith("<"):
            hit = None if bare(rest) in gone else self.server.by_message_id(rest)
            if hit is None:
                self.send_line("430 no such article")
                return None
            group, number = hit
        else:
            if self.group is None:
                self.send_line("412 no newsgroup selected")
                return None
            try:
                number = int(rest) if rest else (self.article or -1)
            except ValueError:
                self.send_line("501 bad article number")
                return None
            group = self.group
        line = corpus.find(group, number)
        if line is not None and gone and not rest.startswith("<"):
            fields = line.split(b"\t")
            if len(fields) > 4 and bare(fields[4].decode("utf-8", "replace")) in gone:
                line = None  # taken down: the number is no longer served either
        if line is None:
            self.send_line("423 no article with that number")
            return None
        if not rest.startswith("<"):
            self.article = number
        return group, number, line.split(b"\t")

    def _article_reply(self, code: int, rest: str, head: bool, body: bool) -> bool | None:
        fate = self.server.options.faults.next_article()
        if fate == "drop":
            return False
        if fate == "stall":
            self._stall()
        if fate == "garble":
            self.send_line("?? garbled")
            return None
        delay = self.server.options.faults.article_delay
        if delay:
            time.sleep(delay)
        found = self._locate(rest)
        if found is None:
            return None
        group, number, fields = found
        msgid = fields[4].decode("utf-8", "replace") if len(fields) > 4 else "<>"
        shown = 0 if rest.startswith("<") else number
        self.send_line(f"{code} {shown} {msgid}")
        if not (head or body):
            return None
        parts = []
        stored = self.server.corpus.articles
        if head:
            posted = stored.head(msgid.strip("<>")) if stored is not None else None
            parts.append(posted if posted is not None else article_head(fields, group))
        if head and body:
            parts.append(b"\r\n")
        if body:
            parts.append(self._body(msgid, fields))
        reply = stuff(b"".join(parts)) + b".\r\n"
        # an article is paced as an overview is: a provider's connection gives so many
        # lines a second, whatever they hold
        self.send_paced(reply, reply.count(b"\n"), False)
        return None

    def _stall(self) -> None:
        """Answer nothing more: read (and ignore) until the client gives up and leaves."""
        while True:
            self.read_line()  # raises Closed when the client closes

    def _body(self, msgid: str, fields: list[bytes]) -> bytes:
        """The stored body when the corpus has one (a generated probe target), else a
        made-up yEnc part matching the overview line."""
        posted = self.server.corpus.articles
        whole = posted.body(msgid.strip("<>")) if posted is not None else None
        if whole is not None:
            return whole
        store = self.server.corpus.bodies
        stored = store.body(msgid.strip("<>")) if store is not None else None
        return stored if stored is not None else yenc_body(segment_of(fields))

    def cmd_stat(self, rest: str) -> bool | None:
        return self._article_reply(223, rest, False, False)

    def cmd_head(self, rest: str) -> bool | None:
        return self._article_reply(221, rest, True, False)

    def cmd_body(self, rest: str) -> bool | None:
        return self._article_reply(222, rest, False, True)

    def cmd_article(self, rest: str) -> bool | None:
        return self._article_reply(220, rest, True, True)
