"""What readers show of the PreDB: per linked release its pre, and the recent pres.

`Shown.load` reads the links (one row per release a pre named) and finds each link's pre
in the lookup (memory-mapped); `current` keeps one per catalog and, when the PreDB's files
changed (a new links or events batch, a new lookup generation), takes in only what is
new: the link batches written since, and the pres whose state the event batches since
changed (a nuke, a size told later). At most every `REFRESH` seconds: a feed asks for
every item, and a busy scan links every minute.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pipelines.predb import lookup as L
from pipelines.predb import queue as Q
from pipelines.predb.schedule import STATUS_NAMES
from pipelines.predb.store import DoneBatches, batches, get_json, read_batches

REFRESH = 2.0
RECENT = 500  # pres the PreDB page looks at
OUTCOME_BATCHES = 64  # newest outcome batches read to find recent pres' states


@dataclass(frozen=True)
class Pre:
    title: str
    pre_time: int
    source: str
    category: str
    size: int | None
    nuke: str
    nuke_reason: str
    nuked: bool
    method: str = ""
    linked_at: int = 0


@dataclass
class Shown:
    catalog: str
    by_release: dict[bytes, Pre] = field(default_factory=dict)
    signature: tuple[Any, ...] = ()
    lookup: L.Lookup | None = None
    links_taken: DoneBatches = field(default_factory=DoneBatches)
    events_taken: DoneBatches = field(default_factory=DoneBatches)  # when the pres were read
    generation: str = ""
    releases_of: dict[int, list[bytes]] = field(default_factory=dict)  # pre row -> its releases
    linked: dict[bytes, tuple[str, int]] = field(default_factory=dict)  # release -> method, at

    @classmethod
    def load(cls, catalog: str) -> Shown:
        out = cls(catalog)
        out.take()
        return out

    def take(self, signature: tuple[Any, ...] | None = None) -> None:
        """Take in what is new since the last look (everything the first time);
        `signature`: the files' `_signature`, when the caller has it already."""
        signature = signature if signature is not None else _signature(self.catalog)
        first = self.lookup is None
        new_links = [
            b for b in batches(self.catalog, "links", since=self.links_taken.upto)
            if b not in self.links_taken
        ]  # fmt: skip
        new_events = [
            b for b in batches(self.catalog, "events", since=self.events_taken.upto)
            if b not in self.events_taken
        ]  # fmt: skip
        generation = _generation(self.catalog)
        if self.lookup is None or generation != self.generation:
            self.lookup = L.load(self.catalog)  # a new generation: mapped anew
        elif new_events:
            L.catch_up(self.lookup)
        changed: set[int] = set()
        if new_events and not first:
            told = read_batches(self.catalog, "pre_events", new_events, ["title"])
            changed = {
                r for r in self.lookup.rows_of_titles(told["title"].to_pylist()) if r is not None
            }
        links = (
            read_batches(
                self.catalog,
                "pre_links",
                new_links,
                ["release_key", "title", "method", "linked_at"],
            )
            if new_links
            else None
        )
        if links is not None and links.num_rows:
            titles = links.column("title").to_pylist()
            distinct = sorted(set(titles))
            row_of = dict(zip(distinct, self.lookup.rows_of_titles(distinct), strict=True))
            keys = links.column("release_key").to_pylist()
            methods = links.column("method").to_pylist()
            times = links.column("linked_at").to_pylist()
            for key, title, method, at in zip(keys, titles, methods, times, strict=True):
                row = row_of.get(title)
                if row is None:
                    continue
                self.linked[key] = (method, int(at or 0))
                self.releases_of.setdefault(row, []).append(key)
                changed.add(row)
        for row in changed:  # the linked ones' pre read again
            if row not in self.releases_of:
                continue
            rec = self.lookup.pre(row)
            for key in self.releases_of[row]:
                method, at = self.linked[key]
                self.by_release[key] = _pre(rec, method, at)
        self.links_taken.add(new_links)
        self.events_taken.add(new_events)
        self.generation = generation
        self.signature = signature

    def pre(self, release_key: bytes) -> Pre | None:
        return self.by_release.get(release_key)

    def attrs(self, release_key: bytes) -> list[tuple[str, str]]:
        """Newznab attributes: `prematch`, `haspretime` with `pretime` (RFC 822, as
        `usenetdate`), `nuked` and `nukereason` for a nuked pre."""
        p = self.by_release.get(release_key)
        if p is None:
            return []
        out = [
            ("prematch", "1"),
            ("haspretime", "1"),
            ("pretime", _rfc822(p.pre_time)),
        ]
        if p.nuked:
            out += [("nuked", "1"), ("nukereason", p.nuke_reason)]
        return out


_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _rfc822(t: int) -> str:
    """`Sun, 06 Jun 2010 17:29:23 +0000`, as the feeds' `usenetdate` (no locale)."""
    g = time.gmtime(t)
    return (f"{_DAYS[g.tm_wday]}, {g.tm_mday:02d} {_MONTHS[g.tm_mon - 1]} {g.tm_year} "
            f"{g.tm_hour:02d}:{g.tm_min:02d}:{g.tm_sec:02d} +0000")  # fmt: skip


def _pre(rec: dict[str, Any], method: str = "", at: int = 0) -> Pre:
    return Pre(
        rec["title"], int(rec["pre_time"] or 0), rec["source"] or "", rec["category"] or "",
        rec["size"], rec["nuke"] or "", rec["nuke_reason"] or "", bool(rec["nuked"]), method,
        int(at or 0),
    )  # fmt: skip


def _signature(catalog: str) -> tuple[Any, ...]:
    return (
        tuple(batches(catalog, "links", newest=1)[-1:]),  # batches are only ever added
        tuple(batches(catalog, "events", newest=1)[-1:]),
        _generation(catalog),
    )


def _generation(catalog: str) -> str:
    gens = L.generations(catalog)
    return gens[-1] if gens else ""


_CURRENT: dict[str, tuple[float, Shown]] = {}
_LOCK = threading.Lock()


def current(catalog: str) -> Shown:
    """The catalog's shown PreDB facts, loaded again when its files changed."""
    now = time.monotonic()
    with _LOCK:
        held = _CURRENT.get(catalog)
        if held is not None and now - held[0] < REFRESH:
            return held[1]
        if held is not None:
            signature = _signature(catalog)
            if held[1].signature != signature:
                held[1].take(signature)  # what is new only
            _CURRENT[catalog] = (now, held[1])
            return held[1]
    shown = Shown.load(catalog)
    with _LOCK:
        _CURRENT[catalog] = (now, shown)
    return shown


def summary(catalog: str) -> dict[str, Any]:
    """The scan's counts per state and method (`_predb/summary.json`), for pages."""
    doc = get_json(catalog, "summary.json")
    return doc if isinstance(doc, dict) else {}


def recent(
    catalog: str, state: str | None = None, category: str | None = None, limit: int = 100
) -> list[dict[str, Any]]:
    """The newest pres learned, each with its state: waiting (pending, retrying,
    scanning) or the last outcome of its scans; filtered by state and section."""
    lookup = L.load(catalog)
    n = lookup.n
    rows = np.arange(max(0, n - RECENT), n, dtype=np.int64)[::-1]
    if not len(rows):
        return []
    keys = lookup.column("pre_key", rows).to_pylist()
    states: dict[bytes, str] = {}
    queue = Q.load(catalog)
    waiting = dict(zip(queue["row"].tolist(), queue["status"].tolist(), strict=True))
    for row, key in zip(rows.tolist(), keys, strict=True):
        if row in waiting:
            states[key] = STATUS_NAMES[int(waiting[row])]
    todo = {k for k in keys if k not in states}
    for name in reversed(batches(catalog, "outcomes", newest=OUTCOME_BATCHES)[-OUTCOME_BATCHES:]):
        if not todo:
            break
        t = read_batches(catalog, "pre_outcomes", [name], ["pre_key", "outcome"])
        pairs = zip(t.column("pre_key").to_pylist(), t.column("outcome").to_pylist(), strict=True)
        for key, outcome in reversed(list(pairs)):
            if key in todo:
                states[key] = outcome
                todo.discard(key)
    out = []
    for row, key in zip(rows.tolist(), keys, strict=True):
        rec = lookup.pre(row)
        rec["state"] = states.get(key, "new")
        if state and rec["state"] != state:
            continue
        if category and (rec["category"] or "").lower() != category.lower():
            continue
        out.append(rec)
        if len(out) >= limit:
            break
    return out
