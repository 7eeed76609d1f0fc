"""One release's check over a leased connection: its sample's STATs, pipelined.

The STATs of a sample go out in one write and their replies are read in order (RFC 3977
lets a client pipeline commands): a check costs one round trip, not one per segment. Each
reply has its own deadline (`stat_timeout`): a STAT is one short line, and the point of a
short deadline is to learn cheaply that a connection the provider quietly closed is dead.
The connection's own timeout, sized for long overview replies, is put back when the
check ends, so the short one never follows the connection to its next user.

A reply ends as one of: there (223), missing (430, or 420/423), or unusable (a status a
STAT does not give, or a line that is no status at all); a failed read or write is a
transport failure of the whole check (`NNTPError` out of here), credentials refused an
`AuthError`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.nntp.client import NNTPClient
from pipelines.nntp.errors import AuthError, NNTPError, ServiceGone

THERE = 223
MISSING = frozenset({420, 423, 430})
_AUTH = frozenset({480, 481, 482, 502})
_GONE = frozenset({400, 503})


@dataclass(frozen=True)
class Answer:
    """What a sample's STATs answered, in the sample's order."""

    sent: int
    missing: int
    unusable: int
    ends_missing: int  # of the sample's first and last (the release's first and last)


def status_of(line: bytes) -> int | None:
    """The status code of a reply line; None when it is none."""
    if len(line) < 3 or not line[:3].isdigit() or (len(line) > 3 and line[3:4] != b" "):
        return None
    return int(line[:3])


def stat_sample(client: NNTPClient, message_ids: list[str], stat_timeout: float) -> Answer:
    """STAT each message-id (bare, without angle brackets) on `client`, pipelined."""
    if not message_ids:
        return Answer(0, 0, 0, 0)
    wire = client.wire
    if wire is None:
        raise NNTPError("not connected")
    saved = wire.timeout
    wire.timeout = stat_timeout
    try:
        wire.send(b"".join(f"STAT <{m}>\r\n".encode("utf-8", "surrogateescape")
                           for m in message_ids))  # fmt: skip
        codes = [status_of(wire.read_line()) for _ in message_ids]
    finally:
        wire.timeout = saved
    for code in codes:
        if code in _AUTH:
            raise AuthError(f"STAT: {code}: the server refused the credentials", code)
        if code in _GONE:
            raise ServiceGone(f"STAT: {code}: the server ended the session", code)
    missing = [c in MISSING for c in codes]
    unusable = sum(c != THERE and c not in MISSING for c in codes)
    last = len(codes) - 1
    ends = missing[0] + (missing[last] if last > 0 else 0)
    return Answer(len(codes), sum(missing), unusable, ends)
