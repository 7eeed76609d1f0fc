"""The window kernel's state between calls: its tables, grown, rebuilt and compacted.

`kernels.window` places runs into these tables; this class makes room before a call
(`ensure`), regrows the bitmap pool when the kernel stops for it, and drops the rows of
finished releases (`compact`). The window snapshot stores the tables as they are
(`pipelines.index.snapshot`, docs/CATALOG.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernels import window as wk


def table_size(n: int) -> int:
    """A hash table's size for n keys: a power of two, at most half full."""
    size = 64
    while size < 2 * n:
        size *= 2
    return size


def grown(table: np.ndarray, rows: int) -> np.ndarray:
    """The table with room for `rows` rows (doubling, so appends cost O(1) each)."""
    if rows <= len(table):
        return table
    out = np.zeros(max(rows, 2 * len(table)), table.dtype)
    out[: len(table)] = table
    return out


def _entries(n: int) -> np.ndarray:
    return np.zeros(n, wk.ENTRY)


# the capacities a compacted table gets (and a loaded one): rows kept, at least these
MIN_FILES, MIN_RELEASES, MIN_POOL = 1024, 256, 1 << 16


@dataclass
class WindowTables:
    """The kernel's state (`kernels.window.Tables`, field for field): file and release
    rows, part bitmaps, and the hash maps."""

    files: np.ndarray = field(default_factory=lambda: np.zeros(MIN_FILES, wk.FILE))
    releases: np.ndarray = field(default_factory=lambda: np.zeros(MIN_RELEASES, wk.RELEASE))
    pool: np.ndarray = field(default_factory=lambda: np.zeros(MIN_POOL, np.uint8))
    file_map: np.ndarray = field(default_factory=lambda: wk.file_map(64))
    ident_map: np.ndarray = field(default_factory=lambda: wk.chain_map(64))
    ident_entries: np.ndarray = field(default_factory=lambda: _entries(64))
    sibling_map: np.ndarray = field(default_factory=lambda: wk.chain_map(64))
    sibling_entries: np.ndarray = field(default_factory=lambda: _entries(64))
    pairs: np.ndarray = field(default_factory=lambda: wk.pair_set(64))
    counts: np.ndarray = field(default_factory=lambda: np.zeros(wk.COUNTERS, np.int64))

    @property
    def n_files(self) -> int:
        return int(self.counts[wk.N_FILES])

    @property
    def n_releases(self) -> int:
        return int(self.counts[wk.N_RELEASES])

    def kernel_tables(self) -> wk.Tables:
        """The tables as the kernel takes them (the same arrays)."""
        return wk.Tables(*(getattr(self, name) for name in wk.Tables._fields))

    def open_releases(self) -> np.ndarray:
        """The open releases, oldest first."""
        return np.flatnonzero(self.releases["state"][: self.n_releases] == wk.OPEN)

    def ensure(self, runs: int) -> None:
        """Room for `runs` more runs: each may add a file, a release, two chain entries,
        a key to each map and two pairs (its file key, its counter index)."""
        c = self.counts
        self.files = grown(self.files, self.n_files + runs)
        self.releases = grown(self.releases, self.n_releases + runs)
        if 2 * (c[wk.FILE_MAP_USED] + runs) > len(self.file_map):
            self._rebuild_file_map(
                np.arange(self.n_files, dtype=np.int64), int(c[wk.FILE_MAP_USED]) + runs
            )
        for name, used in (("ident", wk.IDENT_MAP_USED), ("sibling", wk.SIBLING_MAP_USED)):
            slots, entries = getattr(self, f"{name}_map"), getattr(self, f"{name}_entries")
            if 2 * (c[used] + runs) > len(slots) or c[used + 1] + runs > len(entries):
                live = self._live_releases()
                self._rebuild_chains(name, used, live, int(c[used]) + runs, int(c[used + 1]) + runs)
        if 2 * (c[wk.PAIRS_USED] + 2 * runs) > len(self.pairs):
            self._rebuild_pairs(self._live_releases(), int(c[wk.PAIRS_USED]) + 2 * runs)

    def grow_pool(self) -> None:
        pool = np.zeros(2 * len(self.pool), np.uint8)
        used = int(self.counts[wk.POOL_USED])
        pool[:used] = self.pool[:used]
        self.pool = pool

    def _live_releases(self) -> np.ndarray:
        """Old release number -> itself while open, -1 once done (its links are dropped)."""
        n = self.n_releases
        live = np.arange(n, dtype=np.int64)
        live[self.releases["state"][:n] != wk.OPEN] = -1
        return live

    def _rebuild_file_map(self, file_map: np.ndarray, keys: int) -> None:
        new = wk.file_map(table_size(keys))
        wk.rebuild_file_map(self.file_map, file_map, new, self.counts)
        self.file_map = new

    def _rebuild_chains(
        self, name: str, used: int, release_map: np.ndarray, keys: int, entries: int
    ) -> None:
        slots = wk.chain_map(table_size(keys))
        links = _entries(max(64, 2 * entries))
        old_slots, old_links = getattr(self, f"{name}_map"), getattr(self, f"{name}_entries")
        wk.rebuild_chains(old_slots, old_links, release_map, slots, links, self.counts, used)
        setattr(self, f"{name}_map", slots)
        setattr(self, f"{name}_entries", links)

    def _rebuild_pairs(self, release_map: np.ndarray, pairs: int) -> None:
        new = wk.pair_set(table_size(pairs))
        wk.rebuild_pairs(self.pairs, release_map, new, self.counts)
        self.pairs = new

    def compact(self) -> np.ndarray:
        """Drop finished releases and their files (between ranges); returns the kept
        files' old numbers, in order (their new numbers are their places)."""
        c = self.counts
        kept_releases = self.open_releases()
        release_map = np.full(self.n_releases, -1, np.int64)
        release_map[kept_releases] = np.arange(len(kept_releases))
        files = self.files[: self.n_files]
        kept_files = np.flatnonzero(release_map[files["release"]] >= 0).astype(np.int64)
        file_map = np.full(self.n_files, -1, np.int64)
        file_map[kept_files] = np.arange(len(kept_files))

        new_files = files[kept_files]
        new_files["release"] = release_map[new_files["release"]]
        nxt = new_files["next"]
        new_files["next"] = np.where(nxt >= 0, file_map[np.maximum(nxt, 0)], -1)
        pool = np.zeros(max(MIN_POOL, 2 * int(new_files["seen_cap"].sum())), np.uint8)
        new_files["seen_off"] = wk.copy_bitmaps(
            self.pool, pool, new_files["seen_off"].copy(), new_files["seen_cap"].copy()
        )
        c[wk.POOL_USED] = int(new_files["seen_cap"].sum())
        new_releases = self.releases[kept_releases]
        for end in ("first_file", "last_file"):
            ends = new_releases[end]
            new_releases[end] = np.where(ends >= 0, file_map[np.maximum(ends, 0)], -1)

        # sized for what the tables held (the kept part is at most that)
        self._rebuild_file_map(file_map, int(c[wk.FILE_MAP_USED]))
        for name, used in (("ident", wk.IDENT_MAP_USED), ("sibling", wk.SIBLING_MAP_USED)):
            self._rebuild_chains(name, used, release_map, int(c[used]), int(c[used + 1]))
        self._rebuild_pairs(release_map, int(c[wk.PAIRS_USED]))
        self.files = grown(new_files, MIN_FILES)
        self.releases = grown(new_releases, MIN_RELEASES)
        self.pool = pool
        c[wk.N_FILES] = len(kept_files)
        c[wk.N_RELEASES] = len(kept_releases)
        return kept_files
