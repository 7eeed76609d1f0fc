"""`providers check`: what each provider is, measured over one connection.

For each provider: its greeting, the compressed overview it offers, per group its
article numbers and oldest article (retention), and its speed (the round trip of a
command, overview lines a second over one connection). A provider that cannot be
reached, or refuses the credentials, is reported as such and the others are checked all
the same. Which providers share a backbone is `fingerprint.py`'s.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

from pipelines.corpus.codec import inflate
from pipelines.nntp.client import NNTPClient
from pipelines.nntp.errors import AuthError, NNTPError, NoSuchGroup
from pipelines.nntp.provider import Provider

OLDEST_SPAN = 50  # articles above the low mark read for the oldest date (the low may be gone)
SPEED_SPAN = 2_000  # newest articles of a group read for the overview's speed
ROUND_TRIPS = 5

Connect = Callable[[Provider], NNTPClient]


def _connect(provider: Provider) -> NNTPClient:
    return NNTPClient(provider).connect()


@dataclass
class GroupCheck:
    group: str
    carried: bool = False
    count: int = 0
    low: int = 0
    high: int = 0
    oldest: int | None = None  # epoch seconds of the oldest article read
    retention_days: float | None = None


@dataclass
class ProviderCheck:
    name: str
    host: str
    port: int
    backbone: str  # as configured ('' none)
    state: str = "ok"  # ok | refused (credentials) | down | failed
    problem: str = ""
    greeting: str = ""
    compression: str = ""  # what overview replies come as: plain, xfeature, xzver, deflate
    offers: list[str] = field(default_factory=list)  # compressed variants it answered
    round_trip_ms: float | None = None
    overview_lines_per_s: float | None = None
    overview_bytes_per_s: float | None = None  # on the wire
    groups: list[GroupCheck] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def check_provider(
    provider: Provider, groups: Sequence[str], now: float | None = None,
    connect: Connect = _connect,
) -> ProviderCheck:  # fmt: skip
    """Check one provider over one connection; never raises for what the server does."""
    out = ProviderCheck(provider.label, provider.host, provider.port, provider.backbone)
    now = time.time() if now is None else now
    try:
        client = connect(provider)
    except AuthError as exc:
        out.state, out.problem = "refused", str(exc)
        return out
    except (NNTPError, OSError) as exc:
        out.state, out.problem = "down", str(exc)
        return out
    try:
        out.greeting = client.greeting
        out.compression = client.variant
        out.offers = offered(client)
        out.round_trip_ms = _round_trip(client)
        for group in groups:
            out.groups.append(_group(client, group, now, out))
    except (NNTPError, OSError) as exc:
        out.state, out.problem = "failed", f"{type(exc).__name__}: {exc}"
    finally:
        client.quit()
    return out


def offered(client: NNTPClient) -> list[str]:
    """The compressed overview variants the server names or negotiated."""
    caps = client.capabilities
    found = [client.variant] if client.variant != "plain" else []
    if "COMPRESS DEFLATE" in caps and "deflate" not in found:
        found.append("deflate")
    if any(c.startswith("XFEATURE") for c in caps) and "xfeature" not in found:
        found.append("xfeature")
    if "XZVER" in caps and "xzver" not in found:
        found.append("xzver")
    return found


def _round_trip(client: NNTPClient) -> float:
    started = time.perf_counter()
    for _ in range(ROUND_TRIPS):
        client.date()
    return (time.perf_counter() - started) / ROUND_TRIPS * 1000


def _group(client: NNTPClient, group: str, now: float, out: ProviderCheck) -> GroupCheck:
    check = GroupCheck(group)
    try:
        info = client.group(group)
    except NoSuchGroup:
        return check
    check.carried, check.count, check.low, check.high = True, info.count, info.low, info.high
    if info.count <= 0:
        return check
    check.oldest = _oldest(client, info.low, info.high)
    if check.oldest is not None:
        check.retention_days = round((now - check.oldest) / 86_400, 2)
    if out.overview_lines_per_s is None:  # the first group carried measures the speed
        first = max(info.low, info.high - SPEED_SPAN + 1)
        before = client.bytes_in
        started = time.perf_counter()
        reply = client.over(first, info.high)
        seconds = max(time.perf_counter() - started, 1e-6)
        out.overview_lines_per_s = round(reply.lines / seconds, 1)
        out.overview_bytes_per_s = round((client.bytes_in - before) / seconds, 1)
    return check


def overview_fields(client: NNTPClient, first: int, last: int) -> list[list[bytes]]:
    """The overview lines of articles first..last of the current group, split in fields."""
    reply = client.over(first, last)
    if not reply.payload:
        return []
    lines = inflate(reply.payload).data.split(b"\r\n")
    return [line.split(b"\t") for line in lines if line]


def _oldest(client: NNTPClient, low: int, high: int) -> int | None:
    """The posting time of the first article the overview lists from the low mark."""
    for fields in overview_fields(client, low, min(high, low + OLDEST_SPAN - 1)):
        if len(fields) > 3:
            try:
                when = parsedate_to_datetime(fields[3].decode("utf-8", "replace"))
            except (TypeError, ValueError):
                continue
            if when.tzinfo is None:
                when = when.replace(tzinfo=dt.UTC)
            return int(when.timestamp())
    return None
