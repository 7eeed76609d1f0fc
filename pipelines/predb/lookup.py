"""The compact lookup: every pre's current state, and its keys (`keys.py`) sorted.

A *generation* is a folder `_predb/lookup/<generation>/` holding `pres.arrow` (one row
a pre, in the order pres were learned: a row number never changes), `keys.arrow` (each
pre's title and digest keys, sorted: `key` uint64, `row` uint32, `variant` uint8) and
`covers.json` (the event batches folded into it), written last: a generation without it
is unfinished and ignored. Both Arrow files are uncompressed IPC, memory-mapped: a
lookup of k keys is k binary searches touching a few pages each, whatever the size.

Event batches newer than the generation (an IRC listener's, an import's stopped before
its rebuild) are folded in memory when the lookup loads, as further *parts* beside the
generation's; `rebuild` writes them into a new generation (the import does at its end,
the scan when the parts pass `REBUILD_AT` events), then removes the older generations.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

from pipelines.corpus.fs import open_fs
from pipelines.predb import keys as K
from pipelines.predb.lines import NUKED
from pipelines.predb.store import (
    DoneBatches,
    batches,
    get_json,
    predb_path,
    put_json,
    read_batches,
    write_ipc,
)

PRES = pa.schema(
    [
        ("pre_key", pa.binary(20)),
        ("title", pa.string()),
        ("source", pa.string()),
        ("seen_at", pa.int64()),
        ("pre_time", pa.int64()),
        ("category", pa.string()),
        ("size", pa.int64()),
        ("files", pa.int32()),
        ("filename", pa.string()),
        ("request_id", pa.int64()),
        ("request_group", pa.string()),
        ("live", pa.bool_()),
        ("nuke", pa.string()),  # the last nuke event's kind ("" none)
        ("nuke_reason", pa.string()),
        ("nuke_events", pa.int32()),  # how many nuke events its history holds
    ]
)
KEYS = pa.schema([("key", pa.uint64()), ("row", pa.uint32()), ("variant", pa.uint8())])
# what a later line may fill in of a pre that lacks it (an `upd` event); never overwritten
FILLABLE = ("size", "files", "category", "filename", "request_id", "request_group")
EMPTY_FILL: dict[str, Any] = dict.fromkeys(FILLABLE)


def fillable(fields: dict[str, Any]) -> dict[str, Any]:
    """The fillable fields these hold (a line's or a pre's): those not empty or zero; a
    request id only with its group (`RQ: 12345 a.b.teevee`), and a group only with its id."""
    out = {k: fields[k] for k in FILLABLE if fields.get(k)}
    if not (fields.get("request_id") and fields.get("request_group")):
        out.pop("request_id", None)
        out.pop("request_group", None)
    return out


LOOKUP = "lookup"
REBUILD_AT = 50_000  # events outside the generation before the scan writes a new one


@dataclass
class Part:
    """Pres rows and their keys, sorted: the generation's, or events folded since."""

    pres: pa.Table
    keys: np.ndarray  # uint64, ascending
    rows: np.ndarray  # uint32: the pre's row within this part
    variants: np.ndarray  # uint8
    offset: int = 0  # the part's first global row

    @classmethod
    def of(cls, pres: pa.Table, offset: int) -> Part:
        asks = zip(
            pres.column("request_group").to_pylist(),
            pres.column("request_id").to_pylist(),
            strict=True,
        )
        matrix = K.pre_key_matrix(pres.column("title").to_pylist(), asks)
        n = matrix.shape[0]
        rows = np.repeat(np.arange(n, dtype=np.uint32), K.N_KEYS)
        variants = np.tile(np.arange(K.N_KEYS, dtype=np.uint8), n)
        flat = matrix.reshape(-1)
        keep = flat != K.NO_KEY
        flat, rows, variants = flat[keep], rows[keep], variants[keep]
        order = np.argsort(flat, kind="stable")
        return cls(pres, flat[order], rows[order], variants[order], offset)

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(index into `keys`, global row, variant) of every hit."""
        if not len(self.keys) or not len(keys):
            return _none()
        lo = np.searchsorted(self.keys, keys, side="left")
        hi = np.searchsorted(self.keys, keys, side="right")
        counts = hi - lo
        q = np.repeat(np.arange(len(keys)), counts)
        if not len(q):
            return _none()
        starts = np.repeat(lo - np.cumsum(counts) + counts, counts)
        pos = starts + np.arange(len(q))
        return q, self.rows[pos].astype(np.int64) + self.offset, self.variants[pos]


def _none() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.uint8)


@dataclass
class Nuke:
    kind: str
    reason: str
    events: int


@dataclass
class Lookup:
    catalog: str
    parts: list[Part] = field(default_factory=list)
    nukes: dict[int, Nuke] = field(default_factory=dict)  # rows whose nuke state changed since
    fills: dict[int, dict[str, Any]] = field(default_factory=dict)  # rows filled in since
    # request keys of pres whose request id was told after them (key -> row), found like
    # the parts' keys until a rebuild writes them in
    late: dict[int, int] = field(default_factory=dict)
    covers: DoneBatches = field(default_factory=DoneBatches)  # event batches folded
    generation: str = ""
    folded: int = 0  # events folded outside the generation

    @property
    def n(self) -> int:
        return sum(p.pres.num_rows for p in self.parts)

    # --- finding ---------------------------------------------------------------------

    def find(self, keys: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        arr = np.asarray(keys, dtype=np.uint64)
        found = [p.find(arr) for p in self.parts]
        if self.late:
            found.append(self._find_late(arr))
        if not found:
            return _none()
        return tuple(np.concatenate(c) for c in zip(*found, strict=True))  # type: ignore[return-value]

    def _find_late(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        late = np.fromiter(self.late, np.uint64, len(self.late))
        q = np.flatnonzero(np.isin(keys, late))
        rows = np.array([self.late[int(k)] for k in keys[q].tolist()], np.int64)
        return q, rows, np.full(len(q), K.REQUEST, np.uint8)

    def rows_of_titles(self, titles: Sequence[str]) -> list[int | None]:
        """Each title's row (None: not known), by its title key, the title compared."""
        out: list[int | None] = [None] * len(titles)
        q, rows, variants = self.find([K.title_key(t) for t in titles])
        keep = variants == K.TITLE
        q, rows = q[keep], rows[keep]
        found = self.column("title", rows).to_pylist()
        for i, row, title in zip(q.tolist(), rows.tolist(), found, strict=True):
            if out[i] is None and title == titles[i]:
                out[i] = row
        return out

    def _part(self, row: int) -> tuple[Part, int]:
        for p in self.parts:
            if p.offset <= row < p.offset + p.pres.num_rows:
                return p, row - p.offset
        raise IndexError(row)

    def column(self, name: str, rows: np.ndarray) -> pa.Array:
        """A column's values at these global rows (any order), filled in where a later
        line filled the pre in."""
        rows = np.asarray(rows, dtype=np.int64)
        held = self._column(name, rows)
        if (
            name not in FILLABLE
            or not self.fills
            or not any(r in self.fills for r in rows.tolist())
        ):
            return held
        values = held.to_pylist()
        for i, r in enumerate(rows.tolist()):
            values[i] = self.fills.get(r, {}).get(name, values[i])
        return pa.array(values, PRES.field(name).type)

    def fill_state(self, rows: list[int]) -> dict[int, set[str]]:
        """Of each row, the fillable fields it holds (column-wise: an import's chunk asks
        of a million known titles at once)."""
        arr = np.asarray(rows, dtype=np.int64)
        cols = [self.column(name, arr).to_pylist() for name in FILLABLE]
        return {
            r: {n for n, v in zip(FILLABLE, values, strict=True) if v}
            for r, *values in zip(rows, *cols, strict=True)
        }

    def _column(self, name: str, rows: np.ndarray) -> pa.Array:
        if len(self.parts) == 1:  # the usual case: one generation
            return self.parts[0].pres.column(name).take(pa.array(rows)).combine_chunks()
        out: list[Any] = [None] * len(rows)
        for p in self.parts:
            inside = np.flatnonzero((rows >= p.offset) & (rows < p.offset + p.pres.num_rows))
            if not len(inside):
                continue
            vals = p.pres.column(name).take(pa.array(rows[inside] - p.offset)).to_pylist()
            for i, v in zip(inside.tolist(), vals, strict=True):
                out[i] = v
        return pa.array(out, PRES.field(name).type)

    def title(self, row: int) -> str:
        p, i = self._part(row)
        return str(p.pres.column("title")[i].as_py())

    def value(self, row: int, name: str) -> Any:
        """One field of a pre, filled in where a later line filled it (a twentieth of
        `pre`'s cost: the matcher asks each candidate's size)."""
        fill = self.fills.get(row)
        if fill is not None and name in fill:
            return fill[name]
        p, i = self._part(row)
        return p.pres.column(name)[i].as_py()

    def pre(self, row: int) -> dict[str, Any]:
        """The pre's current state as a dict (its nuke as it stands now)."""
        p, i = self._part(row)
        rec = p.pres.slice(i, 1).to_pylist()[0]
        rec.update(self.fills.get(row, {}))
        nuke = self.nukes.get(row)
        if nuke is not None:
            rec.update(nuke=nuke.kind, nuke_reason=nuke.reason, nuke_events=nuke.events)
        rec["row"] = row
        rec["nuked"] = rec["nuke"] in NUKED
        return rec

    def nuke_of(self, row: int) -> Nuke:
        if row in self.nukes:
            return self.nukes[row]
        p, i = self._part(row)
        t = p.pres
        return Nuke(
            str(t.column("nuke")[i].as_py() or ""),
            str(t.column("nuke_reason")[i].as_py() or ""),
            int(t.column("nuke_events")[i].as_py() or 0),
        )

    def _late_request(self, row: int) -> None:
        """The request key of a pre told its request id after it was learned."""
        rid, group = self.value(row, "request_id"), self.value(row, "request_group")
        if rid and group:
            self.late[K.request_key(group, int(rid))] = row

    # --- folding events ----------------------------------------------------------------

    def absorb(
        self, events: pa.Table, batch: str | None = None, checked: bool = False
    ) -> list[int]:
        """Fold an event batch in (new pres as a new part, nuke events as states); the rows
        of the pres it added. `checked`: its pre events are of titles this lookup does not
        know, one each (the import made them so against it)."""
        kinds = events.column("kind")
        new = events.filter(pc.equal(kinds, "pre"))
        if new.num_rows and not checked:
            titles = new.column("title").to_pylist()
            known = self.rows_of_titles(titles)
            keep = [k is None for k in known]
            new = _first_per_title(new.filter(pa.array(keep)))
        added: list[int] = []
        if new.num_rows:
            pres = _pres_of(new)
            part = Part.of(pres, self.n)
            self.parts.append(part)
            added = list(range(part.offset, part.offset + pres.num_rows))
        fills = events.filter(pc.equal(kinds, "upd"))
        if fills.num_rows:
            titles = fills.column("title").to_pylist()
            for row, rec in zip(self.rows_of_titles(titles), fills.to_pylist(), strict=True):
                if row is not None:  # what the pre lacks: the first line to tell it wins
                    told = self.fills.get(row, {})
                    self.fills[row] = {**fillable(rec), **told}
                    if "request_id" not in told and "request_id" in self.fills[row]:
                        self._late_request(row)
        nukes = events.filter(pc.invert(pc.is_in(kinds, pa.array(["pre", "upd"]))))
        if nukes.num_rows:
            titles = nukes.column("title").to_pylist()
            for row, rec in zip(self.rows_of_titles(titles), nukes.to_pylist(), strict=True):
                if row is None:
                    continue  # a nuke of a pre never learned: counted by the reader
                was = self.nuke_of(row)
                self.nukes[row] = Nuke(rec["kind"], rec["reason"] or "", was.events + 1)
        self.folded += events.num_rows
        if batch is not None:
            self.covers.add([batch])
        return added


def _first_per_title(t: pa.Table) -> pa.Table:
    """A batch's first pre event of each title (a title twice in one batch: the first)."""
    seen: set[str] = set()
    keep = []
    for title in t.column("title").to_pylist():
        keep.append(title not in seen)
        seen.add(title)
    return t.filter(pa.array(keep)) if not all(keep) else t


def _pres_of(events: pa.Table) -> pa.Table:
    n = events.num_rows
    cols = {name: events.column(name) for name in PRES.names if name in events.column_names}
    cols["nuke"] = pa.array([""] * n, pa.string())
    cols["nuke_reason"] = pa.array([""] * n, pa.string())
    cols["nuke_events"] = pa.array([0] * n, pa.int32())
    return pa.table({name: cols[name] for name in PRES.names}).cast(PRES)


# --- loading and writing generations ------------------------------------------------


def generations(catalog: str) -> list[str]:
    """Finished generations, oldest first."""
    fs, _ = open_fs(catalog)
    try:
        found = fs.ls(predb_path(catalog, LOOKUP), detail=False)
    except FileNotFoundError:
        return []
    names = sorted(str(p).rstrip("/").rsplit("/", 1)[-1] for p in found)
    return [n for n in names if fs.exists(predb_path(catalog, LOOKUP, n, "covers.json"))]


def has_generation(catalog: str) -> bool:
    return bool(generations(catalog))


def _mapped(path: str) -> pa.Table:
    return ipc.open_file(pa.memory_map(path, "r")).read_all()


def load(catalog: str) -> Lookup:
    """The newest generation (memory-mapped) with every event batch since folded in."""
    out = Lookup(catalog)
    gens = generations(catalog)
    if gens:
        gen = gens[-1]
        pres = _mapped(predb_path(catalog, LOOKUP, gen, "pres.arrow"))
        k = _mapped(predb_path(catalog, LOOKUP, gen, "keys.arrow"))
        covers = get_json(catalog, f"{LOOKUP}/{gen}/covers.json")
        out.parts.append(
            Part(
                pres,
                _np(k.column("key")),
                _np(k.column("row")),
                _np(k.column("variant")),
            )
        )
        out.covers = DoneBatches(covers)
        out.generation = gen
    catch_up(out)
    return out


def catch_up(lookup: Lookup) -> int:
    """Fold the event batches written since the lookup last looked; how many."""
    since = lookup.covers.upto
    todo = [b for b in batches(lookup.catalog, "events", since=since) if b not in lookup.covers]
    for name in todo:
        lookup.absorb(read_batches(lookup.catalog, "pre_events", [name]), name)
    return len(todo)


def _np(col: pa.ChunkedArray) -> np.ndarray:
    arr = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    return arr.to_numpy(zero_copy_only=False)


def rebuild(lookup: Lookup) -> str:
    """Write the lookup as one new generation (every part, the nuke states applied);
    remove the older ones. Its name."""
    from pipelines.predb.store import batch_name

    fs, _ = open_fs(lookup.catalog)
    gen = batch_name("")
    folder = predb_path(lookup.catalog, LOOKUP, gen)
    fs.makedirs(folder, exist_ok=True)
    pres = _with_fills(_with_nukes(lookup), lookup.fills)
    keys = (
        np.concatenate([p.keys for p in lookup.parts]) if lookup.parts else np.zeros(0, np.uint64)
    )
    rows = (
        np.concatenate([p.rows.astype(np.uint32) + np.uint32(p.offset) for p in lookup.parts])
        if lookup.parts
        else np.zeros(0, np.uint32)
    )
    variants = (
        np.concatenate([p.variants for p in lookup.parts])
        if lookup.parts
        else np.zeros(0, np.uint8)
    )
    if lookup.late:  # request ids told later: their keys join the generation's
        keys = np.concatenate([keys, np.fromiter(lookup.late, np.uint64, len(lookup.late))])
        rows = np.concatenate(
            [rows, np.fromiter(lookup.late.values(), np.uint32, len(lookup.late))]
        )
        variants = np.concatenate([variants, np.full(len(lookup.late), K.REQUEST, np.uint8)])
    order = np.argsort(keys, kind="stable")
    k = pa.table({"key": keys[order], "row": rows[order], "variant": variants[order]}, schema=KEYS)
    del order
    write_ipc(f"{folder}/pres.arrow", pres)
    write_ipc(f"{folder}/keys.arrow", k, one_batch=True)
    put_json(lookup.catalog, f"{LOOKUP}/{gen}/covers.json", lookup.covers.to_json())
    for old in generations(lookup.catalog):
        if old != gen:
            shutil.rmtree(predb_path(lookup.catalog, LOOKUP, old), ignore_errors=True)
    for stray in _unfinished(lookup.catalog, gen):
        shutil.rmtree(predb_path(lookup.catalog, LOOKUP, stray), ignore_errors=True)
    lookup.generation = gen
    lookup.folded = 0
    return gen


def _unfinished(catalog: str, keep: str) -> Iterable[str]:
    """Generation folders without their covers.json (a rebuild stopped midway)."""
    fs, _ = open_fs(catalog)
    try:
        found = fs.ls(predb_path(catalog, LOOKUP), detail=False)
    except FileNotFoundError:
        return []
    names = [str(p).rstrip("/").rsplit("/", 1)[-1] for p in found]
    done = set(generations(catalog))
    return [n for n in names if n not in done and n != keep]


def _with_nukes(lookup: Lookup) -> pa.Table:
    """Every part's pres, the nuke states folded since written into their columns
    (column-wise: the few rows that changed replaced under a mask)."""
    tables = [p.pres for p in lookup.parts]
    pres = pa.concat_tables(tables) if tables else PRES.empty_table()
    if not lookup.nukes:
        return pres
    rows = sorted(lookup.nukes)
    mask = np.zeros(pres.num_rows, dtype=bool)
    mask[rows] = True
    changed = {
        "nuke": pa.array([lookup.nukes[r].kind for r in rows], pa.string()),
        "nuke_reason": pa.array([lookup.nukes[r].reason for r in rows], pa.string()),
        "nuke_events": pa.array([lookup.nukes[r].events for r in rows], pa.int32()),
    }
    for name, values in changed.items():
        column = pres.column(name).combine_chunks()
        pres = pres.set_column(
            PRES.get_field_index(name), name, pc.replace_with_mask(column, pa.array(mask), values)
        )
    return pres


def _with_fills(pres: pa.Table, fills: dict[int, dict[str, Any]]) -> pa.Table:
    """The pres with what later lines filled in written into their columns (under a
    mask, as the nukes)."""
    for name in FILLABLE:
        rows = sorted(r for r, f in fills.items() if name in f)
        if not rows:
            continue
        mask = np.zeros(pres.num_rows, dtype=bool)
        mask[rows] = True
        values = pa.array([fills[r][name] for r in rows], PRES.field(name).type)
        column = pres.column(name).combine_chunks()
        pres = pres.set_column(
            PRES.get_field_index(name), name, pc.replace_with_mask(column, pa.array(mask), values)
        )
    return pres
