"""`predb listen`: follow a pre channel on IRC and store its announces as they come.

A small IRC client over asyncio (RFC 1459/2812: NICK, USER, PING/PONG, JOIN, PRIVMSG):
it registers, joins the channel once the server welcomes it (001), answers PINGs, and
hands each channel message to `announce.parse_announce`. Announces are stored every
`flush_seconds` (30: a P1 pre's first scan is ten minutes on) or `flush_lines` as one
event batch through the import's own path (`importer.add_lines`, live: P1), so a flood
of duplicates adds nothing and is counted; a line that is not an announce is counted. A
connection that drops, fails or is refused is counted and made again after a back-off
(1 s, doubling to 30 s); a stop flushes what was read.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from pipelines.predb import lookup as L
from pipelines.predb.announce import parse_announce
from pipelines.predb.importer import ImportSummary, add_lines
from pipelines.predb.lines import PreLine

BACKOFF_MAX = 30.0


@dataclass
class ListenSummary:
    connects: int = 0  # sessions the server welcomed
    dropped: int = 0  # connections lost, refused or failed
    messages: int = 0  # channel messages read
    announces: int = 0
    unknown: int = 0  # messages that were no announce
    batches: int = 0
    stored: ImportSummary = field(default_factory=ImportSummary)

    def text(self) -> str:
        s = self.stored
        return (
            f"predb listen: {self.connects} sessions ({self.dropped} dropped), {self.messages:,} "
            f"messages: {self.announces:,} announces, {self.unknown:,} unknown; "
            f"{s.pres:,} new pres, {s.nuke_events:,} nuke events, {s.known:,} duplicates, "
            f"{self.batches} batches"
        )


class Listener:
    def __init__(self, catalog: str, host: str, port: int, channel: str, nick: str = "uipredb",
                 flush_seconds: float = 30.0, flush_lines: int = 1000) -> None:  # fmt: skip
        self.catalog, self.host, self.port = catalog, host, port
        self.channel = channel if channel.startswith(("#", "&")) else f"#{channel}"
        self.nick = nick
        self.flush_seconds, self.flush_lines = flush_seconds, flush_lines
        self.summary = ListenSummary()
        self.pending: list[PreLine] = []
        self.lookup: L.Lookup | None = None
        self.stop = asyncio.Event()
        self.joined = asyncio.Event()  # for callers that wait for the join (tests)

    def flush(self) -> None:
        if not self.pending:
            return
        if self.lookup is None:
            self.lookup = L.load(self.catalog)
        else:
            L.catch_up(self.lookup)  # an import meanwhile
        events = add_lines(self.catalog, self.pending, self.lookup, self.summary.stored, live=True)
        self.summary.batches += bool(events.num_rows)
        self.pending = []

    def on_message(self, text: str) -> None:
        self.summary.messages += 1
        pre = parse_announce(text, self.channel)
        if pre is None:
            self.summary.unknown += 1
            return
        self.summary.announces += 1
        self.pending.append(pre)
        if len(self.pending) >= self.flush_lines:
            self.flush()

    async def run(self, seconds: float | None = None) -> ListenSummary:
        ticker = asyncio.create_task(self._flusher())
        if seconds:
            asyncio.get_running_loop().call_later(seconds, self.stop.set)
        backoff = 1.0
        while not self.stop.is_set():
            try:
                welcomed = await self._session()
            except (OSError, asyncio.IncompleteReadError, ConnectionError):
                welcomed = False
            if self.stop.is_set():
                break
            self.summary.dropped += 1
            self.joined.clear()
            backoff = 1.0 if welcomed else min(BACKOFF_MAX, backoff * 2)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stop.wait(), backoff)
        ticker.cancel()
        self.flush()
        return self.summary

    async def _flusher(self) -> None:
        while True:
            await asyncio.sleep(self.flush_seconds)
            self.flush()

    async def _session(self) -> bool:
        """One connection, until it drops or the listener stops; whether it was welcomed."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        nick = self.nick
        welcomed = False

        def send(line: str) -> None:
            writer.write((line + "\r\n").encode("utf-8", "replace"))

        send(f"NICK {nick}")
        send(f"USER {nick} 0 * :usenet-indexer predb")
        stopping = asyncio.create_task(self.stop.wait())
        try:
            while True:
                reading = asyncio.create_task(reader.readline())
                done, _ = await asyncio.wait(
                    {reading, stopping}, return_when=asyncio.FIRST_COMPLETED
                )
                if stopping in done:
                    reading.cancel()
                    send("QUIT :stopping")
                    await writer.drain()
                    return welcomed
                raw = reading.result()
                if not raw:
                    return welcomed  # the server closed the connection
                prefix, command, params = _parse(raw.decode("utf-8", "replace").rstrip("\r\n"))
                if command == "PING":
                    send(f"PONG :{params[-1] if params else ''}")
                elif command == "001":
                    welcomed = True
                    self.summary.connects += 1
                    send(f"JOIN {self.channel}")
                elif command == "433":  # the nick is taken: another one
                    nick = f"{nick}_"[:30]
                    send(f"NICK {nick}")
                elif command == "JOIN" and prefix.split("!", 1)[0] == nick:
                    self.joined.set()
                elif (
                    command == "PRIVMSG"
                    and len(params) == 2
                    and params[0].lower() == self.channel.lower()
                ):
                    self.on_message(params[1])
                elif command == "ERROR":
                    return welcomed
                await writer.drain()
        finally:
            stopping.cancel()
            writer.close()


def _parse(line: str) -> tuple[str, str, list[str]]:
    """An IRC message: (prefix, command, params), the trailing param last."""
    prefix = ""
    if line.startswith(":"):
        prefix, _, line = line[1:].partition(" ")
    head, sep, trailing = line.partition(" :")
    parts = head.split()
    if not parts:
        return prefix, "", []
    params = parts[1:] + ([trailing] if sep else [])
    return prefix, parts[0].upper(), params


def listen(catalog: str, host: str, port: int, channel: str, nick: str = "uipredb",
           seconds: float | None = None) -> ListenSummary:  # fmt: skip
    """Follow the channel until stopped (or for `seconds`)."""
    listener = Listener(catalog, host, port, channel, nick)
    try:
        return asyncio.run(listener.run(seconds))
    except KeyboardInterrupt:
        listener.flush()
        raise
