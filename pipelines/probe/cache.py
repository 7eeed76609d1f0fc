"""The probe cache: what each probed article showed, stored once by message-id.

`<catalog>/_probes/results/<batch>.parquet` (schema `PROBE_RESULTS`): every probe run
adds files of the articles it read, and never rewrites one, so a crash mid-write loses at
most the batch being written (it is fetched again) and nothing already stored. An article
the server no longer has (430) is a result too: it is not asked for again. A redo, or a
second candidate for the same article, reads the answer here and fetches nothing.

A damaged batch file (cut short by a full disk, say) is reported and skipped: its
articles are probed again and land in a new batch.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

import pyarrow as pa

from pipelines.catalog.changes import WrittenOnce
from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import PROBE_RESULTS
from pipelines.catalog.writer import parquet_bytes
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.probe.inspection import Inspection

RESULTS = "_probes/results"


def results_folder(catalog: str) -> str:
    return f"{catalog.rstrip('/')}/{RESULTS}"


# per cache folder, in this process: the results read or written so far, and the batches
_READ: dict[str, tuple[dict[str, Inspection], list[int]]] = {}


class ProbeCache:
    """The stored results, read at the start (only the batches this process has not read
    yet), and the new ones of this run."""

    def __init__(self, catalog: str, storage_options: dict[str, Any] | None = None) -> None:
        self.fs, self.root = open_fs(catalog, storage_options)
        self.folder = results_folder(self.root)
        self._new: dict[str, Inspection] = {}
        self.damaged: list[str] = []  # batch files that did not read back
        # the batches this process has read already are not read again (`WrittenOnce`)
        self._once = WrittenOnce(self.fs, self.folder, "probe-cache")
        names, reset = self._once.new()
        if reset or self.folder not in _READ:
            _READ[self.folder] = ({}, [0])
        self._known, count = _READ[self.folder]
        for name in names:
            path = f"{self.folder}/{name}"
            try:
                table = read_parquet(self.fs, path)
            except FileNotFoundError:
                continue
            except READ_ERRORS as exc:
                self.damaged.append(f"{path}: {type(exc).__name__}: {exc}")
                continue
            self._once.taken(name)
            count[0] += 1
            for row in table.to_pylist():
                self._known.setdefault(row["message_id"], from_row(row))
        self._count = count
        self.batches = count[0]

    def __len__(self) -> int:
        return len(self._known) + len(self._new)

    def __contains__(self, message_id: str) -> bool:
        return message_id in self._known or message_id in self._new

    def get(self, message_id: str) -> Inspection | None:
        return self._known.get(message_id) or self._new.get(message_id)

    def add(self, message_id: str, result: Inspection) -> None:
        """Hold a new result until `flush`; the first result for an article stands."""
        if message_id not in self:
            self._new[message_id] = result

    @property
    def unwritten(self) -> int:
        return len(self._new)

    def flush(self) -> int:
        """Write the results held since the last flush as one batch; returns how many."""
        if not self._new:
            return 0
        now = int(time.time())
        rows = [to_row(mid, r, now) for mid, r in sorted(self._new.items())]
        table = pa.Table.from_pylist(rows, schema=PROBE_RESULTS)
        name = f"{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}.parquet"
        self.fs.makedirs(self.folder, exist_ok=True)
        atomic_put(self.fs, f"{self.folder}/{name}", parquet_bytes(table, "probe_results"))
        self._once.taken(name)
        for mid, found in self._new.items():
            self._known.setdefault(mid, found)
        written = len(self._new)
        self._new = {}
        self._count[0] += 1
        self.batches = self._count[0]
        return written


def to_row(message_id: str, r: Inspection, probed_at: int) -> dict[str, Any]:
    return {
        "message_id": message_id,
        "probed_at": probed_at,
        "status": r.status,
        "kind": r.kind,
        "yenc_name": r.yenc_name,
        "yenc_size": r.yenc_size,
        "names": list(r.names),
        "sizes": list(r.sizes),
        "hashes": list(r.hashes),
        "encrypted": r.encrypted,
        "inner_archive": r.inner_archive,
        "nfo_title": r.nfo_title,
        "password_text": r.password_text,
        "par2_set": r.par2_set,
        "detail": r.detail,
        "head_md5": r.head_md5,
    }


def from_row(row: dict[str, Any]) -> Inspection:
    return Inspection(
        status=row["status"],
        kind=row["kind"] or "other",
        yenc_name=row["yenc_name"],
        yenc_size=row["yenc_size"],
        names=list(row["names"] or []),
        sizes=list(row["sizes"] or []),
        hashes=list(row["hashes"] or []),
        encrypted=row["encrypted"],
        inner_archive=bool(row["inner_archive"]),
        nfo_title=row["nfo_title"],
        password_text=row["password_text"],
        par2_set=row["par2_set"],
        detail=row["detail"] or "",
        head_md5=row.get("head_md5"),  # cache files written before the column: unknown
    )
