"""The PreDB's batch folders (`pipelines.predb.store`): batches written all year go in a
bucket folder per ~28 hours; a reader that took everything up to a time lists only the
buckets from there on, the newest are found from the newest bucket back, and batches
written before buckets are still listed and read."""

from __future__ import annotations

import itertools
from pathlib import Path

import pyarrow as pa
import pytest

from pipelines.catalog.writer import parquet_bytes
from pipelines.predb import store
from pipelines.predb.store import BUCKET_DIGITS, DoneBatches, batches, predb_path, read_batches

DAY_NS = 86_400 * 10**9
T0 = 1_700_000_000 * 10**9


def _events(title: str) -> pa.Table:
    from pipelines.catalog.schema import SCHEMAS

    schema = SCHEMAS["pre_events"]
    row = {"pre_key": bytes(20), "title": title, "kind": "pre", "seen_at": 1, "pre_time": 1}
    return pa.Table.from_pylist([row], schema)


def test_buckets_since_newest_and_batches_before_buckets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cat = str(tmp_path / "cat")
    # a batch written before buckets: flat in its folder
    old = f"{T0 - 30 * DAY_NS:020d}-1.parquet"
    path = Path(predb_path(cat, "events", old))
    path.parent.mkdir(parents=True)
    path.write_bytes(parquet_bytes(_events("Old.Title-GRP"), "pre_events").tobytes())
    clock = itertools.count()
    times = [T0 + d * DAY_NS + next(clock) for d in range(6) for _ in range(3)]
    written = []
    for t in times:
        monkeypatch.setattr(store.time, "time_ns", lambda t=t: t)
        written.append(store.write_batch(cat, "pre_events", _events(f"T.{t}-GRP")))
    buckets = {n[:BUCKET_DIGITS] for n in written}
    assert len(buckets) >= 5
    assert all(Path(predb_path(cat, "events", n[:BUCKET_DIGITS], n)).exists() for n in written)
    assert batches(cat, "events") == [old, *written]
    # everything up to the fourth day taken: its bucket on is listed, plus the flat one
    done = DoneBatches({"upto": written[11]})
    listed = batches(cat, "events", since=done.upto)
    assert [n for n in listed if n not in done] == written[12:]
    assert set(listed) < {old, *written}
    assert batches(cat, "events", newest=2)[-2:] == written[-2:]
    assert len(batches(cat, "events", newest=2)) < len(written)
    titles = read_batches(cat, "pre_events")["title"].to_pylist()
    assert titles == ["Old.Title-GRP", *(f"T.{t}-GRP" for t in times)]
    assert read_batches(cat, "pre_events", [old])["title"].to_pylist() == ["Old.Title-GRP"]
