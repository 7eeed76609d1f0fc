"""Small catalogs for the judge's tests, written directly with the schemas.

The header pass's and the article pass's tables go through the catalog's writer; the
tables of the health sweep and the merges are written with their schemas as Parquet
files in their tables' folders.
"""

from __future__ import annotations

import hashlib
import itertools
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.catalog.schema import (
    PENDING_RELEASES,
    PROBE_CANDIDATES,
    PROBE_RESULTS,
    RELEASE_FILES,
    RELEASE_HEALTH,
    RELEASE_MERGES,
    RELEASE_PROBES,
    RELEASES,
)
from pipelines.catalog.writer import write_partition

GROUP = "alt.binaries.test"
NOW = 1_700_000_000
DAY = 86400
MB = 1 << 20

_counter = itertools.count(1)


def key_of(label: str) -> bytes:
    return hashlib.sha1(label.encode()).digest()


def md5(label: str) -> bytes:
    return hashlib.md5(label.encode()).digest()


def _fill(schema: pa.Schema, rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist([{n: r.get(n) for n in schema.names} for r in rows], schema)


@dataclass
class Range:
    """One range's rows of every table, written together by `write`."""

    first: int
    last: int
    group: str = GROUP
    releases: list[dict[str, Any]] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    candidates: list[dict[str, Any]] = field(default_factory=list)
    probes: list[dict[str, Any]] = field(default_factory=list)  # release_probes

    def release(
        self,
        label: str,
        name: str,
        files: list[tuple[str, int]],
        posted_last: int = NOW,
        pending: bool = False,
        candidates: list[tuple[str, str]] | None = None,
        **extra: Any,
    ) -> bytes:
        """A finished release (or a pending one) of these files (name, bytes); its first
        file's first article is `<label>-<file name>` as a message-id, and each
        (kind, file name) of `candidates` becomes a probe candidate of that article."""
        key = key_of(label)
        n = next(_counter)
        row = {
            "release_key": key, "identity_key": key, "name": name, "poster": "p <p@x>",
            "group": self.group, "groups": [self.group], "posted_first": posted_last - 60,
            "posted_last": posted_last, "first_article": self.first + n,
            "last_article": self.first + n, "files": len(files), "file_total": len(files),
            "segments": len(files), "bytes": sum(b for _, b in files), "complete": True,
            "readable": True, "has_par2": any(f.endswith(".par2") for f, _ in files),
            "source": "subject", "category": 0, "finished": True, "members": None,
            "written_range": self.first, "rules_version": "t", "merged_into": None,
            "tool": "", "probe_ids": [mid(label, f) for f, _ in files[:1]],
            **extra,
        }  # fmt: skip
        (self.pending if pending else self.releases).append(row)
        for fname, nbytes in files:
            self.files.append(
                {"release_key": key, "written_range": self.first, "name": fname,
                 "subject": fname, "poster": "p <p@x>", "date": posted_last, "groups": [self.group],
                 "file_index": 1, "part_total": 1, "bytes": nbytes, "seg_numbers": [1],
                 "seg_bytes": [nbytes], "seg_ids": [mid(label, fname)]}
            )  # fmt: skip
        for kind, fname in candidates or []:
            self.candidates.append(
                {"release_key": key, "kind": kind, "file_name": fname,
                 "message_id": mid(label, fname), "segment": 1, "pending": pending,
                 "written_range": self.first}
            )  # fmt: skip
        return key

    def probe(self, key: bytes, **values: Any) -> None:
        """The article pass's row for a release of this range."""
        row = {"release_key": key, "group": self.group, "pending": False,
               "outcome": "probed", "probes": 1, "missing": 0, "probed_at": NOW,
               "written_range": self.first}  # fmt: skip
        self.probes.append({**row, **values})

    def write(self, catalog: Path | str) -> None:
        c, g = str(catalog), self.group
        for table, schema, rows in (
            ("releases", RELEASES, self.releases),
            ("pending_releases", PENDING_RELEASES, self.pending),
            ("release_files", RELEASE_FILES, self.files),
            ("probe_candidates", PROBE_CANDIDATES, self.candidates),
        ):
            write_partition(c, table, g, self.first, self.last, _fill(schema, rows))
        if self.probes:
            write_partition(c, "release_probes", g, self.first, self.last,
                            _fill(RELEASE_PROBES, self.probes))  # fmt: skip


def mid(label: str, file_name: str) -> str:
    return f"{label}-{file_name}@test"


def write_results(catalog: Path, rows: list[dict[str, Any]]) -> Path:
    """A probe cache batch (with the `head_md5` column)."""
    folder = catalog / "_probes" / "results"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{uuid.uuid4().hex}.parquet"
    full = [{"probed_at": NOW, "status": "ok", **r} for r in rows]
    pq.write_table(_fill(PROBE_RESULTS, full), path)
    return path


def write_health(catalog: Path, rows: list[dict[str, Any]], first: int = 0) -> Path:
    folder = catalog / "release_health" / GROUP
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{first}-{first + 999}.parquet"
    full = [{"group": GROUP, "checked_at": NOW, "segments": 3, "missing": 0, **r} for r in rows]
    pq.write_table(_fill(RELEASE_HEALTH, full), path)
    return path


def write_merges(catalog: Path, rows: list[dict[str, Any]], first: int = 0) -> Path:
    folder = catalog / "release_merges" / GROUP
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{first}-{first + 999}.parquet"
    full = [{"group": GROUP, "via": "par2", "merged_at": NOW, "written_range": first, **r}
            for r in rows]  # fmt: skip
    pq.write_table(_fill(RELEASE_MERGES, full), path)
    return path
