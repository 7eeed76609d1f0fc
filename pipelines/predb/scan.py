"""`predb scan`: one cycle of the seed's schedule over what is new in the catalog.

A cycle, in order (each step's cost follows its own work, never the catalog's size):

1. pres learned since the last cycle (event batches not enqueued yet) enter the queue
   with their plan (`schedule.plan_of`); nukes of waiting pres end them (`nuked`);
2. every `expiry_sweep_secs`, live pres past their month end `expired`; the reaper gives
   back scans stuck past `stuck_scan_after_secs`;
3. the catalog's new names (`names.read_groups`: partitions written since the last look)
   are matched against every pre at once: a release of the right size links its pre now
   (a waiting pre ends `complete`, a repost links to its pre whatever its state);
4. the pres due are claimed (written `scanning` first: a cycle killed here is reaped),
   looked up in the names index (every name the catalog held, by key) and moved on by
   `schedule.after_scan`;
5. written, in this order: the renamed versions, the links, the outcomes, the names
   batch, the queue, the stamps, the memo: a cycle stopped anywhere is redone from the
   last thing it wrote, and a link already made is never made twice.

One scan runs at a time (a lock file); a second one returns at once, `busy`.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.changes import Stamps
from pipelines.collector import fewer_collections
from pipelines.predb import keys as K
from pipelines.predb import lookup as L
from pipelines.predb import names as N
from pipelines.predb import queue as Q
from pipelines.predb import requests as R
from pipelines.predb import schedule as S
from pipelines.predb.lines import NUKED
from pipelines.predb.match import (
    Candidate,
    candidate_of_name_row,
    choose,
    new_release_candidates,
    size_ok,
)
from pipelines.predb.record import summarise, write_links, write_outcomes
from pipelines.predb.settings import DEFAULT, PredbSettings
from pipelines.predb.store import DoneBatches as Taken
from pipelines.predb.store import batches, get_json, predb_path, put_json, read_batches

MEMO = "scan.json"


@dataclass
class ScanSummary:
    entered: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    methods: Counter[str] = field(default_factory=Counter)
    scanned: int = 0
    new_releases: int = 0
    partitions: int = 0
    waiting: int = 0
    renamed: int = 0
    busy: bool = False
    no_pres: bool = False  # the catalog has no PreDB yet: nothing scanned, nothing written
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    # of them, the new releases' names read, keyed, matched and kept (the rest: the due
    # scans, the links and renamed versions written, the queue and memo)
    matcher_cpu_seconds: float = 0.0
    damaged: list[str] = field(default_factory=list)

    def text(self) -> str:
        if self.busy:
            return "predb scan: another scan is running; nothing done"
        if self.no_pres:
            return "predb scan: no pres in this catalog yet (`predb import` or `predb listen`)"
        ent = ", ".join(f"{k} {v:,}" for k, v in sorted(self.entered.items())) or "none"
        out = ", ".join(f"{k} {v:,}" for k, v in sorted(self.outcomes.items())) or "none"
        how = ", ".join(f"{k} {v:,}" for k, v in sorted(self.methods.items())) or "none"
        return (
            f"predb scan: {self.scanned:,} scans, {self.new_releases:,} new releases from "
            f"{self.partitions:,} partitions, {self.renamed:,} releases renamed; entered: {ent}; "
            f"outcomes: {out}; links by method: {how}; {self.waiting:,} pres waiting; "
            f"{self.seconds:.2f} s ({self.cpu_seconds:.2f} CPU-s, "
            f"{self.matcher_cpu_seconds:.2f} of them matching the new releases)"
        )


@contextmanager
def _lock(catalog: str) -> Iterator[bool]:
    path = predb_path(catalog, "scan.lock")
    os.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
    with open(path, "a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class Scanner:
    """What a scanning process keeps between cycles (the lookup, the names index, the
    links made): `live` and the Dagster sensor's process scan every minute."""

    def __init__(
        self,
        catalog: str,
        settings: PredbSettings = DEFAULT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.catalog = catalog
        self.s = settings
        self.clock = clock
        self.lookup: L.Lookup | None = None
        self.names: N.NamesIndex | None = None
        self.linked: dict[bytes, bytes] | None = None  # release key -> pre key
        N.keep_written()

    # --- the cycle ---------------------------------------------------------------------

    def cycle(self, progress: Callable[[str, int], None] | None = None) -> ScanSummary:
        start, cpu = time.monotonic(), time.process_time()
        out = ScanSummary()
        if self.lookup is None and not self._any_pres():
            out.no_pres = True  # nothing written: the names are read once pres come
            return out
        with _lock(self.catalog) as mine, fewer_collections():
            if not mine:
                out.busy = True
                return out
            self._cycle(out, progress or (lambda what, n: None))
        out.seconds = time.monotonic() - start
        out.cpu_seconds = time.process_time() - cpu
        return out

    def _any_pres(self) -> bool:
        return bool(batches(self.catalog, "events", newest=1)) or L.has_generation(self.catalog)

    def _load(self) -> tuple[L.Lookup, N.NamesIndex, dict[bytes, bytes]]:
        if self.lookup is None:
            self.lookup = L.load(self.catalog)
        else:
            L.catch_up(self.lookup)
        if self.names is None:
            self.names = N.NamesIndex(self.catalog)
        if self.linked is None:
            links = read_batches(self.catalog, "pre_links", columns=["pre_key", "release_key"])
            self.linked = dict(
                zip(
                    links.column("release_key").to_pylist(),
                    links.column("pre_key").to_pylist(),
                    strict=True,
                )
            )
        return self.lookup, self.names, self.linked

    def _cycle(self, out: ScanSummary, progress: Callable[[str, int], None]) -> None:
        now = int(self.clock())
        lookup, names, linked = self._load()
        memo = get_json(self.catalog, MEMO) or {}
        queue = Q.load(self.catalog)
        outcomes: list[tuple[int, int, str, int]] = []  # row, plan, outcome, attempt

        done_events = Taken(memo.get("events"))
        new_batches = [
            b for b in batches(self.catalog, "events", since=done_events.upto)
            if b not in done_events
        ]  # fmt: skip
        self._enter(queue, lookup, new_batches, now, out, outcomes)
        done_asks = Taken(memo.get("requests"))
        new_asks = [b for b in batches(self.catalog, R.FOLDER, ".jsonl") if b not in done_asks]
        self._requested(queue, lookup, linked, new_asks, now, out)
        progress("entered", sum(out.entered.values()))
        expiring = now >= int(memo.get("expiry_at", 0))
        if expiring:
            gone = S.expired(queue["plan"], queue["live"], queue["pre_time"], now, self.s)
            self._end(queue, gone, "expired", outcomes)
            memo["expiry_at"] = now + self.s.expiry_sweep_secs
        self._reap(queue, now, outcomes)

        stamps = Stamps(self.catalog, N.STAGE)
        fresh: list[Candidate] = []
        named = 0
        kept: list[pa.Table] = []  # the cycle's name rows, written as one batch
        matching = time.process_time()
        for new in N.read_groups(self.catalog, stamps):
            out.new_releases += new.releases
            out.partitions += new.partitions
            out.damaged += new.damaged
            fresh += [
                c for c in new_release_candidates(lookup, new)
                if size_ok(lookup.value(c.row, "size"), c.bytes, self.s)
            ]  # fmt: skip
            rows = N.name_rows(new)
            names.add(rows)
            kept.append(rows)
            named += rows.num_rows
        if named:  # one batch a cycle; a rerun after a crash adds the same rows again
            N.write_names(self.catalog, pa.concat_tables(kept).sort_by([("key", "ascending")]))
        out.matcher_cpu_seconds = time.process_time() - matching
        progress("new releases", out.new_releases)

        due = np.flatnonzero((queue["due"] <= now) & (queue["status"] != S.SCANNING))
        found = self._scan(queue, due, lookup, names, linked, now, out, outcomes, progress)
        links = choose([*fresh, *found], linked)
        linked_rows = {c.row for c in links} | {
            c.row for c in found if linked.get(c.release_key) == lookup.value(c.row, "pre_key")
        }
        waiting = np.flatnonzero(np.isin(queue["row"], np.array(sorted(linked_rows), np.int64)))
        self._end(queue, waiting, "complete", outcomes)
        self._unclaim(queue, now)

        out.waiting = len(queue)
        if not (outcomes or links or named or new_batches or new_asks or len(due) or expiring):
            stamps.save()
            return  # an idle cycle: nothing written but the stamps that moved
        self._write_links(links, lookup, now, out)
        self._write_outcomes(outcomes, lookup, now, out)
        if N.merge_batches(self.catalog):
            self.names = None  # merged on disk: mapped again next cycle
        Q.save(self.catalog, queue)
        stamps.save()
        done_events.add(new_batches)
        done_asks.add(new_asks)
        memo["events"], memo["requests"] = done_events.to_json(), done_asks.to_json()
        put_json(self.catalog, MEMO, memo)
        if lookup.folded >= L.REBUILD_AT:
            L.rebuild(lookup)
        self._summarise(queue, out)

    # --- steps -------------------------------------------------------------------------

    def _enter(self, queue: Q.Queue, lookup: L.Lookup, new_batches: list[str], now: int,
               out: ScanSummary, outcomes: list[tuple[int, int, str, int]]) -> None:  # fmt: skip
        """Pres learned since the last cycle join the queue; nukes end the ones waiting
        before (a pre learned nuked still has its first scan: its release, posted
        already, is named and shows the nuke; not found, it ends `nuked` then)."""
        if not new_batches:
            return
        ev = read_batches(
            self.catalog, "pre_events", new_batches, ["title", "kind", "pre_time", "live"]
        )
        pres = ev.filter(pc.equal(ev["kind"], "pre"))
        titles = pres.column("title").to_pylist()
        rows = lookup.rows_of_titles(titles)
        known = set(queue["row"].tolist())
        waiting_before = np.array(sorted(known), np.int64)
        adds: dict[str, list[int]] = {k: [] for k in ("row", "plan", "due", "pre_time", "live")}
        times, lives = pres.column("pre_time").to_pylist(), pres.column("live").to_pylist()
        for row, t, live in zip(rows, times, lives, strict=True):
            if row is None or row in known:
                continue
            known.add(row)
            plan = S.plan_of(int(t), bool(live), False, now, self.s)
            adds["row"].append(row)
            adds["plan"].append(plan)
            adds["due"].append(S.first_due(plan, int(t), now, self.s))
            adds["pre_time"].append(int(t))
            adds["live"].append(bool(live))
            out.entered[f"P{S.PRIORITY[plan]}"] += 1
        n = len(adds["row"])
        if n:
            queue.add({**{k: np.array(v) for k, v in adds.items()},
                       "status": np.zeros(n), "attempts": np.zeros(n), "mismatches": np.zeros(n),
                       "updated": np.full(n, now)})  # fmt: skip
        nukes = ev.filter(pc.not_equal(ev["kind"], "pre"))
        if nukes.num_rows:
            nuked_rows = {
                r for r in lookup.rows_of_titles(nukes.column("title").to_pylist()) if r is not None
            }
            nuked_rows = {r for r in nuked_rows if lookup.nuke_of(r).kind in NUKED}
            nuked = np.intersect1d(np.array(sorted(nuked_rows), np.int64), waiting_before)
            hit = np.flatnonzero(np.isin(queue["row"], nuked))
            self._end(queue, hit, "nuked", outcomes)

    def _requested(self, queue: Q.Queue, lookup: L.Lookup, linked: dict[bytes, bytes],
                   names: list[str], now: int, out: ScanSummary) -> None:  # fmt: skip
        """User requests: a known pre not complete enters at P2 (one waiting is due now)."""
        if not names:
            return
        titles = sorted({r["title"] for r in R.read_requests(self.catalog, names)})
        done = set(linked.values())
        for row in lookup.rows_of_titles(titles):
            if row is None:
                continue
            at = np.flatnonzero(queue["row"] == row)
            if len(at):
                if queue["status"][at[0]] != S.SCANNING:
                    queue["due"][at] = np.minimum(queue["due"][at], now)
                continue
            pre = lookup.pre(row)
            if pre["pre_key"] in done:
                continue  # complete: its release is in the catalog
            one = {"row": row, "plan": S.P2, "due": now, "pre_time": int(pre["pre_time"]),
                   "live": bool(pre["live"]), "status": S.PENDING, "attempts": 0, "mismatches": 0,
                   "updated": now}  # fmt: skip
            queue.add({k: np.array([v]) for k, v in one.items()})
            out.entered["P2"] += 1

    def _end(
        self,
        queue: Q.Queue,
        idx: np.ndarray,
        outcome: str,
        outcomes: list[tuple[int, int, str, int]],
    ) -> None:
        if not len(idx):
            return
        for i in idx.tolist():
            outcomes.append(
                (int(queue["row"][i]), int(queue["plan"][i]), outcome, int(queue["attempts"][i]))
            )
        queue.drop(idx)

    def _reap(self, queue: Q.Queue, now: int, outcomes: list[tuple[int, int, str, int]]) -> None:
        stuck = S.reap(queue["status"], queue["updated"], now, self.s)
        for i in stuck.tolist():
            queue["status"][i] = S.RETRYING
            queue["attempts"][i] = max(0, int(queue["attempts"][i]) - 1)  # the slot is not used up
            queue["updated"][i] = now
            outcomes.append(
                (int(queue["row"][i]), int(queue["plan"][i]), "reaped", int(queue["attempts"][i]))
            )

    def _scan(self, queue: Q.Queue, due: np.ndarray, lookup: L.Lookup, names: N.NamesIndex,
              linked: dict[bytes, bytes], now: int, out: ScanSummary,
              outcomes: list[tuple[int, int, str, int]],
              progress: Callable[[str, int], None]) -> list[Candidate]:  # fmt: skip
        """Claim the due pres, look each up in the names index, move each on."""
        if not len(due):
            return []
        queue["status"][due] = S.SCANNING
        queue["attempts"][due] += 1
        queue["updated"][due] = now
        Q.save(self.catalog, queue)  # claimed: a cycle killed from here on is reaped
        rows = queue["row"][due]
        titles = lookup.column("title", rows).to_pylist()
        asks = zip(lookup.column("request_group", rows).to_pylist(),
                   lookup.column("request_id", rows).to_pylist(), strict=True)  # fmt: skip
        matrix = K.pre_key_matrix(titles, asks)
        hits = names.find(matrix.reshape(-1))
        per: dict[int, list[Candidate]] = {}
        pre_keys = lookup.column("pre_key", rows).to_pylist()
        for qi, name in hits:
            i, variant = divmod(qi, K.N_KEYS)
            per.setdefault(i, []).append(candidate_of_name_row(int(rows[i]), variant, name))
        found: list[Candidate] = []
        ended: list[int] = []
        for i, qi in enumerate(due.tolist()):
            cands = [
                c for c in per.get(i, []) if linked.get(c.release_key, pre_keys[i]) == pre_keys[i]
            ]
            size = lookup.value(int(rows[i]), "size") if cands else None
            good = [c for c in cands if size_ok(size, c.bytes, self.s)]
            result = S.FOUND if good else S.MISMATCH if cands else S.NOTHING
            plan = int(queue["plan"][qi])
            outcome, attempts, mism, next_at = S.after_scan(
                plan, int(queue["attempts"][qi]), int(queue["mismatches"][qi]),
                int(queue["due"][qi]), result, now, self.s,
            )  # fmt: skip
            if outcome not in S.TERMINAL and lookup.nuke_of(int(rows[i])).kind in NUKED:
                outcome = "nuked"  # nothing found and nuked meanwhile: no more steps
            out.scanned += 1
            found += good
            if outcome in S.TERMINAL:
                if outcome != "complete":  # complete: ended with the links
                    outcomes.append((int(rows[i]), plan, outcome, attempts))
                    ended.append(qi)
                continue
            outcomes.append((int(rows[i]), plan, outcome, attempts))
            queue["attempts"][qi], queue["mismatches"][qi] = attempts, mism
            queue["due"][qi], queue["status"][qi] = next_at, S.RETRYING
            queue["updated"][qi] = now
        if ended:
            queue.drop(np.array(ended))
        progress("scanned", len(due))
        return found

    def _unclaim(self, queue: Q.Queue, now: int) -> None:
        """A due pre whose release went to a better-matching pre this cycle: scanned again
        later, its step not used up."""
        left = np.flatnonzero(queue["status"] == S.SCANNING)
        left = left[queue["updated"][left] == now]
        queue["status"][left] = S.RETRYING
        queue["attempts"][left] -= 1
        queue["due"][left] = now + self.s.size_short_retry_secs

    # --- writing -----------------------------------------------------------------------

    def _write_links(
        self, links: list[Candidate], lookup: L.Lookup, now: int, out: ScanSummary
    ) -> None:
        assert self.linked is not None
        out.renamed += write_links(self.catalog, links, lookup, self.linked, now)
        out.methods.update(c.method for c in links)

    def _write_outcomes(self, outcomes: list[tuple[int, int, str, int]], lookup: L.Lookup, now: int,
                        out: ScanSummary) -> None:  # fmt: skip
        write_outcomes(self.catalog, outcomes, lookup, now)
        out.outcomes.update(o[2] for o in outcomes)

    def _summarise(self, queue: Q.Queue, out: ScanSummary) -> None:
        summarise(self.catalog, queue, out.outcomes, out.methods, int(self.clock()))


def scan_catalog(
    catalog: str,
    settings: PredbSettings = DEFAULT,
    clock: Callable[[], float] = time.time,
    progress: Callable[[str, int], None] | None = None,
) -> ScanSummary:
    """One scan cycle (a fresh process: the lookup and the names index mapped anew)."""
    return Scanner(catalog, settings, clock).cycle(progress)
