"""Which ranges of a group are due, the window each starts from, and what a run indexed.

The one range scheduler: `replay`, the Dagster sensor, a Dagster run and the main job
all ask it, so they agree about what is done. It reads only the catalog, so two readers
of one catalog get one answer.

A range is *due*, for the first of these reasons that applies:

- it is not indexed: it has no range log row or no window snapshot;
- its range log cannot be read back;
- it was indexed under another rule set and a rule that changed fired in it or may fire
  there now (`stale_reason`, which reads what fired from its `rule_counts`). The rule
  sets ranges ran with are recorded in the catalog (`record_rules`); a range indexed under
  one that is not recorded is redone when its fingerprint is not the current one;
- the range before it was indexed again, after it, under other rules: the window it
  started from changed (so a redo of range k walks on through k+1, k+2, ...). Indexed
  again under the same rules, a range leaves the same window, and the next one stays.

A range starts from the window its predecessor left (`start_window`). A snapshot that
cannot be read back is removed when found: its range is then not indexed, so it is due
again (before the range that needed it) for every reader of the catalog.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from pipelines.catalog.kept import per_file
from pipelines.catalog.layout import partition_path, snapshot_path
from pipelines.catalog.partitions import list_group
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.reader import CorpusReader, RangeInfo
from pipelines.index.range_indexer import RangeResult
from pipelines.index.rules import Rules, fingerprint_of
from pipelines.index.snapshot import DamagedSnapshot, has_snapshot, load_window
from pipelines.index.window import Window
from pipelines.rules.current import catalog_rules
from pipelines.rules.fires import fires_in
from pipelines.rules.stale import WouldFire, filters_stale

# Beside the window snapshots: the indexer's own state, not a catalog table.
RULES_FOLDER = "_rules"

# --- the rule sets ranges ran with -------------------------------------------------


def rules_path(root: str, fingerprint: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]", "_", fingerprint)
    return f"{root.rstrip('/')}/{RULES_FOLDER}/{name}.json"


def record_rules(catalog: str, rules: Rules) -> None:
    """Keep the rule set in the catalog (once per fingerprint), before a range runs with it,
    so that a later rule set can be compared with it."""
    fs, root = open_fs(catalog)
    path = rules_path(root, rules.fingerprint)
    if not fs.exists(path):
        atomic_put(fs, path, json.dumps(rules.to_json(), sort_keys=True, indent=1).encode())


def recorded_rules(catalog: str, fingerprint: str) -> dict[str, Any] | None:
    """The rule set recorded under this fingerprint, or None (never recorded, unreadable,
    or not the rule set the fingerprint names)."""
    fs, root = open_fs(catalog)
    path = rules_path(root, fingerprint)
    try:
        doc = json.loads(fs.cat_file(path))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or fingerprint_of(doc) != fingerprint:
        return None
    return doc


def stale_reason(
    old: dict[str, Any] | None,
    new: dict[str, Any],
    group: str,
    fired: set[str],
    would_fire: WouldFire = lambda rule: None,
) -> str | None:
    """Why a range of `group` indexed under rules `old` must be redone under `new`.

    `fired` is the set of rules that dropped lines in the range (and the operator's rules
    that matched there); `would_fire` says whether an operator rule matches there (None:
    not known, `pipelines.rules.fires`). None: still good.
    """
    if old is None:
        return "indexed under a rule set the catalog does not record"
    changed = {k for k in set(old) | set(new) if old.get(k) != new.get(k)} - {"version"}
    if not changed:
        return "the rule set's version moved"
    for setting in sorted(changed):
        if setting == "filters":  # the operator's rules: where they matched or may match
            why = filters_stale(old.get("filters", []), new.get("filters", []), group, fired,
                                would_fire)  # fmt: skip
            if why is not None:
                return why
        elif setting == "garbage":
            added = [g for g in new.get("garbage", []) if g not in old.get("garbage", [])]
            removed = [g for g in old.get("garbage", []) if g not in new.get("garbage", [])]
            if any(g.get("group", "") in ("", group) for g in added):
                return "a garbage signature that may match here was added"
            if removed and "garbage_signature" in fired:
                return "a garbage signature that fired here was removed"
        elif setting == "sample_every":
            if fired:
                return "the sampling of drops changed where rules fired"
        else:
            # timings, priorities, album and batch limits, boilerplate shape every release
            return f"rule setting {setting} changed"
    return None


# --- what the catalog says about each range ----------------------------------------


@dataclass(frozen=True)
class RangeState:
    """A range as the catalog has it: its range log row (empty: none) and its snapshot."""

    ref: RangeRef
    log: dict[str, Any] = field(default_factory=dict)
    problem: str = ""  # why the range log cannot be read back
    snapshot: bool = False

    @property
    def rules_version(self) -> str:
        return str(self.log.get("rules_version", ""))

    @property
    def indexed_at(self) -> int:
        return int(self.log.get("indexed_at", 0))


def range_state(catalog: str, ref: RangeRef) -> RangeState:
    fs, root = open_fs(catalog)
    snapshot = has_snapshot(catalog, ref.group, ref.first, ref.last)
    path = partition_path(root, "ranges", ref.group, ref.first, ref.last)
    try:
        # a live loop's header pass looks at a moved group's every range: a log is read
        # again only when it was written again
        rows = per_file(fs, path, "range-log", lambda: read_parquet(fs, path).to_pylist())
    except FileNotFoundError:
        return RangeState(ref, snapshot=snapshot)
    except (OSError, pa.ArrowException) as exc:
        return RangeState(ref, problem=f"{type(exc).__name__}: {exc}", snapshot=snapshot)
    if len(rows) != 1:
        return RangeState(ref, problem=f"{len(rows)} rows, not one", snapshot=snapshot)
    return RangeState(ref, dict(rows[0]), snapshot=snapshot)


def range_logged(state: RangeState) -> RangeResult:
    """The figures of an indexed range, as its range log holds them (no drops, no bytes)."""
    log, ref = state.log, state.ref
    return RangeResult(
        ref.group,
        ref.first,
        ref.last,
        state.rules_version,
        headers=int(log.get("headers", 0)),
        bad_lines=int(log.get("bad_lines", 0)),
        segments_kept=int(log.get("segments_kept", 0)),
        releases_finished=int(log.get("releases_finished", 0)),
        releases_provisional=int(log.get("releases_provisional", 0)),
        files=int(log.get("files", 0)),
        pending=int(log.get("pending", 0)),
        seconds=float(log.get("seconds", 0.0)),
    )


@dataclass(frozen=True)
class Due:
    """A range to index and why. `indexed_at` is when it was last indexed, `after` when the
    range before it was (0: never, or the group's first range): together with the rule
    set's fingerprint they name the catalog state that made the range due."""

    ref: RangeRef
    why: str
    indexed_at: int = 0
    after: int = 0


class GroupSchedule:
    """One group's ranges (`refs`, any order) against the current rule set."""

    def __init__(self, catalog: str, refs: Iterable[RangeRef], rules: Rules) -> None:
        rules = catalog_rules(catalog, rules)  # with the operator's rules the catalog holds
        self.catalog = catalog
        self.refs = sorted(refs, key=lambda r: r.first)
        self.version = rules.fingerprint
        self.rules = rules.to_json()
        self.states = {ref: range_state(catalog, ref) for ref in self.refs}
        self._rule_sets: dict[str, dict[str, Any] | None] = {}
        self._fired: dict[int, set[str]] | None = None
        self._unreadable_counts: list[tuple[int, int]] = []

    def next_due(self) -> Due | None:
        """The group's first range that is due, or None when every range is done."""
        for i in range(len(self.refs)):
            due = self._due(i)
            if due is not None:
                return due
        return None

    def due(self) -> list[Due]:
        """Every range due as the catalog stands now (a redo can make later ones due)."""
        return [d for i in range(len(self.refs)) if (d := self._due(i)) is not None]

    def indexed(self, ref: RangeRef) -> None:
        """Read the range's state again (it was just indexed, or its snapshot removed)."""
        self.states[ref] = range_state(self.catalog, ref)

    def _due(self, i: int) -> Due | None:
        ref = self.refs[i]
        state = self.states[ref]
        before = self.states[self.refs[i - 1]] if i else None
        after = before.indexed_at if before is not None else 0
        why = self._why(state, before)
        return None if why is None else Due(ref, why, state.indexed_at, after)

    def _why(self, state: RangeState, before: RangeState | None) -> str | None:
        if state.problem:
            return f"its range log cannot be read back ({state.problem})"
        if not state.log or not state.snapshot:
            return "not indexed"
        version = state.rules_version
        if version != self.version:
            fired = self._fired_in(state.ref)
            if fired is None:
                return f"its rule counts cannot be read back ({version} -> {self.version})"
            old = self._rule_set(version)
            ref = state.ref

            def would_fire(rule: dict[str, Any]) -> bool | None:
                return fires_in(self.catalog, rule, ref.group, ref.first)

            why = stale_reason(old, self.rules, ref.group, fired, would_fire)
            if why is not None:
                return f"{why} ({version} -> {self.version})"
        if before is not None and before.log and before.rules_version != version:
            # indexed_at counts seconds: on a tie, a range not under the current rules is
            # the older of the two (the other was indexed again under newer ones)
            later = before.indexed_at > state.indexed_at or (
                before.indexed_at == state.indexed_at and version != self.version
            )
            if later:
                return "the range before it was indexed again after it, under other rules"
        return None

    def _rule_set(self, fingerprint: str) -> dict[str, Any] | None:
        if fingerprint not in self._rule_sets:
            self._rule_sets[fingerprint] = recorded_rules(self.catalog, fingerprint)
        return self._rule_sets[fingerprint]

    def _fired_in(self, ref: RangeRef) -> set[str] | None:
        """The rules that dropped lines in the range (None: its rule counts are unreadable)."""
        if self._fired is None:
            self._read_rule_counts(ref.group)
        assert self._fired is not None
        if any(first <= ref.first <= last for first, last in self._unreadable_counts):
            return None
        return self._fired.get(ref.first, set())

    def _read_rule_counts(self, group: str) -> None:
        fs, root = open_fs(self.catalog)
        self._fired = {}
        # what the rules dropped, and every operator rule that matched (`rule_hits`)
        for table, count in (("rule_counts", "count"), ("rule_hits", "headers")):
            for f in list_group(fs, root, table, group):
                try:
                    rows = read_parquet(fs, f.path, ["range_first", "rule", count]).to_pylist()
                except (OSError, pa.ArrowException):
                    self._unreadable_counts.append((f.first, f.last))
                    continue
                for row in rows:
                    if row[count]:
                        fired = self._fired.setdefault(int(row["range_first"]), set())
                        fired.add(str(row["rule"]))


# --- the window a range starts from ---------------------------------------------------


class NotInCorpus(Exception):
    """A range the corpus does not hold (complete)."""


class OutOfOrder(Exception):
    """A range asked for before the range before it is indexed, or when that range's
    window can no longer be read back (`lost` says why; its snapshot is removed, so that
    range is due again)."""

    def __init__(self, ref: RangeRef, before: RangeRef, lost: str = "") -> None:
        super().__init__(ref, before, lost)
        self.ref, self.before, self.lost = ref, before, lost

    def __str__(self) -> str:
        what = f"cannot index {self.ref.group} {self.ref.name}"
        if self.lost:
            return f"{what}: {self.lost}; index {self.before.name} again first"
        return f"{what}: the range before it, {self.before.name}, is not indexed yet"


def previous_range(reader: CorpusReader, ref: RangeRef) -> tuple[RangeInfo, RangeInfo | None]:
    """The range's corpus info and the group's range before it (None: the first)."""
    infos = reader.ranges(ref.group)
    for i, info in enumerate(infos):
        if info.ref == ref:
            if not info.complete:
                raise NotInCorpus(f"{ref.group} {ref.name} is not complete: {info.problem}")
            return info, (infos[i - 1] if i else None)
    raise NotInCorpus(f"the corpus has no range {ref.group} {ref.name}")


def start_window(catalog: str, ref: RangeRef, before: RangeRef | None) -> Window | None:
    """The window `ref` starts from: the one `before` left (None for the group's first range).

    Raises OutOfOrder when `before` is not indexed, or when its snapshot cannot be read
    back; that snapshot is removed, which makes `before` due again.
    """
    if before is None:
        return None
    try:
        window = load_window(catalog, before.group, before.first, before.last)
    except DamagedSnapshot as exc:
        fs, root = open_fs(catalog)
        path = snapshot_path(root, before.group, before.first, before.last)
        if fs.exists(path):
            fs.rm(path)
        raise OutOfOrder(ref, before, str(exc)) from exc
    if window is None:
        raise OutOfOrder(ref, before)
    return window


# --- what a run indexed ---------------------------------------------------------------


@dataclass
class RangeTotals:
    """Ranges' figures summed: what replay, a Dagster run and the main job report."""

    ranges: int = 0
    headers: int = 0
    bad_lines: int = 0
    segments: int = 0
    releases_finished: int = 0
    releases_provisional: int = 0
    files: int = 0
    pending: int = 0
    seconds: float = 0.0  # inside the header pass
    drops: dict[str, int] = field(default_factory=dict)
    bytes_written: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, results: Iterable[RangeResult]) -> RangeTotals:
        totals = cls()
        for r in results:
            totals.add(r)
        return totals

    def add(self, r: RangeResult) -> None:
        self.ranges += 1
        self.headers += r.headers
        self.bad_lines += r.bad_lines
        self.segments += r.segments_kept
        self.releases_finished += r.releases_finished
        self.releases_provisional += r.releases_provisional
        self.files += r.files
        self.pending += r.pending
        self.seconds += r.seconds
        for rule, n in r.drops.items():
            self.drops[rule] = self.drops.get(rule, 0) + n
        for table, n in r.bytes_written.items():
            self.bytes_written[table] = self.bytes_written.get(table, 0) + n

    @property
    def headers_per_second(self) -> float:
        return self.headers / self.seconds if self.seconds else 0.0
