"""An NNTP reader client (RFC 3977, RFC 4643 AUTHINFO, RFC 4642 STARTTLS, RFC 8054 COMPRESS).

One object is one connection. Overview replies come back as `StoredReply`: ready for
the corpus writer, in whichever compressed variant the connection negotiated.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import socket
import ssl
from dataclasses import dataclass

from pipelines.nntp.compression import (
    StoredReply,
    read_xfeature_reply,
    read_xzver_reply,
    store_text,
)
from pipelines.nntp.errors import NNTPError, ProtocolError, ReplyError, ServiceGone, error_for
from pipelines.nntp.provider import Provider
from pipelines.nntp.wire import Wire, stuff


@dataclass(frozen=True)
class GroupInfo:
    name: str
    count: int
    low: int
    high: int


@dataclass(frozen=True)
class ActiveGroup:
    name: str
    high: int
    low: int
    status: str


class NNTPClient:
    def __init__(self, provider: Provider, reader: bool = True) -> None:
        self.provider = provider
        self.reader = reader  # False: stay a transit (feeding) session, e.g. to send IHAVE
        self.wire: Wire | None = None
        self.capabilities: set[str] = set()
        self.variant = "plain"  # how overview replies come: plain, xfeature, xzver, deflate
        self.group_name: str | None = None
        self.posting = False
        self.greeting = ""  # the server's first line (`providers check` shows it)

    # -- session ---------------------------------------------------------------

    def connect(self) -> NNTPClient:
        p = self.provider
        try:
            sock = socket.create_connection((p.host, p.port), timeout=p.connect_timeout)
        except OSError as exc:
            raise ServiceGone(f"cannot connect to {p.label}: {exc}") from exc
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if p.tls == "implicit":
            sock = self._wrap_tls(sock)
        self.wire = Wire(sock, p.timeout)
        try:
            self._handshake()
        except BaseException:
            self.close()
            raise
        return self

    def _wrap_tls(self, sock: socket.socket) -> socket.socket:
        ctx = ssl.create_default_context()
        if not self.provider.tls_verify:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        try:
            return ctx.wrap_socket(sock, server_hostname=self.provider.host)
        except (ssl.SSLError, OSError) as exc:
            sock.close()
            raise NNTPError(f"TLS with {self.provider.label} failed: {exc}") from exc

    def _handshake(self) -> None:
        code, message = self._status()
        self.greeting = f"{code} {message}"
        if code in (400, 502):
            # providers greet with these when the account's connections are all in use
            raise ServiceGone(f"{self.provider.label} refused the connection: {code} {message}")
        if code not in (200, 201):
            raise error_for(code, message, "")
        self.posting = code == 200
        self.load_capabilities()
        if self.provider.tls == "starttls":
            self._starttls()
        if self.reader and ("MODE-READER" in self.capabilities or not self.capabilities):
            code, message = self.command("MODE READER")
            if code in (200, 201):
                self.posting = code == 200
            self.load_capabilities()
        if self.provider.user is not None:
            self.authenticate(self.provider.user, self.provider.password or "")
            self.load_capabilities()
        self._negotiate_compression()

    def _starttls(self) -> None:
        code, message = self.command("STARTTLS")
        if code != 382:
            raise error_for(code, message, "STARTTLS")
        wire = self._wire()
        wire.sock = self._wrap_tls(wire.sock)
        self.load_capabilities()  # RFC 4642: capabilities may change after TLS

    def authenticate(self, user: str, password: str) -> None:
        code, message = self.command(f"AUTHINFO USER {user}")
        if code == 381:
            code, message = self.command(f"AUTHINFO PASS {password}")
        if code != 281:
            raise error_for(code, message, "AUTHINFO USER/PASS")

    def load_capabilities(self) -> set[str]:
        code, _ = self.command("CAPABILITIES")
        if code != 101:
            self.capabilities = set()
            return self.capabilities
        lines = self._wire().read_block().decode("utf-8", "replace").split("\r\n")
        caps = set()
        for line in lines:
            words = line.upper().split()
            if words:
                caps.add(words[0])
                caps.update(f"{words[0]} {w}" for w in words[1:])
        self.capabilities = caps
        return caps

    def _negotiate_compression(self) -> None:
        want = self.provider.compression
        if want == "plain":
            return
        if want in ("auto", "xfeature"):
            code, _ = self.command("XFEATURE COMPRESS GZIP")
            if code == 290:
                self.variant = "xfeature"
                return
            if want == "xfeature":
                raise ReplyError(f"{self.provider.label} does not offer XFEATURE COMPRESS GZIP")
        if want in ("auto", "xzver"):
            code, _ = self.command("XZVER")  # no group selected: 412 means it is known
            if code in (412, 420, 224):
                if code == 224:
                    self._wire().read_block()
                self.variant = "xzver"
                return
            if want == "xzver":
                raise ReplyError(f"{self.provider.label} does not offer XZVER")
        if want == "deflate" or (want == "auto" and "COMPRESS DEFLATE" in self.capabilities):
            code, message = self.command("COMPRESS DEFLATE")
            if code == 206:
                self._wire().start_deflate()
                self.variant = "deflate"
            elif want == "deflate":
                raise error_for(code, message, "COMPRESS DEFLATE")

    def quit(self) -> None:
        if self.wire is None:
            return
        with contextlib.suppress(NNTPError):
            self.command("QUIT", timeout=5.0)
        self.close()

    def close(self) -> None:
        if self.wire is not None:
            self.wire.close()
            self.wire = None

    @property
    def connected(self) -> bool:
        return self.wire is not None

    @property
    def bytes_in(self) -> int:
        return self.wire.bytes_in if self.wire is not None else 0

    # -- plumbing --------------------------------------------------------------

    def _wire(self) -> Wire:
        if self.wire is None:
            raise NNTPError("not connected")
        return self.wire

    def _status(self) -> tuple[int, str]:
        line = self._wire().read_line()
        if len(line) < 3 or not line[:3].isdigit():
            raise ProtocolError(f"malformed status line: {line[:80]!r}")
        return int(line[:3]), line[4:].decode("utf-8", "replace")

    def command(self, line: str, timeout: float | None = None) -> tuple[int, str]:
        """Send one command line; its status code and message."""
        wire = self._wire()
        saved = wire.timeout
        if timeout is not None:
            wire.timeout = timeout
        try:
            wire.send_line(line)
            return self._status()
        finally:
            wire.timeout = saved

    def _expect(self, line: str, ok: int | tuple[int, ...]) -> str:
        code, message = self.command(line)
        if code not in ((ok,) if isinstance(ok, int) else ok):
            raise error_for(code, message, line)
        return message

    # -- reading ---------------------------------------------------------------

    def group(self, name: str) -> GroupInfo:
        words = self._expect(f"GROUP {name}", 211).split()
        try:
            count, low, high = int(words[0]), int(words[1]), int(words[2])
        except (IndexError, ValueError) as exc:
            raise ProtocolError(f"GROUP {name}: malformed 211 reply {words!r}") from exc
        self.group_name = name
        return GroupInfo(words[3] if len(words) > 3 else name, count, low, high)

    def list_active(self, wildmat: str | None = None) -> list[ActiveGroup]:
        self._expect(f"LIST ACTIVE {wildmat}" if wildmat else "LIST ACTIVE", 215)
        out = []
        for line in self._wire().read_block().split(b"\r\n"):
            words = line.decode("utf-8", "surrogateescape").split()
            if len(words) >= 4:
                out.append(ActiveGroup(words[0], int(words[1]), int(words[2]), words[3]))
        return out

    def overview_format(self) -> list[str]:
        self._expect("LIST OVERVIEW.FMT", 215)
        block = self._wire().read_block().decode("utf-8", "replace")
        return [f for f in block.split("\r\n") if f]

    def over(self, first: int, last: int) -> StoredReply:
        """The overview of articles first..last of the current group, ready for the corpus."""
        span = f"{first}-{last}"
        verb = "XZVER" if self.variant == "xzver" else "XOVER"
        code, message = self.command(f"{verb} {span}")
        if code in (420, 423):  # no articles in the span: an empty chunk
            return StoredReply(b"", "zlib", 0, 0, False)
        if code != 224:
            raise error_for(code, message, f"{verb} {span}")
        wire = self._wire()
        if self.variant == "xzver":
            return read_xzver_reply(wire)
        if self.variant == "xfeature":
            marked = "COMPRESS=GZIP" in message.upper()
            return read_xfeature_reply(wire, marked, self.provider.cut_grace)
        return store_text(wire.read_block())

    def stat(self, article: int | str) -> tuple[int, str]:
        words = self._expect(f"STAT {article}", 223).split()
        return int(words[0]), words[1] if len(words) > 1 else ""

    def head(self, article: int | str) -> bytes:
        self._expect(f"HEAD {article}", 221)
        return self._wire().read_block()

    def body(self, article: int | str) -> bytes:
        self._expect(f"BODY {article}", 222)
        return self._wire().read_block()

    def article(self, article: int | str) -> bytes:
        self._expect(f"ARTICLE {article}", 220)
        return self._wire().read_block()

    def date(self) -> dt.datetime:
        stamp = self._expect("DATE", 111).strip()
        try:
            return dt.datetime.strptime(stamp[:14], "%Y%m%d%H%M%S").replace(tzinfo=dt.UTC)
        except ValueError as exc:
            raise ProtocolError(f"DATE: malformed {stamp!r}") from exc

    # -- posting (used to fill a test server) ----------------------------------

    def post(self, article: bytes) -> None:
        """POST a whole article (headers, blank line, body; CRLF line ends)."""
        self._expect("POST", 340)
        self._send_article(article, 240, "POST")

    def ihave(self, message_id: str, article: bytes) -> bool:
        """IHAVE: False when the server already has it or refuses it (435/437)."""
        code, message = self.command(f"IHAVE {message_id}")
        if code == 435:
            return False
        if code != 335:
            raise error_for(code, message, "IHAVE")
        return self._send_article(article, 235, "IHAVE", refused=437)

    def _send_article(self, article: bytes, ok: int, verb: str, refused: int = 0) -> bool:
        if not article.endswith(b"\r\n"):
            article += b"\r\n"
        wire = self._wire()
        wire.send(stuff(article) + b".\r\n")
        code, message = self._status()
        if code == refused:
            return False
        if code != ok:
            raise error_for(code, message, verb)
        return True

    def __enter__(self) -> NNTPClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()
