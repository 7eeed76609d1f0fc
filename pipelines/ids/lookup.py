"""The id lookup in memory: sorted integer arrays, searched in microseconds.

Loaded once per process from the build in use (`build.py`): the names' hashes and their
entries, the entries' kinds, years and ids (numpy columns), their episodes as one sorted
composite key, and, for searches by id, each id's entries sorted by id. A 11 M-title IMDb
makes ~3 M entries and ~6 M names: some 150 MB here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.ids.build import current_build, lookup_folder
from pipelines.ids.keys import key_hash

ID_KINDS = ("imdb", "tvdb", "tvmaze", "tvrage", "tmdb")
_SEASON_BITS, _EPISODE_BITS = 12, 16  # a season up to 4095 (years too), an episode to 65535


def _episode_key(entry: Any, season: Any, episode: Any) -> Any:
    return (
        (np.int64(entry) << (_SEASON_BITS + _EPISODE_BITS))
        | (np.int64(season) << _EPISODE_BITS)
        | np.int64(episode)
    )


def _ids_column(table: pa.Table, name: str) -> np.ndarray:
    """An id column as int64 with 0 for none (no id of any kind is 0)."""
    return np.asarray(table[name].fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)


@dataclass
class IdLookup:
    build: str
    name_hashes: np.ndarray  # uint64, sorted, and within one hash by kind, then year
    name_entries: np.ndarray  # int32, beside name_hashes
    name_series: np.ndarray  # int8 beside name_hashes: the entry is a series (1) or a film
    name_years: np.ndarray  # int32 beside name_hashes: the entry's year (0: none)
    kinds: np.ndarray  # bool per entry: a series (else a film)
    years: np.ndarray  # int32 per entry, 0 for none
    titles: list[str]
    ids: dict[str, np.ndarray]  # kind -> int64 per entry, 0 for none
    episode_keys: np.ndarray  # int64, sorted (`_episode_key`)
    episode_imdb: np.ndarray  # int64 beside episode_keys
    _by_id: dict[str, tuple[np.ndarray, np.ndarray]] | None = None

    @classmethod
    def load(cls, catalog: str) -> IdLookup | None:
        """The lookup in use, None if none was built."""
        current = current_build(catalog)
        if current is None:
            return None
        fs, root = open_fs(catalog)
        folder = f"{lookup_folder(root)}/{current['build']}"

        def read(name: str) -> pa.Table:
            return read_parquet(fs, f"{folder}/{name}.parquet")

        entries, names, episodes = read("entries"), read("names"), read("episodes")
        kinds = pc.equal(entries["kind"], "series").to_numpy(zero_copy_only=False)
        years = np.asarray(entries["year"].fill_null(0).to_numpy(), dtype=np.int32)
        hashes, named = names["key_hash"].to_numpy(), names["entry"].to_numpy()
        # a title's candidates of one kind (and one year) are then one run: two binary
        # searches, whatever the number of namesakes (`candidates`)
        series, of_year = kinds[named].astype(np.int8), years[named]
        order = np.lexsort((named, of_year, series, hashes))
        return cls(
            build=str(current["build"]),
            name_hashes=hashes[order],
            name_entries=named[order],
            name_series=series[order],
            name_years=of_year[order],
            kinds=kinds,
            years=years,
            titles=entries["title"].to_pylist(),
            ids={k: _ids_column(entries, k) for k in ID_KINDS},
            episode_keys=_episode_key(
                episodes["entry"].to_numpy(),
                episodes["season"].to_numpy(),
                episodes["episode"].to_numpy(),
            ),
            episode_imdb=_ids_column(episodes, "imdb"),
        )

    @classmethod
    def refreshed(cls, catalog: str, held: IdLookup | None) -> IdLookup | None:
        """`held` while it is still the build in use (one small file read), else the new
        one: a process that matches every cycle loads the lookup once per import."""
        current = current_build(catalog)
        if current is None:
            return None
        if held is not None and held.build == current.get("build"):
            return held
        return cls.load(catalog)

    def __len__(self) -> int:
        return len(self.titles)

    def named(self, key: str) -> np.ndarray:
        """The entries with a title whose comparable form is `key`."""
        h = np.uint64(key_hash(key))
        lo = int(self.name_hashes.searchsorted(h, "left"))
        hi = int(self.name_hashes.searchsorted(h, "right"))
        return self.name_entries[lo:hi]

    def candidates(self, key: str, series: bool, year: int | None = None) -> np.ndarray:
        """The entries of that kind (and, given, that year) with a title whose comparable
        form is `key`; distinct (the build keeps one row per hash and entry)."""
        h = np.uint64(key_hash(key))
        lo = int(self.name_hashes.searchsorted(h, "left"))
        hi = int(self.name_hashes.searchsorted(h, "right"))
        kinds = self.name_series[lo:hi]
        a = lo + int(kinds.searchsorted(int(series), "left"))
        b = lo + int(kinds.searchsorted(int(series), "right"))
        if year is None:
            return self.name_entries[a:b]
        years = self.name_years[a:b]
        return self.name_entries[
            a + int(years.searchsorted(year, "left")) : a + int(years.searchsorted(year, "right"))
        ]

    def episode(self, entry: int, season: int, episode: int) -> int:
        """The IMDb number of a series' episode, 0 if the lookup has none."""
        if not (0 <= season < 1 << _SEASON_BITS and 0 <= episode < 1 << _EPISODE_BITS):
            return 0
        k = _episode_key(entry, season, episode)
        i = int(np.searchsorted(self.episode_keys, k))
        found = i < len(self.episode_keys) and self.episode_keys[i] == k
        return int(self.episode_imdb[i]) if found else 0

    def with_id(self, kind: str, value: int) -> np.ndarray:
        """The entries that carry id `value` of `kind` (imdb, tvdb, tvmaze, tvrage, tmdb)."""
        if self._by_id is None:
            self._by_id = {}
        if kind not in self._by_id:
            column = self.ids[kind]
            order = np.argsort(column, kind="stable")
            self._by_id[kind] = (column[order], order.astype(np.int32))
        values, entries = self._by_id[kind]
        lo = int(np.searchsorted(values, value, "left"))
        hi = int(np.searchsorted(values, value, "right"))
        return entries[lo:hi] if value else entries[:0]

    def ids_of(self, entry: int) -> dict[str, int]:
        """The entry's ids (only those it has)."""
        return {k: int(v[entry]) for k, v in self.ids.items() if v[entry]}
