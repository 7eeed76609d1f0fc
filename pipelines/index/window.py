"""The carried window: a group's open files and releases, in article order.

Segments come in one chunk at a time (a ParsedChunk of file runs). A run joins the
open file of its key unless it was posted more than the upload gap after that file; a
new file joins the open release of its identity under the same test (or, failing that,
of its sibling key: `pipelines.index.siblings`), else starts one; never a release that
holds a file of its counter index already (another upload's, under a weak identity).
A release is finished once the frontier is `window` seconds past its last part; at the
end of a range the releases still open are handed out provisional and stay open here,
so the group's next range finishes the same release (same key).

The placing runs in `kernels.window` over tables (`WindowTables`); this module keeps
what the tables cannot: each file's texts, its segments as rows of the range's
parsed chunks, the albums and the batch counters. A release becomes objects (OpenRelease,
OpenFile) only when it is handed out. What was handed out is not kept: across ranges
the window holds counters and names, and segment lists only for single files that may
still join an album.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernels import window as wk
from kernels.frontier import FrontierState
from kernels.siblings import sibling_keys
from pipelines.index.albums import ALBUM_CLASSES, Albums, has_digits, keep_copies
from pipelines.index.batch_counters import BatchUploads, batch_total_of, count_batch, is_batch_total
from pipelines.index.handout import FileBlock, HandOut, pick
from pipelines.index.parsed_chunk import SOURCE_ALBUM, ParsedChunk
from pipelines.index.release import OpenRelease, Piece
from pipelines.index.rules import Rules
from pipelines.index.siblings import sibling_kinds
from pipelines.index.window_tables import WindowTables

# compact within a range once the tables hold this many files, three quarters handed out
COMPACT_FILES = 1 << 16


@dataclass
class _Placed:
    """A parsed chunk the range placed: which file each run went into, which rows were
    new."""

    chunk: ParsedChunk
    seq: int
    run_file: np.ndarray
    run_all: np.ndarray
    keep: np.ndarray
    left: int  # runs whose file is not handed out yet


@dataclass
class Window:
    """A group's carried window: `add` a parsed chunk, `finish_due` what the frontier
    passed, `carry` the rest at a range's end; between ranges it is stored as a snapshot
    (`pipelines.index.snapshot`)."""

    rules: Rules
    frontier: FrontierState = field(default_factory=FrontierState)
    tables: WindowTables = field(default_factory=WindowTables)
    # per file number: the texts of the run that started it (the bytes the run's chunk
    # holds; a handed-out file's go when the tables are compacted)
    subject: list[bytes] = field(default_factory=list)
    poster: list[bytes] = field(default_factory=list)
    name: list[bytes] = field(default_factory=list)
    xref: list[bytes] = field(default_factory=list)
    # the message-ids of part 1 and of the top part, of files carried from a range before
    part_ids: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)
    carried: dict[int, list[Piece]] = field(default_factory=dict)  # per file number
    albums: Albums = field(default_factory=Albums)
    batch_uploads: BatchUploads = field(default_factory=dict)  # the batch counters
    position: int = 0  # the last article read
    chunks_placed: int = 0  # parsed chunks placed, ever (a chunk's number in the file rows)
    placed: list[_Placed] = field(default_factory=list)  # this range's, while needed
    range_chunks: dict[int, ParsedChunk] = field(default_factory=dict)  # this range's

    # -- reading ---------------------------------------------------------------------

    def add(self, chunk: ParsedChunk) -> None:
        """Place a parsed chunk's runs (one kernel call; again from where it stopped
        whenever the part bitmaps' pool fills), then keep the new files' texts and count
        the totals that new releases announced."""
        runs = chunk.runs
        t = self.tables
        t.ensure(runs)
        starts = chunk.bounds[:-1]
        poster_key = chunk.poster_key[starts]
        source = chunk.source[starts]
        file_index = chunk.file_index[starts]
        file_total = chunk.file_total[starts]
        kind = sibling_kinds(source, file_total, self.rules)
        sibling, has_sibling, _ = sibling_keys(
            chunk.run_subject, poster_key, file_index, file_total, kind
        )
        columns = wk.ChunkRuns(
            chunk.bounds, chunk.number, chunk.nbytes, chunk.file_key[starts],
            chunk.ident[starts], poster_key, source, file_index, file_total,
            chunk.part_total[starts], chunk.ext_class[starts], chunk.volume[starts],
            chunk.random_name[starts], chunk.run_first_date, chunk.run_last_date,
            chunk.run_first_article, chunk.run_last_article, sibling, has_sibling,
        )  # fmt: skip
        placed = wk.RunsPlaced(
            np.zeros(len(chunk.number), np.bool_),
            np.full(runs, -1, np.int64),
            np.zeros(runs, np.bool_),
            np.zeros(runs, np.bool_),
            np.zeros(runs, np.bool_),
        )
        files_before = t.n_files
        seq = self.chunks_placed
        self.chunks_placed += 1
        self.range_chunks[seq] = chunk
        done = 0
        while True:
            done = wk.place_runs(
                t.kernel_tables(), columns, placed, seq, self.rules.upload_gap, done
            )
            if done == runs:
                break
            t.grow_pool()
        new = np.flatnonzero(placed.new_file)
        assert t.n_files == files_before + len(new)
        new_runs = new.tolist()
        for texts, column in (
            (self.subject, chunk.run_subject),
            (self.poster, chunk.run_poster),
            (self.name, chunk.run_name),
            (self.xref, chunk.run_xref),
        ):
            texts.extend(pick(column, new_runs))
        counted = np.flatnonzero(placed.new_release & (file_total >= self.rules.batch_total_min))
        ident = columns.ident
        for r in counted.tolist():
            count_batch(
                self.batch_uploads,
                self.rules,
                int(poster_key[r]),
                int(file_total[r]),
                int(ident[r]),
            )
        left = int(np.count_nonzero(placed.file >= 0))
        if left:
            self.placed.append(_Placed(chunk, seq, placed.file, placed.all_kept, placed.keep, left))
        if len(chunk.article):
            self.position = max(self.position, int(chunk.article.max()))

    # -- handing out -----------------------------------------------------------------

    def finish_due(self) -> HandOut:
        """Releases the frontier has passed by the window: finished, handed out once.

        Single-file releases whose names differ only by digit runs go into their album
        instead and come out when the album closes.
        """
        if self.frontier.frontier == 0:
            return HandOut(FileBlock.empty(), [])
        horizon = self.frontier.frontier - self.rules.window
        t = self.tables
        n = t.n_releases
        rows = t.releases[:n]
        due = np.flatnonzero((rows["state"] == wk.OPEN) & (rows["last_date"] < horizon))
        block, candidates = FileBlock.empty(), list[OpenRelease]()
        if len(due):
            block, candidates = self._hand_out(due, final=True)
            wk.finish(t.files, t.releases, t.file_map, due)
            self._compact_if_mostly_done()
        return HandOut(block, self.albums.file(candidates, horizon, self.rules))

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

    def carry(self) -> HandOut:
        """At a range's end: the open releases (and albums) to hand out provisional.

        Singles that may still join an album, and open albums, keep a copy of their
        segments: an album's finished version holds all its members' segments under its
        own key, whatever was written under the members' keys before. The tables are
        compacted for the next range, which starts with no chunk of this one.
        """
        t = self.tables
        opened = t.open_releases()
        block, candidates = self._hand_out(opened, final=False)
        for rel in candidates:
            keep_copies(rel)
        t.releases["written"][opened] = True
        self.placed = []
        self.range_chunks = {}
        self._compact()
        return HandOut(block, [*candidates, *self.albums.carry()])

    def _hand_out(self, releases: np.ndarray, final: bool) -> tuple[FileBlock, list[OpenRelease]]:
        """These releases, files and new segments in: as a block, but for those that may
        gather into an album, which come out as objects (albums merge and carry them).
        The two kinds are told apart first, so each one's rows and texts are read once."""
        album = self._album_candidates(releases)
        everything = np.arange(len(releases))
        if not album.any():
            return self._block(releases, final, everything[:0], True), []
        if final:
            block = self._block(releases[~album], final, everything[:0], True)
            members = self._block(releases[album], final, everything[:0], False)
            return block, members.open_releases()
        # at a range's end, one block: the part ids it keeps as bytes go into the window
        # in reading order, as the snapshot's bytes have them
        candidates = np.flatnonzero(album)
        block = self._block(releases, final, candidates, True)
        return block.without(candidates), block.open_releases(candidates)

    def _album_candidates(self, releases: np.ndarray) -> np.ndarray:
        """Per release: may it gather into an album (`albums.album_key` is not None)? One
        file of media or documents, a name with digits, not a random name."""
        t = self.tables
        out = np.zeros(len(releases), np.bool_)
        rel = t.releases
        single = np.flatnonzero(
            (rel["files"][releases] == 1) & (rel["source"][releases] != SOURCE_ALBUM)
        )
        first = rel["first_file"][releases[single]]
        maybe = ~t.files["random_name"][first] & np.isin(
            t.files["ext_class"][first], list(ALBUM_CLASSES)
        )
        names = self.name
        for j, f in zip(single[maybe].tolist(), first[maybe].tolist(), strict=True):
            out[j] = has_digits(names[f])
        return out

    def _block(
        self, releases: np.ndarray, final: bool, candidates: np.ndarray, batch_totals: bool
    ) -> FileBlock:
        """These releases as a block: their rows, texts and new segments, and the batch
        counters' verdicts if asked (album candidates become objects, which the output
        asks the window about). Provisional candidates (`candidates`: releases of the
        block) share the window's list of their copies."""
        t = self.tables
        slots, offsets = wk.release_files(t.files, t.releases, releases)
        rows = t.files[slots]
        span_file, span_seq, span_start, span_stop = self._spans(slots)
        slot_list = slots.tolist()
        subject, poster, name, xref = (pick(getattr(self, n), slot_list) for n in _TEXTS)
        block = FileBlock(
            t.releases[releases],
            offsets,
            rows,
            subject,
            poster,
            name,
            xref,
            span_file,
            span_seq,
            span_start,
            span_stop,
            self.range_chunks,
        )
        if self.part_ids:  # files carried from a range before
            take = self.part_ids.pop if final else self.part_ids.get
            for j, slot in enumerate(slot_list):
                kept = take(slot, None)
                if kept is not None:
                    block.kept_ids[j] = kept
        # a finished file's texts stay in the lists until the tables are compacted: the
        # range's chunks hold the same bytes until the range ends anyway
        if not final:  # kept as bytes: this range's chunks go
            first_ids, last_ids = block.part_ids(np.arange(len(slots)))
            for j, slot in enumerate(slot_list):
                if first_ids[j] or last_ids[j]:
                    self.part_ids[slot] = block.kept_ids[j] = (first_ids[j], last_ids[j])
            for which in ("first", "last"):
                t.files[f"{which}_chunk"][slots] = -1
                block.files[f"{which}_chunk"] = -1
        # copies of segments written before: a finished file takes its own along; a
        # provisional one shares the window's list, where keep_copies adds this range's
        if self.carried:
            held = np.fromiter(self.carried, np.int64, len(self.carried))
            for j in np.flatnonzero(np.isin(slots, held)).tolist():
                slot = slot_list[j]
                block.carried[j] = self.carried.pop(slot) if final else self.carried[slot]
        if not final:
            for j in block.file_rows(candidates).tolist():
                block.carried[j] = self.carried.setdefault(slot_list[j], [])
        if batch_totals:
            block.batch_total = self._batch_totals(block, final)
        return block

    def _batch_totals(self, block: FileBlock, finished: bool) -> np.ndarray:
        """`is_batch_total` of every release of the block."""
        out = np.zeros(len(block), np.bool_)
        rel = block.releases
        counts = block.file_counts()
        for j in np.flatnonzero(rel["file_total"] >= self.rules.batch_total_min).tolist():
            out[j] = batch_total_of(
                self.batch_uploads, self.rules, int(rel["poster_key"][j]),
                int(rel["file_total"][j]), int(counts[j]), finished,
            )  # fmt: skip
        return out

    def _spans(self, slots: np.ndarray) -> tuple[np.ndarray, ...]:
        """The segments of these files not handed out yet, as spans (file row in `slots`,
        chunk, start, stop): by file, each file's in reading order."""
        empty = np.zeros(0, np.int64)
        if not self.placed:
            return empty, empty, empty, empty
        row_of = np.full(self.tables.n_files + 1, -1, np.int64)  # the last: run_file -1
        row_of[slots] = np.arange(len(slots))
        parts: list[tuple[np.ndarray, ...]] = []
        still = []
        for p in self.placed:
            run_row = row_of[p.run_file]
            hit = np.flatnonzero(run_row >= 0)
            if len(hit):
                bounds = p.chunk.bounds
                file_row, start, stop = run_row[hit], bounds[hit], bounds[hit + 1]
                if not p.run_all[hit].all():
                    file_row, start, stop = _kept_spans(p, hit, file_row, start, stop)
                parts.append((file_row, np.full(len(file_row), p.seq, np.int64), start, stop))
                p.left -= len(hit)
            if p.left:
                still.append(p)
        self.placed = still
        if not parts:
            return empty, empty, empty, empty
        columns = [np.concatenate(c) for c in zip(*parts, strict=True)]
        order = np.argsort(columns[0], kind="stable")
        return tuple(c[order] for c in columns)

    def _compact(self) -> None:
        """Compact the tables and renumber what refers to files by number: texts, kept
        ids and copies, and the runs of this range's placed chunks (a handed-out file's
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


_TEXTS = ("subject", "poster", "name", "xref")  # the per-file texts, FileBlock's order


def _kept_spans(
    p: _Placed, hit: np.ndarray, file_row: np.ndarray, start: np.ndarray, stop: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The runs' spans, where a run that repeated parts its file had becomes the spans
    of its new rows (the rows `keep` marks), in order."""
    rows_out, starts_out, stops_out = [], [], []
    whole = p.run_all[hit].tolist()
    for row, a, b, all_rows in zip(
        file_row.tolist(), start.tolist(), stop.tolist(), whole, strict=True
    ):
        if all_rows:
            rows_out.append(row)
            starts_out.append(a)
            stops_out.append(b)
            continue
        kept = a + np.flatnonzero(p.keep[a:b])
        cuts = np.flatnonzero(np.diff(kept) != 1) + 1
        firsts = np.concatenate(([0], cuts)).astype(np.int64)
        lasts = np.concatenate((cuts, [len(kept)])).astype(np.int64)
        for i, z in zip(firsts.tolist(), lasts.tolist(), strict=True):
            if z > i:
                rows_out.append(row)
                starts_out.append(int(kept[i]))
                stops_out.append(int(kept[z - 1]) + 1)
    return (
        np.array(rows_out, np.int64),
        np.array(starts_out, np.int64),
        np.array(stops_out, np.int64),
    )
