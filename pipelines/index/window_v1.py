"""Window snapshots of version 1, the object window's, read into today's table window.

A catalog indexed by a build from before the window became tables carries on where it
stopped: its last snapshot's open releases, files, identity and sibling lists, albums
and counters are laid into the tables in the same order, so the next range hands out
exactly what the old build would have (tests/test_window_v1.py replays two ranges
after a version 1 snapshot against what that build wrote).
"""

from __future__ import annotations

import io
import itertools
import pickle
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from kernels import window as wk
from kernels.siblings import key_hash
from pipelines.index.albums import Album, Albums, OpenFile, OpenRelease, Piece
from pipelines.index.window import Window, _chain_map, _grown, _table_size


@dataclass(slots=True)
class _OldPiece:
    batch: Any
    rows: np.ndarray


@dataclass(slots=True, eq=False)
class _OldFile:
    # version 1's OpenFile, field for field in its order (a slots dataclass is pickled
    # as the list of its values)
    key: int
    subject: bytes
    poster: bytes
    name: bytes
    xref: bytes
    file_index: int
    file_total: int
    part_total: int
    ext_class: int
    volume: int
    random_name: bool
    first_date: int
    last_date: int
    first_article: int
    last_article: int
    nbytes: int = 0
    seen: np.ndarray = field(default_factory=lambda: np.zeros(0, np.bool_))
    count: int = 0
    pieces: list[Any] = field(default_factory=list)
    carried: list[Any] = field(default_factory=list)
    first_part_id: bytes = b""
    last_part: int = -1
    last_part_id: bytes = b""
    release: Any = None


class _OldWindow:
    """Version 1's Window: its attributes as pickled (rules, frontier, files, current,
    siblings, open, albums, batch_uploads, position)."""

    rules: Any
    frontier: Any
    files: dict[int, _OldFile]
    current: dict[int, list[OpenRelease]]
    siblings: dict[tuple[int, int, bytes], list[OpenRelease]]
    open: list[OpenRelease]
    albums: dict[tuple[int, bytes], Album]
    batch_uploads: dict[tuple[int, int], set[int]]
    position: int


_RENAMED = {
    "Window": _OldWindow,
    "OpenFile": _OldFile,
    "Piece": _OldPiece,
    "OpenRelease": OpenRelease,
    "Album": Album,
}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module == "pipelines.index.window" and name in _RENAMED:
            return _RENAMED[name]
        return super().find_class(module, name)


def load_v1(body: bytes) -> dict[str, Any]:
    """A version 1 snapshot's document, its window made today's."""
    doc: dict[str, Any] = _Unpickler(io.BytesIO(body)).load()
    doc["window"] = convert(doc["window"])
    return doc


def convert(old: _OldWindow) -> Window:
    w = Window(old.rules, frontier=old.frontier)
    w.batch_uploads = old.batch_uploads
    w.position = old.position
    t = w.tables
    # version 1's open releases hold its files (read as _OldFile)
    files = cast(list[_OldFile], [f for rel in old.open for f in rel.files])
    file_slot = {id(f): i for i, f in enumerate(files)}
    rel_slot = {id(rel): i for i, rel in enumerate(old.open)}
    t.files = _grown(t.files, len(files))
    t.releases = _grown(t.releases, len(old.open))
    caps = [max(len(f.seen), 1) for f in files]
    t.pool = np.zeros(max(len(t.pool), 2 * sum(caps)), np.uint8)
    off = 0
    for i, f in enumerate(files):
        row = t.files[i]
        for name in (
            "key", "first_date", "last_date", "first_article", "last_article", "nbytes",
            "count", "last_part", "part_total", "file_index", "file_total", "volume",
            "ext_class", "random_name",
        ):  # fmt: skip
            row[name] = getattr(f, name)
        row["release"] = rel_slot.get(id(f.release), -1)
        row["next"] = -1
        row["first_batch"] = row["last_batch"] = row["first_row"] = row["last_row"] = -1
        t.pool[off : off + len(f.seen)] = f.seen
        row["seen_off"], row["seen_cap"] = off, caps[i]
        off += caps[i]
        w.subject.append(f.subject)
        w.poster.append(f.poster)
        w.name.append(f.name)
        w.xref.append(f.xref)
        if f.first_part_id or f.last_part_id:
            w.part_ids[i] = (f.first_part_id, f.last_part_id)
        if f.carried:
            w.carried[i] = [_piece(p) for p in f.carried]
    t.counts[wk.POOL_USED] = off
    for r, rel in enumerate(old.open):
        row = t.releases[r]
        for name in (
            "ident", "poster_key", "first_date", "last_date", "first_article", "last_article",
            "file_total", "source", "written",
        ):  # fmt: skip
            row[name] = getattr(rel, name)
        row["state"] = wk.OPEN
        slots = [file_slot[id(f)] for f in rel.files]
        row["files"] = len(slots)
        row["first_file"], row["last_file"] = (slots[0], slots[-1]) if slots else (-1, -1)
        for a, b in itertools.pairwise(slots):
            t.files[a]["next"] = b
    t.counts[wk.N_FILES] = len(files)
    t.counts[wk.N_RELEASES] = len(old.open)
    _maps(t, old, file_slot, rel_slot)
    memo: dict[int, Any] = {}
    w.albums = Albums(open={key: _album(a, memo) for key, a in old.albums.items()})
    return w


def _maps(t: Any, old: _OldWindow, file_slot: dict[int, int], rel_slot: dict[int, int]) -> None:
    """The hash maps from version 1's dictionaries, each list in its order."""
    c = t.counts
    t.file_keys = np.zeros(_table_size(len(old.files)), np.uint64)
    t.file_values = np.full(len(t.file_keys), wk.EMPTY, np.int64)
    for key, f in old.files.items():
        if id(f) in file_slot:
            wk.file_map_put(t.file_keys, t.file_values, np.uint64(key), file_slot[id(f)], c)
    entries = sum(len(v) for v in old.current.values())
    t.ident = _chain_map(_table_size(len(old.current)), max(64, 2 * entries))
    for ident, rels in old.current.items():
        for rel in rels:
            _append(t.ident, np.uint64(ident), rel_slot[id(rel)], c, wk.IDENT_MAP_USED)
    entries = sum(len(v) for v in old.siblings.values())
    t.sibling = _chain_map(_table_size(len(old.siblings)), max(64, 2 * entries))
    for (poster, total, prefix), rels in old.siblings.items():
        h = key_hash(poster, total, prefix)
        for rel in rels:
            _append(t.sibling, h, rel_slot[id(rel)], c, wk.SIBLING_MAP_USED)
    pairs = sum(len(rel.keys) for rel in old.open)
    t.pair_release = np.full(_table_size(pairs), wk.EMPTY, np.int64)
    t.pair_key = np.zeros(len(t.pair_release), np.uint64)
    for rel in old.open:
        for key in rel.keys:
            wk.pairs_add(t.pair_release, t.pair_key, rel_slot[id(rel)], np.uint64(key), c)


def _append(
    chain: tuple[np.ndarray, ...], key: np.uint64, rel: int, counts: Any, used: int
) -> None:
    keys, heads, tails, entries = chain
    wk.chain_append(keys, heads, tails, entries, key, rel, counts, used)


def _piece(p: _OldPiece) -> Piece:
    rows = np.asarray(p.rows)
    whole = len(rows) > 0 and rows[0] + len(rows) - 1 == rows[-1]
    if len(rows) == 0 or whole:
        start = int(rows[0]) if len(rows) else 0
        return Piece(p.batch, start, start + len(rows))
    return Piece(p.batch, int(rows[0]), int(rows[-1]) + 1, rows)


def _file(f: _OldFile, memo: dict[int, Any]) -> OpenFile:
    new = memo.get(id(f))
    if new is None:
        new = OpenFile(
            f.key, f.subject, f.poster, f.name, f.xref, f.file_index, f.file_total,
            f.part_total, f.ext_class, f.volume, f.random_name, f.first_date, f.last_date,
            f.first_article, f.last_article, f.nbytes, f.count,
            [_piece(p) for p in f.pieces], [_piece(p) for p in f.carried],
            f.first_part_id, f.last_part, f.last_part_id,
        )  # fmt: skip
        memo[id(f)] = new
    return new


def _release(rel: OpenRelease | None, memo: dict[int, Any]) -> OpenRelease | None:
    """An album's release (or member) with its files made today's, once each."""
    if rel is None:
        return None
    if id(rel) in memo:
        done: OpenRelease = memo[id(rel)]
        return done
    memo[id(rel)] = rel
    rel.files = [_file(f, memo) if isinstance(f, _OldFile) else f for f in rel.files]
    rel.first_member = _release(rel.first_member, memo)
    rel.absorbed = [r for r in (_release(m, memo) for m in rel.absorbed) if r is not None]
    return rel


def _album(album: Album, memo: dict[int, Any]) -> Album:
    release = _release(album.release, memo)
    lone = _release(album.lone, memo)
    assert release is not None and lone is not None
    return Album(release, lone, album.members)
