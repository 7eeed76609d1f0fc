"""Importing NZBs: each read, made a release, checked against the catalog, and logged
with its outcome.

Outcomes: `inserted` (a new release), `linked` (its message-ids are a release's the
catalog holds already: nothing added, the link logged), `duplicate` (these very bytes,
or an NZB of the same articles, were imported before: nothing added; the same bytes
are not logged again, so a second run over the same files writes nothing), `empty` (an
NZB with no file holding a segment) and `malformed` (no NZB: its reason logged). A run
holds the catalog's import lock, undoes a batch a killed run left unlogged, and writes
its imports in batches (`store.write_batch`).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pipelines.corpus.fs import open_fs
from pipelines.nzbimport.document import MalformedNzb, read_nzb
from pipelines.nzbimport.overlap import Overlap
from pipelines.nzbimport.release import RULES_VERSION, ImportedRelease, build_release
from pipelines.nzbimport.store import ImportLog, import_lock, undo_unlogged, write_batch

OUTCOMES = ("inserted", "linked", "duplicate", "empty", "malformed", "withdrawn")
# an NZB left to import later (`Importer.add(insert=False)`): a spot waiting for its upload
BATCH_NZBS = 500
BATCH_SEGMENTS = 2_000_000
NZB_SUFFIXES = (".nzb", ".nzb.gz")


@dataclass
class ImportSummary:
    outcomes: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)  # malformed, by reason
    segments: int = 0  # segments of the NZBs read (inserted, linked or duplicate)
    bytes_read: int = 0
    bytes_written: int = 0
    undone: int = 0  # files of a killed run's unlogged batch removed
    partitions_read: int = 0  # release_files partitions read for overlaps
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    @property
    def nzbs(self) -> int:
        return sum(self.outcomes.values())

    def text(self) -> str:
        counts = ", ".join(f"{self.outcomes[o]:,} {o}" for o in OUTCOMES)
        reasons = ", ".join(f"{n} {r}" for r, n in sorted(self.reasons.items()))
        rate = self.nzbs / self.seconds if self.seconds else 0.0
        per_segment = self.cpu_seconds / self.segments * 1e6 if self.segments else 0.0
        lines = [
            f"import-nzb: {self.nzbs:,} NZBs ({counts}) in {self.seconds:.2f} s: "
            f"{rate:,.1f} NZBs/s; {self.segments:,} segments, CPU {self.cpu_seconds:.2f} s "
            f"({per_segment:.2f} us a segment); {self.bytes_read / 1e6:,.1f} MB read, "
            f"{self.bytes_written / 1e6:,.2f} MB written; "
            f"{self.partitions_read} partitions read for overlaps"
        ]
        if reasons:
            lines.append(f"  malformed: {reasons}")
        if self.undone:
            lines.append(f"  removed {self.undone} files of a stopped run's unlogged batch")
        return "\n".join(lines)


@dataclass
class Outcome:
    outcome: str
    release_key: bytes | None = None
    reason: str = ""


class Importer:
    """Imports NZBs into a catalog; use as a context manager (the lock, the last batch)."""

    def __init__(self, catalog: str, now: int | None = None) -> None:
        self.fs, self.root = open_fs(catalog)
        self.now = now
        self.summary = ImportSummary()
        self._lock = import_lock(self.fs, self.root)
        self._batch: list[ImportedRelease] = []
        self._rows: list[dict[str, Any]] = []
        self._batch_ids: dict[str, bytes] = {}
        self._batch_segments = 0
        self._sha1s: dict[bytes, bytes | None] = {}

    def __enter__(self) -> Importer:
        self._lock.__enter__()
        self.summary.undone = undo_unlogged(self.fs, self.root)
        self.log = ImportLog(self.fs, self.root)
        self.overlap = Overlap(self.fs, self.root)
        self.known_groups = frozenset(self._groups())
        self.next_number = self.log.next_number
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if exc[0] is None:
                self.flush()
        finally:
            self.summary.partitions_read = self.overlap.partitions_read
            self._lock.__exit__(None, None, None)

    def _groups(self) -> list[str]:
        folder = f"{self.root}/releases"
        if not self.fs.exists(folder):
            return []
        return [str(p).rsplit("/", 1)[-1] for p in self.fs.ls(folder, detail=False)]

    def add(
        self, origin: str, path: str, data: bytes, insert: bool = True, title: str | None = None
    ) -> Outcome:
        """Import one NZB's bytes (`origin`: file, spot, posted; `path`: where from;
        `title`: what the source calls it, the name when the NZB names none: a spot's).
        `insert=False`: link it if the catalog holds its articles, else leave it (outcome
        `waiting`, nothing logged: a later call imports it)."""
        s = self.summary
        s.bytes_read += len(data)
        sha1 = hashlib.sha1(data).digest()
        for seen in (self.log.sha1s, self._sha1s):
            if sha1 in seen:
                s.outcomes["duplicate"] += 1
                return Outcome("duplicate", seen[sha1])
        row: dict[str, Any] = {"imported_at": self._now(), "origin": origin, "path": path,
                               "nzb_sha1": sha1}  # fmt: skip
        out = self._decide(data, path, row, insert, title)
        if out.outcome == "waiting":
            s.outcomes["waiting"] += 1
            return out
        self._sha1s[sha1] = out.release_key
        row.update(outcome=out.outcome, reason=out.reason or None, release_key=out.release_key)
        s.outcomes[out.outcome] += 1
        if out.reason:
            s.reasons[out.reason] += 1
        self._rows.append(row)
        if len(self._rows) >= BATCH_NZBS or self._batch_segments > BATCH_SEGMENTS:
            self.flush()
        return out

    def _decide(
        self, data: bytes, path: str, row: dict[str, Any], insert: bool, title: str | None
    ) -> Outcome:
        try:
            doc = read_nzb(data)
        except MalformedNzb as e:
            return Outcome("malformed", reason=e.reason)
        row.update(bad_segments=doc.bad_segments, passwords=doc.passwords or None)
        rel = build_release(doc, path, self._now(), self.known_groups, title)
        if rel is None:
            return Outcome("empty")
        r = rel.release
        row.update(group=rel.group, name=r["name"], files=r["files"], segments=r["segments"])
        self.summary.segments += rel.segments
        if rel.key in self.log.keys or any(b.key == rel.key for b in self._batch):
            return Outcome("duplicate", rel.key)
        groups: list[str] = r["groups"]  # type: ignore[assignment]
        held = self._held(rel, groups, insert)
        if held:
            key, shared = held.most_common(1)[0]
            row["shared_segments"] = shared
            return Outcome("linked", key)
        if not insert:
            return Outcome("waiting")
        number = self.next_number
        self.next_number += 1
        r.update(first_article=number, last_article=number, written_range=number)
        row["article"] = number
        self._batch.append(rel)
        self._batch_segments += rel.segments
        self._batch_ids.update(dict.fromkeys(rel.message_ids, rel.key))
        return Outcome("inserted", rel.key)

    def _held(self, rel: ImportedRelease, groups: list[str], insert: bool) -> Counter[bytes]:
        """The releases holding the NZB's articles: first its posters' (cheap); before
        inserting, when those hold none, any release of its groups and days."""
        first, last = int(rel.release["posted_first"]), int(rel.release["posted_last"])  # type: ignore[call-overload]
        posters = {str(f["poster"]) for f in rel.files if f["poster"]}
        held = self.overlap.holders(rel.message_ids, groups, first, last, posters)
        if not held and insert and posters:
            held = self.overlap.holders(rel.message_ids, groups, first, last)
        held.update(self._batch_ids[i] for i in rel.message_ids if i in self._batch_ids)
        return held

    def withdraw(self, key: bytes, origin: str, path: str) -> bool:
        """Hide a release an import inserted (its spot was deleted): a tombstone version
        of it, outranking the inserted one. Whether there was one to hide."""
        pending = (r["release_key"] for r in self._rows if r.get("outcome") == "withdrawn")
        if key in self.log.withdrawn or key in set(pending):
            return False
        found = self.log.inserted.get(key)
        mine = next((b for b in self._batch if b.key == key and b.files), None)
        if found is None and mine is None:
            return False
        group, article = (mine.group, int(mine.release["first_article"])) if mine else found  # type: ignore[call-overload, misc]
        number = self.next_number
        self.next_number += 1
        tombstone = {"release_key": key, "group": group, "first_article": article,
                     "last_article": article, "finished": True, "written_range": number,
                     "rules_version": RULES_VERSION, "merged_into": key}  # fmt: skip
        self._batch.append(ImportedRelease(key, group, tombstone, [], []))
        self._rows.append({"imported_at": self._now(), "origin": origin, "path": path,
                           "outcome": "withdrawn", "release_key": key, "group": group,
                           "article": number})  # fmt: skip
        self.summary.outcomes["withdrawn"] += 1
        return True

    def flush(self) -> None:
        """Write the batch so far (its releases, then its log)."""
        if not self._rows:
            return
        first = min((int(r["article"]) for r in self._rows if r.get("article")), default=None)
        first = self.next_number if first is None else first
        last = max(first, self.next_number - 1)
        if self.next_number == first:  # no release: the log still takes a number
            self.next_number += 1
        self.summary.bytes_written += write_batch(
            self.fs, self.root, first, last, self._batch, self._rows
        )
        self.log.add(self._rows)
        for group in {r.group for r in self._batch}:
            self.overlap.forget(group)
        self._batch, self._rows, self._batch_ids = [], [], {}
        self._batch_segments = 0

    def _now(self) -> int:
        return self.now if self.now is not None else int(time.time())


def nzb_paths(paths: Iterable[str]) -> Iterator[str]:
    """The NZB files these paths name: files as given, folders walked (`.nzb`, `.nzb.gz`)."""
    for path in paths:
        if os.path.isdir(path):
            for top, dirs, names in os.walk(path):
                dirs.sort()
                for name in sorted(names):
                    if name.lower().endswith(NZB_SUFFIXES):
                        yield os.path.join(top, name)
        else:
            yield path


def import_paths(
    paths: Iterable[str],
    catalog: str,
    progress: Callable[[ImportSummary], None] | None = None,
    now: int | None = None,
) -> ImportSummary:
    """Import the NZB files of these paths into the catalog; the summary of the run."""
    started, cpu = time.monotonic(), time.process_time()
    with Importer(catalog, now) as importer:
        for path in nzb_paths(paths):
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError as e:
                importer.summary.outcomes["malformed"] += 1
                importer.summary.reasons[f"unreadable ({type(e).__name__})"] += 1
                continue
            importer.add("file", os.path.abspath(path), data)
            if progress is not None:
                progress(importer.summary)
    s = importer.summary
    s.seconds = time.monotonic() - started
    s.cpu_seconds = time.process_time() - cpu
    return s
