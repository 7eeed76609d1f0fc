"""The ids matched to releases (`release_ids`), joined onto index rows and made terms.

A `releases` partition's source entry in a segment (`manager._listed`) carries the
`release_ids` partitions its span covers (`probes.covered`, the same rule as the article
pass's files): ids landing for a range change that entry, and only the segments that
read the range are built again. A release's ids are those matched to its newest
version's name (the row of that release key and name with the newest `matched_at`), so a
release the article pass renamed shows the ids of its new name once they are matched.

Each id becomes a filter term (`text.id_term`): a search by id is a term lookup, as a
search by group or category is, and an id no release carries finds nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from fsspec import AbstractFileSystem

from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import SCHEMAS
from pipelines.catalog.versions import key_array
from serving import text

log = logging.getLogger(__name__)
RELEASE_IDS = SCHEMAS["release_ids"]
ID_KINDS = ("imdb", "tvdb", "tvmaze", "tvrage", "tmdb")
# what the index keeps: the ids, and the entry's title and year, the episode's numbers
ID_FIELDS = [
    *(RELEASE_IDS.field(k) for k in ID_KINDS),
    pa.field("ids_title", pa.string()),
    pa.field("ids_year", pa.int32()),
    pa.field("ids_season", pa.int32()),
    pa.field("ids_episode", pa.int32()),
    pa.field("ids_kind", pa.string()),
]
_READ = ["release_key", "name", "matched_at", "entry_kind", *ID_KINDS,
         "title", "year", "season", "episode"]  # fmt: skip
_AS = {"title": "ids_title", "year": "ids_year", "season": "ids_season",
       "episode": "ids_episode", "entry_kind": "ids_kind"}  # fmt: skip


def read_ids(fs: AbstractFileSystem, paths: Sequence[str]) -> pa.Table:
    """The newest matched row of each (release key, name) in these partitions (ambiguous
    rows, which carry no id, left out). A file that cannot be read is left out (logged)."""
    tables = []
    for path in dict.fromkeys(paths):
        try:
            t = read_parquet(fs, path, _READ).cast(pa.schema([RELEASE_IDS.field(c) for c in _READ]))
        except Exception:  # a damaged file must not stop the build: its ids are not shown
            log.warning("%s: release_ids partition unreadable; left out", path)
            continue
        tables.append(t.filter(pc.is_valid(t.column("entry_kind"))))
    if not tables:
        return pa.schema([RELEASE_IDS.field(c) for c in _READ]).empty_table()
    rows = pa.concat_tables(tables)
    when = rows.column("matched_at").to_pylist()
    best: dict[tuple[bytes, str], int] = {}
    for i, pair in enumerate(zip(rows.column("release_key").to_pylist(),
                                 rows.column("name").to_pylist(), strict=True)):  # fmt: skip
        j = best.get(pair)
        if j is None or when[i] >= when[j]:  # of equal times, the one stored last
            best[pair] = i
    return rows.take(pa.array(sorted(best.values()), pa.int64()))


def join_ids(rows: pa.Table, ids: pa.Table) -> pa.Table:
    """`rows` with the id columns appended (null where the release has no ids)."""
    at = np.full(rows.num_rows, -1, dtype=np.int64)
    if ids.num_rows and rows.num_rows:
        keys = key_array(rows.column("release_key"))
        id_keys = key_array(ids.column("release_key"))
        order = np.argsort(id_keys, kind="stable")
        sorted_keys = id_keys[order]
        lo = np.searchsorted(sorted_keys, keys, "left")
        hi = np.searchsorted(sorted_keys, keys, "right")
        names = rows.column("name")
        id_names = ids.column("name")
        for i in np.nonzero(hi > lo)[0].tolist():  # few: only the releases with ids
            name = names[i].as_py()
            for j in order[lo[i] : hi[i]].tolist():
                if id_names[j].as_py() == name:
                    at[i] = j
    index = pa.array(at, mask=at < 0)
    for field in ID_FIELDS:
        source = next((c for c, n in _AS.items() if n == field.name), field.name)
        column = ids.column(source).combine_chunks().cast(field.type)
        rows = rows.append_column(
            field, column.take(index) if ids.num_rows else pa.nulls(rows.num_rows, field.type)
        )
    return rows


def read_ids_none() -> pa.Table:
    return pa.schema([RELEASE_IDS.field(c) for c in _READ]).empty_table()


def id_term_pairs(rows: pa.Table, term_ids: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(term id, ordinal) of every id a row carries, its terms added to `term_ids`."""
    terms: list[np.ndarray] = []
    ords: list[np.ndarray] = []
    for kind in ID_KINDS:
        if kind not in rows.column_names:
            continue
        values = np.asarray(pc.fill_null(rows.column(kind), 0).to_numpy(zero_copy_only=False))
        has = np.nonzero(values)[0]
        if not len(has):
            continue
        distinct, inverse = np.unique(values[has], return_inverse=True)
        local = np.array([term_ids.setdefault(text.id_term(kind, int(v)), len(term_ids))
                          for v in distinct], np.int64)  # fmt: skip
        terms.append(local[inverse])
        ords.append(has.astype(np.int64))
    if not terms:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(terms), np.concatenate(ords)


def kinds_present(rows: pa.Table) -> list[str]:
    """The id kinds some row of the segment carries (caps lists what can be searched)."""
    return [
        k for k in ID_KINDS if k in rows.column_names and rows.column(k).null_count < rows.num_rows
    ]
