"""What the article pass learned of releases (`release_probes`), joined onto index rows.

A `releases` partition's source entry in a segment (`manager._listed`) carries the
`release_probes` partitions of its group whose span lies inside its own (`probes`):
a range's probe file landing, or being replaced, changes that entry, so the segments
that read the range are built again on the next refresh (only they: the cost follows the
range, not the catalog), and a server restarted on its `index_dir` knows which segments
were built before the probes came. Per release key the row with the newest `probed_at`
wins (`schema.RELEASE_PROBES`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from fsspec import AbstractFileSystem

from pipelines.catalog.newest import newest_by
from pipelines.catalog.partitions import Partition
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import RELEASE_PROBES
from pipelines.catalog.versions import key_array

log = logging.getLogger(__name__)
# What the index keeps of a probe: searched (inner names, NFO title) and shown.
PROBE_COLUMNS = ["password", "password_text", "inner_names", "nfo_title"]
_READ = ["release_key", "probed_at", *PROBE_COLUMNS]
PROBE_FIELDS = [RELEASE_PROBES.field(c) for c in PROBE_COLUMNS]


def covered(release: Partition, probes: Sequence[Partition]) -> list[dict]:
    """The probe partitions (path, size, mtime) of the release partition's group whose span
    lies inside its span, by path: a range's own, or every one a compact file covers."""
    group = release.path.rsplit("/", 2)[-2]
    return [
        {"path": p.path, "size": p.size, "mtime": p.mtime}
        for p in probes
        if p.path.rsplit("/", 2)[-2] == group
        and release.first <= p.first
        and p.last <= release.last
    ]


def read_probes(fs: AbstractFileSystem, paths: Sequence[str]) -> pa.Table:
    """The newest probe row of each release key in these partitions. A file that cannot be
    read is left out (logged): its releases are served without what it says."""
    tables = []
    for path in dict.fromkeys(paths):
        try:
            tables.append(read_parquet(fs, path, _READ).cast(
                pa.schema([RELEASE_PROBES.field(c) for c in _READ])))  # fmt: skip
        except Exception:  # a damaged or half-copied probe file must not stop the build
            log.warning("%s: release_probes partition unreadable; left out", path)
    if not tables:
        return read_probes_none()
    return newest_by(pa.concat_tables(tables), "probed_at")


def read_probes_none() -> pa.Table:
    """No probe rows (for rows built without any)."""
    return pa.schema([RELEASE_PROBES.field(c) for c in _READ]).empty_table()


def join_probes(rows: pa.Table, probes: pa.Table) -> pa.Table:
    """`rows` with the probe columns appended (null where the release was not probed)."""
    at = np.full(rows.num_rows, -1, dtype=np.int64)
    if probes.num_rows and rows.num_rows:
        pkeys = key_array(probes.column("release_key"))  # sorted by read_probes
        keys = key_array(rows.column("release_key"))
        pos = np.searchsorted(pkeys, keys)
        pos[pos == len(pkeys)] = 0
        hit = pkeys[pos] == keys
        at[hit] = pos[hit]
    index = pa.array(at, mask=at < 0)
    for field in PROBE_FIELDS:
        column = probes.column(field.name).combine_chunks() if probes.num_rows else None
        values = pa.nulls(rows.num_rows, field.type) if column is None else column.take(index)
        rows = rows.append_column(field, values)
    return rows


def passworded(rows: pa.Table) -> np.ndarray:
    """Per row, whether the archive is passworded (`password` 1: what `password=0` in a
    request leaves out; 2, an inner archive, is not known to be)."""
    return pc.fill_null(pc.equal(rows.column("password"), 1), False).to_numpy(zero_copy_only=False)
