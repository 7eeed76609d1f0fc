"""The merges' bench: CPU per million releases of `merge_catalog` over a synthetic catalog.

The catalog is one group's spans written with the catalog's schemas, each span half a
day of posts: ordinary releases (a tenth with a par2 set that describes their own files,
so it joins nothing), obfuscated uploads whose files each became a pending release with
their par2 holder named by the article pass (the merge joins them by 16 KiB hash), and
sidecar releases beside their poster's upload. Every span is probed (its `release_probes`
written), so the merge reads all. Printed: releases read, what was merged, CPU per
million releases for the whole catalog at once, and for the same catalog landing a span
at a time (each run merging the new span, reading the day before it again).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from pipelines.catalog.layout import partition_path
from pipelines.catalog.schema import (
    PENDING_RELEASES,
    PROBE_CANDIDATES,
    PROBE_RESULTS,
    RELEASE_FILES,
    RELEASE_PROBES,
    RELEASES,
)
from pipelines.catalog.writer import parquet_bytes, write_partition
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.merge.run import merge_catalog
from pipelines.probe.cache import results_folder

GROUP = "alt.binaries.bench"
SPAN_ARTICLES = 2_000_000
SPAN_SECONDS = 12 * 3600
T0 = 1_700_000_000
MB = 1 << 20
SPLIT_SHARE = 0.03  # of a span's uploads: obfuscated, a pending release per file
SIDECAR_SHARE = 0.02
PAR2_SHARE = 0.10  # of ordinary releases: a par2 set of their own files


def _key(label: str) -> bytes:
    return hashlib.sha1(label.encode()).digest()


def _md5(label: str) -> bytes:
    return hashlib.md5(label.encode()).digest()


@dataclass
class _Span:
    first: int
    releases: list[dict[str, Any]]
    pending: list[dict[str, Any]]
    named: list[dict[str, Any]]
    files: list[dict[str, Any]]
    candidates: list[dict[str, Any]]
    results: list[dict[str, Any]]


class _Builder:
    def __init__(self, span_index: int) -> None:
        self.first = span_index * SPAN_ARTICLES
        self.t0 = T0 + span_index * SPAN_SECONDS
        self.article = self.first
        self.s = _Span(self.first, [], [], [], [], [], [])

    def release(self, label: str, name: str, files: list[tuple[str, int]], posted: int,
                poster: str, pending: bool = False, total: int | None = None) -> bytes:  # fmt: skip
        key = _key(label)
        first = self.article
        self.article += 2 * len(files)
        row: dict[str, Any] = {
            "release_key": key, "identity_key": key, "name": name, "poster": poster,
            "group": GROUP, "groups": [GROUP], "posted_first": posted,
            "posted_last": posted + 60, "first_article": first, "last_article": self.article - 1,
            "files": len(files), "file_total": total, "segments": 2 * len(files),
            "bytes": sum(b for _, b in files), "complete": True, "finished": True,
            "written_range": self.first, "rules_version": "bench",
        }  # fmt: skip
        if pending:
            self.s.pending.append({**row, "tool": "t", "probe_ids": []})
        else:
            self.s.releases.append({**row, "readable": True, "has_par2": False,
                                    "source": "subject", "category": 5000})  # fmt: skip
        for i, (file_name, nbytes) in enumerate(files):
            self.s.files.append({
                "release_key": key, "written_range": self.first, "name": file_name,
                "subject": file_name, "poster": poster, "date": posted, "groups": [GROUP],
                "file_index": i + 1, "part_total": 2, "bytes": nbytes, "seg_numbers": [1, 2],
                "seg_bytes": [nbytes // 2] * 2,
                "seg_ids": [f"{label}.{i}.1@b", f"{label}.{i}.2@b"],
            })  # fmt: skip
        return key

    def probed(self, key: bytes, file_name: str, label: str, i: int, kind: str,
               result: dict[str, Any]) -> None:  # fmt: skip
        mid = f"{label}.{i}.1@b"
        self.s.candidates.append({
            "release_key": key, "kind": kind, "file_name": file_name, "message_id": mid,
            "segment": 1, "pending": kind == "lone_random", "written_range": self.first,
        })  # fmt: skip
        row = dict.fromkeys(PROBE_RESULTS.names)
        row.update(message_id=mid, probed_at=1, status="ok", names=[], sizes=[], hashes=[],
                   inner_archive=False, detail="")  # fmt: skip
        row.update(result)
        self.s.results.append(row)


def _span(index: int, releases: int, posters: int) -> _Span:
    b = _Builder(index)
    step = SPAN_SECONDS // max(1, releases)
    n = 0
    while n < releases:
        posted = b.t0 + n * step
        poster = f"poster{n % posters} <p{n % posters}@bench>"
        label = f"{index}.{n}"
        roll = (n * 2654435761 % 1000) / 1000
        if roll < SPLIT_SHARE:
            listed = [(f"Film.{label}.part{i + 1:02d}.rar", 50 * MB, _md5(f"{label}.{i}"))
                      for i in range(3)]  # fmt: skip
            par2_name = f"{label}x.par2"
            holder = b.release(f"{label}p", f"{label}x", [(par2_name, 40_000)], posted,
                               poster, pending=True)  # fmt: skip
            b.s.named.append({**b.s.pending[-1], "name": f"Film.{label}", "readable": True,
                              "has_par2": True, "source": "par2", "category": 2000})  # fmt: skip
            b.probed(holder, par2_name, f"{label}p", 0, "par2_index", {
                "kind": "par2", "names": [x[0] for x in listed],
                "sizes": [x[1] for x in listed], "hashes": [x[2] for x in listed],
                "par2_set": _md5("set" + label),
            })  # fmt: skip
            for i, (_, size, head) in enumerate(listed):
                name = f"{label}r{i}q.bin"
                key = b.release(f"{label}f{i}", name, [(name, size + size // 30)],
                                posted + 60 * (i + 1), poster, pending=True)  # fmt: skip
                b.probed(key, name, f"{label}f{i}", 0, "lone_random",
                         {"kind": "rar", "yenc_size": size, "head_md5": head})  # fmt: skip
            n += 4
            continue
        count = 1 + n % 4
        name = f"Some.Show.{label.replace('.', 'x')}.1080p"
        files = [(f"{name}.part{i + 1}.rar", 50 * MB) for i in range(count)]
        with_par2 = roll > 1 - PAR2_SHARE
        if with_par2:
            files.append((f"{name}.par2", 30_000))
        key = b.release(label, name, files, posted, poster, total=len(files))
        if with_par2:
            b.probed(key, f"{name}.par2", label, count, "par2_index", {
                "kind": "par2", "names": [f for f, _ in files[:-1]],
                "sizes": [s for _, s in files[:-1]],
                "hashes": [_md5(f) for f, _ in files[:-1]], "par2_set": _md5("own" + label),
            })  # fmt: skip
        n += 1
        if roll > SPLIT_SHARE and roll < SPLIT_SHARE + SIDECAR_SHARE:
            b.release(f"{label}s", f"{name}.nfo", [(f"{name}.nfo", 5_000)], posted + 120,
                      poster, total=1)  # fmt: skip
            n += 1
    return b.s


def _put(root: str, table: str, rows: list[dict[str, Any]], schema: pa.Schema,
         first: int, last: int) -> None:  # fmt: skip
    rows.sort(key=lambda r: (r["release_key"], r.get("name") or ""))
    write_partition(root, table, GROUP, first, last, pa.Table.from_pylist(rows, schema=schema))


def write_catalog(root: str, releases: int, span_releases: int, posters: int = 2_000) -> int:
    """The synthetic catalog; returns how many spans it has."""
    spans = max(1, releases // span_releases)
    fs, base = open_fs(root)
    results = []
    for i in range(spans):
        s = _span(i, span_releases, posters)
        last = s.first + SPAN_ARTICLES - 1

        _put(root, "releases", s.releases, RELEASES, s.first, last)
        _put(root, "pending_releases", s.pending, PENDING_RELEASES, s.first, last)
        _put(root, "release_files", s.files, RELEASE_FILES, s.first, last)
        _put(root, "probe_candidates", s.candidates, PROBE_CANDIDATES, s.first, last)
        _put(root, "release_probes", [], RELEASE_PROBES, s.first, last)
        named = pa.Table.from_pylist(
            [{k: r.get(k) for k in RELEASES.names} for r in s.named], schema=RELEASES
        )
        path = partition_path(base, "releases", GROUP, s.first, last, probe=True)
        atomic_put(fs, path, parquet_bytes(named, "releases"))
        results.extend(s.results)
    folder = results_folder(base)
    fs.makedirs(folder, exist_ok=True)
    table = pa.Table.from_pylist(results, schema=PROBE_RESULTS)
    atomic_put(fs, f"{folder}/0001.parquet", parquet_bytes(table, "probe_results"))
    return spans


@dataclass
class MergeFigures:
    releases: int
    spans: int
    wholes: int
    absorbed: dict[str, int]
    cpu_all: float
    cpu_by_span: float
    second_run_cpu: float

    def text(self) -> str:
        per = 1e6 / self.releases if self.releases else 0.0
        by_via = ", ".join(f"{n:,} by {v}" for v, n in sorted(self.absorbed.items()))
        return "\n".join([
            f"merge bench: {self.releases:,} releases in {self.spans} spans of one group",
            f"  merged {self.wholes:,} releases, absorbed {sum(self.absorbed.values()):,} "
            f"({by_via})",
            f"  all spans in one run: {self.cpu_all:.2f} CPU-s, "
            f"{self.cpu_all * per:.1f} CPU-s per million releases",
            f"  a span a run (each reading the day before it): {self.cpu_by_span:.2f} CPU-s, "
            f"{self.cpu_by_span * per:.1f} CPU-s per million releases",
            f"  a run with nothing new: {self.second_run_cpu:.3f} CPU-s",
        ])  # fmt: skip


def run_bench(releases: int = 200_000, span_releases: int = 25_000,
              root: str | None = None) -> MergeFigures:  # fmt: skip
    work = Path(root or tempfile.mkdtemp(prefix="merge-bench-"))
    try:
        whole, by_span = work / "whole", work / "by_span"
        spans = write_catalog(str(whole), releases, span_releases)
        shutil.copytree(whole, by_span)
        started = time.process_time()
        summary = merge_catalog(str(whole))
        cpu_all = time.process_time() - started
        started = time.process_time()
        again = merge_catalog(str(whole))
        second = time.process_time() - started
        assert again.spans == 0
        # a span at a time: the record files stand for the spans not landed yet
        cpu_by_span = 0.0
        from pipelines.merge import run as merge_run

        real = merge_run.BATCH_SPANS
        merge_run.BATCH_SPANS = 1
        try:
            started = time.process_time()
            merge_catalog(str(by_span))
            cpu_by_span = time.process_time() - started
        finally:
            merge_run.BATCH_SPANS = real
        return MergeFigures(summary.releases, spans, summary.wholes, summary.absorbed,
                            cpu_all, cpu_by_span, second)  # fmt: skip
    finally:
        if root is None:
            shutil.rmtree(work, ignore_errors=True)
