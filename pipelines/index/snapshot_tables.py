"""The window as Arrow tables and back: what a window snapshot holds (docs/CATALOG.md).

Between ranges the window is its kernel's tables (`kernels.window.Tables`, stored row
for row: the hash maps slot for slot, so a loaded window probes exactly as the saved
one), the per-file texts and kept message-ids, the frontier, the batch counters and the
open albums. Albums are objects (releases and files that several albums' fields point
at): they are stored as rows, each release and file once, pointing at each other by row
number. Segments kept for an album to come (`carried`) are stored segment by segment.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from kernels import frontier as fk
from kernels import window as wk
from pipelines.index.albums import Album, Albums
from pipelines.index.parsed_chunk import ParsedChunk
from pipelines.index.release import OpenFile, OpenRelease, Piece
from pipelines.index.rules import Rules
from pipelines.index.window import Window
from pipelines.index.window_tables import WindowTables

# the tables of a snapshot, in the order they are stored
TABLES = (
    "files", "releases", "pool", "file_map", "ident_map", "ident_entries", "sibling_map",
    "sibling_entries", "pairs", "frontier_ring", "frontier_posters", "batch_uploads",
    "album_files", "album_releases", "albums", "pieces",
)  # fmt: skip
# where a stored piece of segments belongs (`pieces.holder`)
WINDOW_CARRIED, ALBUM_PIECES, ALBUM_CARRIED = 0, 1, 2
_TEXTS = ("subject", "poster", "name", "xref")
_FRONTIER_SCALARS = ("frontier", "ring_len", "ring_pos", "odd_len", "last_good")
_OPEN_FILE_INTS = (
    "file_index", "file_total", "part_total", "ext_class", "volume", "first_date",
    "last_date", "first_article", "last_article", "nbytes", "count", "last_part",
)  # fmt: skip
_OPEN_RELEASE_INTS = (
    "source", "first_date", "last_date", "first_article", "last_article", "file_total",
)  # fmt: skip
_GROWN = ("files", "releases", "pool", "ident_entries", "sibling_entries")
_I64, _U64, _BIN = pa.int64(), pa.uint64(), pa.binary()


def _records(rows: np.ndarray, extra: dict[str, pa.Array] | None = None) -> pa.Table:
    """A structured array as a table: a column a field, in the dtype's order."""
    names = rows.dtype.names or ()
    columns = {name: pa.array(np.ascontiguousarray(rows[name])) for name in names}
    return pa.table({**columns, **(extra or {})})


def _from_records(table: pa.Table, dtype: np.dtype) -> np.ndarray:
    out = np.zeros(table.num_rows, dtype)
    for name in dtype.names or ():
        out[name] = table.column(name).to_numpy(zero_copy_only=False)
    return out


def _column(table: pa.Table, name: str) -> list[Any]:
    return table.column(name).to_pylist()


# -- saving ------------------------------------------------------------------------------


def to_tables(window: Window) -> tuple[dict[str, Any], dict[str, pa.Table]]:
    """The window's scalars (the head) and its tables."""
    if window.placed or window.range_chunks:
        raise ValueError("a window is stored only between ranges (after carry)")
    t = window.tables
    c = t.counts
    n = t.n_files
    kept = [window.part_ids.get(i) for i in range(n)]
    files = _records(
        t.files[:n],
        {
            **{name: pa.array(getattr(window, name), _BIN) for name in _TEXTS},
            "first_part_id": pa.array([None if k is None else k[0] for k in kept], _BIN),
            "last_part_id": pa.array([None if k is None else k[1] for k in kept], _BIN),
        },
    )
    f = window.frontier
    tables = {
        "files": files,
        "releases": _records(t.releases[: t.n_releases]),
        "pool": pa.table({"seen": pa.array(t.pool[: c[wk.POOL_USED]])}),
        "file_map": _records(t.file_map),
        "ident_map": _records(t.ident_map),
        "ident_entries": _records(t.ident_entries[: c[wk.IDENT_ENTRIES]]),
        "sibling_map": _records(t.sibling_map),
        "sibling_entries": _records(t.sibling_entries[: c[wk.SIBLING_ENTRIES]]),
        "pairs": _records(t.pairs),
        "frontier_ring": pa.table(
            {
                "ring": pa.array(f.ring),
                "ring_poster": pa.array(f.ring_posters),
                "odd": pa.array(f.odd),
                "odd_poster": pa.array(f.odd_posters),
            }
        ),
        "frontier_posters": pa.table(
            {"poster_key": pa.array(f.poster_keys), "date": pa.array(f.poster_dates)}
        ),
        "batch_uploads": _batch_uploads(window),
    }
    pieces = _Pieces()
    for slot in sorted(window.carried):
        pieces.add(WINDOW_CARRIED, slot, window.carried[slot])
    tables.update(_albums(window.albums, pieces))
    tables["pieces"] = pieces.table()
    head = {
        "rules": window.rules.to_json(),
        "position": window.position,
        "chunks_placed": window.chunks_placed,
        "counts": dict(zip(wk.COUNTER_NAMES, c.tolist(), strict=True)),
        "frontier": {name: int(getattr(f, name)) for name in _FRONTIER_SCALARS},
        # the arrays' lengths, unused rows included: a loaded window grows (and rebuilds
        # its maps) exactly when the saved one would have
        "capacity": {name: len(getattr(t, name)) for name in _GROWN},
    }
    return head, tables


def _batch_uploads(window: Window) -> pa.Table:
    """A row per (poster, total, upload identity); identity null for a total with none."""
    poster_keys: list[int] = []
    totals: list[int] = []
    idents: list[int | None] = []
    for (poster, total), uploads in sorted(window.batch_uploads.items()):
        none: list[int | None] = [None]  # a total with no upload yet (batch_uploads_min 0)
        for ident in sorted(uploads) or none:
            poster_keys.append(poster)
            totals.append(total)
            idents.append(ident)
    return pa.table(
        {
            "poster_key": pa.array(poster_keys, _U64),
            "total": pa.array(totals, _I64),
            "ident": pa.array(idents, _U64),
        }
    )


class _Pieces:
    """The stored pieces: a row per segment, the pieces of one list in order."""

    def __init__(self) -> None:
        self.holder: list[int] = []
        self.owner: list[int] = []
        self.piece: list[int] = []
        self.number: list[np.ndarray] = []
        self.nbytes: list[np.ndarray] = []
        self.ids: list[pa.Array] = []

    def add(self, holder: int, owner: int, pieces: list[Piece]) -> None:
        for j, p in enumerate(pieces):
            rows = p.indices()
            self.holder.extend([holder] * len(rows))
            self.owner.extend([owner] * len(rows))
            self.piece.extend([j] * len(rows))
            self.number.append(np.asarray(p.chunk.number[rows], np.int32))
            self.nbytes.append(np.asarray(p.chunk.nbytes[rows], np.int64))
            self.ids.append(p.chunk.message_id.take(pa.array(rows, _I64)).cast(_BIN))

    def table(self) -> pa.Table:
        def joined(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
            return np.concatenate(parts) if parts else np.zeros(0, dtype)

        ids = pa.concat_arrays(self.ids) if self.ids else pa.array([], _BIN)
        return pa.table(
            {
                "holder": pa.array(self.holder, pa.uint8()),
                "owner": pa.array(self.owner, _I64),
                "piece": pa.array(self.piece, _I64),
                "number": pa.array(joined(self.number, np.int32)),
                "nbytes": pa.array(joined(self.nbytes, np.int64)),
                "message_id": ids,
            }
        )


def _albums(albums: Albums, pieces: _Pieces) -> dict[str, pa.Table]:
    """The open albums and every release and file they point at, each once, by row."""
    rels: list[OpenRelease] = []
    rel_row: dict[int, int] = {}
    files: list[OpenFile] = []
    file_row: dict[int, int] = {}

    def visit(rel: OpenRelease | None) -> None:
        if rel is None or id(rel) in rel_row:
            return
        if rel.sibling is not None:
            raise ValueError("an album's release has a sibling key: a snapshot does not hold it")
        rel_row[id(rel)] = len(rels)
        rels.append(rel)
        for f in rel.files:
            if id(f) not in file_row:
                file_row[id(f)] = len(files)
                files.append(f)
        visit(rel.first_member)
        for member in rel.absorbed:
            visit(member)

    for album in albums.open.values():
        visit(album.release)
        visit(album.lone)
    for row, f in enumerate(files):
        pieces.add(ALBUM_PIECES, row, f.pieces)
        pieces.add(ALBUM_CARRIED, row, f.carried)
    album_files = pa.table(
        {
            "key": pa.array([f.key for f in files], _U64),
            **{name: pa.array([getattr(f, name) for f in files], _BIN) for name in _TEXTS},
            **{n: pa.array([getattr(f, n) for f in files], _I64) for n in _OPEN_FILE_INTS},
            "random_name": pa.array([f.random_name for f in files], pa.bool_()),
            "first_part_id": pa.array([f.first_part_id for f in files], _BIN),
            "last_part_id": pa.array([f.last_part_id for f in files], _BIN),
        }
    )
    album_releases = pa.table(
        {
            "ident": pa.array([r.ident for r in rels], _U64),
            "poster_key": pa.array([r.poster_key for r in rels], _U64),
            **{n: pa.array([getattr(r, n) for r in rels], _I64) for n in _OPEN_RELEASE_INTS},
            "written": pa.array([r.written for r in rels], pa.bool_()),
            "album_template": pa.array([r.album_template for r in rels], _BIN),
            "members": pa.array([r.members for r in rels], pa.list_(_BIN)),
            "files": pa.array([[file_row[id(f)] for f in r.files] for r in rels], pa.list_(_I64)),
            "keys": pa.array([sorted(r.keys) for r in rels], pa.list_(_U64)),
            "idents": pa.array([sorted(r.idents) for r in rels], pa.list_(_U64)),
            "first_member": pa.array(
                [-1 if r.first_member is None else rel_row[id(r.first_member)] for r in rels], _I64
            ),
            "absorbed": pa.array(
                [[rel_row[id(m)] for m in r.absorbed] for r in rels], pa.list_(_I64)
            ),
        }
    )
    opened = list(albums.open.items())
    albums_table = pa.table(
        {
            "poster_key": pa.array([k[0] for k, _ in opened], _U64),
            "template": pa.array([k[1] for k, _ in opened], _BIN),
            "release": pa.array([rel_row[id(a.release)] for _, a in opened], _I64),
            "lone": pa.array([rel_row[id(a.lone)] for _, a in opened], _I64),
            "members": pa.array([a.members for _, a in opened], _I64),
        }
    )
    return {"album_files": album_files, "album_releases": album_releases, "albums": albums_table}


# -- loading -----------------------------------------------------------------------------


def from_tables(head: dict[str, Any], tables: dict[str, pa.Table]) -> Window:
    """The window these tables hold (the inverse of `to_tables`)."""
    counts = np.array([head["counts"][name] for name in wk.COUNTER_NAMES], np.int64)
    files = tables["files"]
    n = files.num_rows
    if n != counts[wk.N_FILES] or tables["releases"].num_rows != counts[wk.N_RELEASES]:
        raise ValueError("the file or release rows disagree with the counters")
    capacity = head["capacity"]
    t = WindowTables(
        files=_rows(_from_records(files, wk.FILE), capacity["files"]),
        releases=_rows(_from_records(tables["releases"], wk.RELEASE), capacity["releases"]),
        pool=_rows(tables["pool"].column("seen").to_numpy(), capacity["pool"]),
        file_map=_from_records(tables["file_map"], wk.FILE_SLOT),
        ident_map=_from_records(tables["ident_map"], wk.CHAIN_SLOT),
        ident_entries=_rows(
            _from_records(tables["ident_entries"], wk.ENTRY), capacity["ident_entries"]
        ),
        sibling_map=_from_records(tables["sibling_map"], wk.CHAIN_SLOT),
        sibling_entries=_rows(
            _from_records(tables["sibling_entries"], wk.ENTRY), capacity["sibling_entries"]
        ),
        pairs=_from_records(tables["pairs"], wk.PAIR),
        counts=counts,
    )
    ring, posters = tables["frontier_ring"], tables["frontier_posters"]
    frontier = fk.FrontierState(
        ring=ring.column("ring").to_numpy().astype(np.int64),
        ring_posters=ring.column("ring_poster").to_numpy().astype(np.uint64),
        odd=ring.column("odd").to_numpy().astype(np.int64),
        odd_posters=ring.column("odd_poster").to_numpy().astype(np.uint64),
        poster_keys=posters.column("poster_key").to_numpy().astype(np.uint64),
        poster_dates=posters.column("date").to_numpy().astype(np.int64),
        **{name: int(head["frontier"][name]) for name in _FRONTIER_SCALARS},
    )
    w = Window(Rules.from_json(head["rules"]), frontier=frontier, tables=t)
    for name in _TEXTS:
        setattr(w, name, _column(files, name))
    for i, (first, last) in enumerate(
        zip(_column(files, "first_part_id"), _column(files, "last_part_id"), strict=True)
    ):
        if first is not None:
            w.part_ids[i] = (first, last)
    pieces = _load_pieces(tables["pieces"])
    w.carried = pieces.get(WINDOW_CARRIED, {})
    w.albums = _load_albums(tables, pieces)
    for poster, total, ident in zip(
        *(_column(tables["batch_uploads"], c) for c in ("poster_key", "total", "ident")),
        strict=True,
    ):
        idents = w.batch_uploads.setdefault((poster, total), set())
        if ident is not None:
            idents.add(ident)
    w.position = int(head["position"])
    w.chunks_placed = int(head["chunks_placed"])
    return w


def _rows(used: np.ndarray, capacity: int) -> np.ndarray:
    """The used rows in an array of the saved length (the rest zeros, as unused rows are)."""
    if capacity < len(used):
        raise ValueError(f"{len(used)} rows for a capacity of {capacity}")
    out = np.zeros(capacity, used.dtype)
    out[: len(used)] = used
    return out


def _load_pieces(table: pa.Table) -> dict[int, dict[int, list[Piece]]]:
    """holder -> owner -> its pieces, each a slim chunk of its segments."""
    out: dict[int, dict[int, list[Piece]]] = {}
    if not table.num_rows:
        return out
    holder = table.column("holder").to_numpy()
    owner = table.column("owner").to_numpy()
    piece = table.column("piece").to_numpy()
    number = table.column("number").to_numpy()
    nbytes = table.column("nbytes").to_numpy()
    ids = table.column("message_id").combine_chunks()
    change = (np.diff(holder) != 0) | (np.diff(owner) != 0) | (np.diff(piece) != 0)
    starts = np.concatenate(([0], np.flatnonzero(change) + 1, [len(holder)]))
    for a, z in zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True):
        chunk = ParsedChunk.of_segments(number[a:z].copy(), nbytes[a:z].copy(), ids.slice(a, z - a))
        lists = out.setdefault(int(holder[a]), {})
        lists.setdefault(int(owner[a]), []).append(Piece(chunk, 0, z - a))
    return out


def _load_albums(tables: dict[str, pa.Table], pieces: dict[int, dict[int, list[Piece]]]) -> Albums:
    ft = tables["album_files"]
    ints = {name: _column(ft, name) for name in _OPEN_FILE_INTS}
    texts = {name: _column(ft, name) for name in _TEXTS}
    album_pieces, album_carried = pieces.get(ALBUM_PIECES, {}), pieces.get(ALBUM_CARRIED, {})
    keys, randoms = _column(ft, "key"), _column(ft, "random_name")
    first_ids, last_ids = _column(ft, "first_part_id"), _column(ft, "last_part_id")
    files = [
        OpenFile(
            keys[i], texts["subject"][i], texts["poster"][i], texts["name"][i], texts["xref"][i],
            ints["file_index"][i], ints["file_total"][i], ints["part_total"][i],
            ints["ext_class"][i], ints["volume"][i], randoms[i], ints["first_date"][i],
            ints["last_date"][i], ints["first_article"][i], ints["last_article"][i],
            ints["nbytes"][i], ints["count"][i], album_pieces.get(i, []),
            album_carried.get(i, []), first_ids[i], ints["last_part"][i], last_ids[i],
        )
        for i in range(ft.num_rows)
    ]  # fmt: skip
    rt = tables["album_releases"]
    r = {name: _column(rt, name) for name in rt.column_names}
    rels = [
        OpenRelease.from_row(
            r,
            j,
            files=[files[i] for i in r["files"][j]],
            keys=set(r["keys"][j]),
            idents=set(r["idents"][j]),
            members=list(r["members"][j]),
            album_template=r["album_template"][j],
        )
        for j in range(rt.num_rows)
    ]
    for rel, first, absorbed in zip(rels, r["first_member"], r["absorbed"], strict=True):
        rel.first_member = rels[first] if first >= 0 else None
        rel.absorbed = [rels[m] for m in absorbed]
    at = tables["albums"]
    a = {name: _column(at, name) for name in at.column_names}
    return Albums(
        open={
            (a["poster_key"][k], a["template"][k]): Album(
                rels[a["release"][k]], rels[a["lone"][k]], a["members"][k]
            )
            for k in range(at.num_rows)
        }
    )
