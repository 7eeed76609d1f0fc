"""A judge run: the releases whose facts changed since the last run, judged and stored.

Which releases a run judges (the others keep their verdicts):
- every live one, with `everything` (`--all`), on the first run, or when the rule set's
  version changed since the last run;
- else those held by the input files that are new or were rewritten since the last run
  (new ranges, probe, health and merge outputs: the listing and its modification times,
  against the place the last run kept), the releases that share a content file with them
  (a repeated family's count moved), those that crossed the settling line since the last
  run (time alone makes them unusable), and, when an input file was removed or rewritten,
  every release with a verdict of that file's group (what it rested on may be gone).

A release with a verdict that is no longer live (a merge or an album took it) has its
verdict taken back.

What a run reads grows with what changed, not with the catalog. Per group, its folders'
stamp (`pipelines.catalog.changes`) says whether anything of it moved; a group that did
not keeps its memo (live releases, standing verdicts, newest post, next post to settle)
unless the settling line has reached that post. Of a group that did, the run reads its
new checks and its merge records and only the partitions the changed files, the releases
a new check names, the releases settling (those time may make unusable) and those sharing
a content file reach (the group's index of its releases' spans, `where.py`); a group with
a file gone or rewritten, or no index yet, is read whole. The checks and verdicts of the
releases it judges come from each group's folds (`pipelines.catalog.kept`: the files
written since, once a process). A run with no group to read reads nothing but its memos.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.changes import Seen, Stamps
from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.kept import NewestRows
from pipelines.catalog.partitions import parse_name
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.judge import facts as catalog_facts
from pipelines.judge import rules
from pipelines.judge.store import (
    Place,
    copies_table,
    load_copies,
    load_place,
    save_copies,
    save_place,
    verdict_fold,
    verdict_folders,
    write_verdicts,
)
from pipelines.judge.where import (
    load_where,
    next_to_settle,
    save_changes,
    save_where,
    settling,
    spans_of,
)
from pipelines.judge.where import (
    rows_of as where_rows,
)
from pipelines.spots.sources import known_passwords

PROGRESS_EVERY = 10_000


@dataclass
class JudgeSummary:
    rules_version: str = rules.RULES_VERSION
    full: bool = False
    live: int = 0  # live releases in the catalog
    groups_read: int = 0  # groups whose inputs the run read (the others: their memos)
    judged: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)  # rows written this run, by rule
    taken_back: int = 0
    current: Counter[str] = field(default_factory=Counter)  # verdicts standing after the run
    files: int = 0  # partitions written
    judged_at: int = 0
    settled_line: int = 0
    damaged: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    def text(self) -> str:
        new = ", ".join(f"{r} {self.verdicts[r]:,}" for r in rules.ORDER if self.verdicts[r])
        now = ", ".join(f"{r} {self.current[r]:,}" for r in rules.ORDER if self.current[r])
        lines = [
            f"judge: {self.judged:,} of {self.live:,} releases judged"
            f"{' (all)' if self.full else ''} under rules {self.rules_version}; "
            f"{self.groups_read:,} groups read",
            f"  new verdicts: {new or 'none'}; taken back: {self.taken_back:,}",
            f"  standing: {now or 'none'}",
            f"  {self.seconds:.2f} s, {self.cpu_seconds:.2f} CPU s",
        ]
        lines += [f"  damaged, skipped: {d}" for d in self.damaged]
        return "\n".join(lines)


def judge_catalog(
    catalog: str,
    everything: bool = False,
    now: int | None = None,
    progress: Callable[[int], None] | None = None,
    whole: Iterable[str] = (),
) -> JudgeSummary:
    """Judge what changed (or, `everything`, every live release) and store the verdicts
    that differ from the current ones. `now`: the wall clock (epoch seconds); `whole`:
    groups read whole this run whether they moved or not (their indexes and memos made
    anew: a catalog judged before the indexes were kept, a few groups a run).

    Only the groups whose inputs moved since the last run are read (their folders'
    stamps, `pipelines.catalog.changes`), with those in which a release crossed the
    settling line since and those a touched release shares a content file with (the
    copies index); the others stand as their memos say. A run that finds no group to
    read reads nothing but its memos."""
    started, cpu = time.perf_counter(), time.process_time()
    wall = int(time.time()) if now is None else int(now)
    memos = Stamps(catalog, "judge")
    every_group = catalog_facts.catalog_groups(catalog)
    seen = {
        g: memos.check(g, catalog_facts.group_folders(catalog, g), extra=rules.RULES_VERSION)
        for g in every_group
    }
    place = load_place(catalog)
    passwords, named = _passwords_told(catalog, place)
    index = load_copies(catalog)
    full = (
        everything or not place.inputs or place.rules_version != rules.RULES_VERSION
        or index is None
    )  # fmt: skip
    read = set(every_group) if full else {g for g, m in seen.items() if not m.same}
    if not full and _results_shaken(catalog, place):
        read = set(every_group)  # what rested on a result gone may be in any group
    if not full:
        read |= set(named) & set(every_group)
    last_line = place.settled_line
    place_groups = {r: catalog_facts.group_of_path(r) for r in place.inputs}
    wheres: dict[str, pa.Table | None] = dict.fromkeys(g for g in whole if g in seen)
    read |= set(wheres)
    wanted: dict[str, list[tuple[int, int]]] = {}  # per group: spans found since a read
    while True:
        # the settling line: a day before now, or before the catalog's newest posting when
        # that is older (a catalog replayed from an old corpus); the groups not read give
        # theirs from their memos
        if not read:
            line = _line(wall, _newest(seen, read, None))
            read |= _settling(seen, read, line)
            if not read:
                return _idle(seen, line, place, started, cpu)
        scope = None if read == set(every_group) else sorted(read)
        inputs = catalog_facts.listing(catalog, scope)
        within = catalog_facts.relative(catalog, inputs)
        changed = {p for p, m in inputs.items() if place.inputs.get(within[p]) != m}
        path_of = {r: p for p, r in within.items()}
        # a file seen last run is gone or rewritten: every verdict of its group is judged
        shaken_in = {
            g for r, g in place_groups.items()
            if (g is None or g in read) and (r not in path_of or path_of[r] in changed)
        }  # fmt: skip
        shaken = bool(shaken_in)
        for g in read:
            if g not in wheres:
                wheres[g] = None if full or g in shaken_in else load_where(catalog, g)
                where = wheres[g]
                if g in named and where is not None:  # a release told its password
                    asked_keys = pa.array(named[g], pa.binary(20))
                    wanted.setdefault(g, []).extend(spans_of(where, asked_keys))
        # the line as the groups' memos and indexes and the changed files put it (a later
        # round reads what a line moved on further settles)
        newest = [_newest(seen, read, _newest_indexed(wheres)), _newest_in(catalog, changed)]
        chosen_line = _line(wall, max((n for n in newest if n is not None), default=None))
        settle = _settling(seen, read, chosen_line)
        if settle:
            read |= settle  # listed before anything is read
            continue
        chosen = _choose(
            catalog, inputs, within, changed, wheres, wanted, last_line, chosen_line
        )  # fmt: skip
        c = catalog_facts.load(
            catalog, {p: inputs[p] for p in chosen}, changed & chosen,
            every_group=scope is None and len(chosen) == len(inputs),
        )  # fmt: skip
        if index is not None and scope is not None:
            c.add_holders(index.filter(pc.invert(pc.is_in(index["group"], pa.array(scope)))))
        line = _line(wall, _newest(seen, read, c.newest_posting()))
        more = _settling(seen, read, line)
        families = c.families(c.touched)
        if index is not None and scope is not None:
            # releases of other groups sharing a content file with a touched one
            more |= _groups_of(index, families - set(c.live.having(families))) - read
        # the releases to judge whose spans reach partitions not read: read those too
        reach = _unread_reach(c, inputs, within, chosen, families, wheres,
                              (last_line, chosen_line, line))  # fmt: skip
        for g, spans in reach.items():
            wanted.setdefault(g, []).extend(spans)
        if not more and not reach:
            break
        read |= more

    if full:
        todo = set(c.live.keys)
    else:
        todo = c.live.having(c.touched) | c.families(c.touched)
        todo |= {k for keys in named.values() for k in keys}  # (only the live ones stay)
        since = last_line if last_line is not None else line
        if line > since:
            todo |= set(c.posted_within(since, line))
    # the standing verdicts: every one of the groups read when any may be gone, else
    # those of the releases judged and touched (each group's fold: its files read once a
    # process)
    verdict_groups = verdict_folders(catalog) if scope is None else scope
    folds = {g: verdict_fold(catalog, g) for g in dict.fromkeys([*verdict_groups, "_"])}
    asked = None if full or shaken else np.array(sorted(todo | c.touched), dtype="S20")
    newest = pa.concat_tables(
        [f.table() if asked is None else f.rows_of(asked) for f in folds.values()]
    )
    current = {
        k: (rule, version)
        for k, rule, version in zip(
            newest["release_key"].to_pylist(),
            newest["rule"].to_pylist(),
            newest["rules_version"].to_pylist(),
            strict=True,
        )
        if rule is not None
    }
    groups = dict(zip(newest["release_key"].to_pylist(), newest["group"].to_pylist(), strict=True))
    # what the groups read judge; a verdict of a group not read stands
    answerable = {k for k, g in groups.items() if full or (g or "_") in read}

    if shaken and not full:
        todo |= c.live.having(current)
    todo = c.live.having(todo)
    standing_live = c.live.having(current)
    # a verdict whose release is gone: of a group read whole, or a release a changed file
    # held (a group read in part keeps the others' as they stand)
    read_whole = {g for g in read if wheres.get(g) is None}
    gone = {
        k for k in current
        if k in answerable and k not in standing_live
        and (full or ((groups.get(k) or "_") in read_whole and shaken) or k in c.touched)
    }  # fmt: skip

    judged_at = max(wall, place.judged_at + 1)
    names = catalog_facts.file_names(catalog, c, todo, every=full)
    s = JudgeSummary(full=full, judged_at=judged_at, settled_line=line, groups_read=len(read))
    # a release nothing but its counters is known of matches no rule: only its standing
    # verdict, if any, is taken back
    ordered = sorted(todo)
    told = [
        k
        for k, plain in zip(ordered, c.plain_many(ordered), strict=True)
        if k in names or not plain
    ]
    c.make(told)
    rows = []
    for key in sorted(k for k in todo.difference(told) if k in current):
        rows.append(_row(key, c.group_of(key), None, "no rule matches", judged_at))
        s.taken_back += 1
    if progress is not None and len(todo) > len(told):
        progress(len(todo) - len(told))
    for i, key in enumerate(told):
        found = rules.judge(c.facts(key, names.get(key, [])), line)
        old = current.get(key)
        if found is None:
            if old is not None:
                rows.append(_row(key, c.group_of(key), None, "no rule matches", judged_at))
                s.taken_back += 1
        elif old != (found[0], rules.RULES_VERSION):
            rows.append(_row(key, c.group_of(key), found[0], found[1], judged_at))
            s.verdicts[found[0]] += 1
        if progress is not None and (i + 1) % PROGRESS_EVERY == 0:
            progress(PROGRESS_EVERY)
    if progress is not None and len(told) % PROGRESS_EVERY:
        progress(len(told) % PROGRESS_EVERY)
    for key in sorted(gone):
        rows.append(_row(key, groups.get(key) or "", None, "no longer in the catalog", judged_at))
        s.taken_back += 1
    s.judged = len(todo)
    s.files = write_verdicts(catalog, judged_at, rows)
    unread = {r for r, owner in place_groups.items() if owner is not None and owner not in read}
    kept = {r: m for r, m in place.inputs.items() if r in unread}
    kept.update({within[p]: m for p, m in inputs.items()})
    _save_copies(catalog, index if scope is not None else None, read, c)
    moved = {g for g in read if not seen[g].same} | {g for g in read if wheres.get(g) is None}
    wheres = _save_wheres(catalog, c, read, wheres, moved)
    save_place(
        catalog,
        Place(rules.RULES_VERSION, judged_at if rows else place.judged_at, line, kept, passwords),
    )
    # the standing verdicts of the groups read, with this run's rows (the folds read the
    # files just written)
    written = [str(r["group"] or "_") for r in rows]
    standing = {
        g: _standing(verdict_fold(catalog, g)) for g in dict.fromkeys([*folds, *read, *written])
    }
    s.damaged = c.damaged
    memo = _group_memos(standing, wheres, line)
    for g, counts in standing.items():
        if full or g in read:
            s.current.update(counts)
    for g, m in seen.items():
        if g in read:
            s.live += int(memo.get(g, _EMPTY)["live"])
            if not c.damaged:
                memos.record(m, memo.get(g, _EMPTY))
        elif m.same:
            s.live += int(m.memo["live"])
            s.current.update({str(k): int(v) for k, v in m.memo["current"].items()})
    memos.save()
    s.seconds = time.perf_counter() - started
    s.cpu_seconds = time.process_time() - cpu
    return s


_EMPTY: dict[str, Any] = {"live": 0, "current": {}, "newest": None, "settles": None}


def _passwords_told(catalog: str, place: Place) -> tuple[dict[str, str], dict[str, list[bytes]]]:
    """The passwords spots and imported NZBs name now (release key -> a digest), and, per
    group, the releases told one since the last run that have a standing verdict: only a
    verdict can a password take back (`locked`), so only those are judged again."""
    told = {
        key.hex(): hashlib.sha1(pw.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        for key, pw in known_passwords(catalog).items()
    }
    new = [bytes.fromhex(k) for k, d in told.items() if place.passwords.get(k) != d]
    named: dict[str, list[bytes]] = {}
    if new and place.inputs:  # (a first run judges everything)
        asked = np.array(sorted(new), dtype="S20")
        for g in verdict_folders(catalog):
            rows = verdict_fold(catalog, g).rows_of(asked)
            keys = rows.filter(pc.is_valid(rows["rule"]))["release_key"].to_pylist()
            if keys:
                named[g] = keys
    return told, named


def _results_shaken(catalog: str, place: Place) -> bool:
    """Whether a probe cache batch the last run read is gone or rewritten."""
    found = catalog_facts.listing(catalog, [])
    within = catalog_facts.relative(catalog, found)
    times = {within[p]: m for p, m in found.items()}
    return any(
        catalog_facts.group_of_path(r) is None and times.get(r) != m
        for r, m in place.inputs.items()
    )


def _save_copies(
    catalog: str, index: pa.Table | None, read: set[str], c: catalog_facts.CatalogFacts
) -> None:
    """The copies index with the rows of the groups read as this run found them; not
    written when those are as they were (`index`: the index the run loaded, None when the
    run read every group)."""
    mine = copies_table(c.holder_rows())
    if index is None:
        save_copies(catalog, mine)
        return
    in_read = pc.is_in(index["group"], pa.array(sorted(read), pa.string()))
    before = index.filter(in_read)
    order = [(n, "ascending") for n in before.column_names]  # copies_table's order
    if before.num_rows == mine.num_rows and before.sort_by(order).equals(mine):
        return
    save_copies(catalog, pa.concat_tables([index.filter(pc.invert(in_read)), mine]))


def _line(wall: int, newest: int | None) -> int:
    return min(wall, newest if newest is not None else wall) - rules.DAY


def _newest(seen: dict[str, Seen], read: set[str], loaded: int | None) -> int | None:
    """The catalog's newest posting: the groups read give theirs, the others their memos'."""
    found = [loaded] if loaded is not None else []
    for g, m in seen.items():
        if g not in read and m.same and m.memo.get("newest") is not None:
            found.append(int(m.memo["newest"]))
    return max(found) if found else None


def _settling(seen: dict[str, Seen], read: set[str], line: int) -> set[str]:
    """The groups not read in which a release has crossed the settling line since, or
    with no memo to say."""
    out = set()
    for g, m in seen.items():
        if g in read:
            continue
        if not m.same or (m.memo.get("settles") is not None and line >= int(m.memo["settles"])):
            out.add(g)
    return out


def _groups_of(index: pa.Table, keys: set[bytes]) -> set[str]:
    if not keys:
        return set()
    hit = index.filter(pc.is_in(index["release_key"], pa.array(list(keys), pa.binary(20))))
    return {str(g) for g in hit["group"].to_pylist()}


def _standing(fold: NewestRows) -> Counter[str]:
    """A verdict folder's standing verdicts per rule."""
    rules_col = fold.table()["rule"]
    counts = pc.value_counts(rules_col.filter(pc.is_valid(rules_col))).to_pylist()
    return Counter({str(c["values"]): int(c["counts"]) for c in counts})


def _group_memos(
    standing: dict[str, Counter[str]], wheres: dict[str, pa.Table], line: int
) -> dict[str, dict[str, Any]]:
    """Per group read: what a later run that does not read it says of it (its live
    releases and standing verdicts, its newest post, the next post to settle), from its
    index of releases."""
    out: dict[str, dict[str, Any]] = {}
    for g, where in wheres.items():
        top = pc.max(pc.fill_null(where["posted_last"], 0)).as_py() if where.num_rows else None
        out[g] = {
            "live": where.num_rows, "current": {},
            "newest": None if top is None else int(top),
            "settles": next_to_settle(where, line),
        }  # fmt: skip
    for g, counts in standing.items():
        if counts:
            out.setdefault(g, dict(_EMPTY))["current"] = dict(counts)
    return out


def _choose(
    catalog: str,
    inputs: dict[str, str],
    within: dict[str, str],
    changed: set[str],
    wheres: dict[str, pa.Table | None],
    wanted: dict[str, list[tuple[int, int]]],
    last_line: int | None,
    line: int,
) -> set[str]:
    """The input files a run reads: the probe cache's; every file of a group read whole
    (no index of it, or a file of it gone or rewritten); of the others, their changed
    files (new checks among them), and the partitions (merge records too) whose spans
    meet a changed file's, or those of the releases a changed check names, that cross the
    settling line since, or that were found to reach further (`wanted`)."""
    fs, _ = open_fs(catalog)
    by_group: dict[str | None, list[str]] = {}
    for p in inputs:
        by_group.setdefault(catalog_facts.group_of_path(within[p]), []).append(p)
    chosen = set(by_group.get(None, []))
    for g, paths in by_group.items():
        if g is None:
            continue
        where = wheres.get(g)
        if where is None:
            chosen.update(paths)
            continue
        spans = list(wanted.get(g, []))
        keys: list[bytes] = []
        for p in paths:
            table = within[p].split("/", 1)[0]
            if p in changed and table == "release_health":
                keys += catalog_facts.keys_in(fs, p)
            elif p in changed:
                name = parse_name(p.rsplit("/", 1)[-1])
                if name is None:  # a changed file with no span: the group is read whole
                    chosen.update(paths)
                    break
                spans.append((name.first, name.last))
        else:
            if last_line is not None and line > last_line:
                keys += settling(where, last_line, line).to_pylist()
            if keys:
                spans += spans_of(where, pa.array(keys, pa.binary(20)))
            chosen.update(p for p in paths if _meets(within[p], spans) or p in changed)
    return chosen


def _meets(relative_path: str, spans: list[tuple[int, int]]) -> bool:
    """Whether a group's file is read for these spans: a partition (merge records too)
    when its span meets one; checks are by sweep, not by span: the changed ones are read
    for the releases they touch, and the rest come from the group's fold
    (`pipelines.health.store.health_fold`)."""
    if relative_path.startswith("release_health/"):
        return False
    name = parse_name(relative_path.rsplit("/", 1)[-1])
    if name is None:
        return True
    return any(a <= name.last and name.first <= b for a, b in spans)


def _unread_reach(
    c: catalog_facts.CatalogFacts,
    inputs: dict[str, str],
    within: dict[str, str],
    chosen: set[str],
    families: set[bytes],
    wheres: dict[str, pa.Table | None],
    lines: tuple[int | None, int, int],
) -> dict[str, list[tuple[int, int]]]:
    """Per group, the spans of the releases to judge that meet a partition not read: a
    release a changed file holds, written in part in a range before it; one sharing a
    content file with a touched one; one that the line, moved on by the new posts,
    settles. `lines`: the last run's line, the one the files were chosen by, the line."""
    if len(chosen) == len(inputs):
        return {}
    last_line, chosen_line, line = lines
    unread: dict[str, list[tuple[int, int]]] = {}
    for p in inputs:
        if within[p].startswith("release_health/"):
            continue  # checks come from the group's fold, whatever their files' names
        g = catalog_facts.group_of_path(within[p])
        name = parse_name(p.rsplit("/", 1)[-1])
        if p not in chosen and g is not None and name is not None:
            unread.setdefault(g, []).append((name.first, name.last))
    keys = set(c.touched) | set(c.live.having(families))
    if last_line is not None and line > last_line:
        keys |= set(c.posted_within(last_line, line))
    spans: dict[str, list[tuple[int, int]]] = {}
    # a touched release's other versions, a tombstone's too (an album's member, whose
    # family's count moved)
    for g, (firsts, lasts) in c.spans_of(keys, gone=True).items():
        spans[g] = list(zip(firsts.tolist(), np.maximum(firsts, lasts).tolist(), strict=True))
    for g, where in wheres.items():
        if where is None or g not in unread:
            continue
        more = pa.array(list(families), pa.binary(20))
        if line > chosen_line:
            more = pa.concat_arrays([more, settling(where, max(last_line or 0, chosen_line),
                                                    line)])  # fmt: skip
        spans.setdefault(g, []).extend(spans_of(where, more))
    out: dict[str, list[tuple[int, int]]] = {}
    for g, found in spans.items():
        parts = np.array(unread.get(g, []), dtype=np.int64).reshape(-1, 2)
        if not found or not len(parts):
            continue
        spans_at = np.array(found, dtype=np.int64)
        # a span meets an unread partition when, of the partitions starting at or before
        # its end, the furthest reaching one reaches its start
        parts = parts[np.argsort(parts[:, 0], kind="stable")]
        reach_to = np.maximum.accumulate(parts[:, 1])
        at = np.searchsorted(parts[:, 0], spans_at[:, 1], side="right") - 1
        meets = (at >= 0) & (reach_to[np.maximum(at, 0)] >= spans_at[:, 0])
        hit = spans_at[meets]
        if len(hit):
            out[g] = [(int(f), int(last)) for f, last in hit]
    return out


def _newest_in(catalog: str, changed: set[str]) -> int | None:
    """The newest last post the changed releases files hold (new ranges, tails)."""
    fs, _ = open_fs(catalog)
    found = []
    for p in changed:
        if "/releases/" in p or "/pending_releases/" in p:
            try:
                top = pc.max(read_parquet(fs, p, ["posted_last"])["posted_last"]).as_py()
            except (FileNotFoundError, *READ_ERRORS, KeyError):  # type: ignore[misc]
                continue  # told by the load
            if top is not None:
                found.append(int(top))
    return max(found) if found else None


def _newest_indexed(wheres: dict[str, pa.Table | None]) -> int | None:
    """The newest post the groups' indexes hold."""
    tops = [pc.max(w["posted_last"]).as_py() for w in wheres.values() if w is not None]
    found = [int(t) for t in tops if t is not None]
    return max(found) if found else None


def _save_wheres(
    catalog: str,
    c: catalog_facts.CatalogFacts,
    read: set[str],
    wheres: dict[str, Any],
    moved: set[str],
) -> dict[str, pa.Table]:
    """Each group read's index of releases, as this run leaves it (written anew for a
    group read whole; the rows of the releases read replaced for the others; kept as it
    was for a group read only for the releases settling, where nothing moved)."""
    gone = pa.array(list(c.gone), pa.binary(20))
    out: dict[str, pa.Table] = {}
    for g in sorted(read):
        if g not in moved and wheres.get(g) is not None:
            out[g] = wheres[g]
            continue
        rows = where_rows(c.live.table, g)
        old = wheres.get(g)
        if old is None:
            save_where(catalog, g, rows)
            out[g] = rows
            continue
        read = pa.concat_arrays([rows["release_key"].combine_chunks().cast(pa.binary(20)), gone])
        out[g] = save_changes(catalog, g, old, read, rows)
    return out


def _idle(
    seen: dict[str, Seen], line: int, place: Place, started: float, cpu: float
) -> JudgeSummary:
    """The summary of a run with no group to read: the memos' counts."""
    s = JudgeSummary(judged_at=place.judged_at, settled_line=line)
    for m in seen.values():
        s.live += int(m.memo["live"])
        s.current.update({str(k): int(v) for k, v in m.memo["current"].items()})
    s.seconds = time.perf_counter() - started
    s.cpu_seconds = time.process_time() - cpu
    return s


def _row(key: bytes, group: str, rule: str | None, detail: str, at: int) -> dict[str, object]:
    return {
        "release_key": key,
        "group": group,
        "rule": rule,
        "detail": detail,
        "rules_version": rules.RULES_VERSION,
        "judged_at": at,
    }


def verdict_counts(catalog: str) -> dict[str, int]:
    """Standing verdicts per rule (the status page's and the asset's counts)."""
    from pipelines.judge.store import current_verdicts

    counts = Counter(current_verdicts(catalog)["rule"].to_pylist())
    return {r: counts.get(r, 0) for r in rules.ORDER}
