"""Where spots are kept: written once, deletes applied when read.

```
<catalog>/spots/<group>/<first>-<last>.parquet     the articles first..last of a spot group
<catalog>/spot_nzbs/<group>/at-<ns>.parquet       outcomes of spots' NZBs (a write each)
<catalog>/_spots/<group>.json                      the last article read; spots waiting
<catalog>/_spots/nzbs/<sha1 of message-id>.nzb.gz  a waiting spot's NZB
```

A span's spots file comes first, then its NZB outcomes, then the state, which commits it:
a run stopped before the state reads the span again (the same rows; NZBs already
imported come back as duplicates, adding nothing). Nothing is rewritten: a delete is a
row like any other, and `live_spots` applies it when reading (a moderator's delete
always; a personal one from the same spotter within five days of the spot), so a removed
spot's links and passwords go with it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import SPOT_NZBS, SPOTS
from pipelines.catalog.writer import parquet_bytes, write_partition
from pipelines.corpus.fs import atomic_put, is_temporary, open_fs

PERSONAL_DELETE_SECONDS = 5 * 86400


@dataclass
class SpotState:
    last: int = 0  # the last article read (0: none yet)
    # spots whose NZB waits for the header pass: message-id -> posted
    waiting: dict[str, int] = field(default_factory=dict)
    tried: dict[str, int] = field(default_factory=dict)  # a waiting spot's last try
    titles: dict[str, str] = field(default_factory=dict)  # a waiting spot's title


def _state_path(root: str, group: str) -> str:
    return f"{root}/_spots/{group}.json"


def load_state(catalog: str, group: str) -> SpotState | None:
    fs, root = open_fs(catalog)
    path = _state_path(root, group)
    if not fs.exists(path):
        return None
    data = json.loads(fs.cat_file(path))
    waiting = {k: int(v) for k, v in data.get("waiting", {}).items()}
    tried = {k: int(v) for k, v in data.get("tried", {}).items() if k in waiting}
    titles = {k: str(v) for k, v in data.get("titles", {}).items() if k in waiting}
    return SpotState(int(data["last"]), waiting, tried, titles)


def save_state(catalog: str, group: str, state: SpotState) -> None:
    fs, root = open_fs(catalog)
    tried = {k: v for k, v in state.tried.items() if k in state.waiting}
    titles = {k: v for k, v in state.titles.items() if k in state.waiting}
    body = {"last": state.last, "waiting": dict(sorted(state.waiting.items())),
            "tried": dict(sorted(tried.items())),
            "titles": dict(sorted(titles.items()))}  # fmt: skip
    atomic_put(fs, _state_path(root, group), json.dumps(body).encode())


def write_spots(
    catalog: str, group: str, first: int, last: int, rows: list[dict[str, Any]],
    outcomes: list[dict[str, Any]],
) -> None:  # fmt: skip
    """A span's spots and the NZB outcomes reached in it (spots first)."""
    write_partition(catalog, "spots", group, first, last, pa.Table.from_pylist(rows, SPOTS))
    write_outcomes(catalog, group, outcomes)


def write_outcomes(catalog: str, group: str, outcomes: list[dict[str, Any]]) -> None:
    """NZB outcomes, in a file named for when they were written (not an article span:
    a retry of waiting spots reads no span)."""
    if not outcomes:
        return
    fs, root = open_fs(catalog)
    payload = parquet_bytes(pa.Table.from_pylist(outcomes, SPOT_NZBS), "spot_nzbs")
    atomic_put(fs, f"{root}/spot_nzbs/{group}/at-{time.time_ns()}.parquet", payload)


def _nzb_path(root: str, message_id: str) -> str:
    return f"{root}/_spots/nzbs/{hashlib.sha1(message_id.encode()).hexdigest()}.nzb.gz"


def keep_nzb(catalog: str, message_id: str, nzb: bytes) -> None:
    fs, root = open_fs(catalog)
    atomic_put(fs, _nzb_path(root, message_id), gzip.compress(nzb, 6, mtime=0))


def kept_nzb(catalog: str, message_id: str) -> bytes | None:
    fs, root = open_fs(catalog)
    path = _nzb_path(root, message_id)
    return gzip.decompress(fs.cat_file(path)) if fs.exists(path) else None


def drop_nzb(catalog: str, message_id: str) -> None:
    fs, root = open_fs(catalog)
    path = _nzb_path(root, message_id)
    if fs.exists(path):
        fs.rm(path)


def _read_all(catalog: str, table: str, schema: pa.Schema) -> pa.Table:
    fs, root = open_fs(catalog)
    paths = sorted(str(p) for p in fs.glob(f"{root}/{table}/*/*.parquet"))
    parts = [read_parquet(fs, p) for p in paths if not is_temporary(p)]
    return pa.concat_tables(parts) if parts else schema.empty_table()


def live_spots(catalog: str) -> list[dict[str, Any]]:
    """Every valid spot not removed, with its NZB's newest outcome (`nzb_outcome`,
    `release_key`), newest first."""
    kept, _ = _applied(catalog)
    return sorted(kept, key=lambda r: (-r["posted"], r["message_id"]))


def removed_releases(catalog: str, deletes: set[str]) -> list[tuple[str, bytes]]:
    """(delete's message-id, release key) of the spots these deletes removed that had
    become releases of their own: what a delete takes out of the catalog."""
    _, removed = _applied(catalog)
    return [(d, r["release_key"]) for d, r in removed
            if d in deletes and r["nzb_outcome"] == "inserted" and r["release_key"]]  # fmt: skip


def removed_spots(catalog: str) -> set[str]:
    """The message-ids of the spots deletes removed."""
    return {r["message_id"] for _, r in _applied(catalog)[1]}


def _applied(catalog: str) -> tuple[list[dict[str, Any]], list[tuple[str, dict[str, Any]]]]:
    """The valid spots deletes left, and (delete, spot) of those they removed; each with
    its NZB's newest outcome."""
    rows = _read_all(catalog, "spots", SPOTS).filter(pc.field("valid")).to_pylist()
    outcomes = _read_all(catalog, "spot_nzbs", SPOT_NZBS).to_pylist()
    newest: dict[str, dict[str, Any]] = {}
    for o in sorted(outcomes, key=lambda o: o["at"]):
        newest[o["message_id"]] = o
    by_id = {}
    for r in rows:
        if r["kind"] == "spot":
            o = newest.get(r["message_id"], {})
            by_id[r["message_id"]] = {**r, "nzb_outcome": o.get("outcome"),
                                      "release_key": o.get("release_key")}  # fmt: skip
    removed = []
    for d in (r for r in rows if r["kind"] == "delete"):
        target = by_id.get(d["target"] or "")
        if target is None:
            continue
        personal = d.get("spotter_id")
        if personal is None or (
            personal == target.get("spotter_id")
            and 0 <= d["posted"] - target["posted"] <= PERSONAL_DELETE_SECONDS
        ):
            removed.append((d["message_id"], by_id.pop(target["message_id"])))
    return list(by_id.values()), removed
