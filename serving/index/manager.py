"""Keeps the index in step with the catalog: new partitions become a new segment.

A refresh lists `releases` partitions (every `refresh_seconds`, 2 s by default: a
`scandir` per group folder). Partitions that only appeared (a range landed) are built
into one new segment; a partition that changed or vanished (a redone range, a growing
tail range written again, a compaction) rebuilds only the segments that read it, and
too many small delta segments are merged into one. Only the versions of the keys those
segments hold are resolved again (`searcher.resolve_keys`), against the segments kept
as they were, and a new snapshot is swapped in: the cost follows what changed, not the
catalog. The old snapshot keeps serving meanwhile. A `releases` partition is taken
only once its range's `release_files` are written too (`partitions.files_written`), so
a release found is a release whose NZB can be made.

Builds cut partitions into batches of about `batch_rows` release rows, one segment
each, so a build's memory is bounded by a batch, not by the catalog. A build of more
than `spawn_rows` rows runs in a fresh worker process, whose memory goes back to the
system when it ends; a smaller one (a tail range's few thousand releases: ~0.1 s, where
starting the worker costs 1.5-3 s) runs in this process. Segments record the partitions
(path, size, mtime) they were built from: a server restarted on the same `index_dir`
reuses every segment whose partitions are unchanged.

The builder writes the list of the snapshot's segments to `index.json` in `index_dir`
after each change; the processes that follow it (`serve --workers`) look at that one
file each refresh and map only the segments new to them.

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

import numpy as np
import pyarrow.parquet as pq

from pipelines.catalog.health import DamagedPartition, PartitionHealth, reading
from pipelines.catalog.partitions import Partition, files_written, list_table
from pipelines.corpus.fs import open_fs
from serving.index.build import build_segment
from serving.index.judgments import Judgments, distinct, lay_over
from serving.index.probes import covered
from serving.index.searcher import (
    RESULT_CACHE,
    LiveSegment,
    Snapshot,
    resolve_keys,
    resolve_versions,
)
from serving.index.segment import Segment

log = logging.getLogger(__name__)
DAMAGE_FILE = "damaged.json"  # in index_dir: the builder's findings, for its workers
MANIFEST = "index.json"  # in index_dir: the builder's current segments, for its workers
SPAWN_ROWS = 25_000  # builds of more rows run in a worker process of their own
WAIT_WARNING = 60.0  # seconds a releases partition may wait for its files unremarked


@dataclass(frozen=True)
class RefreshReport:
    # none: nothing changed; delta: new segments only; merge: small deltas merged too;
    # rebuild: segments of changed or vanished partitions built again; full: every
    # segment resolved afresh (start-up); follow: a worker took the builder's segments;
    # judged: only verdicts or health checks changed (partitions: the keys they changed)
    kind: str
    partitions: int  # partitions read (follow: segments mapped)
    seconds: float


def _stats(p: Partition) -> dict:
    return {"path": p.path, "size": p.size, "mtime": p.mtime}


def _same_file(a: dict, b: dict) -> bool:
    """The same partition file (path, size, mtime), whatever its probes."""
    return all(a.get(k) == b.get(k) for k in ("path", "size", "mtime"))


def list_partitions(url: str) -> list[dict]:
    """Every whole `releases` partition (temp names skipped): path, size, mtime."""
    fs, root = open_fs(url)
    return [_stats(p) for p in list_table(fs, root, "releases")]


class IndexManager:
    def __init__(
        self,
        catalog: str,
        index_dir: str | None = None,
        in_process: bool = False,
        max_deltas: int = 8,
        batch_rows: int = 2_000_000,
        spawn_rows: int = SPAWN_ROWS,
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
        self.spawn_rows = spawn_rows
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
        self._manifest_read: tuple[int, int] | None = None
        self._waiting: dict[str, float] = {}  # releases partitions waiting for their files
        self._warned: set[str] = set()
        self.last_refresh: RefreshReport | None = None
        # the current verdict and health per release, laid over the segments
        self.judgments = Judgments(*open_fs(catalog))
        self._unapplied = np.zeros(0, dtype="S20")  # keys changed, not yet in a snapshot

    def _build(self, paths: list[dict], rows: int | None = None) -> Segment:
        """A segment of these partitions (`rows`: their release rows, if counted)."""
        # Names sort in build order, across restarts too.
        out = str(self.index_dir / f"seg-{time.time_ns()}")
        if self.in_process or (rows is not None and rows <= self.spawn_rows):
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
        """The readable `releases` partitions by path whose ranges' files are written:
        damaged ones are left out, and so are new ones whose `release_files` partition is
        not there yet (`partitions.files_written`). Each with the `release_probes`
        partitions its span covers (`probes.covered`): one landing or replaced changes
        the entry, and only the segments that read the range are built again."""
        fs, root = open_fs(self.catalog)
        found = list_table(fs, root, "releases")
        self.health.forget_missing("releases", {p.path for p in found})
        new = [p for p in found if p.path not in self._sources]
        if new:  # listed only then: most refreshes find nothing new
            ready = {p.path for p in files_written(new, list_table(fs, root, "release_files"))}
            self._warn_waiting([p.path for p in new if p.path not in ready])
            found = [p for p in found if p.path in self._sources or p.path in ready]
        probes = list_table(fs, root, "release_probes")
        ids = list_table(fs, root, "release_ids")  # the ids matched (pipelines/ids/stage.py)
        return {
            p.path: {**_stats(p), "probes": covered(p, probes), "ids": covered(p, ids)}
            for p in found
            if self.health.problem(self._fs, "releases", p.path, p.size, p.mtime) is None
        }

    def _warn_waiting(self, waiting: list[str]) -> None:
        """Say once in the log when a partition's files have not come in a minute (a
        catalog copied in part, a range whose write stopped halfway): it is not served."""
        now = time.monotonic()
        self._waiting = {p: self._waiting.get(p, now) for p in waiting}
        for path, since in self._waiting.items():
            if now - since > WAIT_WARNING and path not in self._warned:
                self._warned.add(path)
                log.warning("%s: no release_files partition of its range; not served", path)

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
            changed = self._judgments_changed()
            if self._sources == listed:
                return self._judged_only(changed, start)
            old = self.snapshot
            if old.segments:
                snapshot, count, kind = self._update(listed, old)
            else:  # start-up (or an empty index): reuse what index_dir holds
                snapshot, count = self._start_up(listed, old)
                kind = "full"
            self._lay_over(snapshot, changed)
            self.snapshot = snapshot
            self._sources = listed
            self._write_manifest(snapshot)
            self._drop_unused(snapshot)
            report = RefreshReport(kind, count, time.perf_counter() - start)
            self.last_refresh = report
            log.info("index refresh: %s, %d partitions, %.2f s", kind, count, report.seconds)
            return report

    def _judgments_changed(self) -> np.ndarray:
        """The keys whose verdict or health changed since the served snapshot: read now,
        or read by a refresh that failed before its snapshot was served."""
        found = self.judgments.refresh()
        if len(found):
            self._unapplied = distinct(np.concatenate([self._unapplied, found]))
        return self._unapplied

    def _lay_over(self, snapshot: Snapshot, changed: np.ndarray) -> None:
        """The verdicts and health checks over a snapshot about to be served: full for
        its new segments, the changed keys for the ones it kept."""
        lay_over(snapshot.segments, self.judgments.state, changed)
        snapshot.judged = self.judgments.state
        self._unapplied = np.zeros(0, dtype="S20")

    def _judged_only(self, changed: np.ndarray, start: float) -> RefreshReport:
        """No segment came or went: a new snapshot only when verdicts or health changed
        (its masks copied and set for those keys; a fresh result cache)."""
        if len(changed) == 0 or not self.snapshot.segments:
            if len(changed):  # nothing to lay them over: an empty index
                self.snapshot.judged = self.judgments.state
                self._unapplied = np.zeros(0, dtype="S20")
            return RefreshReport("none", 0, time.perf_counter() - start)
        old = self.snapshot
        snapshot = Snapshot([live.copy() for live in old.segments], old.generation + 1,
                            self.result_cache)  # fmt: skip
        self._lay_over(snapshot, changed)
        self.snapshot = snapshot
        report = RefreshReport("judged", len(changed), time.perf_counter() - start)
        self.last_refresh = report
        log.info("index refresh: judged, %d keys, %.2f s", len(changed), report.seconds)
        return report

    def _update(self, listed: dict[str, dict], old: Snapshot) -> tuple[Snapshot, int, str]:
        """The next snapshot from the current one: segments that read a changed or
        vanished partition are dropped (and, past `max_deltas` small ones, the small
        ones too), what they read that is still listed is built again, and only the keys
        of the dropped and built segments are resolved. The kept segments' masks are
        copied: requests still reading the old snapshot see it unchanged.

        A changed partition is built into a segment of its own, apart from the unchanged
        partitions its old segment also read: a range written again and again (a growing
        tail range) then rebuilds only itself the next time, not its neighbours."""
        gone = {path for path, p in self._sources.items() if listed.get(path) != p}
        # A partition only its probes changed for (a range's release_probes landed) is
        # built again on its own and outranks its rows in the old segment (of equal
        # ranks the later segment's version lives): the old segment, perhaps millions of
        # rows, stays as it is.
        probed = {
            path
            for path in gone
            if path in listed and _same_file(listed[path], self._sources[path])
        }
        stale = {id(s) for s in old.segments
                 if any(p["path"] in gone - probed for p in s.segment.sources)}  # fmt: skip
        small = [s for s in old.segments
                 if s.segment.n < self.batch_rows // 4 and id(s) not in stale]  # fmt: skip
        merge = len(small) >= self.max_deltas
        drop = stale | ({id(s) for s in small} if merge else set())
        kept = [s for s in old.segments if id(s) not in drop]
        # only sources as listed now: a segment's rows of a partition whose probes changed
        # since are outranked, not counted
        covered = {p["path"] for s in kept for p in s.segment.sources if listed.get(p["path"]) == p}
        missing = [p for path, p in listed.items() if path not in covered]
        fresh = [p for p in missing if p["path"] not in self._sources or p["path"] in gone]
        moved = [p for p in missing if not any(p is f for f in fresh)]
        parts = [moved, fresh] if stale else [missing]
        built = [self._build(b, rows) for part in parts for b, rows in self._batches(part)]
        lives = [s.copy() for s in kept]
        lives += [LiveSegment.of(segment) for segment in built]
        changed = [s.segment.keys for s in old.segments if id(s) in drop]
        changed += [segment.keys for segment in built]
        if changed:
            resolve_keys(lives, np.unique(np.concatenate(changed)))
        kind = "rebuild" if stale else "merge" if merge else "delta"
        return Snapshot(lives, old.generation + 1, self.result_cache), len(missing), kind

    def _left_in_index_dir(self) -> list[Segment]:
        """The segments a server before this one left in `index_dir`, oldest first."""
        found = []
        for folder in sorted(self.index_dir.glob("seg-*")):
            try:
                found.append(Segment(folder))
            except (OSError, ValueError, KeyError):  # a build cut short, an older format
                shutil.rmtree(folder, ignore_errors=True)
        return found

    def _select(
        self, candidates: list[Segment], listed: dict[str, dict]
    ) -> tuple[list[Segment], set[str]]:
        """The segments whose partitions are all listed unchanged, none covered twice."""
        kept: list[Segment] = []
        covered: set[str] = set()
        for segment in candidates:
            paths = {p["path"] for p in segment.sources}
            unchanged = all(listed.get(p["path"]) == p for p in segment.sources)
            if unchanged and not covered & paths:
                kept.append(segment)
                covered |= paths
        return kept, covered

    def _resolve(self, segments: list[Segment], generation: int) -> Snapshot:
        """The snapshot of these segments, every version resolved."""
        lives: list[LiveSegment] = []
        for segment in segments:
            live = LiveSegment.of(segment)
            resolve_versions(lives, live)
            lives.append(live)
        return Snapshot(lives, generation, self.result_cache)

    def _start_up(self, listed: dict[str, dict], old: Snapshot) -> tuple[Snapshot, int]:
        """The first snapshot: every segment left in `index_dir` whose partitions are all
        unchanged is kept, the rest is built in batches, and every version resolved."""
        kept, covered = self._select(self._left_in_index_dir(), listed)
        missing = [p for path, p in listed.items() if path not in covered]
        built = [self._build(batch, rows) for batch, rows in self._batches(missing)]
        return self._resolve([*kept, *built], old.generation + 1), len(missing)

    def _write_manifest(self, snapshot: Snapshot) -> None:
        """The snapshot's segments, in order, for the processes that follow this one."""
        names = [live.segment.folder.name for live in snapshot.segments]
        tmp = self.index_dir / f".{MANIFEST}.{os.getpid()}"
        tmp.write_text(json.dumps({"generation": snapshot.generation, "segments": names}))
        os.replace(tmp, self.index_dir / MANIFEST)

    def _follow(self) -> RefreshReport:
        """Take the segments the builder lists in `index.json` (one `stat` when it has not
        changed); a segment it lists that is gone already (the builder moved on) leaves
        this snapshot as it is until the next look."""
        with self._lock:
            start = time.perf_counter()
            changed = self._judgments_changed()
            path = self.index_dir / MANIFEST
            try:
                info = path.stat()
                stamp = (info.st_mtime_ns, info.st_size)
                if stamp == self._manifest_read:
                    return self._judged_only(changed, start)
                names = json.loads(path.read_text())["segments"]
            except (OSError, ValueError, KeyError):
                return self._judged_only(changed, start)
            loaded = {live.segment.folder.name: live for live in self.snapshot.segments}
            if names == list(loaded):
                self._manifest_read = stamp
                return self._judged_only(changed, start)
            try:
                new = {n: Segment(self.index_dir / n) for n in names if n not in loaded}
            except (OSError, ValueError, KeyError):
                return self._judged_only(changed, start)
            snapshot = self._followed(names, loaded, new)
            self._lay_over(snapshot, changed)
            self.snapshot = snapshot
            self._manifest_read = stamp
            report = RefreshReport("follow", len(new), time.perf_counter() - start)
            self.last_refresh = report
            return report

    def _followed(
        self, names: list[str], loaded: dict[str, LiveSegment], new: dict[str, Segment]
    ) -> Snapshot:
        """The snapshot of the segments `names`, from the loaded ones and the `new`: only
        the keys of the segments that came or went are resolved, as the builder does
        (resolving all ten million keys again took each worker seconds per landed range).
        Masks copied: requests still reading the old snapshot see it unchanged."""
        generation = self.snapshot.generation + 1
        if not loaded:
            return self._resolve([new[n] for n in names], generation)
        lives = [loaded[n].copy() if n in loaded else LiveSegment.of(new[n]) for n in names]
        kept = set(names)
        changed = [live.segment.keys for n, live in loaded.items() if n not in kept]
        changed += [segment.keys for segment in new.values()]
        if changed:
            resolve_keys(lives, np.unique(np.concatenate(changed)))
        return Snapshot(lives, generation, self.result_cache)

    def _batches(self, partitions: list[dict]) -> list[tuple[list[dict], int]]:
        """Consecutive partitions (by group and span) of about `batch_rows` rows each, with
        their rows; none for none."""
        if not partitions:
            return []
        fs, _ = open_fs(self.catalog)
        batches: list[tuple[list[dict], int]] = [([], 0)]
        for p in partitions:
            with reading(p["path"]), fs.open(p["path"], "rb") as fh:
                n = pq.ParquetFile(fh).metadata.num_rows
            if batches[-1][0] and batches[-1][1] + n > self.batch_rows:
                batches.append(([], 0))
            batch, rows = batches[-1]
            batch.append(p)
            batches[-1] = (batch, rows + n)
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
