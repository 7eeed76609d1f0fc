"""The spot reader: a spot group's new articles read, verified, stored, and each valid
spot's NZB fetched and imported.

Per span of the group's overview after the last article read (the first time, the last
`backfill`): each line's From header must be a spot's and its header signatures hold
(XOVER alone tells most bad spots); a moderation message is kept as it is; any other
spot's full header is read (HEAD) and every signature it carries checked. A valid spot's
NZB is the bodies of its NZB articles (`pipelines.spots.nzb`), imported through the one
import path (`pipelines.nzbimport`): linked to the release the header pass built of the
same articles, or, once the spot is `standalone_after` old with none, a release of its
own (until then the spot waits, its NZB kept, and each run tries again).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

from pipelines.corpus.codec import inflate
from pipelines.nntp.client import NNTPClient
from pipelines.nntp.errors import NNTPError, NoArticle, NoSuchGroup
from pipelines.nntp.pool import ConnectionPool
from pipelines.nntp.provider import Provider
from pipelines.nzbimport.run import Importer
from pipelines.spots.article import parse_head
from pipelines.spots.header import NotASpot, parse_from
from pipelines.spots.nzb import BadSpotNzb, spot_nzb
from pipelines.spots.record import moderation_target, spot_row
from pipelines.spots.store import (
    SpotState,
    drop_nzb,
    keep_nzb,
    kept_nzb,
    load_state,
    removed_releases,
    removed_spots,
    save_state,
    write_outcomes,
    write_spots,
)
from pipelines.spots.verify import Verdict, verify_header, verify_spot

SPOT_GROUP = "free.pt"
BACKFILL = 20_000
SPAN = 1_000  # articles an overview request (and a stored file) covers
STANDALONE_AFTER = 24 * 3600
# a waiting spot is matched again at most this often (each try is a search of its
# groups' releases of the days around it), and once more when it is a day old
RETRY_EVERY = 3600
MAX_NZB_ARTICLES = 50  # a spot naming more is not read (a placeholder or a flood)


@dataclass
class SpotSummary:
    articles: int = 0  # overview lines read
    spots: int = 0  # valid spots stored
    deletes: int = 0  # valid moderation messages
    rejected: Counter[str] = field(default_factory=Counter)  # by reason
    nzbs: Counter[str] = field(default_factory=Counter)  # NZB outcomes
    heads: int = 0  # HEADs read
    bodies: int = 0  # NZB article bodies read
    first: int = 0
    last: int = 0  # the last article read
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    stopped: str = ""
    withdrawn: int = 0  # releases of deleted spots hidden
    missing_group: bool = False  # the server has no such group
    broken: bool = False  # the connection failed (a transport error)

    def text(self) -> str:
        rate = self.articles / self.seconds if self.seconds else 0.0
        per = self.cpu_seconds / self.heads * 1e3 if self.heads else 0.0
        lines = [
            f"spots: articles {self.first}-{self.last}: {self.articles:,} read, "
            f"{self.spots:,} spots, {self.deletes:,} deletes, "
            f"{sum(self.rejected.values()):,} rejected in {self.seconds:.1f} s "
            f"({rate:,.0f} articles/s; CPU {self.cpu_seconds:.2f} s, {per:.2f} ms a spot read)"
        ]
        if self.rejected:
            lines.append(
                "  rejected: " + ", ".join(f"{n} {r}" for r, n in sorted(self.rejected.items()))
            )
        if self.nzbs:
            lines.append("  NZBs: " + ", ".join(f"{n} {o}" for o, n in sorted(self.nzbs.items())))
        if self.stopped:
            lines.append(f"STOPPED: {self.stopped}")
        return "\n".join(lines)


class SpotReader:
    """One run over one spot group, on one connection."""

    def __init__(
        self, catalog: str, client: NNTPClient, importer: Importer, now: int,
        standalone_after: int = STANDALONE_AFTER,
    ) -> None:  # fmt: skip
        self.catalog = catalog
        self.client = client
        self.importer = importer
        self.now = now
        self.standalone_after = standalone_after
        self.summary = SpotSummary()

    def read_span(self, group: str, first: int, last: int, state: SpotState) -> None:
        """Read, store and commit one span of the group's articles."""
        reply = self.client.over(first, last)
        text = inflate(reply.payload).data if reply.payload else b""
        rows: list[dict[str, Any]] = []
        outcomes: list[dict[str, Any]] = []
        for line in text.split(b"\r\n"):
            fields = line.split(b"\t")
            if len(fields) < 5 or not fields[0].isdigit():
                continue
            self.summary.articles += 1
            row = self._article(fields)
            if row is None:
                continue
            rows.append(row)
            if row["valid"] and row["kind"] == "spot" and row.get("nzb_ids"):
                outcomes.append(self._nzb(row, state))
        # spots before their NZBs' outcomes, the state last: it commits the span
        self.importer.flush()
        write_spots(self.catalog, group, first, last, rows, outcomes)
        deletes = {r["message_id"] for r in rows if r["valid"] and r["kind"] == "delete"}
        if deletes:  # a deleted spot's own release goes with it (a tombstone version)
            for delete, key in removed_releases(self.catalog, deletes):
                self.summary.withdrawn += self.importer.withdraw(key, "spot", delete)
            self.importer.flush()
        state.last = last
        save_state(self.catalog, group, state)
        self.summary.last = last

    def _article(self, fields: list[bytes]) -> dict[str, Any] | None:
        article, subject, sender, date, raw_id = fields[:5]
        message_id = raw_id.strip().strip(b"<>")
        posted = _epoch(date)
        try:
            frm = parse_from(sender)
        except NotASpot:
            self.summary.rejected["not_a_spot"] += 1
            return None
        verdict = verify_header(frm, subject, message_id, posted)
        doc = None
        if verdict.valid and moderation_target(frm, subject) is None:
            verdict, doc = self._full(message_id, posted)
        row = spot_row(int(article), message_id.decode(errors="replace"), posted or frm.created,
                       verdict, frm, doc, subject, self.now)  # fmt: skip
        if not verdict.valid:
            self.summary.rejected[verdict.reason] += 1
        elif row["kind"] == "delete":
            self.summary.deletes += 1
        else:
            self.summary.spots += 1
        return row

    def _full(self, message_id: bytes, posted: int | None) -> tuple[Verdict, Any]:
        try:
            head = self.client.head(f"<{message_id.decode(errors='replace')}>")
        except NoArticle:
            return Verdict(False, "head_gone"), None
        self.summary.heads += 1
        verdict, _, doc = verify_spot(parse_head(head), message_id, posted)
        return verdict, doc

    def _nzb(self, row: dict[str, Any], state: SpotState) -> dict[str, Any]:
        """Fetch, decode and import a valid spot's NZB: its outcome row."""
        message_id = row["message_id"]
        outcome: dict[str, Any] = {"message_id": message_id, "at": self.now}
        ids: list[str] = row["nzb_ids"]
        if len(ids) > MAX_NZB_ARTICLES:
            return {**outcome, "outcome": "unreadable", "reason": "too_many_articles"}
        try:
            bodies = []
            for i in ids:
                bodies.append(self.client.body(f"<{i}>"))
                self.summary.bodies += 1
            nzb = spot_nzb(bodies)
        except NoArticle:
            self.summary.nzbs["gone"] += 1
            return {**outcome, "outcome": "gone", "reason": "430"}
        except BadSpotNzb as e:
            self.summary.nzbs["unreadable"] += 1
            return {**outcome, "outcome": "unreadable", "reason": e.reason}
        title = row.get("title") or None
        return {**outcome, **self._import(message_id, nzb, row["posted"], state, title)}

    def _import(
        self, message_id: str, nzb: bytes, posted: int, state: SpotState, title: str | None
    ) -> dict[str, Any]:
        standalone = self.now - posted >= self.standalone_after
        # a spot's NZB seldom names its upload: the spot's title does
        got = self.importer.add("spot", message_id, nzb, insert=standalone, title=title)
        self.summary.nzbs[got.outcome] += 1
        if got.outcome == "waiting":
            if message_id not in state.waiting:
                keep_nzb(self.catalog, message_id, nzb)
                state.waiting[message_id] = posted
                if title:
                    state.titles[message_id] = title
            state.tried[message_id] = self.now
        elif message_id in state.waiting:
            del state.waiting[message_id]
            state.titles.pop(message_id, None)
        return {"outcome": got.outcome, "reason": got.reason or None,
                "release_key": got.release_key}  # fmt: skip

    def retry_waiting(self, group: str, state: SpotState) -> list[dict[str, Any]]:
        """Import again the spots whose NZB waits: linked now, or standalone once old."""
        outcomes = []
        due = [m for m, posted in sorted(state.waiting.items()) if self.now >= min(
            state.tried.get(m, 0) + RETRY_EVERY, posted + self.standalone_after)]  # fmt: skip
        removed = removed_spots(self.catalog) if due else set()
        for message_id in due:
            posted = state.waiting[message_id]
            nzb = kept_nzb(self.catalog, message_id)
            if nzb is None or message_id in removed:  # deleted while it waited: no release
                del state.waiting[message_id]
                state.titles.pop(message_id, None)
                drop_nzb(self.catalog, message_id)
                continue
            got = self._import(message_id, nzb, posted, state, state.titles.get(message_id))
            if got["outcome"] != "waiting":
                outcomes.append({"message_id": message_id, "at": self.now, **got})
        return outcomes


def read_spots(
    catalog: str,
    provider: Provider | None = None,
    group: str = SPOT_GROUP,
    backfill: int = BACKFILL,
    now: int | None = None,
    standalone_after: int = STANDALONE_AFTER,
    progress: Callable[[SpotSummary], None] | None = None,
    pool: ConnectionPool | None = None,
) -> SpotSummary:
    """Read the group's spots after the last article read, on a connection of its own to
    `provider` or one borrowed from `pool` (the live loop's); the run's summary."""
    if pool is not None:
        client = pool.acquire()
        broken = True
        try:
            s = _read(catalog, client, group, backfill, now, standalone_after, progress)
            broken = s.broken
            return s
        finally:
            pool.release(client, broken=broken or not client.connected)
    if provider is None:
        raise ValueError("read_spots needs a provider or a pool")
    with NNTPClient(provider) as client:
        client.connect()
        return _read(catalog, client, group, backfill, now, standalone_after, progress)


def _read(
    catalog: str, client: NNTPClient, group: str, backfill: int, now: int | None,
    standalone_after: int, progress: Callable[[SpotSummary], None] | None,
) -> SpotSummary:  # fmt: skip
    started, cpu = time.monotonic(), time.process_time()
    now = int(time.time()) if now is None else now
    state = load_state(catalog, group)
    with Importer(catalog, now) as importer:
        reader = SpotReader(catalog, client, importer, now, standalone_after)
        s = reader.summary
        try:
            info = client.group(group)
            if state is None:
                state = SpotState(last=max(info.low, info.high - backfill + 1) - 1)
            s.first = s.last = state.last
            outcomes = reader.retry_waiting(group, state)
            importer.flush()
            if outcomes:
                _write_retries(catalog, group, outcomes)
            save_state(catalog, group, state)
            s.first = state.last + 1
            for first in range(state.last + 1, info.high + 1, SPAN):
                reader.read_span(group, first, min(first + SPAN - 1, info.high), state)
                if progress is not None:
                    progress(s)
        except NoSuchGroup as e:
            s.stopped = f"no spot group: {e}"
            s.missing_group = True
        except NNTPError as e:
            s.stopped = f"{type(e).__name__}: {e}"
            s.broken = e.retryable
    s.seconds = time.monotonic() - started
    s.cpu_seconds = time.process_time() - cpu
    return s


def _write_retries(catalog: str, group: str, outcomes: list[dict[str, Any]]) -> None:
    write_outcomes(catalog, group, outcomes)
    for o in outcomes:
        drop_nzb(catalog, o["message_id"])


def _epoch(date: bytes) -> int | None:
    try:
        return int(parsedate_to_datetime(date.decode("ascii", "replace")).timestamp())
    except (TypeError, ValueError, IndexError):
        return None
