"""What a merge of one span reads: the group's releases it may join, with their files and
what the article pass learned of them.

A span's *frame* is the span's own releases (new) and the releases of the group's
earlier spans posted within the par2 window before them (old): a par2 set's window
reaches 48 h back, and what comes later is merged when its own span is. Each release is
taken at its newest version (`pipelines.catalog.versions`), so a release absorbed by an
earlier merge is hidden and a merged one stands as its whole; pending releases (no
catalog version, or one the article pass named) take part too.

The article pass's cache (`_probes/results`) says, per article it read, the par2 set a
par2 file holds and the 16 KiB hash of a file whose first part it was; its candidates
(`probe_candidates`) say which release and file each article belongs to.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.changes import WrittenOnce
from pipelines.catalog.health import READ_ERRORS, reading
from pipelines.catalog.layout import partition_path
from pipelines.catalog.partitions import Partition, list_group
from pipelines.catalog.probe_outputs import PROBES_TABLE
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.versions import hidden, newest_rows
from pipelines.corpus.fs import open_fs
from pipelines.merge.rules import PAR2_WINDOW
from pipelines.probe.cache import results_folder

Head = tuple[bytes, int]  # (MD5 of the first 16 KiB, file size): as par2 describes a file
# the columns matching reads of every release (`Release.row`)
LIGHT = ("release_key", "name", "poster", "posted_first", "posted_last", "files",
         "file_total", "bytes", "readable", "finished")  # fmt: skip


@dataclass(frozen=True)
class Par2Facts:
    set_id: bytes
    names: list[str]
    sizes: list[int | None]
    hashes: list[bytes]


@dataclass
class ProbeFacts:
    """The cache's par2 sets and file heads, by message-id; how many files share a head."""

    par2: dict[str, Par2Facts] = field(default_factory=dict)
    heads: dict[str, Head] = field(default_factory=dict)
    head_files: Counter[Head] = field(default_factory=Counter)
    damaged: list[str] = field(default_factory=list)


_FACT_COLUMNS = ("message_id", "status", "kind", "yenc_size", "names", "sizes", "hashes",
                 "par2_set", "head_md5")  # fmt: skip


# per cache folder, in this process: the facts of the batches read so far (`WrittenOnce`
# names the batches not read yet: a live loop's merges read each batch once)
_KNOWN: dict[str, tuple[ProbeFacts, set[str]]] = {}


def probe_facts(catalog: str) -> ProbeFacts:
    """Every cache batch's par2 sets and heads (a batch written before `head_md5` has no
    heads; a damaged one is skipped and named). Only the batches this process has not
    read yet are read; one gone or changed since starts it over."""
    fs, root = open_fs(catalog)
    folder = results_folder(root)
    once = WrittenOnce(fs, folder, "merge-facts")
    names, reset = once.new()
    if reset or folder not in _KNOWN:
        _KNOWN[folder] = (ProbeFacts(), set())
    facts, seen = _KNOWN[folder]
    facts.damaged = []
    for name in names:
        path = f"{folder}/{name}"
        try:
            table = read_parquet(fs, path)
        except FileNotFoundError:
            continue
        except READ_ERRORS as exc:
            facts.damaged.append(f"{path}: {type(exc).__name__}: {exc}")
            continue
        once.taken(name)
        _learn(facts, table, seen)
    return facts


def _learn(facts: ProbeFacts, table: pa.Table, seen: set[str]) -> None:
    """A batch's par2 sets and heads; an article already seen keeps its first result."""
    # a head is a decoded first part's, whatever its bytes are (an unknown format's too:
    # a split archive's later volume, an obfuscated container)
    cols = [c for c in _FACT_COLUMNS if c in table.column_names]
    for row in table.select(cols).to_pylist():
        mid = row["message_id"]
        if mid in seen:  # the first result for an article stands, as in the cache
            continue
        seen.add(mid)
        ok = row["status"] == "ok"
        if ok and row.get("par2_set") is not None and row["kind"] == "par2":
            facts.par2[mid] = Par2Facts(
                row["par2_set"], list(row["names"] or []), list(row["sizes"] or []),
                list(row["hashes"] or []),
            )  # fmt: skip
        elif row.get("head_md5") is not None and row.get("yenc_size") is not None:
            head = (row["head_md5"], int(row["yenc_size"]))
            facts.heads[mid] = head
            facts.head_files[head] += 1


@dataclass
class FileFacts:
    bytes: int = 0
    parts: int = 0  # segments seen, over every version's rows
    part_total: int = 0

    @property
    def short(self) -> bool:
        return self.part_total > 0 and self.parts < self.part_total


@dataclass
class Release:
    key: bytes
    row: dict[str, Any]  # the newest `releases` version, or the `pending_releases` row
    pending: bool  # no catalog version: its name is a random one
    new: bool  # of the span being merged
    files: dict[str, FileFacts] = field(default_factory=dict)  # by file name
    heads: dict[str, Head] = field(default_factory=dict)  # probed first parts, by file name
    sets: set[bytes] = field(default_factory=set)  # par2 sets whose files it holds
    merged: bool = False  # a merge's target already (its row is the whole)
    # where the whole row lies (`row` holds the columns every release's matching reads;
    # the rest are read for the few a merge joins)
    table: pa.Table | None = None
    index: int = 0

    def full(self) -> dict[str, Any]:
        """Every column of the release's row."""
        if self.table is not None:
            self.row = self.table.slice(self.index, 1).to_pylist()[0]
            self.table = None
        return self.row

    @functools.cached_property
    def poster(self) -> str:
        return str(self.row.get("poster") or "")

    @functools.cached_property
    def first(self) -> int:
        return int(self.row.get("posted_first") or 0)

    @functools.cached_property
    def last(self) -> int:
        return int(self.row.get("posted_last") or self.first)

    @functools.cached_property
    def name(self) -> str:
        return str(self.row.get("name") or "")

    @functools.cached_property
    def file_count(self) -> int:
        return int(self.row.get("files") or len(self.files))

    @functools.cached_property
    def nbytes(self) -> int:
        return int(self.row.get("bytes") or 0)


def read_full(releases: Iterable[Release]) -> None:
    """`Release.full` of many releases at once: one `take` per table they lie in (a
    one-row slice each cost more than the merge's other work on them)."""
    by_table: dict[int, tuple[pa.Table, list[Release]]] = {}
    for rel in releases:
        if rel.table is not None:
            by_table.setdefault(id(rel.table), (rel.table, []))[1].append(rel)
    for table, rels in by_table.values():
        rows = table.take(pa.array([r.index for r in rels], pa.int64())).to_pylist()
        for rel, row in zip(rels, rows, strict=True):
            rel.row, rel.table = row, None


@dataclass
class Frame:
    catalog: str
    group: str
    first: int  # the articles its spans cover
    last: int
    releases: dict[bytes, Release]
    hidden: set[bytes]  # keys whose newest version is a tombstone
    sets: dict[bytes, Par2Facts]  # the par2 sets its releases hold, by set id
    header_files: list[Partition]  # release_files partitions the frame's releases lie in


def _read(fs: Any, path: str, columns: list[str] | None = None) -> pa.Table | None:
    """The file's rows; None when it is gone. A file that does not read raises
    `DamagedPartition` naming it: the merge of its group stops there."""
    with reading(path):
        try:
            return read_parquet(fs, path, columns)
        except FileNotFoundError:
            return None


def header_spans(catalog: str, group: str) -> list[Partition]:
    """The group's `releases` partitions the header pass wrote (ranges and compact spans;
    a growing range's tail parts wait for the range), oldest first."""
    fs, root = open_fs(catalog)
    return [p for p in list_group(fs, root, "releases", group) if not p.derived]


def _posted(fs: Any, part: Partition, column: str) -> np.ndarray:
    values = []
    for table_name in ("releases", "pending_releases"):
        path = part.path.replace("/releases/", f"/{table_name}/", 1)
        found = _read(fs, path, [column, "finished"])
        if found is not None and found.num_rows:
            done = found.filter(pc.equal(found["finished"], True))
            values.append(pc.fill_null(done[column], 0).to_numpy(zero_copy_only=False))
    return np.concatenate(values) if values else np.zeros(0, np.int64)


def frame_spans(
    catalog: str, group: str, batch: list[Partition], spans: list[Partition]
) -> list[Partition]:
    """The spans being merged and the earlier spans whose finished releases reach within
    the par2 window of their first (going back while a span still does)."""
    fs, _ = open_fs(catalog)
    posted = np.concatenate([_posted(fs, p, "posted_first") for p in batch])
    if not len(posted):
        return list(batch)
    cutoff = int(posted.min()) - PAR2_WINDOW
    out = list(batch)
    for p in reversed([s for s in spans if s.last < batch[0].first]):
        lasts = _posted(fs, p, "posted_last")
        if len(lasts) and int(lasts.max()) < cutoff:
            break
        out.append(p)
    return sorted(out)


def read_frame(
    catalog: str, group: str, batch: list[Partition], spans: Iterable[Partition],
    facts: ProbeFacts, absorbed: dict[bytes, bytes],
) -> Frame:  # fmt: skip
    """The releases a merge of the spans `batch` (consecutive, oldest first) may join
    (`absorbed`: earlier merges, from key to into key: what the article pass learned of
    an absorbed release is its whole's)."""
    targets = set(absorbed.values())
    fs, root = open_fs(catalog)
    within = frame_spans(catalog, group, batch, list(spans))
    lo, hi = within[0].first, batch[-1].last
    new_spans = {(p.first, p.last) for p in batch}

    def overlapping(table: str) -> list[Partition]:
        return [
            p for p in list_group(fs, root, table, group, stat=False)
            if p.first <= hi and lo <= p.last and not p.tail
        ]  # fmt: skip

    versions = [t for p in overlapping("releases") if (t := _read(fs, p.path)) is not None]
    new_keys: set[bytes] = set()
    own = [p.path for p in overlapping("releases") if (p.first, p.last) in new_spans]
    for path in own:
        t = _read(fs, path, ["release_key"])
        if t is not None:
            new_keys.update(t["release_key"].to_pylist())
    releases: dict[bytes, Release] = {}
    gone: set[bytes] = set()
    if versions:
        rows = pa.concat_tables(versions, promote_options="default")
        pick = newest_rows(rows)
        newest = rows.take(pa.array(pick))
        tomb = hidden(newest)
        light = newest.select([c for c in LIGHT if c in newest.column_names]).to_pylist()
        for i, (row, dead) in enumerate(zip(light, tomb.tolist(), strict=True)):
            if dead:
                gone.add(row["release_key"])
            elif row.get("finished"):
                key = row["release_key"]
                releases[key] = Release(key, row, False, key in new_keys, merged=key in targets,
                                        table=newest, index=i)  # fmt: skip
    for p in within:
        path = p.path.replace("/releases/", "/pending_releases/", 1)
        pending = _read(fs, path)
        if pending is None:
            continue
        is_new = (p.first, p.last) in new_spans
        light = pending.select([c for c in LIGHT if c in pending.column_names]).to_pylist()
        for i, row in enumerate(light):
            key = row["release_key"]
            if not row.get("finished") or key in gone:
                continue
            if key in releases:  # named by the article pass: its catalog version stands
                releases[key].pending = True
                continue
            releases[key] = Release(key, row, True, is_new, merged=key in targets,
                                    table=pending, index=i)  # fmt: skip
    files = overlapping("release_files")
    _add_files(fs, files, releases)
    sets = _add_probes(fs, root, within, releases, facts, absorbed)
    header = [p for p in files if not p.derived]
    return Frame(catalog, group, lo, hi, releases, gone, sets, header)


def _add_files(fs: Any, parts: list[Partition], releases: dict[bytes, Release]) -> None:
    """Each release's files: name, bytes, segments seen (summed over the versions' rows,
    in Arrow: most files have one row, and a Python loop per row cost more than the rest
    of the frame)."""
    keys = pa.array(list(releases), pa.binary(20))
    tables = []
    for p in parts:
        t = _read(fs, p.path, ["release_key", "name", "bytes", "part_total", "seg_numbers"])
        if t is None or not t.num_rows:
            continue
        t = t.filter(pc.is_in(t["release_key"], keys))
        n = pc.list_value_length(t["seg_numbers"])
        tables.append(t.drop_columns(["seg_numbers"]).append_column("n", n))
    if not tables:
        return
    rows = pa.concat_tables(tables)
    rows = rows.set_column(1, "name", pc.fill_null(rows["name"], ""))
    files = rows.group_by(["release_key", "name"], use_threads=False).aggregate(
        [("bytes", "sum"), ("n", "sum"), ("part_total", "max")]
    )
    for key, name, nbytes, n, total in zip(
        files["release_key"].to_pylist(), files["name"].to_pylist(),
        files["bytes_sum"].to_pylist(), files["n_sum"].to_pylist(),
        files["part_total_max"].to_pylist(), strict=True,
    ):  # fmt: skip
        releases[key].files[name] = FileFacts(int(nbytes or 0), int(n or 0), int(total or 0))


# candidates whose article is a file's first part: the ladder's step 2
FIRST_PART_KINDS = frozenset(("archive_first", "lone_random"))


def _add_probes(
    fs: Any, root: str, within: list[Partition], releases: dict[bytes, Release], facts: ProbeFacts,
    absorbed: dict[bytes, bytes],
) -> dict[bytes, Par2Facts]:  # fmt: skip
    """Per release the par2 sets its probed articles hold and its probed files' heads."""
    sets: dict[bytes, Par2Facts] = {}

    def learn(key: bytes, file_name: str, mid: str) -> None:
        rel = releases.get(key)
        if rel is None and key in absorbed:
            rel = releases.get(absorbed[key])
        if rel is None:
            return
        found = facts.par2.get(mid)
        if found is not None:
            rel.sets.add(found.set_id)
            known = sets.get(found.set_id)
            if known is None or len(found.names) > len(known.names):
                sets[found.set_id] = found
            return
        head = facts.heads.get(mid)
        if head is not None:
            rel.heads[file_name] = head

    for p in within:
        path = p.path.replace("/releases/", "/probe_candidates/", 1)
        cands = _read(fs, path, ["release_key", "kind", "file_name", "message_id"])
        if cands is None:
            continue
        stepped: set[bytes] = set()
        for key, kind, file_name, mid in zip(
            cands["release_key"].to_pylist(), cands["kind"].to_pylist(),
            cands["file_name"].to_pylist(), cands["message_id"].to_pylist(), strict=True,
        ):  # fmt: skip
            learn(key, file_name or "", mid)
            if kind in FIRST_PART_KINDS:
                stepped.add(key)
        # a pending release that climbed to step 2 with no first-part candidate had its
        # first file's first part read (`pipelines.probe.spans`): its id is in its file rows
        group = p.path.rsplit("/", 2)[-2]
        probes = _read(fs, partition_path(root, PROBES_TABLE, group, p.first, p.last),
                       ["release_key", "step"])  # fmt: skip
        if probes is None:
            continue
        climbed = probes.filter(pc.greater_equal(probes["step"], 2))["release_key"].to_pylist()
        rest = [k for k in climbed if k not in stepped and (k in releases or k in absorbed)]
        if rest:
            _first_parts(fs, p, rest, learn)
    return sets


def _first_parts(fs: Any, span: Partition, keys: list[bytes], learn: Any) -> None:
    path = span.path.replace("/releases/", "/release_files/", 1)
    files = _read(fs, path, ["release_key", "name", "seg_numbers", "seg_ids"])
    if files is None:
        return
    files = files.filter(pc.is_in(files["release_key"], pa.array(keys, pa.binary(20))))
    for key, name, numbers, ids in zip(
        files["release_key"].to_pylist(), files["name"].to_pylist(),
        files["seg_numbers"].to_pylist(), files["seg_ids"].to_pylist(), strict=True,
    ):  # fmt: skip
        if numbers and ids and numbers[0] == 1:
            learn(key, name or "", ids[0])
