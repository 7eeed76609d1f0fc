"""What the catalog knows of each live release, gathered for the rules (`rules.Facts`).

The inputs are the header pass's tables (`releases`, its named and merged versions
included, `pending_releases`, `probe_candidates`, `release_files`), the article pass's
(`release_probes`, the probe cache `_probes/results`), health's `release_health` and the
merges' `release_merges`. `load` reads the files it is given: a run gives it the files
of the groups and partitions that hold what it judges (`run.py`; every file on a run that
judges everything). A probed article reaches its release through the candidates and the
pending releases' probe ids; the probe cache is every group's, read once a process
(`_results`); the repeated rule counts a file's holders over the whole catalog, the
groups not read through the copies index (`store.COPIES_PATH`). The chunk store's file
names are read only for the releases judged, from the partitions whose spans hold them.

A release is *live* when its newest version is no tombstone (a merge or an album took it)
and, if pending, no named version of it exists.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from fsspec import AbstractFileSystem

from pipelines.catalog.changes import WrittenOnce
from pipelines.catalog.health import READ_ERRORS
from pipelines.catalog.newest import keys_of, newest_by
from pipelines.catalog.partitions import is_local, parse_name, stat_of
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import PROBE_RESULTS
from pipelines.catalog.versions import hidden, key_array, newest_rows
from pipelines.corpus.fs import is_temporary, open_fs
from pipelines.health.store import health_fold
from pipelines.judge import rules
from pipelines.judge.rules import Facts, Probed
from pipelines.judge.store import load_links, save_links
from pipelines.probe import inspection as ins
from pipelines.probe.cache import RESULTS
from pipelines.spots.sources import known_passwords

# the tables read whole, and the chunk store (read for the releases judged)
SMALL_TABLES = (
    "releases",
    "pending_releases",
    "probe_candidates",
    "release_probes",
    "release_health",
    "release_merges",
)
FILES_TABLE = "release_files"
INPUTS = (*SMALL_TABLES, FILES_TABLE, RESULTS)
GROUP_TABLES = (*SMALL_TABLES, FILES_TABLE)  # a folder a group

RELEASE_COLUMNS = [
    "release_key", "group", "name", "posted_last", "first_article", "last_article", "bytes",
    "readable", "finished", "written_range", "merged_into",
]  # fmt: skip
PENDING_COLUMNS = [
    "release_key", "group", "name", "posted_last", "first_article", "last_article", "bytes",
    "finished", "written_range", "probe_ids",
]  # fmt: skip


def listing(catalog: str, groups: Iterable[str] | None = None) -> dict[str, str]:
    """Every input file with its modification time (in text); `groups`: only those
    groups' files, and the probe cache's (every group's articles)."""
    fs, root = open_fs(catalog)
    out: dict[str, str] = {}
    if groups is None:
        for table in INPUTS:
            out.update(_files_under(fs, f"{root}/{table}"))
        return out
    for group in groups:
        for table in GROUP_TABLES:
            out.update(_files_under(fs, f"{root}/{table}/{group}"))
    out.update(_files_under(fs, f"{root}/{RESULTS}"))
    return out


def relative(catalog: str, inputs: dict[str, str]) -> dict[str, str]:
    """Each input file's path within the catalog."""
    _, root = open_fs(catalog)
    cut = len(root.rstrip("/")) + 1
    return {p: p[cut:] for p in inputs}


def keys_in(fs: AbstractFileSystem, path: str) -> list[bytes]:
    """The release keys a file holds (none when it cannot be read: told by `load`)."""
    try:
        return _keys(read_parquet(fs, path, ["release_key"])["release_key"])
    except (FileNotFoundError, *READ_ERRORS, KeyError):  # type: ignore[misc]
        return []


def group_of_path(relative_path: str) -> str | None:
    """The group folder an input file lies in (None: the probe cache's)."""
    if relative_path.startswith(RESULTS + "/"):
        return None
    parts = relative_path.split("/")
    return parts[1] if len(parts) > 2 else None


def catalog_groups(catalog: str) -> list[str]:
    """Every group folder of the judge's input tables."""
    fs, root = open_fs(catalog)
    found: set[str] = set()
    for table in GROUP_TABLES:
        try:
            found.update(str(p).rstrip("/").rsplit("/", 1)[-1]
                         for p in fs.ls(f"{root.rstrip('/')}/{table}", detail=False))  # fmt: skip
        except FileNotFoundError:
            continue
    return sorted(found)


def group_folders(catalog: str, group: str) -> list[str]:
    """The folders a group's inputs lie in: their stamp tells whether anything the judge
    reads of the group moved (`pipelines.catalog.changes`). The judge's own verdicts are
    left out: it knows what it wrote."""
    _, root = open_fs(catalog)
    return [f"{root.rstrip('/')}/{t}/{group}" for t in GROUP_TABLES]


def _files_under(fs: AbstractFileSystem, folder: str) -> dict[str, str]:
    """The Parquet files below a folder (any depth, temporary files left out)."""
    found: dict[str, str] = {}
    if is_local(fs):
        for dirpath, _, names in os.walk(folder):
            for name in names:
                if name.endswith(".parquet") and not is_temporary(name):
                    path = f"{dirpath}/{name}"
                    try:
                        found[path] = str(os.stat(path).st_mtime_ns)
                    except FileNotFoundError:
                        continue
        return found
    try:
        listed = fs.find(folder, detail=True)
    except FileNotFoundError:
        return found
    for path, info in listed.items():
        name = str(path).rsplit("/", 1)[-1]
        if name.endswith(".parquet") and not is_temporary(name):
            size, mtime = stat_of(info)
            # a file system without modification times (memory) stamps its creation
            found[str(path)] = f"{mtime if mtime != 'None' else info.get('created')}/{size}"
    return found


def table_of(path: str, root: str) -> str:
    rest = path[len(root.rstrip("/")) + 1 :]
    return RESULTS if rest.startswith(RESULTS + "/") else rest.split("/", 1)[0]


def _keys(col: pa.ChunkedArray | pa.Array) -> list[bytes]:
    return [k for k in col.to_pylist() if k is not None]


class Rows:
    """One row per key of a table, looked up by key; the Python rows are made only for the
    keys asked (`make`), at once: most of a catalog's rows are never looked at."""

    def __init__(self, table: pa.Table, key: str = "message_id") -> None:
        self.table = table
        self.key = key
        self._index: dict[Any, int] | None = None
        self._made: dict[Any, dict[str, Any] | None] = {}

    @property
    def keys(self) -> list[Any]:
        return list(self.table[self.key].to_pylist())

    def position(self, key: Any) -> int | None:
        if self._index is None:
            self._index = {k: i for i, k in enumerate(self.table[self.key].to_pylist())}
        return self._index.get(key)

    def __contains__(self, key: object) -> bool:
        return self.position(key) is not None

    def __len__(self) -> int:
        return int(self.table.num_rows)

    def make(self, keys: Iterable[Any]) -> None:
        want = [k for k in dict.fromkeys(keys) if k not in self._made]
        if not want:
            return
        where = self.positions(want).tolist()
        found = [(k, i) for k, i in zip(want, where, strict=True) if i >= 0]
        self._made.update(dict.fromkeys(want))  # not here: None, not looked for again
        if found:
            rows = self.table.take(pa.array([i for _, i in found])).to_pylist()
            self._made.update(zip((k for k, _ in found), rows, strict=True))

    def positions(self, keys: list[Any]) -> np.ndarray:
        """Each key's row (-1: not there)."""
        return np.array([-1 if (i := self.position(k)) is None else i for k in keys], np.int64)

    def get(self, key: Any) -> dict[str, Any] | None:
        if key not in self._made:
            self.make([key])
        return self._made[key]


class KeyRows(Rows):
    """Rows by release key, found by a binary search over the sorted keys: no Python
    object a release until one is asked for."""

    def __init__(self, table: pa.Table) -> None:
        super().__init__(table, "release_key")
        keys = keys_of(table) if table.num_rows else np.zeros(0, "S20")
        self._order = np.argsort(keys, kind="stable")
        self._sorted = keys[self._order]

    def positions(self, keys: list[bytes]) -> np.ndarray:
        """Each key's row (-1: not there)."""
        if not keys or not len(self._sorted):
            return np.full(len(keys), -1, dtype=np.int64)
        q = np.array(keys, dtype="S20")
        at = np.minimum(np.searchsorted(self._sorted, q), len(self._sorted) - 1)
        hit = self._sorted[at] == q
        return np.where(hit, self._order[at], -1)

    def position(self, key: Any) -> int | None:
        i = int(self.positions([key])[0])
        return None if i < 0 else i

    def having(self, keys: Iterable[bytes]) -> set[bytes]:
        """The keys that are here."""
        ks = list(keys)
        return {k for k, i in zip(ks, self.positions(ks).tolist(), strict=True) if i >= 0}


def _worst_password(a: int | None, b: int | None) -> int | None:
    """Of two releases' password attrs, the one a merged whole has: passworded (1) over an
    inner archive (2) over none (0) over unknown."""
    rank = {1: 3, 2: 2, 0: 1, None: 0}
    return a if rank.get(a, 0) >= rank.get(b, 0) else b


def _concat(parts: list[pa.Table]) -> pa.Table | None:
    return pa.concat_tables(parts, promote_options="default") if parts else None


LIVE = pa.schema(
    [("release_key", pa.binary(20)), ("group", pa.string()), ("name", pa.string()),
     ("posted_last", pa.int64()), ("first_article", pa.int64()), ("last_article", pa.int64()),
     ("bytes", pa.int64()), ("readable", pa.bool_()), ("pending", pa.bool_())]
)  # fmt: skip


def _live_part(t: pa.Table, pending: bool) -> pa.Table:
    n = t.num_rows
    cols = {name: t[name] for name in LIVE.names if name in t.column_names}
    cols["readable"] = pc.fill_null(cols.get("readable", pa.nulls(n, pa.bool_())), True)
    cols["pending"] = pa.array(np.full(n, pending))
    return pa.table([cols[f.name].cast(f.type) for f in LIVE], schema=LIVE)


_NO_KEYS = pa.table({"release_key": pa.array([], pa.binary(20))})
_NO_RESULTS = pa.table({"message_id": pa.array([], pa.string())})


@dataclass
class CatalogFacts:
    """The catalog's facts, and (when loaded with the changed files) the keys they touch."""

    live: KeyRows = field(default_factory=lambda: KeyRows(LIVE.empty_table()))
    gone: set[bytes] = field(default_factory=set)  # tombstoned keys
    gone_rows: pa.Table = field(default_factory=LIVE.empty_table)  # their newest rows
    links: dict[str, list[bytes]] = field(default_factory=dict)  # probed article -> releases
    probe_rows: KeyRows = field(default_factory=lambda: KeyRows(_NO_KEYS))
    health: KeyRows = field(default_factory=lambda: KeyRows(_NO_KEYS))
    merged_into: set[bytes] = field(default_factory=set)
    into_of: dict[bytes, bytes] = field(default_factory=dict)  # absorbed key -> its merge's
    results: Rows = field(default_factory=lambda: Rows(_NO_RESULTS))
    copies: dict[bytes, list[tuple[bytes, int]]] = field(default_factory=dict)
    holders: dict[tuple[bytes, int], set[bytes]] = field(default_factory=dict)
    files_paths: list[str] = field(default_factory=list)
    touched: set[bytes] = field(default_factory=set)  # keys the changed files hold
    damaged: list[str] = field(default_factory=list)
    _ids_of: dict[bytes, list[str]] = field(default_factory=dict)
    _plain: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    _absorbed: dict[bytes, list[bytes]] = field(default_factory=dict)  # into -> absorbed keys
    # passwords spots and imported NZBs name (pipelines.spots.sources): not locked
    known_passwords: dict[bytes, str] = field(default_factory=dict)

    def newest_posting(self) -> int | None:
        posted = self.live.table["posted_last"]
        top = pc.max(posted).as_py() if len(posted) else None
        return None if top is None else int(top)

    def posted_within(self, after: int, upto: int) -> list[bytes]:
        """The live releases whose last post lies in (after, upto]."""
        posted = pc.fill_null(self.live.table["posted_last"], 0).to_numpy(zero_copy_only=False)
        rows = np.flatnonzero((posted > after) & (posted <= upto))
        return list(self.live.table["release_key"].take(pa.array(rows)).to_pylist())

    def target(self, key: bytes) -> bytes:
        """The release a key went into, through merges of merges (itself if none)."""
        seen = {key}
        while key in self.into_of and self.into_of[key] not in seen:
            key = self.into_of[key]
            seen.add(key)
        return key

    def _probed_keys(self, key: bytes) -> list[bytes]:
        """The key and the keys merged into it: what the article pass read of a merged
        release was read under the releases it absorbed."""
        return [key, *self._absorbed.get(key, [])]

    def make(self, keys: Iterable[bytes]) -> None:
        """The Python rows of the releases about to be judged, made together."""
        keys = list(keys)
        for rows in (self.live, self.health):
            rows.make(keys)
        self.probe_rows.make(k for key in keys for k in self._probed_keys(key))
        self.results.make(m for k in keys for m in self._ids_of.get(k, []))

    def facts(self, key: bytes, files: list[str]) -> Facts:
        r = self.live.get(key)
        assert r is not None
        f = Facts(key, r["group"] or "", r["name"] or "", r["posted_last"] or 0, r["bytes"] or 0,
                  r["pending"], r["readable"])  # fmt: skip
        f.files = files
        h = self.health.get(key)
        if h is not None:
            f.health, f.health_at = h["verdict"], h["checked_at"] or 0
        for p in (self.probe_rows.get(k) for k in self._probed_keys(key)):
            if p is None:
                continue
            f.probes, f.missing = f.probes + (p["probes"] or 0), f.missing + (p["missing"] or 0)
            f.probed_at = max(f.probed_at, p["probed_at"] or 0)
            f.password = _worst_password(f.password, p["password"])
            f.password_text = f.password_text or p["password_text"]
            f.inner += [*(p["inner_names"] or []), p["nfo_title"] or "", p["name"] or ""]
        f.password_text = f.password_text or self.known_passwords.get(key)
        f.merged_into_it = key in self.merged_into
        for mid in self._ids_of.get(key, []):
            row = self.results.get(mid)
            if row is not None:
                f.probed.append(Probed(row["status"], row["kind"], row["yenc_name"], row["names"]))
        f.copies = [(h, s, len(self.holders.get((h, s), ()))) for h, s in self.copies.get(key, [])]
        return f

    def group_of(self, key: bytes) -> str:
        r = self.live.get(key)
        return (r["group"] or "") if r is not None else ""

    def spans_of(
        self, keys: Iterable[bytes], gone: bool = False
    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per group, the first and last articles of these live releases (`gone`: and of
        those a tombstone hides)."""
        wanted = list(keys)
        at = self.live.positions(wanted)
        t = self.live.table.take(pa.array(at[at >= 0]))
        if gone and self.gone_rows.num_rows:
            hid = self.gone_rows.filter(pc.is_in(self.gone_rows["release_key"],
                                                 pa.array(wanted, pa.binary(20))))  # fmt: skip
            t = pa.concat_tables([t, hid])
        out = {}
        for group in pc.unique(t["group"]).to_pylist():
            of = (
                t.filter(pc.equal(t["group"], group))
                if group is not None
                else t.filter(pc.is_null(t["group"]))
            )
            out[group or ""] = (
                pc.fill_null(of["first_article"], 0).to_numpy(zero_copy_only=False),
                pc.fill_null(of["last_article"], 0).to_numpy(zero_copy_only=False),
            )
        return out

    def plain(self, key: bytes) -> bool:
        """Nothing but the header pass's counters is known of it, and they name it: no rule
        can match (each needs health, a probe, a pending or unreadable name, or, for the
        fake rule, an executable's name among the files, which `file_names` gives)."""
        i = self.live.position(key)
        return i is not None and bool(self._plain[i])

    def plain_many(self, keys: list[bytes]) -> list[bool]:
        """`plain` of each key."""
        at = self.live.positions(keys)
        return [i >= 0 and bool(self._plain[i]) for i in at.tolist()]

    def index_links(self) -> None:
        """Per release, its probed articles; per (16 KiB hash, size), the releases; which
        releases nothing but their counters is known of."""
        self._absorbed = {}
        for frm in self.into_of:
            self._absorbed.setdefault(self.target(frm), []).append(frm)
        if self.into_of:  # an absorbed release's articles are its merge's too
            self.links = {mid: list(dict.fromkeys([*keys, *(self.target(k) for k in keys)]))
                          for mid, keys in self.links.items()}  # fmt: skip
        ids_of: dict[bytes, list[str]] = {}
        for mid, keys in self.links.items():
            if mid in self.results:
                for k in keys:
                    ids_of.setdefault(k, []).append(mid)
        self._ids_of = ids_of
        # only the results that show a content file's hash count copies, of the articles
        # linked to the releases read (not the whole cache)
        at = self.results.positions(list(self.links)) if self.links else np.zeros(0, np.int64)
        t = self.results.table.take(pa.array(np.sort(at[at >= 0])))
        if t.num_rows:
            shows = pc.or_(
                pc.and_(pc.equal(t["kind"], ins.PAR2), pc.is_valid(t["hashes"])),
                pc.is_valid(t["head_md5"]),
            )
            shown = {r["message_id"]: r for r in t.filter(pc.fill_null(shows, False)).to_pylist()}
        else:
            shown = {}
        for mid, row in shown.items():
            pairs = _copies_of(row)
            for key in self.links.get(mid, []):
                if pairs:
                    # kept for releases gone too: their families' counts moved
                    self.copies.setdefault(key, [])
                    self.copies[key] = sorted(set(self.copies[key]) | set(pairs))
                    if key in self.live:
                        for pair in pairs:
                            self.holders.setdefault(pair, set()).add(key)
        lt = self.live.table
        known = pa.concat_arrays(
            [self.health.table["release_key"].combine_chunks().cast(pa.binary(20)),
             self.probe_rows.table["release_key"].combine_chunks().cast(pa.binary(20)),
             pa.array(list(ids_of), pa.binary(20))]
        )  # fmt: skip
        told = pc.is_in(lt["release_key"], known).to_numpy(zero_copy_only=False)
        pending = lt["pending"].to_numpy(zero_copy_only=False)
        readable = lt["readable"].to_numpy(zero_copy_only=False)
        self._plain = ~told & ~pending & readable

    def add_holders(self, rows: pa.Table) -> None:
        """Holders of content files from the groups not read this run (the copies index)."""
        for h, size, key in zip(rows["hash"].to_pylist(), rows["size"].to_pylist(),
                                rows["release_key"].to_pylist(), strict=True):  # fmt: skip
            self.holders.setdefault((h, int(size)), set()).add(key)

    def holder_rows(self) -> list[tuple[bytes, int, bytes, str]]:
        """The copies index's rows of the live releases read this run."""
        out = []
        for (h, size), keys in self.holders.items():
            for key in keys:
                if key in self.live:
                    out.append((h, size, key, self.group_of(key)))
        return out

    def families(self, keys: Iterable[bytes]) -> set[bytes]:
        """Every live release sharing a content file with one of `keys` (live or gone)."""
        out: set[bytes] = set()
        for k in keys:
            for pair in self.copies.get(k, []):
                out |= self.holders.get(pair, set())
        return out


def _copies_of(row: dict[str, Any]) -> list[tuple[bytes, int]]:
    """The (16 KiB hash, size) of the content files a probed article shows: a par2 set's
    files, and the article's own file (`head_md5`)."""
    out = []
    if row["kind"] == ins.PAR2 and row["hashes"]:
        names, sizes, hashes = row["names"] or [], row["sizes"] or [], row["hashes"]
        for n, s, h in zip(names, sizes, hashes, strict=False):
            if h is not None and s is not None and rules.content_names([n or ""]):
                out.append((h, int(s)))
    head = row.get("head_md5")
    size = row["yenc_size"]
    if head is not None and size is not None and rules.content_names([row["yenc_name"] or ""]):
        out.append((head, int(size)))
    return out


RESULT_COLUMNS = ("message_id", "status", "kind", "yenc_name", "yenc_size", "names", "sizes",
                  "hashes", "head_md5")  # fmt: skip


def load(
    catalog: str, inputs: dict[str, str], changed: set[str], every_group: bool = True
) -> CatalogFacts:
    """The facts of every live release of the `inputs` files (`every_group`: they are
    every group's, not some groups' only); `touched`: the keys of the `changed` files.
    The probe cache's results are every group's: read through `_results`."""
    fs, root = open_fs(catalog)
    by_table: dict[str, list[str]] = {}
    for path in sorted(inputs):
        by_table.setdefault(table_of(path, root), []).append(path)
    c = CatalogFacts(known_passwords=known_passwords(catalog))
    c.files_paths = by_table.get(FILES_TABLE, [])

    def read(table: str, columns: list[str] | None = None) -> Iterable[tuple[str, pa.Table]]:
        for path in by_table.get(table, []):
            try:
                try:
                    yield path, read_parquet(fs, path, columns)
                except (*READ_ERRORS, KeyError):  # type: ignore[misc]
                    if columns is None:
                        raise
                    # an older file without a column: read whole, the column made null
                    yield path, read_parquet(fs, path)
            except FileNotFoundError:
                continue
            except (*READ_ERRORS, KeyError) as exc:  # type: ignore[misc]
                c.damaged.append(f"{path}: {type(exc).__name__}: {exc}")

    def touch(path: str, *cols: pa.ChunkedArray) -> None:
        if path in changed:
            for col in cols:
                c.touched.update(_keys(col))

    # releases: the newest version of each key; a tombstone hides it
    parts = []
    for path, t in read("releases", RELEASE_COLUMNS):
        t = _with_columns(t, RELEASE_COLUMNS)
        parts.append(t)
        touch(path, t["release_key"])
    live_parts = []
    named = pa.array([], pa.binary(20))
    rel = _concat(parts)
    if rel is not None:
        rel = rel.take(pa.array(newest_rows(rel)))
        tomb = pa.array(hidden(rel))
        c.gone.update(_keys(rel["release_key"].filter(tomb)))
        c.gone_rows = _live_part(rel.filter(tomb), pending=False)
        named = rel["release_key"].combine_chunks()
        live_parts.append(_live_part(rel.filter(pc.invert(tomb)), pending=False))
    parts = []
    for path, t in read("pending_releases", PENDING_COLUMNS):
        parts.append(t)
        touch(path, t["release_key"])
    pend = _concat(parts)
    if pend is not None:
        pend = pend.take(pa.array(newest_rows(pend)))
        keys = pend["release_key"]
        for k, ids in zip(keys.to_pylist(), pend["probe_ids"].to_pylist(), strict=True):
            for mid in ids or []:
                c.links.setdefault(mid, []).append(k)
        # a pending key with a releases row was named (or taken by a merge)
        live_parts.append(_live_part(pend.filter(pc.invert(pc.is_in(keys, named))), True))
    if live_parts:
        c.live = KeyRows(pa.concat_tables(live_parts))
    for path, t in read("probe_candidates", ["release_key", "message_id"]):
        for k, mid in zip(t["release_key"].to_pylist(), t["message_id"].to_pylist(), strict=True):
            c.links.setdefault(mid, []).append(k)
        touch(path, t["release_key"])
    parts = []
    for path, t in read("release_probes"):
        parts.append(t)
        touch(path, t["release_key"])
    probes = _concat(parts)
    if probes is not None:
        c.probe_rows = KeyRows(newest_by(probes, "probed_at"))
    # the checks: a changed batch touches its releases; the current health of the
    # releases read comes from each group's fold (its batches read once a process)
    for path in by_table.get("release_health", []):
        if path in changed:
            c.touched.update(keys_in(fs, path))
    c.health = KeyRows(_health_of(catalog, c))
    for path, t in read("release_merges", ["from_key", "into_key"]):
        c.merged_into.update(_keys(t["into_key"]))
        for frm, into in zip(t["from_key"].to_pylist(), t["into_key"].to_pylist(), strict=True):
            if frm is not None and into is not None and frm != into:
                c.into_of[frm] = into
        touch(path, t["into_key"], t["from_key"])
    fresh: set[str] = set()  # articles of the changed batches
    for path in by_table.get(RESULTS, []):
        if path in changed:
            try:
                fresh.update(read_parquet(fs, path, ["message_id"])["message_id"].to_pylist())
            except (FileNotFoundError, *READ_ERRORS, KeyError):  # type: ignore[misc]
                continue  # a damaged batch is told by `_results`
    _results(fs, root, c)
    # where new probe results come from: the spans the article pass (or a merge, or the
    # header pass) wrote since the last run
    spans: dict[str, list[tuple[int, int]]] = {}
    for path in changed:
        name = parse_name(path.rsplit("/", 1)[-1])
        if name is not None and table_of(path, root) != RESULTS:
            spans.setdefault(path.rsplit("/", 2)[-2], []).append((name.first, name.last))
    _link_by_files(catalog, c, spans, None if every_group else fresh)
    for mid in fresh:
        c.touched.update(c.links.get(mid, []))
    c.index_links()
    return c


def _health_of(catalog: str, c: CatalogFacts) -> pa.Table:
    """The current health of the live releases loaded, group by group."""
    live = c.live.table
    parts = []
    for group in pc.unique(live["group"]).to_pylist():
        if group is None:
            continue
        fold = health_fold(catalog, group, verdicts_only=True)
        c.damaged += fold.damaged
        mine = live.filter(pc.equal(live["group"], group))["release_key"]
        parts.append(fold.rows_of(key_array(mine)))
    return pa.concat_tables(parts) if parts else _NO_KEYS


# per probe cache folder, in this process: its results (the first per article) and their
# index by article; `WrittenOnce` gives the batches not read yet, so a run reads the new
# ones only (a new process: every batch once)
_RESULTS: dict[str, tuple[pa.Table, dict[Any, int]]] = {}


def _results(fs: AbstractFileSystem, root: str, c: CatalogFacts) -> None:
    """The probe cache's results into `c.results`, as the cache's rule has them: the
    first result for an article stands, batches in name order."""
    folder = f"{root.rstrip('/')}/{RESULTS}"
    once = WrittenOnce(fs, folder, "judge-results")
    names, reset = once.new()
    table, index = _RESULTS.get(folder, (None, {})) if not reset else (None, {})
    parts = []
    for name in names:
        path = f"{folder}/{name}"
        try:
            try:
                t = read_parquet(fs, path, list(RESULT_COLUMNS))
            except (*READ_ERRORS, KeyError):  # type: ignore[misc]
                t = read_parquet(fs, path)  # an older file without a column
        except FileNotFoundError:
            continue
        except (*READ_ERRORS, KeyError) as exc:  # type: ignore[misc]
            c.damaged.append(f"{path}: {type(exc).__name__}: {exc}")
            continue
        once.taken(name)
        parts.append(_with_columns(t, list(RESULT_COLUMNS)))
    if parts:
        new = _first_by(pa.concat_tables(parts), "message_id")
        ids = new["message_id"].to_pylist()
        keep = np.array([m not in index for m in ids], dtype=bool)
        new = new.filter(pa.array(keep))
        at = 0 if table is None else table.num_rows
        for i, m in enumerate(new["message_id"].to_pylist()):
            index[m] = at + i
        table = new if table is None else pa.concat_tables([table, new])
    if table is None:
        table = PROBE_RESULTS.empty_table().select(list(RESULT_COLUMNS))
    if once.local:
        _RESULTS[folder] = (table, index)
    c.results = Rows(table)
    c.results._index = index


def results_of(catalog: str) -> Rows:
    """The probe cache's results as the judge reads them (the batches this process has
    not read yet, read now)."""
    fs, root = open_fs(catalog)
    c = CatalogFacts()
    _results(fs, root, c)
    return c.results


def _first_by(t: pa.Table, key: str) -> pa.Table:
    """The first row of each key."""
    keys = np.array(t[key].to_pylist(), dtype=object)
    _, first = np.unique(keys.astype(str), return_index=True)
    return t.take(pa.array(np.sort(first)))


def _link_by_files(
    catalog: str,
    c: CatalogFacts,
    spans: dict[str, list[tuple[int, int]]],
    fresh: set[str] | None = None,
) -> None:
    """Link the probed articles no candidate or pending release names (another pass read
    a file's first article: a merge's 16 KiB hash, say) to their releases, through the
    chunk store: the release whose file's first segment it is.

    The chunk store's message-ids are most of its bytes, so what was found is kept
    (`store.LINKS_PATH`; articles found nowhere with a null key), and only the chunk store
    partitions within the spans written since the last run (`spans`, per group) are read
    for the articles not linked yet: an article is read after its range was written, and
    by a pass that writes the span's rows. With no links kept yet, every partition is.

    A run that reads some groups only (`fresh`: the articles of the batches new since the
    last run) looks for the new articles and those looked for before and not found: an
    older article no candidate of these groups names is another group's."""
    known = load_links(catalog)
    if fresh is None:
        unlinked = [m for m in c.results.keys if m not in c.links]
    else:
        unlinked = [m for m in fresh | {m for m, k in known.items() if k is None}
                    if m in c.results and m not in c.links]  # fmt: skip
        for m, key in known.items():
            if key is not None and m not in c.links and m in c.results:
                c.links[m] = [key]
    for m in unlinked:
        key = known.get(m)
        if key is not None:
            c.links[m] = [key]
    wanted = {m for m in unlinked if known.get(m) is None}
    if not wanted:
        return
    if not known:
        scan = list(c.files_paths)
    else:
        scan = []
        for path in c.files_paths:
            span = parse_name(path.rsplit("/", 1)[-1])
            group = path.rsplit("/", 2)[-2]
            if span is None or any(
                a <= span.last and span.first <= b for a, b in spans.get(group, [])
            ):
                scan.append(path)
    fs, _ = open_fs(catalog)
    ids = pa.array(sorted(wanted), pa.string())
    for path in scan:
        try:
            t = read_parquet(fs, path, ["release_key", "seg_ids"])
        except FileNotFoundError:
            continue
        except READ_ERRORS as exc:
            c.damaged.append(f"{path}: {type(exc).__name__}: {exc}")
            continue
        first = pc.list_element(pc.fill_null(t["seg_ids"], pa.scalar([""], t["seg_ids"].type)), 0)
        hit = pc.is_in(first, ids)
        for k, m in zip(t["release_key"].filter(hit).to_pylist(), first.filter(hit).to_pylist(),
                        strict=True):  # fmt: skip
            c.links.setdefault(m, []).append(k)
            known[m] = k
    fresh = {m for m in wanted if m not in known}
    for m in fresh:
        known[m] = None
    if scan or fresh:
        save_links(catalog, known)


def _with_columns(t: pa.Table, columns: list[str]) -> pa.Table:
    """The named columns, a missing one as nulls (an older file without it)."""
    cols = []
    for name in columns:
        cols.append(t[name] if name in t.column_names else pa.nulls(t.num_rows, _TYPES[name]))
    return pa.table(cols, names=columns)


_TYPES = {"merged_into": pa.binary(20), "head_md5": pa.binary(16)}


def file_names(
    catalog: str, c: CatalogFacts, keys: set[bytes], every: bool
) -> dict[bytes, list[str]]:
    """The file names of those `keys` with an executable-named file (the others' names
    cannot make them fake), from the chunk store's partitions that may hold them
    (`every`: all of them). A changed chunk store partition needs no reading for its own
    sake: whoever writes file rows writes the releases rows beside them.

    Two passes: the releases with an executable's name (a regex over the name column),
    then all the names of those few, from the partitions their spans reach (a release
    written over two ranges has files in both)."""
    fs, _ = open_fs(catalog)
    exe = "(?i)(" + "|".join(re.escape(x) for x in rules.EXE_SUFFIXES) + ")$"
    holders: set[bytes] = set()
    for path in c.files_paths if every else _reaching(c, keys):
        t = _read_names(fs, c, path)
        if t is not None:
            hit = pc.fill_null(pc.match_substring_regex(t["name"], exe), False)
            holders.update(pc.unique(t["release_key"].filter(hit)).to_pylist())
    holders &= keys
    out: dict[bytes, list[str]] = {}
    if not holders:
        return out
    wanted = pa.array(list(holders), pa.binary(20))
    for path in _reaching(c, holders):
        t = _read_names(fs, c, path)
        if t is None:
            continue
        t = t.filter(pc.is_in(t["release_key"], wanted))
        for k, n in zip(t["release_key"].to_pylist(), t["name"].to_pylist(), strict=True):
            out.setdefault(k, []).append(n or "")
    return out


def _read_names(fs: AbstractFileSystem, c: CatalogFacts, path: str) -> pa.Table | None:
    try:
        return read_parquet(fs, path, ["release_key", "name"])
    except FileNotFoundError:
        return None
    except READ_ERRORS as exc:
        c.damaged.append(f"{path}: {type(exc).__name__}: {exc}")
        return None


def _reaching(c: CatalogFacts, keys: Iterable[bytes]) -> list[str]:
    """The chunk store partitions whose spans reach the articles of these releases (a
    partition of a name that says no span: always)."""
    spans = c.spans_of(keys)
    out = []
    for path in c.files_paths:
        group = path.rsplit("/", 2)[-2]
        span = parse_name(path.rsplit("/", 1)[-1])
        if span is None:
            out.append(path)
        elif group in spans:
            firsts, lasts = spans[group]
            if np.any((firsts <= span.last) & (lasts >= span.first)):
                out.append(path)
    return out
