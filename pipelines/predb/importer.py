"""`predb import`: pres from files into the store, idempotently.

Lines are read a chunk at a time; each chunk becomes one event batch holding only what
the store does not know yet: a `pre` event for a title never seen (its source and the
time it was first seen kept), a nuke event where the line's nuke state differs from
the pre's current one (a nuke, an unnuke, a renuke with a new reason: the history is the
events), and an `upd` event where the line fills in what the pre lacks: its size, file
count, section or first file's name (an IRC `UPD:` line, or a later dump that knows more;
what the pre holds already is never overwritten). A line that says nothing of nukes (a
dump's `0`) changes nothing: a source that did not hear of a nuke does not take it back.
A second import of the same files finds every title known and every state the same, and
writes nothing. The lookup is rebuilt once at the end (a stopped import leaves its
batches, which every reader folds in, and the next import or scan writes the generation).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from pipelines.catalog.schema import PRE_EVENTS
from pipelines.predb import lookup as L
from pipelines.predb.lines import Bad, PreLine, read_file
from pipelines.predb.store import write_batch

CHUNK = 1 << 20  # lines per event batch


@dataclass
class ImportSummary:
    files: int = 0
    lines: int = 0
    pres: int = 0  # new pres
    nuke_events: int = 0
    updates: int = 0  # pres a later line filled in (size, files, section, file name)
    known: int = 0  # lines that added nothing
    bad: Bad = field(default_factory=Bad)
    seconds: float = 0.0

    def text(self) -> str:
        bad = ", ".join(f"{k} {v:,}" for k, v in sorted(self.bad.counts.items())) or "none"
        return (
            f"predb import: {self.files} files, {self.lines:,} good lines in "
            f"{self.seconds:.1f} s: {self.pres:,} new pres, {self.nuke_events:,} nuke events, "
            f"{self.updates:,} filled in, {self.known:,} lines known already; bad lines: {bad}"
        )


def files_of(paths: Iterable[str]) -> list[Path]:
    """Files named, and the files of folders named (sorted: daily dumps by their time)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(
                f for f in p.iterdir() if f.is_file() and not f.name.startswith(("0README", "."))
            )
        else:
            out.append(p)
    return out


def pre_key(title: str) -> bytes:
    return hashlib.sha1(title.encode("utf-8", "surrogateescape")).digest()


def events_for(
    lines: list[PreLine], lookup: L.Lookup, seen_at: int, live: bool = False
) -> tuple[pa.Table, int]:
    """The events these lines add to what the lookup knows, and how many lines they came
    from (a title's first line for its pre, its last nuke line for its nuke state; the
    other lines, repeats within the chunk among them, added nothing)."""
    latest: dict[str, PreLine] = {}
    first: dict[str, PreLine] = {}
    fills: dict[str, dict[str, Any]] = {}  # what the title's later lines tell of it
    for line in lines:
        was = first.setdefault(line.title, line)
        if line.nuke:
            latest[line.title] = line
        if was is not line:
            got = L.fillable(line.__dict__)
            if got:
                fills[line.title] = {**got, **fills.get(line.title, {})}
    titles = list(first)
    rows = lookup.rows_of_titles(titles)
    telling = [  # known titles whose lines tell something a pre may lack
        r for t, r in zip(titles, rows, strict=True)
        if r is not None and (t in fills or L.fillable(first[t].__dict__))
    ]  # fmt: skip
    held = lookup.fill_state(telling)  # row -> the fillable fields it holds
    out: list[dict[str, Any]] = []
    used: set[int] = set()  # the lines the events came from, by identity
    for title, row in zip(titles, rows, strict=True):
        line = first[title]
        if row is None:
            event = _event(line, "pre", seen_at, live)
            event.update({k: v for k, v in fills.get(title, {}).items() if not event.get(k)})
            out.append(event)
            used.add(id(line))
            state = ("", "")
        else:
            nk = lookup.nuke_of(row)
            state = (nk.kind, nk.reason)
            news = {**fills.get(title, {}), **L.fillable(line.__dict__)}
            news = {k: v for k, v in news.items() if k not in held.get(row, news)}
            if news:  # fills in what the pre lacks, never what it holds
                out.append({**_event(line, "upd", seen_at, live), **L.EMPTY_FILL, **news})
                used.add(id(line))
        nuke = latest.get(title)
        if nuke is not None and (nuke.nuke, nuke.reason) != state:
            out.append(_event(nuke, nuke.nuke, seen_at, live))
            used.add(id(nuke))
    return pa.Table.from_pylist(out, schema=PRE_EVENTS), len(used)


def _event(line: PreLine, kind: str, seen_at: int, live: bool) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "pre_key": pre_key(line.title),
        "title": line.title,
        "kind": kind,
        "reason": line.reason if kind != "pre" else "",
        "source": line.source,
        "seen_at": seen_at,
        "pre_time": line.pre_time,
        "live": live,
    }
    if kind in ("pre", "upd"):
        rec.update(
            category=line.category, size=line.size, files=line.files, filename=line.filename,
            request_id=line.request_id, request_group=line.request_group,
        )  # fmt: skip
    return rec


def add_lines(
    catalog: str,
    lines: list[PreLine],
    lookup: L.Lookup,
    summary: ImportSummary,
    live: bool = False,
    now: Callable[[], float] = time.time,
) -> pa.Table:
    """Write the events of one chunk of lines (nothing when they add nothing) and fold
    them into the lookup; the events."""
    events, used = events_for(lines, lookup, int(now()), live)
    summary.lines += len(lines)
    if events.num_rows:
        name = write_batch(catalog, "pre_events", events)
        lookup.absorb(events, name, checked=True)
    kinds = events.column("kind").to_pylist()
    new = sum(1 for k in kinds if k == "pre")
    updates = sum(1 for k in kinds if k == "upd")
    summary.pres += new
    summary.updates += updates
    summary.nuke_events += events.num_rows - new - updates
    summary.known += len(lines) - used
    return events


def _chunks(files: list[Path], bad: Bad) -> Iterator[list[PreLine]]:
    chunk: list[PreLine] = []
    for f in files:
        for line in read_file(f, bad):
            chunk.append(line)
            if len(chunk) >= CHUNK:
                yield chunk
                chunk = []
    if chunk:
        yield chunk


def import_files(
    catalog: str,
    paths: Iterable[str],
    progress: Callable[[ImportSummary], None] | None = None,
    now: Callable[[], float] = time.time,
    live: bool = False,
) -> ImportSummary:
    start = time.monotonic()
    files = files_of(paths)
    summary = ImportSummary(files=len(files))
    lookup = L.load(catalog)
    for chunk in _chunks(files, summary.bad):
        add_lines(catalog, chunk, lookup, summary, live=live, now=now)
        if progress is not None:
            progress(summary)
    if lookup.folded:
        L.rebuild(lookup)
    summary.seconds = time.monotonic() - start
    return summary
