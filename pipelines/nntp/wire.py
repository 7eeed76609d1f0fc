"""The byte stream of one NNTP connection: status lines, dot-terminated blocks, raw reads.

RFC 8054 `COMPRESS DEFLATE` sits under everything here: once it is active, every byte
read is inflated and every byte written is deflated, so the reply parsers above never
see the difference.
"""

from __future__ import annotations

import contextlib
import socket
import time
import zlib
from types import ModuleType
from typing import Any

from pipelines.nntp.errors import ProtocolError, ReplyTimeout, ServiceGone

_zmod: ModuleType
try:  # ISA-L inflates several times faster than zlib
    from isal import isal_zlib as _zmod
except ImportError:  # pragma: no cover
    _zmod = zlib
_INFLATE_ERRORS = (zlib.error, _zmod.error)

_RECV = 1 << 18
_TERMINATOR = b"\r\n.\r\n"


class Wire:
    def __init__(self, sock: socket.socket, timeout: float) -> None:
        self.sock = sock
        self.timeout = timeout
        self.buf = bytearray()
        self.bytes_in = 0  # bytes off the socket, before any inflating
        self._inflater: Any = None
        self._deflater: Any = None

    # -- writing ---------------------------------------------------------------

    def send_line(self, line: str | bytes) -> None:
        data = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line
        self.send(data + b"\r\n")

    def send(self, data: bytes) -> None:
        if self._deflater is not None:
            data = self._deflater.compress(data) + self._deflater.flush(zlib.Z_SYNC_FLUSH)
        try:
            self.sock.sendall(data)
        except TimeoutError as exc:
            raise ReplyTimeout(f"sending timed out after {self.timeout:.0f} s") from exc
        except OSError as exc:
            raise ServiceGone(f"connection lost while sending: {exc}") from exc

    # -- reading ---------------------------------------------------------------

    def fill(self, timeout: float | None = None) -> int:
        """Read once from the socket into the buffer; the count of new (inflated) bytes."""
        data = self._recv(timeout)
        self.buf += data
        return len(data)

    def _recv(self, timeout: float | None = None) -> bytes:
        self.sock.settimeout(self.timeout if timeout is None else timeout)
        try:
            data = self.sock.recv(_RECV)
        except TimeoutError as exc:
            raise ReplyTimeout(
                f"no reply within {self.timeout if timeout is None else timeout:.1f} s"
            ) from exc
        except OSError as exc:
            raise ServiceGone(f"connection lost: {exc}") from exc
        if not data:
            raise ServiceGone("the server closed the connection")
        self.bytes_in += len(data)
        if self._inflater is not None:
            try:
                data = self._inflater.decompress(data)
            except _INFLATE_ERRORS as exc:
                raise ProtocolError(f"COMPRESS DEFLATE stream is corrupt: {exc}") from exc
        return bytes(data)

    def more_within(self, seconds: float) -> bool:
        """True when more bytes arrive within `seconds`; False when the line stays quiet."""
        try:
            self.fill(seconds)
        except ReplyTimeout:
            return False
        return True

    def read_line(self) -> bytes:
        start = 0
        while True:
            end = self.buf.find(b"\n", start)
            if end >= 0:
                line = bytes(self.buf[:end])
                del self.buf[: end + 1]
                return line.rstrip(b"\r")
            start = len(self.buf)
            self.fill()

    def read_block(self, deadline: float | None = None) -> bytes:
        """A dot-terminated block: its lines with CRLF, the terminator dropped, dots unstuffed."""
        if self.buf[:3] == b".\r\n":
            del self.buf[:3]
            return b""
        start = 0
        while True:
            end = self.buf.find(_TERMINATOR, start)
            if end >= 0:
                with memoryview(self.buf) as view:
                    block = bytes(view[: end + 2])
                del self.buf[: end + 5]
                return unstuff(block)
            start = max(0, len(self.buf) - 4)
            if self.buf[:3] == b".\r\n":
                del self.buf[:3]
                return b""
            if deadline is not None and time.monotonic() > deadline:
                raise ReplyTimeout("the reply did not end within its deadline")
            self.fill()

    def read_raw(self) -> bytes:
        """What is buffered, or else the next bytes off the socket, never through the buffer."""
        return self.take() if self.buf else self._recv()

    def take(self) -> bytes:
        """Everything buffered, removed from the buffer (raw reads of compressed replies)."""
        data = bytes(self.buf)
        self.buf.clear()
        return data

    def push_back(self, data: bytes) -> None:
        self.buf[:0] = data

    # -- RFC 8054 --------------------------------------------------------------

    def start_deflate(self) -> None:
        """Everything after the `206` line is deflated, both ways (raw deflate, no header)."""
        self._deflater = zlib.compressobj(6, zlib.DEFLATED, -15)
        self._inflater = _zmod.decompressobj(-15)
        pending = self.take()
        if pending:
            self.buf += self._inflater.decompress(pending)

    @property
    def deflating(self) -> bool:
        return self._inflater is not None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


def unstuff(block: bytes) -> bytes:
    """Undo dot-stuffing (RFC 3977 3.1.1): a line that starts with '..' loses one dot."""
    if block.startswith(b".."):
        block = block[1:]
    if b"\n.." in block:
        block = block.replace(b"\n..", b"\n.")
    return block


def stuff(block: bytes) -> bytes:
    """Dot-stuff a block of CRLF lines for sending."""
    if block.startswith(b"."):
        block = b"." + block
    if b"\n." in block:
        block = block.replace(b"\n.", b"\n..")
    return block
