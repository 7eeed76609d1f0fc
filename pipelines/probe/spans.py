"""One span's probe work: its climbs, read from the header pass's partitions, and its
outputs (`pipelines.catalog.probe_outputs`).

A span is a `probe_candidates` partition (a range, a compact span or a tail part). It is
due when it has no `release_probes` file of its own yet, or its file still has waiting
releases (a fetch failed, or a `--limit` stopped short). A probe of a span keeps the
finished rows of the files within it (an earlier probe of the span, or of the ranges a
compact span covers) and climbs the rest.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from pipelines import naming
from pipelines.catalog.changes import RACY_WHOLE_SECONDS_NS, Stamps, table_folders
from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.kept import per_file
from pipelines.catalog.layout import partition_path
from pipelines.catalog.partitions import Partition, list_group, list_table
from pipelines.catalog.probe_outputs import PROBES_TABLE, output_paths, outputs_within
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import RELEASE_PROBES, RELEASES
from pipelines.catalog.writer import parquet_bytes
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.probe import learned
from pipelines.probe.ladder import WAITING, Climb, SignatureCounts, counts_from
from pipelines.subjects.file_names import classify

# the ladder's steps by candidate kind (step 2 falls back on the first file's first part)
STEP_OF_KIND = {
    "par2_index": 1, "archive_first": 2, "lone_random": 2, "media_first": 2, "sevenzip_last": 3,
    "nzb_file": 2,
}  # fmt: skip
# a catalog release reads these, in this order, in one step
CATALOG_KINDS = ("archive_first", "par2_index", "sevenzip_last", "media_first", "nzb_file")


@dataclass(frozen=True)
class Span:
    group: str
    first: int
    last: int
    candidates: str  # the probe_candidates partition's path

    @property
    def name(self) -> str:
        return f"{self.group}|{self.first}-{self.last}"


def spans(catalog: str, groups: Iterable[str] | None = None) -> list[Span]:
    """Every candidates partition, by group and span."""
    fs, root = open_fs(catalog)
    wanted = set(groups) if groups is not None else None
    out = []
    for p in list_table(fs, root, "probe_candidates", stat=False):
        group = p.path.rsplit("/", 2)[-2]
        if wanted is None or group in wanted:
            out.append(Span(group, p.first, p.last, p.path))
    return sorted(out, key=lambda s: (s.group, s.first, s.last))


def due_spans(catalog: str, groups: Iterable[str] | None = None) -> list[Span]:
    """The due spans of the chosen groups (`spans` filtered by `due`), reading only what
    moved: a group whose candidates and probes folders have not moved since the last call
    has the due spans it had then (`pipelines.catalog.changes`); one that moved has
    `due` asked again only of the spans due then and the spans whose files were written
    since (a span with no probes file at all is due without a read)."""
    fs, root = open_fs(catalog)
    memos = Stamps(catalog, "probe")
    if groups is None:
        try:
            groups = sorted(e.rsplit("/", 1)[-1] for e in fs.ls(f"{root}/probe_candidates",
                                                                detail=False))  # fmt: skip
        except FileNotFoundError:
            groups = []
    out: list[Span] = []
    for group in groups:
        taken = time.time_ns()
        folders = table_folders(root, ("probe_candidates", PROBES_TABLE), group)
        seen = memos.check(group, folders)
        if seen.same:
            out += [Span(group, a, b, partition_path(root, "probe_candidates", group, a, b))
                    for a, b in seen.memo["due"]]  # fmt: skip
            continue
        before = memos.last(group)
        since = int(before["t"]) - RACY_WHOLE_SECONDS_NS if before else None
        was_due = {tuple(x) for x in before["due"]} if before else set()
        probes = {(p.first, p.last): p for p in list_group(fs, root, PROBES_TABLE, group)}
        found = []
        for p in list_group(fs, root, "probe_candidates", group):
            span = Span(group, p.first, p.last, p.path)
            done = probes.get((p.first, p.last))
            if done is None:
                found.append(span)
                continue
            moved = since is None or (p.first, p.last) in was_due or any(
                _time(q) >= since for q in (p, done)
            )  # fmt: skip
            if moved and due(catalog, span):
                found.append(span)
        memos.record(seen, {"t": taken, "due": [[s.first, s.last] for s in found]})
        out += found
    memos.save()
    return sorted(out, key=lambda s: (s.group, s.first, s.last))


def _time(p: Partition) -> int:
    """A listed partition's modification time in ns (`list_group` gives it in text)."""
    try:
        return int(float(p.mtime) * 1e9)
    except ValueError:
        return 1 << 62  # unknown: taken as new


def due(catalog: str, span: Span) -> bool:
    fs, _ = open_fs(catalog)
    probes_path, _ = output_paths(catalog, span.group, span.first, span.last)
    try:
        outcomes = read_parquet(fs, probes_path, ["outcome"])["outcome"]
    except FileNotFoundError:
        return True
    except READ_ERRORS:
        return True  # a damaged output is made again
    return bool(pc.any(pc.equal(outcomes, WAITING)).as_py())


def sibling(path: str, table: str) -> str:
    """The same span's partition of another header-pass table."""
    head, group, name = path.rsplit("/", 2)
    return f"{head.rsplit('/', 1)[0]}/{table}/{group}/{name}"


def _read(fs: Any, path: str, columns: list[str] | None = None) -> pa.Table | None:
    try:
        return read_parquet(fs, path, columns)
    except FileNotFoundError:
        return None


@dataclass
class SpanWork:
    span: Span
    climbs: list[Climb]
    kept: list[dict[str, Any]]  # finished release_probes rows carried over
    kept_named: list[dict[str, Any]]  # and their named releases rows
    pending_rows: dict[bytes, dict[str, Any]]  # the span's pending releases, by key
    par2_keys: set[bytes]  # releases with a par2 index among their candidates


def span_work(catalog: str, span: Span) -> SpanWork:
    fs, _ = open_fs(catalog)
    kept, kept_named = carried_rows(catalog, span)
    done = {r["release_key"] for r in kept}
    candidates = read_parquet(fs, span.candidates).to_pylist()
    pending_table = _read(fs, sibling(span.candidates, "pending_releases"))
    pending_rows = {
        r["release_key"]: r for r in (pending_table.to_pylist() if pending_table else [])
    }
    by_key: dict[bytes, list[dict[str, Any]]] = {}
    for c in candidates:
        by_key.setdefault(c["release_key"], []).append(c)
    par2_keys = {k for k, cs in by_key.items() if any(c["kind"] == "par2_index" for c in cs)}
    climbs = []
    for key, cs in by_key.items():
        if key in done:
            continue
        row = pending_rows.get(key)
        if row is not None and not row.get("finished", True):
            continue  # a provisional pending release climbs once it is finished
        climbs.append(_climb(span, key, cs, row))
    # pending releases with no candidate at all still get a row (exhausted at once), and
    # those whose step 2 has no candidate take their first file's first part
    listed = set(by_key)
    for key, row in pending_rows.items():
        if key not in listed and key not in done and row.get("finished", True):
            climbs.append(_climb(span, key, [], row))
    _first_parts(fs, span, [c for c in climbs if c.pending and not _has_step(c, 2)])
    climbs.sort(key=lambda c: (not c.pending, c.key))  # random names first
    return SpanWork(span, climbs, kept, kept_named, pending_rows, par2_keys)


def _has_step(c: Climb, step: int) -> bool:
    return any(s == step for s, _ in c.steps)


def _climb(
    span: Span, key: bytes, cands: list[dict[str, Any]], row: dict[str, Any] | None
) -> Climb:
    written = int(min((c["written_range"] or 0 for c in cands), default=span.first))
    if row is None:
        order = {k: i for i, k in enumerate(CATALOG_KINDS)}
        mids = [c["message_id"] for c in sorted(cands, key=lambda c: order.get(c["kind"], 9))]
        steps = [(1, list(dict.fromkeys(mids)))] if mids else []
        return Climb(key, span.group, False, "", "", written, steps)
    steps_by: dict[int, list[str]] = {}
    for c in cands:
        step = STEP_OF_KIND.get(c["kind"])
        if step is not None:
            steps_by.setdefault(step, []).append(c["message_id"])
    steps = [(s, list(dict.fromkeys(steps_by[s]))) for s in sorted(steps_by)]
    return Climb(
        key, span.group, True, row.get("poster") or "", row.get("tool") or "",
        int(row.get("written_range") or written), steps,
    )  # fmt: skip


def span_files(fs: Any, span: Span, keys: set[bytes], columns: list[str]) -> list[dict[str, Any]]:
    """The span's `release_files` rows (these columns) of these releases."""
    files = _read(fs, sibling(span.candidates, "release_files"), columns)
    if files is None or not keys:
        return []
    wanted = pa.array(sorted(keys), pa.binary(20))
    return list(files.filter(pc.is_in(files["release_key"], wanted)).to_pylist())


def _first_parts(fs: Any, span: Span, climbs: list[Climb]) -> None:
    """Step 2 for pending releases with no archive or lone candidate: the first part of
    their first file that is no par2 file (by [i/N], then name)."""
    if not climbs:
        return
    want = {c.key: c for c in climbs}
    columns = ["release_key", "name", "file_index", "seg_numbers", "seg_ids"]
    rows = span_files(fs, span, set(want), columns)
    best: dict[bytes, tuple[tuple[int, str], str]] = {}
    for r in rows:
        if not r["seg_ids"] or r["seg_numbers"][0] != 1:
            continue
        if classify(r["name"].encode("utf-8", "surrogateescape"))[0] in learned.PACKAGING:
            continue
        order = (r["file_index"] if r["file_index"] is not None else 1 << 30, r["name"])
        if r["release_key"] not in best or order < best[r["release_key"]][0]:
            best[r["release_key"]] = (order, r["seg_ids"][0])
    for key, (_, mid) in best.items():
        c = want[key]
        c.steps.append((2, [mid]))
        c.steps.sort()


def carried_rows(catalog: str, span: Span) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Finished rows of the outputs within the span, and the named releases among them."""
    fs, _ = open_fs(catalog)
    kept: dict[bytes, dict[str, Any]] = {}
    named: dict[bytes, dict[str, Any]] = {}
    for p in sorted(outputs_within(catalog, span.group, span.first, span.last), key=_newest):
        table = _read(fs, p.path)
        if table is None:
            continue
        if p.probe:
            named.update({r["release_key"]: r for r in table.to_pylist()})
        else:
            for r in table.to_pylist():
                if r["outcome"] != WAITING:
                    kept[r["release_key"]] = r
    named = {k: v for k, v in named.items() if k in kept}
    return list(kept.values()), list(named.values())


def _newest(p: Partition) -> tuple[int, int]:
    return (p.last - p.first, p.first)  # wider spans (compacted later) last


def write_outputs(
    catalog: str, work: SpanWork, climbs: list[Climb], probed_at: int, rules_version: str
) -> tuple[int, int]:
    """Write the span's release_probes and named releases files (named first: a named
    release is never listed without its row), then remove the files within the span
    they replace; returns (rows, named)."""
    fs, _ = open_fs(catalog)
    span = work.span
    rows = list(work.kept) + [probe_row(c, probed_at) for c in climbs]
    named = list(work.kept_named) + [
        release_row(c, work.pending_rows[c.key], c.key in work.par2_keys, rules_version)
        for c in climbs
        if c.pending and c.outcome == "named" and c.named is not None
    ]
    probes_path, named_path = output_paths(catalog, span.group, span.first, span.last)
    replaced = [p.path for p in outputs_within(catalog, span.group, span.first, span.last)]
    rows.sort(key=lambda r: r["release_key"])
    named.sort(key=lambda r: (r["posted_first"], r["release_key"]))
    if named:
        table = pa.Table.from_pylist(named, schema=RELEASES)
        atomic_put(fs, named_path, parquet_bytes(table, "releases"))
    elif fs.exists(named_path):
        fs.rm(named_path)
    atomic_put(
        fs, probes_path,
        parquet_bytes(pa.Table.from_pylist(rows, schema=RELEASE_PROBES), PROBES_TABLE),
    )  # fmt: skip
    for path in replaced:
        if path not in (probes_path, named_path) and fs.exists(path):
            fs.rm(path)
    return len(rows), len(named)


def probe_row(c: Climb, probed_at: int) -> dict[str, Any]:
    return {
        "release_key": c.key,
        "group": c.group,
        "pending": c.pending,
        "poster": c.poster,
        "tool": c.tool,
        "outcome": c.outcome or WAITING,
        "name": c.named.name if c.named else None,
        "source": c.named.source if c.named else None,
        "step": c.step,
        "password": learned.password_of(c.read),
        "password_text": learned.password_text(c.read),
        "inner_names": learned.inner_names(c.read),
        "nfo_title": learned.nfo_title(c.read),
        "probes": c.probes,
        "fetched": c.fetched,
        "missing": c.missing,
        "failed": c.failed,
        "probed_at": probed_at,
        "written_range": c.written_range,
    }


def release_row(
    c: Climb, pending: dict[str, Any], has_par2: bool, rules_version: str
) -> dict[str, Any]:
    """A named pending release as a catalog version under its pending key."""
    assert c.named is not None
    inner = [
        (n, r.sizes[i] if i < len(r.sizes) else None) for r in c.read for i, n in enumerate(r.names)
    ]
    classes = [classify(n.encode("utf-8", "surrogateescape"))[0] for n, _ in inner]
    content = naming.content_of(
        classes,
        [int(s or 0) for _, s in inner],
        [n.encode("utf-8", "surrogateescape") for n, _ in inner],
    )
    groups = list(pending.get("groups") or [pending["group"]])
    return {
        "release_key": c.key,
        "identity_key": pending["identity_key"],
        "name": c.named.name,
        "poster": pending["poster"],
        "group": pending["group"],
        "groups": groups,
        "posted_first": pending["posted_first"],
        "posted_last": pending["posted_last"],
        "first_article": pending["first_article"],
        "last_article": pending["last_article"],
        "files": pending["files"],
        "file_total": pending["file_total"],
        "segments": pending["segments"],
        "bytes": pending["bytes"],
        "complete": pending["complete"],
        "readable": True,
        "has_par2": has_par2,
        "source": c.named.source,
        "category": naming.category_of(c.named.name, groups, content),
        "finished": True,
        "members": None,
        "written_range": pending["written_range"],
        "rules_version": pending.get("rules_version") or rules_version,
        "merged_into": None,
    }


def group_signature_counts(catalog: str, group: str, skip: Span | None = None) -> SignatureCounts:
    """The signature counts of the group's stored release_probes rows, but the span's:
    each file's counts, added up (a live loop's probe runs read a group's files once,
    then the new ones: `per_file`)."""
    fs, root = open_fs(catalog)
    out = SignatureCounts()
    for p in list_group(fs, root, PROBES_TABLE, group, stat=False):
        if skip is not None and skip.first <= p.first and p.last <= skip.last:
            continue
        counts = per_file(fs, p.path, "signature-counts", partial(_counts_of, fs, p.path))
        out.add(counts)
    return out


def _counts_of(fs: Any, path: str) -> SignatureCounts:
    table = _read(fs, path, ["group", "pending", "poster", "tool", "outcome"])
    return SignatureCounts() if table is None else counts_from(table.to_pylist())
