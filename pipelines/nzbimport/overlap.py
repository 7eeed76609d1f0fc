"""The releases the catalog already holds that share an NZB's message-ids.

An NZB of an upload the header pass indexed (or an NZB imported before under another
file name) names the same articles: it links to that release instead of adding one. The
search is bounded by time, not by the catalog: in each of the NZB's groups, only the
`releases` partitions whose row groups' posting dates (Parquet statistics, read from
footers kept for the run) reach within `MARGIN` of the NZB's. Of those, the releases of
the NZB's posters (their From headers, as the NZB states them), and of their files only
the `release_files` row groups whose key bounds can hold them: the overview's poster is
what the header pass's release identity is mixed with, so another poster's release is
another upload. An NZB without posters reads the spans' partitions' message-ids whole.
What a run read is kept for the rest of the run (a batch of NZBs of one week reads that
week once).
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Iterable

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec import AbstractFileSystem

from pipelines.catalog.partitions import Partition, list_group
from pipelines.catalog.reader import read_parquet

# how far an NZB's file dates may be from the release's posting dates: an NZB's date is
# its first segment's, a release's spans its parts (and dates of an NZB may be set by the
# tool that wrote it)
MARGIN = 2 * 86400
# release_files partitions whose message-ids a run keeps (~50 MB each for a 2 M-line range)
KEPT_PARTITIONS = 16


class _Dates:
    """A `releases` partition's posting dates per row group (min first, max last)."""

    def __init__(self, fs: AbstractFileSystem, path: str) -> None:
        meta = pq.ParquetFile(fs.open(path, "rb")).metadata
        names = meta.schema.to_arrow_schema().names
        first, last = names.index("posted_first"), names.index("posted_last")
        self.spans: list[tuple[int, int] | None] = []
        for g in range(meta.num_row_groups):
            a = meta.row_group(g).column(first).statistics
            b = meta.row_group(g).column(last).statistics
            ok = a is not None and b is not None and a.has_min_max and b.has_min_max
            self.spans.append((int(a.min), int(b.max)) if ok else None)

    def reaches(self, lo: int, hi: int) -> bool:
        # a row group without statistics may hold anything
        return any(s is None or (s[0] <= hi and s[1] >= lo) for s in self.spans)


class _Ids:
    """A `release_files` partition's message-ids, sorted, with each one's release key."""

    def __init__(self, fs: AbstractFileSystem, path: str) -> None:
        t = read_parquet(fs, path, ["release_key", "seg_ids"])
        flat = pc.list_flatten(t["seg_ids"])
        owner = pc.list_parent_indices(t["seg_ids"])
        order = pc.sort_indices(flat)
        self.ids = pc.take(flat, order).to_numpy(zero_copy_only=False).astype(object)
        self.rows = pc.take(owner, order).to_numpy()
        self.keys = t["release_key"].to_pylist()

    def holders(self, ids: np.ndarray) -> Iterable[bytes]:
        """The release key of each of these message-ids found here."""
        at = np.searchsorted(self.ids, ids)
        at[at >= len(self.ids)] = 0
        found = self.ids[at] == ids if len(self.ids) else np.zeros(len(ids), bool)
        return (self.keys[int(r)] for r in self.rows[at[found]])


class _Posters:
    """A `releases` partition's releases by poster: (key, posted first, posted last)."""

    def __init__(self, fs: AbstractFileSystem, path: str) -> None:
        t = read_parquet(fs, path, ["release_key", "poster", "posted_first", "posted_last"])
        self.by_poster: dict[str, list[tuple[bytes, int, int]]] = {}
        rows = zip(*(t[c].to_pylist() for c in t.column_names), strict=True)
        for key, poster, first, last in rows:
            self.by_poster.setdefault(poster or "", []).append((key, first or 0, last or 0))

    def keys(self, posters: set[str], lo: int, hi: int) -> set[bytes]:
        return {k for p in posters for k, a, b in self.by_poster.get(p, []) if a <= hi and b >= lo}


class _RowGroups:
    """A `release_files` partition's row groups by their release keys' bounds: the rows of
    some keys read from the row groups that can hold them only (rows are sorted by key)."""

    def __init__(self, fs: AbstractFileSystem, path: str) -> None:
        self.fs, self.path = fs, path
        meta = pq.ParquetFile(fs.open(path, "rb")).metadata
        column = meta.schema.to_arrow_schema().names.index("release_key")
        self.bounds: list[tuple[bytes, bytes] | None] = []
        for g in range(meta.num_row_groups):
            st = meta.row_group(g).column(column).statistics
            ok = st is not None and st.has_min_max
            self.bounds.append((st.min, st.max) if ok else None)

    def seg_ids(self, keys: set[bytes]) -> list[tuple[bytes, list[str]]]:
        groups = [
            g for g, b in enumerate(self.bounds)
            if b is None or any(b[0] <= k <= b[1] for k in keys)
        ]  # fmt: skip
        if not groups:
            return []
        with self.fs.open(self.path, "rb") as fh:
            t = pq.ParquetFile(fh).read_row_groups(groups, columns=["release_key", "seg_ids"])
        out = []
        for key, ids in zip(t["release_key"].to_pylist(), t["seg_ids"].to_pylist(), strict=True):
            if key in keys:
                out.append((key, ids))
        return out


class Overlap:
    """Finds, for one run, the releases holding an NZB's message-ids."""

    def __init__(self, fs: AbstractFileSystem, root: str) -> None:
        self.fs = fs
        self.root = root
        self._dates: dict[str, _Dates] = {}
        self._ids: OrderedDict[str, _Ids] = OrderedDict()
        self._listed: dict[tuple[str, str], list[Partition]] = {}
        self._posters: dict[str, _Posters] = {}
        self._row_groups: dict[str, _RowGroups] = {}
        self.partitions_read = 0

    def forget(self, group: str) -> None:
        """The group's partitions changed (this run wrote some): list them again."""
        for table in ("releases", "release_files"):
            self._listed.pop((table, group), None)

    def holders(
        self, ids: list[str], groups: list[str], first_date: int, last_date: int,
        posters: set[str] | None = None,
    ) -> Counter[bytes]:  # fmt: skip
        """Per release key, how many of these message-ids its files hold. With `posters`
        (the NZB's), only those posters' releases are looked at: their file rows read
        from the row groups that hold them, not whole partitions."""
        if posters:
            return self._by_poster(set(ids), groups, first_date - MARGIN, last_date + MARGIN,
                                   posters)  # fmt: skip
        wanted = np.array(sorted(set(ids)), dtype=object)
        found: Counter[bytes] = Counter()
        lo, hi = first_date - MARGIN, last_date + MARGIN
        for group in groups:
            spans = [
                (p.first, p.last)
                for p in self._list("releases", group)
                if self._dates_of(p.path).reaches(lo, hi)
            ]
            for p in self._list("release_files", group):
                if any(p.first <= b and a <= p.last for a, b in spans):
                    found.update(self._ids_of(p.path).holders(wanted))
        return found

    def _by_poster(
        self, ids: set[str], groups: list[str], lo: int, hi: int, posters: set[str]
    ) -> Counter[bytes]:
        found: Counter[bytes] = Counter()
        for group in groups:
            spans: list[tuple[int, int]] = []
            keys: set[bytes] = set()
            for p in self._list("releases", group):
                if not self._dates_of(p.path).reaches(lo, hi):
                    continue
                mine = self._posters_of(p.path).keys(posters, lo, hi)
                if mine:
                    keys |= mine
                    spans.append((p.first, p.last))
            if not keys:
                continue
            for p in self._list("release_files", group):
                if any(p.first <= b and a <= p.last for a, b in spans):
                    for key, seg_ids in self._row_groups_of(p.path).seg_ids(keys):
                        shared = len(ids.intersection(seg_ids))
                        if shared:
                            found[key] += shared
        return found

    def _posters_of(self, path: str) -> _Posters:
        if path not in self._posters:
            self._posters[path] = _Posters(self.fs, path)
        return self._posters[path]

    def _row_groups_of(self, path: str) -> _RowGroups:
        if path not in self._row_groups:
            self._row_groups[path] = _RowGroups(self.fs, path)
            self.partitions_read += 1
        return self._row_groups[path]

    def _list(self, table: str, group: str) -> list[Partition]:
        key = (table, group)
        if key not in self._listed:
            self._listed[key] = list_group(self.fs, self.root, table, group, stat=False)
        return self._listed[key]

    def _dates_of(self, path: str) -> _Dates:
        if path not in self._dates:
            self._dates[path] = _Dates(self.fs, path)
        return self._dates[path]

    def _ids_of(self, path: str) -> _Ids:
        if path in self._ids:
            self._ids.move_to_end(path)
            return self._ids[path]
        ids = self._ids[path] = _Ids(self.fs, path)
        self.partitions_read += 1
        if len(self._ids) > KEPT_PARTITIONS:
            self._ids.popitem(last=False)
        return ids
