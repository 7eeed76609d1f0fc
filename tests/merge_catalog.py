"""Small catalogs for the merge tests, written with the catalog's schemas.

`MergeCatalog` holds the releases (catalog or pending), their files, the article pass's
candidates and what the probe cache says of each article (a par2 set, a file's 16 KiB
hash), and `write()`s them as the header pass and the article pass would: one partition
per table and span, a `release_probes` file per probed span, one cache batch.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
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
from pipelines.probe.cache import results_folder

GROUP = "alt.binaries.test"
HOUR = 3600
T0 = 1_700_000_000


def key_of(label: str) -> bytes:
    return hashlib.sha1(label.encode()).digest()


def md5(label: str) -> bytes:
    return hashlib.md5(label.encode()).digest()


@dataclass
class MergeCatalog:
    root: str
    group: str = GROUP
    releases: list[dict[str, Any]] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)
    named: list[dict[str, Any]] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    candidates: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    waiting: set[tuple[int, int]] = field(default_factory=set)
    steps: dict[bytes, int] = field(default_factory=dict)  # the ladder's last step, by key
    probed: bool = True  # write release_probes files: the article pass has run
    _article: int = 0

    def release(
        self,
        label: str,
        name: str,
        files: list[tuple[str, int]],
        span: tuple[int, int] = (0, 999),
        posted: int = T0,
        poster: str = "poster <p@example.com>",
        file_total: int | None = None,
        pending: bool = False,
        named: str | None = None,
        short: tuple[str, ...] = (),
    ) -> bytes:
        """A finished release of `files` (name, bytes) in `span`; `pending`: an unnamed
        one (pending_releases), `named` also the name the article pass gave it."""
        key = key_of(label)
        first = span[0] + self._article % (span[1] - span[0] - 20)
        self._article += len(files) * 2
        row: dict[str, Any] = {
            "release_key": key, "identity_key": key_of("id" + label), "name": name,
            "poster": poster, "group": self.group, "groups": [self.group],
            "posted_first": posted, "posted_last": posted + 60,
            "first_article": first, "last_article": first + len(files) * 2 - 1,
            "files": len(files), "file_total": file_total, "segments": len(files) * 2,
            "bytes": sum(b for _, b in files), "complete": not short, "finished": True,
            "written_range": span[0], "rules_version": "r1",
        }  # fmt: skip
        if pending:
            self.pending.append({**row, "tool": "tool", "probe_ids": [], "_span": span})
            if named is not None:
                self.named.append(
                    {**self._catalog_row(row), "name": named, "source": "par2"} | {"_span": span}
                )
        else:
            self.releases.append(self._catalog_row(row) | {"_span": span})
        for i, (file_name, nbytes) in enumerate(files):
            ids = [f"{label}.{i}.{k}@test" for k in (1, 2)]
            self.files.append({
                "release_key": key, "written_range": span[0], "name": file_name,
                "subject": f'"{file_name}" yEnc (1/2)', "poster": poster, "date": posted,
                "groups": [self.group], "file_index": i + 1, "part_total": 2,
                "bytes": nbytes, "seg_numbers": [1] if file_name in short else [1, 2],
                "seg_bytes": [nbytes // 2] * (1 if file_name in short else 2),
                "seg_ids": ids[:1] if file_name in short else ids, "_span": span,
            })  # fmt: skip
        return key

    def _catalog_row(self, row: dict[str, Any]) -> dict[str, Any]:
        out = {k: row.get(k) for k in RELEASES.names}
        out.update(readable=True, has_par2=False, source="subject", category=2000,
                   members=None, merged_into=None)  # fmt: skip
        return out

    def first_id(self, key: bytes, file_name: str) -> str:
        return next(
            f["seg_ids"][0]
            for f in self.files
            if f["release_key"] == key and f["name"] == file_name
        )

    def par2(self, key: bytes, file_name: str, set_label: str,
             listed: list[tuple[str, int, bytes]]) -> None:  # fmt: skip
        """The release's par2 file `file_name` was probed: a set listing (name, size, hash)."""
        mid = self._candidate(key, file_name, "par2_index")
        self.results.append(self._result(
            mid, kind="par2", names=[n for n, _, _ in listed], sizes=[s for _, s, _ in listed],
            hashes=[h for _, _, h in listed], par2_set=md5(set_label)[:16],
        ))  # fmt: skip

    def head(self, key: bytes, file_name: str, head: bytes, size: int) -> None:
        """The release's file `file_name` was probed: its first part's 16 KiB hash."""
        mid = self._candidate(key, file_name, "lone_random")
        self.results.append(self._result(mid, kind="other", yenc_size=size, head_md5=head))

    def first_part_read(self, key: bytes, file_name: str, head: bytes, size: int) -> None:
        """The ladder read the file's first part at step 2 with no candidate for it (a
        pending release whose only candidate is its 7z tail, say)."""
        mid = self._candidate(key, file_name, "sevenzip_last", segment=2)
        self.steps[key] = 2
        first = self.first_id(key, file_name)
        self.results.append(self._result(first, kind="other", yenc_size=size, head_md5=head))
        self.results.append(self._result(mid, kind="7z"))

    def candidate(self, key: bytes, file_name: str, kind: str, segment: int = 1) -> str:
        """A probe candidate of the release's file (its article's message-id)."""
        return self._candidate(key, file_name, kind, segment)

    def _candidate(self, key: bytes, file_name: str, kind: str, segment: int = 1) -> str:
        found = (f for f in self.files if f["release_key"] == key and f["name"] == file_name)
        row = next(found)
        mid, span = row["seg_ids"][segment - 1], row["_span"]
        self.candidates.append({
            "release_key": key, "kind": kind, "file_name": file_name, "message_id": mid,
            "segment": segment, "pending": any(p["release_key"] == key for p in self.pending),
            "written_range": span[0], "_span": span,
        })  # fmt: skip
        return mid

    def _result(self, mid: str, **fields: Any) -> dict[str, Any]:
        row: dict[str, Any] = dict.fromkeys(PROBE_RESULTS.names)
        row.update(message_id=mid, probed_at=1, status="ok", names=[], sizes=[], hashes=[],
                   inner_archive=False, detail="")  # fmt: skip
        row.update(fields)
        return row

    def spans(self) -> list[tuple[int, int]]:
        return sorted({r["_span"] for r in self.releases + self.pending + self.files})

    def write(self, only: set[tuple[int, int]] | None = None) -> str:
        """Write every span's partitions (`only`: those spans'), and the cache batch."""
        fs, root = open_fs(self.root)
        for span in self.spans():
            if only is not None and span not in only:
                continue

            def of(
                rows: list[dict[str, Any]], span: tuple[int, int] = span
            ) -> list[dict[str, Any]]:
                return [{k: v for k, v in r.items() if k != "_span"}
                        for r in rows if r.get("_span", span) == span]  # fmt: skip

            def put(table: str, rows: list[dict[str, Any]], schema: pa.Schema,
                    span: tuple[int, int] = span) -> None:  # fmt: skip
                rows = sorted(rows, key=lambda r: (r["release_key"], r.get("name") or ""))
                write_partition(self.root, table, self.group, span[0], span[1],
                                pa.Table.from_pylist(rows, schema=schema))  # fmt: skip

            put("releases", of(self.releases), RELEASES)
            put("pending_releases", of(self.pending), PENDING_RELEASES)
            put("release_files", of(self.files), RELEASE_FILES)
            cands = of(self.candidates)
            put("probe_candidates", cands, PROBE_CANDIDATES)
            # the article pass writes every span's file, empty ones too
            outcome = "waiting" if span in self.waiting else "probed"
            probes = [
                {**dict.fromkeys(RELEASE_PROBES.names), "release_key": c["release_key"],
                 "group": self.group, "outcome": outcome, "probed_at": 1,
                 "step": self.steps.get(c["release_key"], 1)}
                for c in cands
            ]  # fmt: skip
            if self.probed:
                put("release_probes", probes, RELEASE_PROBES)
            named = of(self.named)
            if named:
                path = partition_path(root, "releases", self.group, *span, probe=True)
                table = pa.Table.from_pylist(named, schema=RELEASES)
                atomic_put(fs, path, parquet_bytes(table, "releases"))
        if self.results:
            folder = results_folder(root)
            fs.makedirs(folder, exist_ok=True)
            table = pa.Table.from_pylist(self.results, schema=PROBE_RESULTS)
            batch = f"{folder}/0001-{self.group}.parquet"  # a batch per group
            atomic_put(fs, batch, parquet_bytes(table, "probe_results"))
        return self.root
