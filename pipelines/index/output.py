"""Releases handed out by the window -> rows of the catalog's tables.

Called once per release (not per segment): the segment lists are concatenated as numpy
arrays and Arrow list columns, the texts (names, posters, groups) are made here.
"""

from __future__ import annotations

import functools
import hashlib
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from kernels import subject as sk
from kernels.file_segments import file_segments
from kernels.gather import binary_columns, gather_values
from kernels.xref_numbers import strip_article_numbers
from pipelines import naming
from pipelines.catalog import schema
from pipelines.catalog.writer import row_group_size
from pipelines.index.handout import FileBlock, HandOut, pick
from pipelines.index.parsed_chunk import SOURCE_ALBUM, SOURCE_NAMES, SOURCE_STEM, ParsedChunk
from pipelines.index.release import OpenFile, OpenRelease

MAX_MEMBERS = 20
TOOLS = (b"ngpost", b"nyuu", b"powerpost", b"jbinup", b"camelsystem")


def identity_of(rel: OpenRelease) -> bytes:
    """The release identity as bytes: the poster-mixed identity hash, or an album's template."""
    if rel.source == SOURCE_ALBUM:
        return b"album:" + struct.pack(">Q", rel.poster_key) + rel.album_template
    return struct.pack(">Q", rel.ident)


def keys_of(rel: OpenRelease, group: str) -> tuple[bytes, bytes]:
    """(release_key, identity_key). An album takes its first member's release key, so the
    album's versions supersede what was written of that member on its own."""
    identity = identity_of(rel)
    keyed = rel.first_member if rel.source == SOURCE_ALBUM and rel.first_member else rel
    key = release_key(identity_of(keyed), group, keyed.first_article)
    return key, hashlib.sha1(identity).digest()


def release_key(identity: bytes, group: str, first_article: int) -> bytes:
    """SHA-1 of identity, owner group and first article: a redone range writes the same key."""
    h = hashlib.sha1(identity)
    h.update(b"\0" + group.encode() + b"\0" + str(first_article).encode())
    return h.digest()


def groups_of(xref: bytes, fallback: str) -> list[str]:
    """Group names of an Xref field (`Xref: host g:n ...`), in the order given."""
    # the article numbers make every Xref unique; the groups without them repeat
    return list(_groups_of(strip_article_numbers(xref), fallback))


def groups_of_each(xrefs: list[bytes], fallback: str) -> list[list[str]]:
    """`groups_of` of every Xref field, their article numbers cut in one kernel pass over
    them all (an Xref holds no line end, so joined by LF each one's end still ends its
    last token)."""
    joined = b"\n".join(xrefs)
    if joined.count(b"\n") != max(len(xrefs) - 1, 0):  # not from an overview line
        return [groups_of(xref, fallback) for xref in xrefs]
    stripped = strip_article_numbers(joined).split(b"\n") if xrefs else []
    memo: dict[bytes, list[str]] = {}
    out = []
    for xref in stripped:
        names = memo.get(xref)
        if names is None:
            names = memo[xref] = list(_groups_of(xref, fallback))
        out.append(names)
    return out


def _one_list_each(lists: list[list[str]], starts: np.ndarray) -> np.ndarray:
    """Per run of lists (run j from starts[j] to the next start): is it one list object
    throughout?"""
    if not len(starts):
        return np.zeros(0, np.bool_)
    ids = np.fromiter(map(id, lists), np.uint64, len(lists))
    return np.minimum.reduceat(ids, starts) == np.maximum.reduceat(ids, starts)


@functools.lru_cache(maxsize=4096)
def _groups_of(xref: bytes, fallback: str) -> tuple[str, ...]:
    names = []
    for token in xref.split()[1:] if xref.lower().startswith(b"xref:") else xref.split():
        name, sep, _ = token.rpartition(b":")
        if sep and name and b"." in name:
            names.append(naming.to_text(name))
    if not names:
        names.append(fallback)
    return tuple(dict.fromkeys(names))


@dataclass
class Output:
    """Rows gathered for one range, table by table (plain lists, turned into Arrow at the end)."""

    group: str
    written_range: int
    rules_version: str
    releases: list[dict[str, object]] = field(default_factory=list)
    pending: list[dict[str, object]] = field(default_factory=list)
    probes: list[dict[str, object]] = field(default_factory=list)
    # release_files' own columns, a value per file (texts as bytes: made text column-wise)
    file_columns: dict[str, list[Any]] = field(
        default_factory=lambda: {name: [] for name in _FILE_COLUMNS}
    )
    # the file rows' segments as spans of places in the store (all batches end to end):
    # per span its file row, first place and length, files' spans in reading order
    span_file: list[int] = field(default_factory=list)
    span_start: list[int] = field(default_factory=list)
    span_length: list[int] = field(default_factory=list)
    # the same, for the file rows of blocks: (file rows, places, lengths) per block
    _span_blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    files_written: int = 0
    # the segment store: the columns of every batch a written file drew on
    # by id(batch): the batches are kept alive here, or a freed batch's id could be
    # reused by a new one and hand it the old batch's place (and segments)
    _stored: dict[int, int] = field(default_factory=dict)  # id(batch) -> its first place
    _store_size: int = 0
    _batches: list[ParsedChunk] = field(default_factory=list)
    _numbers: list[np.ndarray] = field(default_factory=list)
    _sizes: list[np.ndarray] = field(default_factory=list)
    _ids: list[pa.Array] = field(default_factory=list)
    finished: int = 0
    provisional: int = 0

    def hand_out(self, rel: OpenRelease, finished: bool, batch_total: bool) -> None:
        """Record one version of a release and the segments not written before."""
        files = rel.files
        first = _representative(files)
        file_groups = groups_of_each([f.xref for f in files], self.group)
        groups = list(dict.fromkeys(g for names in file_groups for g in names))
        poster = naming.to_text(first.poster)
        name = self._name(rel, first)
        key, identity_key = keys_of(rel, self.group)
        file_total = _file_total(rel.file_total, batch_total)
        name, readable = naming.usable_name(
            name, [f.name for f in files], [f.random_name for f in files]
        )
        row = self._release_row(
            key, identity_key, name, poster, groups,
            (rel.first_date, rel.last_date, rel.first_article, rel.last_article),
            len(files), file_total, sum(f.segments for f in files),
            sum(f.nbytes for f in files),
            all(f.complete for f in files)
            and _all_counted([f.file_index for f in files], file_total),
            finished,
        )  # fmt: skip
        probes = _probes(_targets_of(files), len(files), readable) if finished else []
        if readable:
            row.update(
                readable=True,
                has_par2=any(f.ext_class in (sk.PAR2_INDEX, sk.PAR2_VOL) for f in files),
                source=SOURCE_NAMES[rel.source],
                category=naming.category_of(name, groups),
                members=[naming.to_text(m) for m in rel.members[:MAX_MEMBERS]] or None,
            )
            self.releases.append(row)
        else:
            row.update(tool=_tool(first), probe_ids=[p[2] for p in probes])
            self.pending.append(row)
        self._probe_rows(key, probes, readable)
        album = rel.source == SOURCE_ALBUM
        for f, names in zip(files, file_groups, strict=True):
            self._file(key, f, names, album, finished)
        if finished and album:
            for member in rel.absorbed:
                self._tombstone(member, key)
        rel.written = True
        if finished:
            self.finished += 1
        else:
            self.provisional += 1

    def take(
        self, handout: HandOut, finished: bool, batch_total: Callable[[OpenRelease, bool], bool]
    ) -> None:
        """Record a hand-out of the window: its block column-wise, its objects one by one."""
        self.hand_out_block(handout.block, finished)
        for rel in handout.releases:
            self.hand_out(rel, finished, batch_total(rel, finished))

    def hand_out_block(self, block: FileBlock, finished: bool) -> None:
        """Record one version of each release of a block, and the segments not written
        before: the rows `hand_out` makes of each, with no object made per file."""
        n = len(block)
        if not n:
            return
        files = block.files
        bounds = block.offsets.tolist()
        starts = block.offsets[:-1]
        file_groups = groups_of_each(block.xref, self.group)
        # a release whose files all share one Xref's groups (one list: groups_of_each
        # makes a list per distinct Xref) takes that list's groups, with no pass a file
        shared = _one_list_each(file_groups, starts).tolist()
        complete = (files["part_total"] > 0) & (files["count"] >= files["part_total"])
        all_complete = np.logical_and.reduceat(complete, starts).tolist()
        segments = np.add.reduceat(files["count"], starts).tolist()
        nbytes = np.add.reduceat(files["nbytes"], starts).tolist()
        par2 = np.isin(files["ext_class"], (sk.PAR2_INDEX, sk.PAR2_VOL))
        has_par2 = np.logical_or.reduceat(par2, starts).tolist()
        firsts = block.representatives().tolist()
        index = files["file_index"].tolist()
        random_name = files["random_name"].tolist()
        # the files a probe could target, as tuples of what `_probes` reads (a single
        # file that is none of these is one only when its name is unusable)
        if finished:
            maybe, seven_zip = _probe_candidates(block)
            probed = np.flatnonzero(maybe)
            targets = _block_targets(block, probed, seven_zip[probed])
        else:
            probed, targets = starts[:0], []
        target_bounds = np.searchsorted(probed, block.offsets).tolist()
        rel = block.releases
        r = {
            name: rel[name].tolist()
            for name in (
                "ident", "source", "first_date", "last_date", "first_article", "last_article",
                "file_total",
            )
        }  # fmt: skip
        batch_total = block.batch_total.tolist()
        keys = []
        pending: list[tuple[dict[str, object], int]] = []  # rows without their tool yet
        for j in range(n):
            a, b = bounds[j], bounds[j + 1]
            first = firsts[j]
            if shared[j]:
                groups = list(file_groups[a])
            else:
                groups = list(dict.fromkeys(chain.from_iterable(file_groups[a:b])))
            identity = struct.pack(">Q", r["ident"][j])
            key = release_key(identity, self.group, r["first_article"][j])
            keys.append(key)
            file_total = _file_total(r["file_total"][j], batch_total[j])
            name, readable = naming.usable_name(
                _name_of(r["source"][j], block.name[first], block.subject[first]),
                block.name[a:b],
                random_name[a:b],
            )
            row = self._release_row(
                key, hashlib.sha1(identity).digest(), name, naming.to_text(block.poster[first]),
                groups,
                (r["first_date"][j], r["last_date"][j], r["first_article"][j],
                 r["last_article"][j]),
                b - a, file_total, segments[j], nbytes[j],
                all_complete[j] and _all_counted(index[a:b], file_total), finished,
            )  # fmt: skip
            probes = []
            if finished:
                candidates = targets[target_bounds[j] : target_bounds[j + 1]]
                if not candidates and b - a == 1 and not readable:
                    lone = np.array([a])
                    candidates = _block_targets(block, lone, np.zeros(1, np.bool_))
                if candidates:
                    probes = _probes(candidates, b - a, readable)
            if readable:
                row.update(
                    readable=True,
                    has_par2=has_par2[j],
                    source=SOURCE_NAMES[r["source"][j]],
                    category=naming.category_of(name, groups),
                    members=None,
                )
                self.releases.append(row)
            else:
                row.update(probe_ids=[p[2] for p in probes])
                pending.append((row, first))
                self.pending.append(row)
            self._probe_rows(key, probes, readable)
        if pending:
            first_ids, last_ids = block.part_ids(np.array([first for _, first in pending]))
            for (row, first), first_id, last_id in zip(pending, first_ids, last_ids, strict=True):
                row["tool"] = _tool_of(first_id or last_id, block.poster[first])
        self._block_files(block, keys, file_groups)
        if finished:
            self.finished += n
        else:
            self.provisional += n

    def _release_row(
        self,
        key: bytes,
        identity_key: bytes,
        name: str,
        poster: str,
        groups: list[str],
        span: tuple[int, int, int, int],  # first and last date, first and last article
        files: int,
        file_total: int | None,
        segments: int,
        nbytes: int,
        complete: bool,
        finished: bool,
    ) -> dict[str, object]:
        """The columns every version of a release has, readable or pending."""
        first_date, last_date, first_article, last_article = span
        return {
            "release_key": key,
            "identity_key": identity_key,
            "name": name,
            "poster": poster,
            "group": self.group,
            "groups": groups,
            "posted_first": first_date,
            "posted_last": last_date,
            "first_article": first_article,
            "last_article": last_article,
            "files": files,
            "file_total": file_total,
            "segments": segments,
            "bytes": nbytes,
            "complete": complete,
            "finished": finished,
            "written_range": self.written_range,
            "rules_version": self.rules_version,
        }

    def _block_files(
        self, block: FileBlock, keys: list[bytes], file_groups: list[list[str]]
    ) -> None:
        """The block's file rows that have segments not written before, and their spans."""
        files = block.files
        written = np.flatnonzero(np.bincount(block.span_file, minlength=len(files)) > 0)
        row_of = np.full(len(files), -1, np.int64)
        row_of[written] = self.files_written + np.arange(len(written))
        self.files_written += len(written)
        seqs, batch_of_span = np.unique(block.span_seq, return_inverse=True)
        places = np.array([self._store(block.chunks[q]) for q in seqs.tolist()], np.int64)
        self._span_blocks.append(
            (
                row_of[block.span_file],
                places[batch_of_span] + block.span_start,
                block.span_stop - block.span_start,
            )
        )
        release_of = np.repeat(np.arange(len(block)), block.file_counts())[written]
        every = len(written) == len(files)  # the usual case: each file has new segments
        rows = written.tolist()
        c = self.file_columns
        c["release_key"].extend([keys[j] for j in release_of.tolist()])
        for name, values in (("name", block.name), ("subject", block.subject),
                             ("poster", block.poster), ("groups", file_groups)):  # fmt: skip
            c[name].extend(values if every else [values[k] for k in rows])
        c["date"].extend(files["first_date"][written].tolist())
        index = files["file_index"][written].tolist()
        c["file_index"].extend([i if i > 0 else None for i in index])
        c["part_total"].extend(files["part_total"][written].tolist())

    def _probe_rows(self, key: bytes, probes: list[Probe], readable: bool) -> None:
        for kind, name, message_id, segment in probes:
            self.probes.append(
                {
                    "release_key": key,
                    "kind": kind,
                    "file_name": naming.to_text(name),
                    "message_id": message_id,
                    "segment": segment,
                    "pending": not readable,
                    "written_range": self.written_range,
                }
            )

    def _name(self, rel: OpenRelease, first: OpenFile) -> str:
        if rel.source == SOURCE_ALBUM:
            return naming.to_text(rel.album_template)
        return _name_of(rel.source, first.name, first.subject)

    def _tombstone(self, member: OpenRelease, into: bytes) -> None:
        """A finished row saying a release written on its own went into another."""
        key, identity_key = keys_of(member, self.group)
        self.releases.append(
            {
                "release_key": key,
                "identity_key": identity_key,
                "group": self.group,
                "first_article": member.first_article,
                "last_article": member.last_article,
                "finished": True,
                "written_range": self.written_range,
                "rules_version": self.rules_version,
                "merged_into": into,
            }
        )

    def _file(
        self, key: bytes, f: OpenFile, groups: list[str], album: bool, finished: bool
    ) -> None:
        """The file's row with the segments not written under this key before.

        An album writes its members' carried segments too (they went out under the
        members' own keys); a finished release will join no album, so it drops them.
        """
        pieces = [*f.carried, *f.pieces] if album else f.pieces
        f.pieces = []
        if album or finished:
            f.carried = []
        if not pieces:
            return
        row = self.files_written
        self.files_written += 1
        for p in pieces:
            place = self._store(p.chunk)
            if p.rows is None:
                self.span_file.append(row)
                self.span_start.append(place + p.start)
                self.span_length.append(p.stop - p.start)
            else:
                starts, lengths = _spans(p.rows)
                self.span_file.extend([row] * len(starts))
                self.span_start.extend((starts + place).tolist())
                self.span_length.extend(lengths.tolist())
        c = self.file_columns
        c["release_key"].append(key)
        c["name"].append(f.name)
        c["subject"].append(f.subject)
        c["poster"].append(f.poster)
        c["date"].append(f.first_date)
        c["groups"].append(groups)
        c["file_index"].append(f.file_index if f.file_index > 0 else None)
        c["part_total"].append(f.part_total)

    def _store(self, batch: ParsedChunk) -> int:
        """Where the batch's first segment sits in this range's segment store (its columns
        kept once)."""
        first = self._stored.get(id(batch))
        if first is None:
            first = self._store_size
            self._stored[id(batch)] = first
            self._store_size += len(batch.number)
            self._batches.append(batch)
            self._numbers.append(batch.number)
            self._sizes.append(batch.nbytes)
            self._ids.append(batch.message_id)
        return first

    # -- to Arrow ----------------------------------------------------------------------

    def tables(self) -> dict[str, pa.Table | Iterator[pa.Table]]:
        """Every table of the range; release_files as its row groups, built one at a time
        (the range's biggest table never sits in memory whole)."""
        return {
            "releases": _sorted(pa.Table.from_pylist(self.releases, schema.RELEASES)),
            "pending_releases": _sorted(
                pa.Table.from_pylist(self.pending, schema.PENDING_RELEASES)
            ),
            "probe_candidates": pa.Table.from_pylist(self.probes, schema.PROBE_CANDIDATES).sort_by(
                [("release_key", "ascending"), ("kind", "ascending"), ("message_id", "ascending")]
            ),
            "release_files": self._files_batches(),
        }

    def _files_batches(self) -> Iterator[pa.Table]:
        """release_files, a row group at a time: the files sorted once, then each group's
        segments gathered from the store and sorted by part number within each file."""
        c = self.file_columns
        rows = len(c["release_key"])
        arrays = {
            name: _texts(c[name])
            if name in _TEXTS
            else pa.array(c[name], _FILE_SCHEMA.field(name).type)
            for name in _FILE_COLUMNS
        }
        arrays["written_range"] = pa.array(np.full(rows, self.written_range, np.int64))
        base = pa.table(arrays).select(_FILE_SCHEMA.names).cast(_FILE_SCHEMA)
        self.file_columns = {name: [] for name in _FILE_COLUMNS}
        by = [("release_key", "ascending"), ("name", "ascending"), ("date", "ascending")]
        file_order = pc.sort_indices(base, sort_keys=by).to_numpy()
        base = base.take(file_order)
        # each span under its file's place in that order (a file's spans stay in order)
        rank = np.empty(rows, np.int64)
        rank[file_order] = np.arange(rows)
        blocks = self._span_blocks
        span_file, span_start, span_length = (
            np.concatenate([np.array(listed, np.int64), *(b[k] for b in blocks)])
            for k, listed in enumerate((self.span_file, self.span_start, self.span_length))
        )
        span_rank = rank[span_file]
        by_rank = np.argsort(span_rank, kind="stable")
        span_rank = span_rank[by_rank]
        span_start = span_start[by_rank]
        span_length = span_length[by_rank]
        file_length = np.bincount(span_rank, weights=span_length, minlength=rows).astype(np.int64)
        self.span_file, self.span_start, self.span_length = [], [], []
        self._span_blocks = []
        store = _Store(self._numbers, self._sizes, self._ids)
        # the batches themselves are needed no more (the store keeps their id bytes)
        self._batches.clear()
        self._stored.clear()
        self._numbers.clear()
        self._sizes.clear()
        size = row_group_size("release_files")
        for lo in range(0, max(rows, 1), size):
            a, b = np.searchsorted(span_rank, [lo, lo + size])
            lengths = file_length[lo : lo + size]
            yield self._files_batch(
                base.slice(lo, size), span_start[a:b], span_length[a:b], lengths, store
            )

    @staticmethod
    def _files_batch(
        base: pa.Table,
        span_start: np.ndarray,
        span_length: np.ndarray,
        lengths: np.ndarray,
        store: _Store,
    ) -> pa.Table:
        where, numbers, sizes, file_bytes = file_segments(
            store.numbers, store.sizes, span_start, span_length, lengths
        )
        ids = store.message_ids(where)
        offsets = pa.array(np.concatenate(([0], np.cumsum(lengths))).astype(np.int32))
        # straight into the catalog's schema (from_arrays checks each type): a table cast
        # to it took a cast call per column and row group
        segments = {
            "bytes": pa.array(file_bytes, pa.int64()),
            "seg_numbers": pa.ListArray.from_arrays(offsets, pa.array(numbers, pa.int32())),
            "seg_bytes": pa.ListArray.from_arrays(offsets, pa.array(sizes, pa.int32())),
            "seg_ids": pa.ListArray.from_arrays(offsets, ids),
        }
        columns = [
            pa.chunked_array([segments[name]]) if name in segments else base.column(name)
            for name in schema.RELEASE_FILES.names
        ]
        return pa.Table.from_arrays(columns, schema=schema.RELEASE_FILES)


class _Store:
    """The range's segment store: numbers and sizes end to end, message-ids per batch."""

    def __init__(self, numbers: list[np.ndarray], sizes: list[np.ndarray], ids: list[pa.Array]):
        self.numbers = np.concatenate([np.zeros(0, np.int32), *numbers])
        self.sizes = np.concatenate([np.zeros(0, np.int64), *sizes])
        # each batch's id bytes stay where they are: laying them end to end would copy
        # the range's largest column once more, at its memory peak
        datas, offsets = [], []
        for column in ids:
            _, offsets_buf, data_buf = column.buffers()
            first = column.offset
            offsets.append(np.frombuffer(offsets_buf, np.int32)[first : first + len(column) + 1])
            datas.append(np.frombuffer(data_buf, np.uint8) if data_buf is not None else _NO_BYTES)
        self.ids = binary_columns(datas, offsets)

    def message_ids(self, where: np.ndarray) -> pa.Array:
        """The message-ids at these places as strings, gathered from the batches into one
        buffer by a kernel (Arrow's take on binary values costs several times more)."""
        places, data, ascii = gather_values(self.ids, where)
        buffers = [None, pa.py_buffer(places.astype(np.int32)), pa.py_buffer(data)]
        if ascii:  # valid UTF-8 as it is: the kernel saw every byte
            return pa.Array.from_buffers(pa.string(), len(where), buffers)
        return _as_text(pa.Array.from_buffers(pa.binary(), len(where), buffers))


_NO_BYTES = np.zeros(0, np.uint8)


def _spans(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ascending rows as spans of consecutive ones: (starts, lengths)."""
    cuts = np.flatnonzero(np.diff(rows) != 1) + 1
    firsts = np.concatenate(([0], cuts))
    return rows[firsts], np.diff(np.concatenate((firsts, [len(rows)])))


# release_files without its segment columns: what a file row holds before its segments
_FILE_SCHEMA = pa.schema(
    [f for f in schema.RELEASE_FILES if not f.name.startswith("seg_") and f.name != "bytes"]
)
_FILE_COLUMNS: list[str] = [name for name in _FILE_SCHEMA.names if name != "written_range"]
_TEXTS = frozenset({"name", "subject", "poster"})


def _texts(values: list[bytes]) -> pa.Array:
    """Bytes as a text column, as `naming.to_text` makes each (UTF-8 checked by Arrow in
    one pass; only a column with invalid UTF-8 is made value by value)."""
    try:
        return pa.array(values, pa.binary()).cast(pa.string())
    except pa.ArrowInvalid:
        # only the values outside ASCII can be the invalid ones (a few in a thousand)
        fixed = [v if v.isascii() else naming.to_text(v).encode() for v in values]
        return pa.array(fixed, pa.binary()).cast(pa.string())


def _as_text(ids: pa.Array) -> pa.Array:
    """Message-ids as strings; a hostile id with bytes that are not UTF-8 is made readable."""
    try:
        return ids.cast(pa.string())
    except pa.ArrowInvalid:
        return pa.array([b.decode("utf-8", "replace") for b in ids.to_pylist()], pa.string())


def _sorted(table: pa.Table) -> pa.Table:
    return table.sort_by([("first_article", "ascending"), ("release_key", "ascending")])


def _file_total(total: int, batch_total: bool) -> int | None:
    """The file count a release's counter announces; None for none, or a batch number."""
    return total if total > 0 and not batch_total else None


def _all_counted(file_index: list[int], file_total: int | None) -> bool:
    """Are all the announced files there (by their counters; each file once if none)?"""
    counted = len({i for i in file_index if i > 0}) or len(file_index)
    return file_total is None or counted >= file_total


def _name_of(source: int, file_name: bytes, subject: bytes) -> str:
    """The release name its representative file gives (not an album's)."""
    if source == SOURCE_STEM:
        return naming.stem(naming.to_text(file_name)) or naming.to_text(file_name)
    return naming.display_name(subject)


def _representative(files: list[OpenFile]) -> OpenFile:
    """The file whose subject names the release: the first by file counter, else by article."""
    return min(
        files, key=lambda f: (f.file_index if f.file_index > 0 else 1 << 30, f.first_article)
    )


def _tool(f: OpenFile) -> str:
    return _tool_of(f.first_part_id or f.last_part_id, f.poster)


def _tool_of(message_id: bytes, poster: bytes) -> str:
    """The posting tool a message-id or poster names, if one of TOOLS."""
    probe: bytes = message_id.lower() + b" " + poster.lower()
    for tool in TOOLS:
        if tool in probe:
            return tool.decode()
    return ""


class Target(NamedTuple):
    """What `_probes` reads of a file that a probe could target."""

    name: bytes
    ext_class: int
    nbytes: int
    volume: int
    seven_zip: bool
    first_part_id: bytes  # b"" where unseen
    last_part_id: bytes
    last_part: int


# (kind, the file's name, message-id, segment number): a probe candidate's row
Probe = tuple[str, bytes, str, int]


def _targets_of(files: list[OpenFile]) -> list[Target]:
    return [
        Target(f.name, f.ext_class, f.nbytes, f.volume, _seven_zip(f.name), f.first_part_id,
               f.last_part_id, f.last_part)
        for f in files
    ]  # fmt: skip


def _block_targets(block: FileBlock, rows: np.ndarray, seven_zip: np.ndarray) -> list[Target]:
    """These file rows of a block as targets (no OpenFile made: most are not chosen)."""
    first_ids, last_ids = block.part_ids(rows)
    files = block.files
    columns = (files[name][rows].tolist() for name in ("ext_class", "nbytes", "volume"))
    return list(
        map(
            Target, pick(block.name, rows.tolist()), *columns, seven_zip.tolist(), first_ids,
            last_ids, files["last_part"][rows].tolist(),
        )
    )  # fmt: skip


def _probes(files: list[Target], n_files: int, readable: bool) -> list[Probe]:
    """The few articles the article pass should read for a release: `files` are its files
    (or those of them that can be probed, all of them for a single file) in file order."""
    out: list[Probe] = []
    firsts = [f for f in files if f.ext_class == sk.RAR_FIRST and f.first_part_id]
    for f in sorted(firsts, key=lambda f: f.name)[:1]:
        out.append(("archive_first", f.name, naming.to_text(f.first_part_id), 1))
    par2 = [f for f in files if f.ext_class == sk.PAR2_INDEX and f.first_part_id]
    for f in sorted(par2, key=lambda f: (f.nbytes, f.name))[:1]:
        out.append(("par2_index", f.name, naming.to_text(f.first_part_id), 1))
    sevenz = [f for f in files if f.seven_zip and f.last_part_id]
    if sevenz:
        last = max(sevenz, key=lambda f: (f.volume, f.name))
        out.append(("sevenzip_last", last.name, naming.to_text(last.last_part_id), last.last_part))
    if not readable and n_files == 1 and files[0].first_part_id and not out:
        f = files[0]
        out.append(("lone_random", f.name, naming.to_text(f.first_part_id), 1))
    return out


def _seven_zip(name: bytes) -> bool:
    return b".7z" in name.lower()


def _probe_candidates(block: FileBlock) -> tuple[np.ndarray, np.ndarray]:
    """Per file row of a block: could the file be a probe target (`_probes`) whatever
    its release's name? And is it a 7z volume?"""
    ext = block.files["ext_class"]
    out = (ext == sk.RAR_FIRST) | (ext == sk.PAR2_INDEX)
    seven_zip = np.zeros(len(ext), np.bool_)
    seven_zip[_seven_zip_rows(block.name)] = True
    return out | seven_zip, seven_zip


def _seven_zip_rows(names: list[bytes]) -> np.ndarray:
    """The names `_seven_zip` holds for, by one search of them all (joined by NUL, which
    no name holds; a hit's row is the name it starts in)."""
    joined = b"\0".join(names).lower()
    if joined.count(b"\0") != max(len(names) - 1, 0):
        return np.flatnonzero([_seven_zip(name) for name in names])
    hits = []
    at = joined.find(b".7z")
    while at >= 0:
        hits.append(at)
        at = joined.find(b".7z", at + 3)
    if not hits:
        return np.zeros(0, np.int64)
    lengths = np.fromiter(map(len, names), np.int64, len(names)) + 1
    starts = np.concatenate(([0], np.cumsum(lengths)))
    return np.unique(np.searchsorted(starts, hits, side="right") - 1)
