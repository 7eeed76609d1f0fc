"""Build one index segment from `releases` partitions, with Arrow and numpy only.

A segment holds the newest version of each release among its partitions, ordered
newest posting first (the row number is the release's *ordinal*), and:

- `rows.arrow`: the columns pages and feeds show, uncompressed Arrow IPC so the server
  memory-maps it and a page of results touches only its own rows;
- `items.arrow`: each release's feed item values, escaped and formatted once here
  (`serving.newznab.items`): a feed page reads this one column;
- `posted.npy`, `bytes.npy`, `category.npy`, `group.npy`, `rank.npy`, `file.npy`:
  per-ordinal columns the filters and the version rules read;
- `keys.npy` + `key_order.npy`: release keys sorted, for lookups by key;
- `terms.arrow` + `offsets.npy` + `postings.npy`: every word and filter term, sorted,
  with its ascending list of ordinals; `bitset_terms.npy` + `bitsets.npy`: the same as
  bitsets for terms in more than 1/32 of the rows, so common words intersect in
  microseconds instead of merging millions of ordinals.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from fsspec import AbstractFileSystem

from pipelines.catalog.health import reading
from pipelines.catalog.schema import KEY, RELEASES
from pipelines.catalog.versions import MERGED, hidden, key_array, newest_rows, rank_of
from serving import text
from serving.index.ids import id_term_pairs, join_ids, kinds_present, read_ids, read_ids_none
from serving.index.probes import join_probes, passworded, read_probes, read_probes_none
from serving.newznab.items import item_values

ROW_COLUMNS = [
    "release_key", "name", "poster", "group", "groups", "posted_first", "posted_last",
    "first_article", "last_article", "files", "file_total", "segments", "bytes", "complete",
    "has_par2", "source", "category", "finished", "members", "written_range",
]  # fmt: skip
# Feed items are prepared this many rows at a time: one string array of 2 M items could
# pass the 2 GB a 32-bit-offset string array holds.
ITEM_CHUNK = 1 << 20
BITSET_SHARE = 32  # a term in more than 1/32 of the rows also gets a bitset
# What a segment's files hold; a folder of another format is rebuilt, not read (2: the
# feed items carry `finished`; 3: the article pass's columns, `passworded.npy`; 4: the
# ids of releases, their terms and attributes).
FORMAT = 4


def _column(rows: pa.Table, name: str, fill: object) -> np.ndarray:
    """A column as numpy with nulls filled (a tombstone row carries only its key)."""
    return pc.fill_null(rows.column(name), fill).to_numpy(zero_copy_only=False)


def read_partitions(fs: AbstractFileSystem, paths: Sequence[str]) -> pa.Table:
    """The release rows of these partitions, with the index of the file each came from.

    `merged_into` (a finished tombstone: the release went into another one) is read
    when the partition has it and null otherwise, so older partitions still load. A file
    that cannot be read raises `DamagedPartition` naming it.
    """
    columns = [*ROW_COLUMNS, MERGED]
    target = pa.schema([RELEASES.field(c) if c in RELEASES.names else (c, KEY) for c in columns])
    tables = []
    for i, path in enumerate(paths):
        with reading(path), fs.open(path, "rb") as fh:
            pf = pq.ParquetFile(fh)
            present = [c for c in columns if c in pf.schema_arrow.names]
            t = pf.read(columns=present)
        for c in columns:
            if c not in present:
                t = t.append_column(target.field(c), pa.nulls(t.num_rows, target.field(c).type))
        t = t.select(columns)
        for c in ("name", "poster", "group"):  # null on tombstones, which carry only a key
            t = t.set_column(t.schema.get_field_index(c), c, pc.fill_null(t.column(c), ""))
        tables.append(t.append_column("file", pa.array(np.full(t.num_rows, i, dtype=np.int32))))
    if not tables:
        return pa.schema([*target, ("file", pa.int32())]).empty_table()
    return pa.concat_tables(tables).combine_chunks()


def newest_versions(rows: pa.Table) -> pa.Table:
    """One row per release key (its newest version, `versions.newest_rows`), ordered
    newest posting first."""
    if rows.num_rows == 0:
        return rows
    keys = key_array(rows.column("release_key"))
    keep = newest_rows(rows, keys)
    posted = _column(rows, "posted_first", 0)[keep]
    # Newest first; the key breaks ties so the order is the same on every build.
    newest = keep[np.lexsort((keys[keep], -posted))]
    return rows.take(pa.array(newest))


def _distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values. numpy 2's `np.unique` hashes, ~10x slower on 10^8 ints."""
    ordered = np.sort(values)
    if len(ordered) == 0:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _dictionary(values: pa.Array | pa.ChunkedArray) -> pa.DictionaryArray:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    return pc.dictionary_encode(values)


# Byte -> byte: every ASCII separator becomes a space. UTF-8 continuation and lead bytes
# are >= 0x80, so translating bytes never touches a multi-byte character.
_SEPARATOR_BYTES = np.arange(256, dtype=np.uint8)
for _b in range(0x80):
    if re.fullmatch(text.SEPARATORS, chr(_b)):
        _SEPARATOR_BYTES[_b] = 0x20


def _separate(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Lower-cased strings with separators turned into spaces (a byte table, no regex:
    Arrow's RE2 replace costs ~6 s per million names, this ~0.1 s)."""
    arr = pc.utf8_lower(values)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.large_string())
    validity, offsets, data = arr.buffers()
    if data is None:
        return arr
    raw = np.frombuffer(data, dtype=np.uint8)
    mapped = _SEPARATOR_BYTES[raw]
    return pa.LargeStringArray.from_buffers(
        len(arr), offsets, pa.py_buffer(mapped), validity, arr.null_count, arr.offset
    )


def _tokens(values: pa.Array | pa.ChunkedArray, parents: np.ndarray) -> tuple[np.ndarray, pa.Array]:
    """Every (ordinal, word) of these strings: the word ids into a dictionary of words."""
    split = pc.utf8_split_whitespace(_separate(values))
    flat = pc.list_flatten(split)
    owner = parents[pc.list_parent_indices(split).to_numpy()]
    return owner, _dictionary(flat)


def _term_pairs(rows: pa.Table) -> tuple[list[str], np.ndarray, np.ndarray]:
    """All (term, ordinal) pairs: name and member words, episode tags, filter terms."""
    n = rows.num_rows
    ordinals = np.arange(n, dtype=np.int64)
    sources = [(rows.column("name"), ordinals)]
    # Album members and the article pass's inner names (archive entries, par2 set names)
    # are words of the release as its name is; so is an NFO's title.
    for column in ("members", "inner_names"):
        if column not in rows.column_names:
            continue
        lists = rows.column(column).combine_chunks()
        if lists.null_count < n:
            sources.append((pc.list_flatten(lists), pc.list_parent_indices(lists).to_numpy()))
    if "nfo_title" in rows.column_names and rows.column("nfo_title").null_count < n:
        sources.append((pc.fill_null(rows.column("nfo_title"), ""), ordinals))
    term_ids: dict[str, int] = {}
    pair_terms: list[np.ndarray] = []
    pair_ords: list[np.ndarray] = []
    for values, parents in sources:
        owner, encoded = _tokens(values, parents)
        dictionary = encoded.dictionary.to_pylist()
        local = np.array([term_ids.setdefault(w, len(term_ids)) for w in dictionary], np.int64)
        idx = encoded.indices.to_numpy()
        pair_terms.append(local[idx])
        pair_ords.append(owner)
        # Season/episode tags are computed once per distinct word, not per occurrence.
        tags = np.full((len(dictionary), 2), -1, dtype=np.int64)
        for w_local, w in enumerate(dictionary):
            for j, tag in enumerate(text.episode_terms(w)):
                tags[w_local, j] = term_ids.setdefault(tag, len(term_ids))
        for j in range(2):
            tag_of = tags[idx, j]
            hit = tag_of >= 0
            pair_terms.append(tag_of[hit])
            pair_ords.append(owner[hit])
    id_terms, id_ords = id_term_pairs(rows, term_ids)
    pair_terms.append(id_terms)
    pair_ords.append(id_ords)
    for column, make in (("group", text.group_term), ("poster", text.poster_term)):
        encoded = _dictionary(rows.column(column))
        local = np.array(
            [term_ids.setdefault(make(v), len(term_ids)) for v in encoded.dictionary.to_pylist()],
            np.int64,
        )
        pair_terms.append(local[encoded.indices.to_numpy()])
        pair_ords.append(ordinals)
    category = _column(rows, "category", 0).astype(np.int64)
    for cats in (category, category // 1000 * 1000):
        values = _distinct(cats)
        local = np.array(
            [term_ids.setdefault(text.category_term(int(c)), len(term_ids)) for c in values]
        )
        pair_terms.append(local[np.searchsorted(values, cats)])
        pair_ords.append(ordinals)
    terms = list(term_ids)
    return terms, np.concatenate(pair_terms), np.concatenate(pair_ords)


def _write_ipc(path: Path, table: pa.Table, chunk: int | None = 1 << 20) -> None:
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table, max_chunksize=chunk)


def write_segment(rows: pa.Table, sources: Sequence[dict], out: str | os.PathLike[str]) -> dict:
    """Write the segment of these newest-version rows into folder `out`; its summary."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    if "password" not in rows.column_names:  # rows built without the probes: none known
        rows = join_probes(rows, read_probes_none())
    if "imdb" not in rows.column_names:  # rows built without the ids: none known
        rows = join_ids(rows, read_ids_none())
    n = rows.num_rows
    _write_ipc(folder / "rows.arrow", rows)
    items = [item_values(rows.slice(i, ITEM_CHUNK)) for i in range(0, n, ITEM_CHUNK)]
    _write_ipc(folder / "items.arrow", pa.table({"item": pa.chunked_array(items, pa.string())}))
    save = lambda name, arr: np.save(folder / f"{name}.npy", arr)  # noqa: E731
    save("posted", _column(rows, "posted_first", 0).astype(np.int64))
    save("bytes", _column(rows, "bytes", 0).astype(np.int64))
    save("category", _column(rows, "category", 0).astype(np.int32))
    save("file", rows.column("file").to_numpy().astype(np.int32))
    # Tombstones stay in the segment (they must outrank older versions elsewhere) but are
    # never shown: the server starts each segment's dead mask from this.
    save("hidden", hidden(rows))
    save("rank", rank_of(rows))
    locked = passworded(rows)
    save("passworded", np.packbits(locked, bitorder="little"))
    keys = key_array(rows.column("release_key"))
    key_order = np.argsort(keys, kind="stable").astype(np.uint32)
    save("keys", keys[key_order])
    save("key_order", key_order)
    groups = _dictionary(rows.column("group"))
    save("group", groups.indices.to_numpy().astype(np.int32))
    terms, pair_terms, pair_ords = _term_pairs(rows)
    # Sort terms so the server can binary-search them; renumber the pairs to match.
    order = sorted(range(len(terms)), key=terms.__getitem__)
    rename = np.empty(len(terms), dtype=np.int64)
    rename[np.array(order, dtype=np.int64)] = np.arange(len(terms))
    combined = _distinct((rename[pair_terms] << 32) | pair_ords.astype(np.int64))
    term_of_pair = combined >> 32
    offsets = np.searchsorted(term_of_pair, np.arange(len(terms) + 1)).astype(np.int64)
    save("postings", (combined & 0xFFFFFFFF).astype(np.uint32))
    save("offsets", offsets)
    sorted_terms = pa.array([terms[i] for i in order], pa.string())
    # One chunk: the server binary-searches it as one array.
    _write_ipc(folder / "terms.arrow", pa.table({"term": sorted_terms}), chunk=None)
    df = np.diff(offsets)
    frequent = np.nonzero(df > max(n // BITSET_SHARE, 64))[0]
    bitsets = np.zeros((len(frequent), (n + 7) // 8), dtype=np.uint8)
    postings = (combined & 0xFFFFFFFF).astype(np.int64)
    for row, term in enumerate(frequent.tolist()):
        mask = np.zeros(n, dtype=bool)
        mask[postings[offsets[term] : offsets[term + 1]]] = True
        bitsets[row] = np.packbits(mask, bitorder="little")
    save("bitset_terms", frequent.astype(np.int64))
    save("bitsets", bitsets)
    summary = {
        "format": FORMAT,
        "releases": n,
        "terms": len(terms),
        "postings": len(combined),
        "groups": groups.dictionary.to_pylist(),
        "passworded": int(locked.sum()),
        "ids": kinds_present(rows),
        "sources": list(sources),
    }
    (folder / "segment.json").write_text(json.dumps(summary))
    return summary


def build_segment(url: str, paths: Sequence[dict], out: str) -> dict:
    """Read partitions (dicts with path, size, mtime, and the `release_probes` partitions
    they cover: `probes`), keep newest versions, join what the probes say, write `out`.

    Runs in a worker process: the server only maps the result into memory.
    """
    from pipelines.corpus.fs import open_fs

    fs, _ = open_fs(url)
    rows = read_partitions(fs, [p["path"] for p in paths])
    probes = read_probes(fs, [q["path"] for p in paths for q in p.get("probes", [])])
    ids = read_ids(fs, [q["path"] for p in paths for q in p.get("ids", [])])
    rows = join_ids(join_probes(newest_versions(rows), probes), ids)
    return write_segment(rows, paths, out)
