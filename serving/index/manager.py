"""Keeps the index in step with the catalog: new partitions become a new segment.

A refresh lists `releases` partitions. Partitions that only appeared (a range landed)
are built into one new segment, in a worker process, in seconds; its versions are
resolved against the older segments and a new snapshot is swapped in. A partition
that changed or vanished (a redone range, a compaction) rebuilds only the segments
that read it; too many small delta segments are merged into one. The old snapshot
keeps serving meanwhile.

Builds cut partitions into batches of about `batch_rows` release rows, one segment
each, so a build's memory is bounded by a batch, not by the catalog. Segments record
the partitions (path, size, mtime) they were built from: a server restarted on the
same `index_dir` reuses every segment whose partitions are unchanged.

A damaged partition (`pipelines.catalog.health`) is left out: the quick check drops
files cut short before a build reads them, and a build that fails on a partition anyway
names it (`DamagedPartition`), which is then left out and the refresh tried again.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import logging
import multiprocessing
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

from pipelines.catalog.health import DamagedPartition, PartitionHealth, reading
from pipelines.catalog.partitions import list_table
from pipelines.corpus.fs import open_fs
from serving.index.build import build_segment
from serving.index.searcher import RESULT_CACHE, LiveSegment, Snapshot, resolve_versions
from serving.index.segment import Segment

log = logging.getLogger(__name__)
DAMAGE_FILE = "damaged.json"  # in index_dir: the builder's findings, for its workers


@dataclass(frozen=True)
class RefreshReport:
    kind: str  # none | delta | full
    partitions: int
    seconds: float


def list_partitions(url: str) -> list[dict]:
    """Every whole `releases` partition (temp names skipped): path, size, mtime."""
    fs, root = open_fs(url)
    return [
        {"path": p.path, "size": p.size, "mtime": p.mtime} for p in list_table(fs, root, "releases")
    ]


class IndexManager:
    def __init__(
        self,
        catalog: str,
        index_dir: str | None = None,
        in_process: bool = False,
        max_deltas: int = 8,
        batch_rows: int = 2_000_000,
        follow: bool = False,
        result_cache: int = RESULT_CACHE,
        health: PartitionHealth | None = None,
    ) -> None:
        self.catalog = catalog
        self.health = health or PartitionHealth()
        self._fs = open_fs(catalog)[0]
        self._own_dir = index_dir is None
        self.index_dir = Path(index_dir or tempfile.mkdtemp(prefix="usenet-indexer-index-"))
        self.index_dir.mkdir(parents=True, exist_ok=True)
        self.in_process = in_process
        self.max_deltas = max_deltas
        self.batch_rows = batch_rows
        # follow: another process (the `serve --workers` parent) builds into index_dir;
        # this one only loads what it finds there.
        self.follow = follow
        self.result_cache = result_cache
        self.snapshot = Snapshot([], cache_size=result_cache)
        self._sources: dict[str, dict] = {}
        self._lock = threading.Lock()  # one refresh at a time
        self._pool: cf.ProcessPoolExecutor | None = None
        self._damage_written: list[dict] = []
        self._damage_read: int | None = None
        self.last_refresh: RefreshReport | None = None

    def _build(self, paths: list[dict]) -> Segment:
        # Names sort in build order, across restarts too.
        out = str(self.index_dir / f"seg-{time.time_ns()}")
        if self.in_process:
            build_segment(self.catalog, paths, out)
        else:
            # A fresh worker per build: its memory (the whole partition set, tokenised) is
            # returned to the system when it exits, not kept beside the server.
            # spawn, not fork: forking a process that runs server threads is unsafe.
            ctx = multiprocessing.get_context("spawn")
            with cf.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
                self._pool = pool
                pool.submit(build_segment, self.catalog, paths, out).result()
            self._pool = None
        return Segment(out)

    def _listed(self) -> dict[str, dict]:
        """The readable `releases` partitions by path: damaged ones are left out."""
        found = list_partitions(self.catalog)
        self.health.forget_missing("releases", {p["path"] for p in found})
        return {
            p["path"]: p
            for p in found
            if self.health.problem(self._fs, "releases", p["path"], p["size"], p["mtime"]) is None
        }

    def refresh(self) -> RefreshReport:
        """Bring the index up to date with the catalog; safe to call at any time."""
        if self.follow:
            self._read_damage()
            return self._follow()
        while True:
            listed = self._listed()
            try:
                report = self._refresh(listed)
                self._write_damage()
                return report
            except DamagedPartition as exc:
                # Left out from now on: each pass leaves out one more file, so this ends.
                p = listed[exc.path]
                self.health.mark("releases", exc.path, p["size"], p["mtime"], exc.problem)

    def _write_damage(self) -> None:
        """What this builder found damaged, for the workers that follow it (a build that
        failed on a partition's pages is something their quick checks cannot see)."""
        found = self.health.to_json()
        if found == self._damage_written:
            return
        tmp = self.index_dir / f".{DAMAGE_FILE}.{os.getpid()}"
        tmp.write_text(json.dumps(found))
        os.replace(tmp, self.index_dir / DAMAGE_FILE)
        self._damage_written = found

    def _read_damage(self) -> None:
        path = self.index_dir / DAMAGE_FILE
        try:
            stamp = path.stat().st_mtime_ns
            if stamp != self._damage_read:
                self.health.load_json(json.loads(path.read_text()))
                self._damage_read = stamp
        except (OSError, ValueError):
            pass  # none written yet (or being replaced): the next refresh reads it

    def _refresh(self, listed: dict[str, dict]) -> RefreshReport:
        with self._lock:
            start = time.perf_counter()
            if self._sources == listed:
                return RefreshReport("none", 0, time.perf_counter() - start)
            old = self.snapshot
            added = [p for path, p in listed.items() if path not in self._sources]
            changed = any(listed.get(path) != p for path, p in self._sources.items())
            small = [s for s in old.segments if s.segment.n < self.batch_rows // 4]
            if old.segments and not changed and len(small) < self.max_deltas:
                # The common case: a range landed. One new segment; old masks are copied so
                # requests still reading the old snapshot see it unchanged.
                segment = self._build(added)
                older = [LiveSegment(s.segment, s.dead.copy(), s.dead_count) for s in old.segments]
                live = LiveSegment.of(segment)
                resolve_versions(older, live)
                snapshot = Snapshot([*older, live], old.generation + 1, self.result_cache)
                kind, count = "delta", len(added)
            else:
                snapshot, count = self._rebuild(listed, old, merge=len(small) >= self.max_deltas)
                kind = "full"
            self.snapshot = snapshot
            self._sources = listed
            self._drop_unused(snapshot)
            report = RefreshReport(kind, count, time.perf_counter() - start)
            self.last_refresh = report
            log.info("index refresh: %s, %d partitions, %.2f s", kind, count, report.seconds)
            return report

    def _reusable(self, old: Snapshot) -> list[Segment]:
        """Segments to keep: the live ones, or at start-up those left in `index_dir`."""
        if old.segments:
            return [s.segment for s in old.segments]
        found = []
        for folder in sorted(self.index_dir.glob("seg-*")):
            try:
                found.append(Segment(folder))
            except (OSError, ValueError, KeyError):
                shutil.rmtree(folder, ignore_errors=True)  # a build cut short
        return found

    def _select(
        self, candidates: list[Segment], listed: dict[str, dict], merge: bool = False
    ) -> tuple[list[Segment], set[str]]:
        """The segments whose partitions are all listed unchanged, none covered twice."""
        kept: list[Segment] = []
        covered: set[str] = set()
        for segment in candidates:
            paths = {p["path"] for p in segment.sources}
            unchanged = all(listed.get(p["path"]) == p for p in segment.sources)
            too_small = merge and segment.n < self.batch_rows // 4
            if unchanged and not covered & paths and not too_small:
                kept.append(segment)
                covered |= paths
        return kept, covered

    def _resolve(self, segments: list[Segment], generation: int) -> Snapshot:
        lives: list[LiveSegment] = []
        for segment in segments:
            live = LiveSegment.of(segment)
            resolve_versions(lives, live)
            lives.append(live)
        return Snapshot(lives, generation, self.result_cache)

    def _rebuild(self, listed: dict[str, dict], old: Snapshot, merge: bool) -> tuple[Snapshot, int]:
        """Keep every segment whose partitions are all unchanged; build the rest in batches.

        A redone range or a compaction rebuilds only the segments that read its partitions;
        at start-up a persistent `index_dir` is reused the same way. With `merge`, the
        small delta segments are rebuilt as one. Dead masks are recomputed from scratch.
        """
        kept, covered = self._select(self._reusable(old), listed, merge)
        missing = [p for path, p in listed.items() if path not in covered]
        built = [self._build(batch) for batch in self._batches(missing)] if missing else []
        return self._resolve([*kept, *built], old.generation + 1), len(missing)

    def _follow(self) -> RefreshReport:
        """Load the segments another process built; partitions without one wait for it."""
        with self._lock:
            start = time.perf_counter()
            listed = self._listed()
            loaded = {live.segment.folder: live.segment for live in self.snapshot.segments}
            candidates = []
            for folder in sorted(self.index_dir.glob("seg-*")):
                segment = loaded.get(folder)
                if segment is None:
                    try:
                        segment = Segment(folder)
                    except (OSError, ValueError, KeyError):
                        continue  # still being written: segment.json comes last
                candidates.append(segment)
            kept, _ = self._select(candidates, listed)
            if [s.folder for s in kept] == list(loaded):
                return RefreshReport("none", 0, time.perf_counter() - start)
            self.snapshot = self._followed(kept)
            report = RefreshReport("follow", len(kept), time.perf_counter() - start)
            self.last_refresh = report
            return report

    def _followed(self, kept: list[Segment]) -> Snapshot:
        """The snapshot of `kept`. When they are the loaded segments plus new ones (a range
        landed), only the new ones are resolved against the rest, as the builder does:
        resolving all ten million keys again took each worker seconds per landed range."""
        old = self.snapshot
        n = len(old.segments)
        generation = old.generation + 1
        if not n or [s.folder for s in kept[:n]] != [live.segment.folder for live in old.segments]:
            return self._resolve(kept, generation)
        # Masks copied: requests still reading the old snapshot see it unchanged.
        lives = [LiveSegment(s.segment, s.dead.copy(), s.dead_count) for s in old.segments]
        for segment in kept[n:]:
            live = LiveSegment.of(segment)
            resolve_versions(lives, live)
            lives.append(live)
        return Snapshot(lives, generation, self.result_cache)

    def _batches(self, partitions: list[dict]) -> list[list[dict]]:
        """Consecutive partitions (by group and span) of about `batch_rows` rows each."""
        fs, _ = open_fs(self.catalog)
        batches: list[list[dict]] = [[]]
        rows = 0
        for p in partitions:
            with reading(p["path"]), fs.open(p["path"], "rb") as fh:
                n = pq.ParquetFile(fh).metadata.num_rows
            if batches[-1] and rows + n > self.batch_rows:
                batches.append([])
                rows = 0
            batches[-1].append(p)
            rows += n
        return batches

    def _drop_unused(self, snapshot: Snapshot) -> None:
        # Mapped files stay readable after unlink, so in-flight requests are safe.
        keep = {live.segment.folder for live in snapshot.segments}
        for folder in self.index_dir.glob("seg-*"):
            if folder not in keep:
                shutil.rmtree(folder, ignore_errors=True)

    def run_forever(
        self, every: float, stop: threading.Event, on_error: Callable | None = None
    ) -> None:
        while not stop.wait(every):
            try:
                self.refresh()
            except Exception as exc:  # keep serving the last good snapshot
                log.exception("index refresh failed")
                if on_error:
                    on_error(exc)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
        if self._own_dir and not self.follow:
            shutil.rmtree(self.index_dir, ignore_errors=True)
