"""NNTP failures as exceptions a caller can act on: retry, replace the connection, or stop.

The split matters to the capture: a cut reply is asked for again, a lost connection is
replaced, while wrong credentials or an unknown group stop the run with a clear message.
"""

from __future__ import annotations


class NNTPError(Exception):
    """Any failure talking to a news server."""

    retryable = False  # another attempt (on a fresh connection) may succeed

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class ReplyError(NNTPError):
    """The server answered with a status the command does not expect."""


class AuthError(ReplyError):
    """480/481/482/502: credentials missing, wrong, out of order, or access refused."""


class NoSuchGroup(ReplyError):
    """411: the server does not carry the group."""


class NoArticle(ReplyError):
    """420/423/430: no such article number or message-id."""


class PoolBusy(NNTPError):
    """The connection pool had nothing to lend in time (every slot in use), or is closed:
    no connection was tried, so nothing is known of the server."""


class ServiceGone(NNTPError):
    """400/503 or a closed socket: the server ended the session; a new connection may work."""

    retryable = True


class ReplyTimeout(ServiceGone):
    """No byte within the command's timeout; the connection is no longer usable."""


class TruncatedReply(NNTPError):
    """A reply that ended early or whose compressed stream does not inflate to its end."""

    retryable = True


class ProtocolError(NNTPError):
    """Bytes that do not follow the protocol (a malformed status line, a bad yEnc frame)."""

    retryable = True


_AUTH = {480, 481, 482, 502}
_NO_ARTICLE = {420, 423, 430}
_GONE = {400, 503}


def error_for(code: int, message: str, command: str) -> NNTPError:
    """The exception for an unexpected status `code` in reply to `command`."""
    verb = command.split(" ", 1)[0].upper() if command else "greeting"
    if verb == "AUTHINFO":
        command = " ".join(command.split(" ")[:2]) + " ****"  # never echo a password
    text = f"{command or 'greeting'}: {code} {message}".strip()
    if code in _AUTH:
        return AuthError(f"authentication failed: {text}", code)
    if code == 411:
        return NoSuchGroup(f"no such group: {text}", code)
    if code in _NO_ARTICLE:
        return NoArticle(f"no such article: {text}", code)
    if code in _GONE:
        return ServiceGone(f"service gone: {text}", code)
    return ReplyError(f"unexpected reply: {text}", code)
