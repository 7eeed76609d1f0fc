"""A merge run: each group's spans not merged yet, oldest first, in batches.

Consecutive spans due are merged together (`BATCH_SPANS`, `BATCH_BYTES` at most), the
window before them read once. A span waits for the article pass (its candidates probed,
none left waiting): the par2 sets and file heads come from there, and a span merged
without them would miss what they join. The run stops at a group's first span that waits
and goes on to the next group, so a group's spans are merged in order and each looks back
only at merged ones.

Resumable: a batch's files are written when its merges are made, its record last; a run
stopped anywhere redoes at most that batch (its unrecorded files removed first).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pipelines.catalog.changes import Stamps, table_folders
from pipelines.catalog.health import DamagedPartition
from pipelines.catalog.partitions import Partition
from pipelines.catalog.writer import parquet_bytes
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.merge import versions
from pipelines.merge.frame import ProbeFacts, header_spans, probe_facts, read_frame, read_full
from pipelines.merge.match import SIDECAR, Merge, set_merges, sidecar_merges
from pipelines.merge.store import (
    MERGES_TABLE,
    covered,
    drop_unrecorded,
    merge_paths,
    merges,
    records,
)
from pipelines.probe.spans import Span, due

Progress = Callable[[str, int], None]  # (what, how many more)

# spans merged together (their window before them read once): at most this many, and
# this many bytes of `releases` partitions (a range of a big group holds a few hundred
# releases, and its 48 h window hundreds of ranges: a run catching up merges many at once)
BATCH_SPANS = 256
# what a group's readiness rests on: the header pass's spans and candidates, the article
# pass's outputs, the merges' records (a quiet group's folders do not move)
WATCHED = ("releases", "pending_releases", "probe_candidates", "release_probes", MERGES_TABLE)
BATCH_BYTES = 32 << 20


@dataclass
class MergeSummary:
    groups: int = 0
    spans: int = 0  # merged in this run
    releases: int = 0  # new releases the spans brought
    wholes: int = 0  # merged versions written
    absorbed: dict[str, int] = field(default_factory=dict)  # releases absorbed, by via
    waiting: list[str] = field(default_factory=list)  # spans waiting for the article pass
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    cache_damaged: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)  # partitions that stopped a group

    def text(self) -> str:
        by_via = ", ".join(f"{n:,} by {via}" for via, n in sorted(self.absorbed.items()))
        lines = [
            f"merged {self.spans:,} spans of {self.groups:,} groups ({self.releases:,} new "
            f"releases): {self.wholes:,} merged releases, "
            f"{sum(self.absorbed.values()):,} releases absorbed"
            + (f" ({by_via})" if by_via else ""),
            f"{self.seconds:.1f} s, {self.cpu_seconds:.1f} CPU-s",
        ]
        lines += [f"waiting for the article pass: {w}" for w in self.waiting]
        lines += [f"damaged cache file skipped: {d}" for d in self.cache_damaged]
        lines += [f"damaged partition, its group's merge stopped: {d}" for d in self.damaged]
        return "\n".join(lines)


def groups_of(catalog: str) -> list[str]:
    fs, root = open_fs(catalog)
    try:
        found = fs.ls(f"{root.rstrip('/')}/releases", detail=False)
    except FileNotFoundError:
        return []
    return sorted(str(p).rstrip("/").rsplit("/", 1)[-1] for p in found)


def probed(catalog: str, group: str, span: Partition) -> bool:
    """The article pass is done with the span: no candidates, or none left waiting."""
    fs, _ = open_fs(catalog)
    candidates = span.path.replace("/releases/", "/probe_candidates/", 1)
    if not fs.exists(candidates):
        return True
    return not due(catalog, Span(group, span.first, span.last, candidates))


def ready_spans(
    catalog: str, group: str, spans: list[Partition] | None = None
) -> tuple[list[Partition], Partition | None]:
    """The group's spans a run merges now (not merged yet, probed, oldest first), and the
    first span that waits for the article pass (None: none waits)."""
    if spans is None:
        spans = header_spans(catalog, group)
    done = records(catalog, group)
    ready: list[Partition] = []
    for span in spans:
        if covered(done, span.first, span.last):
            continue
        if not probed(catalog, group, span):
            return ready, span
        ready.append(span)
    return ready, None


def merge_catalog(
    catalog: str,
    groups: Iterable[str] | None = None,
    progress: Progress | None = None,
    rules_version: str = "",
    now: int | None = None,
) -> MergeSummary:
    """Merge every group's ready spans. A group none of whose folders moved since a run
    found nothing ready there is skipped unread (`pipelines.catalog.changes`), and the
    probe cache's facts are read only when a group has spans to merge."""
    started, cpu_started = time.perf_counter(), time.process_time()
    summary = MergeSummary()
    memos = Stamps(catalog, "merge")
    _, root = open_fs(catalog)
    facts: ProbeFacts | None = None
    for group in groups if groups is not None else groups_of(catalog):
        summary.groups += 1
        seen = memos.check(group, table_folders(root, WATCHED, group))
        if seen.same:
            summary.waiting += seen.memo["waiting"]
            continue
        spans = header_spans(catalog, group)
        ready, waiting = ready_spans(catalog, group, spans)
        if not ready:
            if waiting is not None:
                summary.waiting.append(f"{group}|{waiting.first}-{waiting.last}")
            memos.record(seen, {"waiting": summary.waiting[-1:] if waiting else []})
            continue
        if facts is None:
            facts = probe_facts(catalog)
            summary.cache_damaged = list(facts.damaged)
        merge_group(catalog, group, facts, summary, progress, rules_version, now,
                    ready=(spans, ready, waiting))  # fmt: skip
        memos.forget(group)  # its merges moved its stamp: looked at again next run
    memos.save()
    summary.seconds = time.perf_counter() - started
    summary.cpu_seconds = time.process_time() - cpu_started
    return summary


def merge_group(
    catalog: str,
    group: str,
    facts: ProbeFacts,
    summary: MergeSummary,
    progress: Progress | None = None,
    rules_version: str = "",
    now: int | None = None,
    ready: tuple[list[Partition], list[Partition], Partition | None] | None = None,
) -> None:
    """Merge the group's ready spans (`ready`: its spans, those ready and the first that
    waits, when the caller has them already)."""
    if ready is None:
        spans = header_spans(catalog, group)
        ready_now, waiting = ready_spans(catalog, group, spans)
    else:
        spans, ready_now, waiting = ready
    if waiting is not None:
        summary.waiting.append(f"{group}|{waiting.first}-{waiting.last}")
    record = merges(catalog, group)
    absorbed = dict(
        zip(record["from_key"].to_pylist(), record["into_key"].to_pylist(), strict=True)
    )
    for batch in batches_of(ready_now):
        try:
            _merge_batch(catalog, group, batch, spans, facts, absorbed, summary,
                         progress, rules_version, now)  # fmt: skip
        except DamagedPartition as exc:
            # the group's later spans wait too: they are merged in order
            summary.damaged.append(f"{exc.path}: {exc.problem}")
            return


def batches_of(ready: list[Partition]) -> list[list[Partition]]:
    """Consecutive spans in batches of at most `BATCH_SPANS` spans and `BATCH_BYTES`."""
    out: list[list[Partition]] = []
    size = 0
    for span in ready:
        nbytes = span.size or 0
        if not out or len(out[-1]) >= BATCH_SPANS or size + nbytes > BATCH_BYTES:
            out.append([])
            size = 0
        out[-1].append(span)
        size += nbytes
    return out


def _merge_batch(
    catalog: str, group: str, batch: list[Partition], spans: list[Partition],
    facts: ProbeFacts, absorbed: dict[bytes, bytes], summary: MergeSummary,
    progress: Progress | None, rules_version: str, now: int | None,
) -> None:  # fmt: skip
    drop_unrecorded(catalog, group)
    before = summary.releases
    merge_spans(catalog, group, batch, spans, facts, absorbed, summary, rules_version, now)
    summary.spans += len(batch)
    if progress:
        progress("releases", summary.releases - before)


def merge_spans(
    catalog: str,
    group: str,
    batch: list[Partition],
    spans: list[Partition],
    facts: ProbeFacts,
    absorbed: dict[bytes, bytes],
    summary: MergeSummary,
    rules_version: str = "",
    now: int | None = None,
) -> Partition:
    """Merge consecutive spans' releases; returns their record's span."""
    frame = read_frame(catalog, group, batch, spans, facts, absorbed)
    last = batch[-1].last
    new = sum(1 for r in frame.releases.values() if r.new)
    summary.releases += new
    wholes = set_merges(frame, facts)
    by_into = {m.into: m for m in wholes}
    taken = {k: m.into for m in wholes for k in m.members}
    for side, into in sidecar_merges(frame, taken).items():
        by_into.setdefault(into, Merge(into)).members[side] = SIDECAR
    read_full(frame.releases[k] for m in by_into.values() for k in (m.into, *m.members))
    written = last + 1  # above every version of the spans up to these
    merged_at = int(time.time()) if now is None else now
    rows, recs, moves = [], [], {}
    for m in by_into.values():
        target = frame.releases[m.into]
        members = [frame.releases[k] for k in sorted(m.members)]
        set_facts = frame.sets.get(m.par2_set) if m.par2_set is not None else None
        row = versions.merged_row(frame, target, members, set_facts, written)
        if row is None:
            continue
        rows.append(row)
        summary.wholes += 1
        for rel in members:
            via = m.members[rel.key]
            rows.append(versions.tombstone(frame, rel, m.into, written, rules_version))
            recs.append(versions.record(frame, rel.key, m.into, via, m.par2_set, merged_at,
                                        written))  # fmt: skip
            moves[rel.key] = m.into
            absorbed[rel.key] = m.into
            summary.absorbed[via] = summary.absorbed.get(via, 0) + 1
    first = min([batch[0].first] + [int(r["first_article"] or last) for r in rows])
    paths = merge_paths(catalog, group, first, last)
    fs, _ = open_fs(catalog)
    releases, record_table = versions.tables(rows, recs)
    if rows:
        files = versions.absorbed_files(frame, moves, written)
        atomic_put(fs, paths["release_files"], parquet_bytes(files, "release_files"))
        atomic_put(fs, paths["releases"], parquet_bytes(releases, "releases"))
    atomic_put(fs, paths[MERGES_TABLE], parquet_bytes(record_table, MERGES_TABLE))
    return Partition(first, last, paths[MERGES_TABLE])
