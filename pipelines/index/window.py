"""The carried window: a group's open files and releases, in article order.

Segments come in one chunk at a time (a SegmentBatch of file runs). A run joins the
open file of its key unless it was posted more than the upload gap after that file; a
new file joins the open release of its identity under the same test, else starts one.
A release is finished once the frontier is `window` seconds past its last part; at the
end of a range the releases still open are handed out provisional and stay open here,
so the group's next range finishes the same release (same key).

The placing runs in `kernels.window` over tables (`WindowTables`); this module keeps
what the tables cannot: each file's texts, its segments as rows of the range's
batches, the albums and the batch counters. A release becomes objects (OpenRelease,
OpenFile) only when it is handed out. What was handed out is not kept: across ranges
the window holds counters and names, and segment lists only for single files that may
still join an album.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernels import window as wk
from kernels.frontier import FrontierState
from kernels.siblings import sibling_keys
from pipelines.index.albums import (
    Albums,
    OpenFile,
    OpenRelease,
    Piece,
    album_key,
    count_batch,
    is_batch_total,
    keep_copies,
)
from pipelines.index.batch import SOURCE_SUBJECT, SegmentBatch
from pipelines.index.rules import Rules

__all__ = ["OpenFile", "OpenRelease", "Piece", "Window", "WindowTables"]

# compact within a range once the tables hold this many files, three quarters handed out
COMPACT_FILES = 1 << 16


def _table_size(n: int) -> int:
    """A hash table's size for n keys: a power of two, at most half full."""
    size = 64
    while size < 2 * n:
        size *= 2
    return size


@dataclass
class WindowTables:
    """The kernel's state: file and release rows, part bitmaps, and the hash tables."""

    files: np.ndarray = field(default_factory=lambda: np.zeros(1024, wk.FILE))
    releases: np.ndarray = field(default_factory=lambda: np.zeros(256, wk.RELEASE))
    pool: np.ndarray = field(default_factory=lambda: np.zeros(1 << 16, np.uint8))
    file_keys: np.ndarray = field(default_factory=lambda: np.zeros(64, np.uint64))
    file_values: np.ndarray = field(default_factory=lambda: np.full(64, wk.EMPTY, np.int64))
    ident: tuple[np.ndarray, ...] = field(default_factory=lambda: _chain_map(64, 64))
    sibling: tuple[np.ndarray, ...] = field(default_factory=lambda: _chain_map(64, 64))
    pair_release: np.ndarray = field(default_factory=lambda: np.full(64, wk.EMPTY, np.int64))
    pair_key: np.ndarray = field(default_factory=lambda: np.zeros(64, np.uint64))
    counts: np.ndarray = field(default_factory=lambda: np.zeros(wk.COUNTERS, np.int64))

    @property
    def n_files(self) -> int:
        return int(self.counts[wk.N_FILES])

    @property
    def n_releases(self) -> int:
        return int(self.counts[wk.N_RELEASES])

    def open_releases(self) -> np.ndarray:
        """The open releases, oldest first."""
        return np.flatnonzero(self.releases["state"][: self.n_releases] == wk.OPEN)

    def ensure(self, runs: int) -> None:
        """Room for `runs` more runs: each may add a file, a release, two chain entries,
        a key to each map and a pair."""
        c = self.counts
        self.files = _grown(self.files, self.n_files + runs)
        self.releases = _grown(self.releases, self.n_releases + runs)
        if 2 * (c[wk.FILE_MAP_USED] + runs) > len(self.file_keys):
            self._rebuild_file_map(
                np.arange(self.n_files, dtype=np.int64), int(c[wk.FILE_MAP_USED]) + runs
            )
        for name, used in (("ident", wk.IDENT_MAP_USED), ("sibling", wk.SIBLING_MAP_USED)):
            keys, _, _, entries = getattr(self, name)
            if 2 * (c[used] + runs) > len(keys) or c[used + 1] + runs > len(entries):
                live = self._live_releases()
                self._rebuild_chains(name, used, live, int(c[used]) + runs, int(c[used + 1]) + runs)
        if 2 * (c[wk.PAIRS_USED] + runs) > len(self.pair_key):
            self._rebuild_pairs(self._live_releases(), int(c[wk.PAIRS_USED]) + runs)

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
        size = _table_size(keys)
        new_keys = np.zeros(size, np.uint64)
        new_values = np.full(size, wk.EMPTY, np.int64)
        wk.rebuild_file_map(
            self.file_keys, self.file_values, file_map, new_keys, new_values, self.counts
        )
        self.file_keys, self.file_values = new_keys, new_values

    def _rebuild_chains(
        self, name: str, used: int, release_map: np.ndarray, keys: int, entries: int
    ) -> None:
        old_keys, old_heads, _, old_entries = getattr(self, name)
        new = _chain_map(_table_size(keys), max(64, 2 * entries))
        wk.rebuild_chains(old_keys, old_heads, old_entries, release_map, *new, self.counts, used)
        setattr(self, name, new)

    def _rebuild_pairs(self, release_map: np.ndarray, pairs: int) -> None:
        size = _table_size(pairs)
        new_release = np.full(size, wk.EMPTY, np.int64)
        new_key = np.zeros(size, np.uint64)
        wk.rebuild_pairs(
            self.pair_release, self.pair_key, release_map, new_release, new_key, self.counts
        )
        self.pair_release, self.pair_key = new_release, new_key

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
        pool = np.zeros(max(1 << 16, 2 * int(new_files["seen_cap"].sum())), np.uint8)
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
        self.files = _grown(new_files, 1024)
        self.releases = _grown(new_releases, 256)
        self.pool = pool
        c[wk.N_FILES] = len(kept_files)
        c[wk.N_RELEASES] = len(kept_releases)
        return kept_files


def _chain_map(size: int, entries: int) -> tuple[np.ndarray, ...]:
    return (
        np.zeros(size, np.uint64),
        np.full(size, wk.EMPTY, np.int64),
        np.full(size, wk.EMPTY, np.int64),
        np.zeros(entries, wk.ENTRY),
    )


def _grown(table: np.ndarray, rows: int) -> np.ndarray:
    """The table with room for `rows` rows (doubling, so appends cost O(1) each)."""
    if rows <= len(table):
        return table
    grown = np.zeros(max(rows, 2 * len(table)), table.dtype)
    grown[: len(table)] = table
    return grown


@dataclass
class _Placed:
    """A batch the range placed: which file each run went into, which rows were new."""

    batch: SegmentBatch
    seq: int
    run_file: np.ndarray
    run_all: np.ndarray
    keep: np.ndarray
    left: int  # runs whose file is not handed out yet


@dataclass
class Window:
    rules: Rules
    frontier: FrontierState = field(default_factory=FrontierState)
    tables: WindowTables = field(default_factory=WindowTables)
    # per file number: the texts of the run that started it (None once handed out)
    subject: list[bytes | None] = field(default_factory=list)
    poster: list[bytes | None] = field(default_factory=list)
    name: list[bytes | None] = field(default_factory=list)
    xref: list[bytes | None] = field(default_factory=list)
    # the message-ids of part 1 and of the top part, of files carried from a range before
    part_ids: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)
    carried: dict[int, list[Piece]] = field(default_factory=dict)  # per file number
    albums: Albums = field(default_factory=Albums)
    batch_uploads: dict[tuple[int, int], set[int]] = field(default_factory=dict)
    position: int = 0  # the last article read
    batches: int = 0  # batches placed, ever (a batch's number in the file rows)
    placed: list[_Placed] = field(default_factory=list)  # this range's, while needed
    range_batches: dict[int, SegmentBatch] = field(default_factory=dict)  # this range's

    # -- reading ---------------------------------------------------------------------

    def add(self, batch: SegmentBatch) -> None:
        """Place a batch's runs (one kernel call; again from where it stopped whenever the
        part bitmaps' pool fills), then keep the new files' texts and count the totals
        that new releases announced."""
        runs = batch.runs
        t = self.tables
        t.ensure(runs)
        starts = batch.bounds[:-1]
        key = batch.file_key[starts]
        ident = batch.ident[starts]
        poster_key = batch.poster_key[starts]
        source = batch.source[starts]
        file_index = batch.file_index[starts]
        file_total = batch.file_total[starts]
        sibling, has_sibling, _ = sibling_keys(
            batch.run_subject, poster_key, file_index, file_total, source == SOURCE_SUBJECT
        )
        keep = np.zeros(len(batch.number), np.bool_)
        run_file = np.full(runs, -1, np.int64)
        run_all = np.zeros(runs, np.bool_)
        run_new_file = np.zeros(runs, np.bool_)
        run_new_release = np.zeros(runs, np.bool_)
        files_before = t.n_files
        seq = self.batches
        self.batches += 1
        self.range_batches[seq] = batch
        done = 0
        while True:
            ident_map, sibling_map = t.ident, t.sibling
            done = wk.place_runs(
                t.files,
                t.releases,
                t.pool,
                t.file_keys,
                t.file_values,
                ident_map[0],
                ident_map[1],
                ident_map[2],
                sibling_map[0],
                sibling_map[1],
                sibling_map[2],
                ident_map[3],
                sibling_map[3],
                t.pair_release,
                t.pair_key,
                t.counts,
                batch.bounds,
                batch.number,
                batch.nbytes,
                key,
                ident,
                poster_key,
                source,
                file_index,
                file_total,
                batch.part_total[starts],
                batch.ext_class[starts],
                batch.volume[starts],
                batch.random_name[starts],
                batch.run_first_date,
                batch.run_last_date,
                batch.run_first_article,
                batch.run_last_article,
                sibling,
                has_sibling,
                seq,
                self.rules.upload_gap,
                done,
                keep,
                run_file,
                run_all,
                run_new_file,
                run_new_release,
            )
            if done == runs:
                break
            t.grow_pool()
        new = np.flatnonzero(run_new_file)
        assert t.n_files == files_before + len(new)
        for texts, column in (
            (self.subject, batch.run_subject),
            (self.poster, batch.run_poster),
            (self.name, batch.run_name),
            (self.xref, batch.run_xref),
        ):
            texts.extend([column[r] for r in new.tolist()])
        counted = np.flatnonzero(run_new_release & (file_total >= self.rules.batch_total_min))
        for r in counted.tolist():
            count_batch(
                self.batch_uploads,
                self.rules,
                int(poster_key[r]),
                int(file_total[r]),
                int(ident[r]),
            )
        left = int(np.count_nonzero(run_file >= 0))
        if left:
            self.placed.append(_Placed(batch, seq, run_file, run_all, keep, left))
        if len(batch.article):
            self.position = max(self.position, int(batch.article.max()))

    # -- handing out -----------------------------------------------------------------

    def finish_due(self) -> list[OpenRelease]:
        """Releases the frontier has passed by the window: finished, handed out once.

        Single-file releases whose names differ only by digit runs go into their album
        instead and come out when the album closes.
        """
        if self.frontier.frontier == 0:
            return []
        horizon = self.frontier.frontier - self.rules.window
        t = self.tables
        n = t.n_releases
        rows = t.releases[:n]
        due = np.flatnonzero((rows["state"] == wk.OPEN) & (rows["last_date"] < horizon))
        released: list[OpenRelease] = []
        if len(due):
            released = self._hand_out(due, final=True)
            wk.finish(t.files, t.releases, t.file_keys, t.file_values, due)
            self._compact_if_mostly_done()
        return self.albums.file(released, horizon, self.rules)

    def _compact_if_mostly_done(self) -> None:
        """Within a long range, drop the rows of handed-out files once they are most of
        the tables: the window's memory follows what is open, not the range's length."""
        t = self.tables
        n = t.n_files
        if n < COMPACT_FILES:
            return
        open_files = int(t.releases["files"][t.open_releases()].sum())
        if 4 * open_files < n:
            self._compact()

    def is_batch_total(self, rel: OpenRelease, finished: bool) -> bool:
        return is_batch_total(self.batch_uploads, self.rules, rel, finished)

    def carry(self) -> list[OpenRelease]:
        """At a range's end: the open releases (and albums) to hand out provisional.

        Singles that may still join an album, and open albums, keep a copy of their
        segments: an album's finished version holds all its members' segments under its
        own key, whatever was written under the members' keys before. The tables are
        compacted for the next range, which starts with no batch of this one.
        """
        t = self.tables
        opened = t.open_releases()
        released = self._hand_out(opened, final=False)
        for rel in released:
            if album_key(rel) is not None:
                keep_copies(rel)
        t.releases["written"][opened] = True
        self.placed = []
        self.range_batches = {}
        self._compact()
        return [*released, *self.albums.carry()]

    def _hand_out(self, releases: np.ndarray, final: bool) -> list[OpenRelease]:
        """These releases as the objects the output reads, files and segments in."""
        t = self.tables
        slots, offsets = wk.release_files(t.files, t.releases, releases)
        rows = t.files[slots]
        pieces = self._pieces(slots)
        first_ids, last_ids = self._ids(slots, rows)
        files = []
        c = {
            name: rows[name].tolist()
            for name in (
                "key",
                "file_index",
                "file_total",
                "part_total",
                "ext_class",
                "volume",
                "random_name",
                "first_date",
                "last_date",
                "first_article",
                "last_article",
                "nbytes",
                "count",
                "last_part",
            )
        }
        # finished: the copies go with the file; provisional: the file's list stays here,
        # where keep_copies adds this range's copies to it
        carried = self.carried.pop if final else self.carried.setdefault
        for j, slot in enumerate(slots.tolist()):
            # positional: OpenFile's field order (keywords cost 3x as much, per file)
            f = OpenFile(
                c["key"][j], self.subject[slot] or b"", self.poster[slot] or b"",
                self.name[slot] or b"", self.xref[slot] or b"", c["file_index"][j],
                c["file_total"][j], c["part_total"][j], c["ext_class"][j], c["volume"][j],
                c["random_name"][j], c["first_date"][j], c["last_date"][j],
                c["first_article"][j], c["last_article"][j], c["nbytes"][j], c["count"][j],
                pieces.get(slot, []), carried(slot, []), first_ids[j], c["last_part"][j],
                last_ids[j],
            )  # fmt: skip
            files.append(f)
            if final:  # the texts live on in the object now
                self.subject[slot] = self.poster[slot] = self.name[slot] = self.xref[slot] = None
                self.part_ids.pop(slot, None)
            elif first_ids[j] or last_ids[j]:  # kept as bytes: this range's batches go
                self.part_ids[slot] = (first_ids[j], last_ids[j])
        if not final:
            for which in ("first", "last"):
                t.files[f"{which}_batch"][slots] = -1
        rel_rows = t.releases[releases]
        r_cols = {
            name: rel_rows[name].tolist()
            for name in (
                "ident",
                "poster_key",
                "source",
                "first_date",
                "last_date",
                "first_article",
                "last_article",
                "file_total",
                "written",
            )
        }
        bounds = offsets.tolist()
        out = []
        for j in range(len(releases)):
            out.append(
                OpenRelease(
                    ident=r_cols["ident"][j],
                    poster_key=r_cols["poster_key"][j],
                    source=r_cols["source"][j],
                    first_date=r_cols["first_date"][j],
                    last_date=r_cols["last_date"][j],
                    first_article=r_cols["first_article"][j],
                    last_article=r_cols["last_article"][j],
                    files=files[bounds[j] : bounds[j + 1]],
                    file_total=r_cols["file_total"][j],
                    written=r_cols["written"][j],
                )
            )
        return out

    def _pieces(self, slots: np.ndarray) -> dict[int, list[Piece]]:
        """The segments of these files not handed out yet, per file, in reading order."""
        out: dict[int, list[Piece]] = {}
        if not self.placed:
            return out
        wanted = np.zeros(self.tables.n_files + 1, np.bool_)
        wanted[slots] = True
        still = []
        for p in self.placed:
            run_file = p.run_file
            hit = np.flatnonzero(wanted[run_file])  # run_file -1 reads the spare last cell
            if len(hit):
                bounds = p.batch.bounds
                a_list = bounds[hit].tolist()
                b_list = bounds[hit + 1].tolist()
                whole = p.run_all[hit].tolist()
                for slot, a, b, all_rows in zip(
                    run_file[hit].tolist(), a_list, b_list, whole, strict=True
                ):
                    rows = None if all_rows else a + np.flatnonzero(p.keep[a:b])
                    out.setdefault(slot, []).append(Piece(p.batch, a, b, rows))
                p.left -= len(hit)
            if p.left:
                still.append(p)
        self.placed = still
        return out

    def _ids(self, slots: np.ndarray, rows: np.ndarray) -> tuple[list[bytes], list[bytes]]:
        """The message-ids of part 1 and of the top part of these files (b"" if none)."""
        first = [b""] * len(slots)
        last = [b""] * len(slots)
        if self.part_ids:  # files carried from a range before
            for j, slot in enumerate(slots.tolist()):
                kept = self.part_ids.get(slot)
                if kept is not None:
                    first[j], last[j] = kept
        by_seq = self.range_batches
        for which, out in (("first", first), ("last", last)):
            batch_of = rows[f"{which}_batch"]
            row_of = rows[f"{which}_row"]
            for seq in np.unique(batch_of[batch_of >= 0]).tolist():
                at = np.flatnonzero(batch_of == seq)
                ids = by_seq[seq].message_id.take(row_of[at]).to_pylist()
                for j, message_id in zip(at.tolist(), ids, strict=True):
                    out[j] = message_id
        return first, last

    def _compact(self) -> None:
        """Compact the tables and renumber what refers to files by number: texts, kept
        ids and copies, and the runs of this range's placed batches (a handed-out file's
        runs become -1: they were consumed)."""
        before = self.tables.n_files
        kept = self.tables.compact()
        renumber = {old: new for new, old in enumerate(kept.tolist())}
        for name in ("subject", "poster", "name", "xref"):
            texts = getattr(self, name)
            setattr(self, name, [texts[i] for i in kept.tolist()])
        self.part_ids = {renumber[k]: v for k, v in self.part_ids.items() if k in renumber}
        self.carried = {renumber[k]: v for k, v in self.carried.items() if k in renumber and v}
        file_map = np.full(before + 1, -1, np.int64)  # the last cell: for run_file -1
        file_map[kept] = np.arange(len(kept))
        for p in self.placed:
            p.run_file = file_map[p.run_file]

    def __getstate__(self) -> dict[str, Any]:
        if self.placed or self.range_batches:
            raise ValueError("a window is stored only between ranges (after carry)")
        return self.__dict__.copy()
