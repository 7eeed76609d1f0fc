"""The tail: a group's newest range indexed while capture still fills it.

Sonarr and Radarr poll for new releases every few minutes; a range of 2 M articles takes
days to fill in a big group and months in a small one. So the part of the newest range
stored so far is indexed now, in article order, from the window the range before it
left; each later call indexes the chunks stored since, from the window the last call
left. Every call writes one tail part: `tail-<a>-<b>` partitions of every table
(`pipelines.catalog.tail`), whose releases still open are provisional (shown, marked as
still being posted) and are finished by a later part under the same release key (a
later part's `written_range`, its first article, outranks an earlier one's).

When the range is complete the scheduler indexes it whole, as any range, from the same
window the tail started from; that write removes the tail's partitions, log and windows,
so the finished range is the same bytes as a batch replay of it (`tests/test_tail.py`).

State: `_tail/<group>/<range>/log.json` (the range, the last article indexed, the rule
set and the range the window came from) and `window-<last article>.snapshot`. A part's
partitions and window are written before the log names them: a call stopped in between
is redone from the log's article, and what it had written past it is removed first, so
calls are idempotent across restarts. A changed rule set, or another window to start
from, starts the tail over.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from pipelines.catalog.layout import snapshot_path, tail_folder
from pipelines.catalog.tail import TailPart, drop_tail_partitions
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.corpus.reader import CorpusReader, RangeInfo
from pipelines.index.range_indexer import RangeResult, index_range
from pipelines.index.rules import Rules
from pipelines.index.schedule import start_window
from pipelines.index.snapshot import DamagedSnapshot, load_window_at, save_window_at

LOG = "log.json"


@dataclass
class TailLog:
    """Where a growing range's tail stands."""

    group: str
    first: int  # the range
    last: int
    cursor: int  # the last article indexed
    rules: str  # the rule set's fingerprint
    start: str  # the range whose window the tail started from ("": the group's first)
    parts: list[list[int]] = field(default_factory=list)  # [a, b] of each part written

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


@dataclass
class TailResult:
    group: str
    first: int = 0  # the growing range (0: none)
    last: int = 0
    part: TailPart | None = None  # what this call indexed (None: nothing)
    result: RangeResult | None = None
    cursor: int = 0  # the last article indexed of the range, after this call
    note: str = ""  # why nothing was indexed

    def text(self) -> str:
        if self.part is None or self.result is None:
            return f"tail {self.group}: {self.note}"
        r = self.result
        return (
            f"tail {self.group} {self.first}-{self.last}: articles {self.part.first}-"
            f"{self.part.last} indexed ({r.headers:,} headers; {r.releases_finished:,} "
            f"releases finished, {r.releases_provisional:,} still being posted)"
        )


def growing_range(reader: CorpusReader, group: str) -> tuple[RangeInfo, RangeInfo | None] | None:
    """The group's newest range when it is still being filled (a valid manifest that says
    incomplete), and the range before it (None: it is the group's first)."""
    ranges = reader.ranges(group)
    if not ranges:
        return None
    info = ranges[-1]
    if info.complete or info.manifest is None:
        return None
    return info, (ranges[-2] if len(ranges) > 1 else None)


def stored_through(info: RangeInfo, after: int) -> int:
    """The last article of the chunks stored past `after` that follow on without a gap
    (`after` when none does: the window cannot be carried across a hole)."""
    assert info.manifest is not None
    expect = last = after
    for chunk in info.manifest.chunks:
        if chunk.last <= after:
            continue
        if chunk.first != expect + 1:
            break
        last = expect = chunk.last
    return last


def read_log(catalog: str, group: str, first: int, last: int) -> TailLog | None:
    fs, root = open_fs(catalog)
    path = f"{tail_folder(root, group, first, last)}/{LOG}"
    if not fs.exists(path):
        return None
    try:
        return TailLog(**json.loads(fs.cat_file(path)))
    except (ValueError, TypeError):
        return None  # a damaged log: the tail starts over


def tail_lines(catalog: str, info: RangeInfo) -> int:
    """The lines stored of a growing range that its tail has not indexed yet."""
    log = read_log(catalog, info.ref.group, info.ref.first, info.ref.last)
    cursor = log.cursor if log is not None else info.ref.first - 1
    if info.manifest is None:
        return 0
    through = stored_through(info, cursor)
    return sum(c.lines for c in info.manifest.chunks if cursor < c.first and c.last <= through)


def _window_path(group: str, first: int, last: int, cursor: int) -> str:
    return f"{tail_folder('', group, first, last).lstrip('/')}/window-{cursor}.snapshot"


def index_tail(
    reader: CorpusReader,
    catalog: str,
    rules: Rules,
    priority: list[str],
    group: str,
    on_chunk: Callable[[int], None] | None = None,
) -> TailResult:
    """Index what was stored of the group's growing range since the last call.

    Raises `OutOfOrder` (from `start_window`) when the range before it is not indexed:
    the tail waits for the group's history.
    """
    found = growing_range(reader, group)
    if found is None:
        return TailResult(group, note="no growing range")
    info, before = found
    ref = info.ref
    out = TailResult(group, ref.first, ref.last)
    start = before.ref.name if before else ""
    log = read_log(catalog, group, ref.first, ref.last)
    if log is not None and (log.rules != rules.fingerprint or log.start != start):
        drop_tail_partitions(catalog, group, ref.first, ref.last)
        log = None
    window = None
    if log is not None:
        try:
            window = load_window_at(catalog, _window_path(group, ref.first, ref.last, log.cursor))
        except DamagedSnapshot:
            window = None
        if window is None:  # its window is gone or damaged: start over
            drop_tail_partitions(catalog, group, ref.first, ref.last)
            log = None
    cursor = log.cursor if log is not None else ref.first - 1
    out.cursor = cursor
    through = stored_through(info, cursor)
    if through == cursor:
        out.note = f"nothing new stored past article {cursor}"
        return out
    if log is None:
        window = start_window(catalog, ref, before.ref if before else None)
    part = TailPart(cursor + 1, through)
    # what a call stopped before its log was written left past the cursor
    drop_tail_partitions(catalog, group, part.first, ref.last, with_log=False)
    result, window = index_range(
        reader, info, catalog, rules, priority, window, on_chunk, tail=part
    )
    save_window_at(catalog, _window_path(group, ref.first, ref.last, through), window,
                   rules.fingerprint)  # fmt: skip
    parts = [*(log.parts if log else []), [part.first, part.last]]
    new_log = TailLog(group, ref.first, ref.last, through, rules.fingerprint, start, parts)
    fs, root = open_fs(catalog)
    folder = tail_folder(root, group, ref.first, ref.last)
    atomic_put(fs, f"{folder}/{LOG}", new_log.to_json().encode())
    # the window this call started from, and any a stopped call left, are not needed
    keep = f"window-{through}.snapshot"
    for path in fs.ls(folder, detail=False):
        name = str(path).rsplit("/", 1)[-1]
        if name.startswith("window-") and name != keep:
            fs.rm(path)
    out.part, out.result, out.cursor = part, result, through
    if fs.exists(snapshot_path(root, group, ref.first, ref.last)):
        # the range was completed and indexed whole while this part was written (another
        # run): its own partitions stand for it, this part must not
        drop_tail_partitions(catalog, group, ref.first, ref.last)
        out.note = "the range was indexed whole meanwhile: its tail removed"
    return out
