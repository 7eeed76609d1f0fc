"""`release_verdicts`: the judge's rows, and its place between runs.

Each run writes one partition per group it changed, `release_verdicts/<group>/<t>-<t>.parquet`
(t: the run's `judged_at`), never rewritten. A row is written only when a key's verdict
changes: a new rule, the same rule under another rule set version, or a verdict taken
back (a null rule). The newest `judged_at` per key is its current verdict, so a run's
`judged_at` rises from run to run even when two runs share a second.

The place (`_judge/state.json`) says what the last run saw: the rule set version, its
`judged_at`, the settling line it judged up to, and every input file with its
modification time; it is written, atomically, after the run's partitions, so a run stopped
between the two is judged again and writes nothing twice (its rows are then current).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.kept import NewestRows
from pipelines.catalog.newest import newest_by
from pipelines.catalog.partitions import Partition, list_group, list_table
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import RELEASE_VERDICTS
from pipelines.catalog.writer import write_partition
from pipelines.corpus.fs import atomic_put, open_fs

VERDICTS_TABLE = "release_verdicts"
STATE_PATH = "_judge/state.json"
STATE_VERSION = 1
# every live release that holds a content file the article pass saw (a par2 set's file, a
# first part's 16 KiB hash), with its group: the repeated rule counts a file's holders
# over the whole catalog while a run reads only the groups that moved
COPIES_PATH = "_judge/copies.parquet"
COPIES = pa.schema([("hash", pa.binary(16)), ("size", pa.int64()), ("release_key", pa.binary(20)),
                    ("group", pa.string())])  # fmt: skip
# probed articles linked to their releases through the chunk store (`facts._link_by_files`)
LINKS_PATH = "_judge/links.parquet"
LINKS = pa.schema([("message_id", pa.string()), ("release_key", pa.binary(20))])


def verdict_rows(catalog: str, group: str | None = None) -> pa.Table:
    """Every stored verdict row (of one group, or all); a damaged file is skipped (its
    keys' earlier rows stand, and the next run writes what differs)."""
    fs, root = open_fs(catalog)
    if group is not None:
        return verdicts_of(catalog, [group])
    return _read_verdicts(fs, list_table(fs, root, VERDICTS_TABLE, stat=False))


def _read_verdicts(fs: Any, parts: list[Partition]) -> pa.Table:
    tables = []
    for p in parts:
        try:
            tables.append(read_parquet(fs, p.path))
        except FileNotFoundError:
            continue
        except READ_ERRORS:
            continue
    if not tables:
        return RELEASE_VERDICTS.empty_table()
    return pa.concat_tables(tables)


def newest_verdicts(rows: pa.Table) -> pa.Table:
    """The newest row per key (taken-back rows included), by `judged_at`."""
    return newest_by(rows, "judged_at")


def current_verdicts(catalog: str, group: str | None = None) -> pa.Table:
    """One row per key whose current verdict hides it (rule not null)."""
    newest = newest_verdicts(verdict_rows(catalog, group))
    return newest.filter(pc.is_valid(newest.column("rule")))


def write_verdicts(catalog: str, judged_at: int, rows: list[dict[str, Any]]) -> int:
    """One partition per group of the rows; the number of files written."""
    by_group: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_group.setdefault(r["group"] or "", []).append(r)
    for group, grows in sorted(by_group.items()):
        grows.sort(key=lambda r: r["release_key"])
        table = pa.Table.from_pylist(grows, schema=RELEASE_VERDICTS)
        write_partition(catalog, VERDICTS_TABLE, group or "_", judged_at, judged_at, table)
    return len(by_group)


@dataclass
class Place:
    """What the last run saw (empty: no run yet)."""

    rules_version: str = ""
    judged_at: int = 0
    settled_line: int | None = None  # releases posted up to here were old enough to settle
    inputs: dict[str, str] = field(default_factory=dict)  # input file -> modification time
    # release key (hex) -> a digest of the password a spot or an imported NZB names: a
    # password told since takes back a `locked` verdict (pipelines.judge.run)
    passwords: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "rules_version": self.rules_version,
            "judged_at": self.judged_at,
            "settled_line": self.settled_line,
            "inputs": self.inputs,
            "passwords": self.passwords,
        }


def load_place(catalog: str) -> Place:
    """The last run's place; an unreadable or foreign one reads as no run (everything is
    judged again, and only what differs is written)."""
    fs, root = open_fs(catalog)
    try:
        doc = json.loads(fs.cat_file(f"{root}/{STATE_PATH}"))
    except FileNotFoundError:
        return Place()
    except (ValueError, OSError):
        return Place()
    if not isinstance(doc, dict) or doc.get("version") != STATE_VERSION:
        return Place()
    return Place(
        str(doc.get("rules_version", "")),
        int(doc.get("judged_at", 0)),
        doc.get("settled_line"),
        {str(k): str(v) for k, v in (doc.get("inputs") or {}).items()},
        {str(k): str(v) for k, v in (doc.get("passwords") or {}).items()},
    )


def save_place(catalog: str, place: Place) -> None:
    fs, root = open_fs(catalog)
    body = json.dumps(place.to_json(), sort_keys=True).encode()
    atomic_put(fs, f"{root}/{STATE_PATH}", body)


def load_links(catalog: str) -> dict[str, bytes | None]:
    """Article -> release found through the chunk store (None: looked for, not found); an
    unreadable file reads as none found yet."""
    fs, root = open_fs(catalog)
    try:
        t = read_parquet(fs, f"{root}/{LINKS_PATH}")
    except FileNotFoundError:
        return {}
    except READ_ERRORS:
        return {}
    return dict(zip(t["message_id"].to_pylist(), t["release_key"].to_pylist(), strict=True))


def save_links(catalog: str, links: dict[str, bytes | None]) -> None:
    fs, root = open_fs(catalog)
    ids = sorted(links)
    table = pa.table(
        [pa.array(ids, pa.string()), pa.array([links[m] for m in ids], pa.binary(20))],
        schema=LINKS,
    )
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    atomic_put(fs, f"{root}/{LINKS_PATH}", sink.getvalue().to_pybytes())


def load_copies(catalog: str) -> pa.Table | None:
    """The holders of content files as the last run left them (None: none kept, or
    unreadable: the next run reads every group)."""
    fs, root = open_fs(catalog)
    try:
        return read_parquet(fs, f"{root}/{COPIES_PATH}").cast(COPIES)
    except FileNotFoundError:
        return None
    except READ_ERRORS:
        return None
    except ValueError:  # another schema: kept by another version
        return None


def copies_table(rows: list[tuple[bytes, int, bytes, str]]) -> pa.Table:
    """Copies index rows as a table, in their one order."""
    rows = sorted(rows)
    cols: list[tuple[Any, ...]] = list(zip(*rows, strict=True)) if rows else [(), (), (), ()]
    return pa.table([pa.array(c, f.type) for c, f in zip(cols, COPIES, strict=True)],
                    schema=COPIES)  # fmt: skip


def save_copies(catalog: str, table: pa.Table) -> None:
    fs, root = open_fs(catalog)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    atomic_put(fs, f"{root}/{COPIES_PATH}", sink.getvalue().to_pybytes())


def verdict_folders(catalog: str) -> list[str]:
    """Every group folder of `release_verdicts` (`_`: rows with no group)."""
    fs, root = open_fs(catalog)
    try:
        return sorted(str(p).rstrip("/").rsplit("/", 1)[-1]
                      for p in fs.ls(f"{root}/{VERDICTS_TABLE}", detail=False))  # fmt: skip
    except FileNotFoundError:
        return []


def verdict_fold(catalog: str, group: str) -> NewestRows:
    """The newest verdict row per key of a group's folder (`_`: rows with no group), as
    this process keeps it: a run reads only the files written since its last
    (`pipelines.catalog.kept`)."""
    fs, root = open_fs(catalog)
    return NewestRows(fs, f"{root}/{VERDICTS_TABLE}/{group}", "judge-verdicts", "judged_at",
                      RELEASE_VERDICTS)  # fmt: skip


def verdicts_of(catalog: str, groups: list[str]) -> pa.Table:
    """The stored verdict rows of these groups' folders (`_`: rows with no group)."""
    fs, root = open_fs(catalog)
    parts = [p for g in groups for p in list_group(fs, root, VERDICTS_TABLE, g, stat=False)]
    return _read_verdicts(fs, parts)
