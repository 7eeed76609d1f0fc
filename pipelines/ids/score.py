"""The ids of a generated corpus's TV and film uploads against their truth.

`generate --id-titles DIR` names TV and film uploads after the films and series of the
id tables and writes their truth (`truth/ids.parquet`: name, IMDb number, kind). After
the header pass (`replay`), an import of the same tables and `ids match`, each truth name
is looked up among the catalog's newest release names and its `release_ids` row: right
ids, wrong ids, none, split by whether its title (and a film's year) name one entry of the
lookup (`match.Accuracy`); names the header pass did not rebuild are counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow.compute as pc

from pipelines.catalog.partitions import list_table
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.versions import key_array, newest_rows
from pipelines.corpus.fs import open_fs
from pipelines.ids.lookup import IdLookup
from pipelines.ids.match import Accuracy
from pipelines.names import parse_name


@dataclass
class IdsScore:
    accuracy: Accuracy
    truth: int = 0
    not_rebuilt: int = 0  # truth names no newest release carries

    def text(self) -> str:
        return (
            f"{self.truth:,} TV and film uploads, {self.not_rebuilt:,} not rebuilt by name; "
            + self.accuracy.text()
        )


def score_ids(out: str, catalog: str) -> IdsScore:
    lookup = IdLookup.load(catalog)
    if lookup is None:
        raise ValueError(f"{catalog}: no id lookup (usenet-indexer ids import ...)")
    fs, root = open_fs(catalog)
    tfs, troot = open_fs(out)
    truth = read_parquet(tfs, f"{troot}/truth/ids.parquet").to_pylist()
    releases = [read_parquet(fs, p.path, ["release_key", "name", "finished", "written_range"])
                for p in list_table(fs, root, "releases", stat=False)]  # fmt: skip
    names: set[str] = set()
    for t in releases:
        if t.num_rows:
            t = t.take(newest_rows(t, key_array(t["release_key"])))
            names.update(n for n in t["name"].to_pylist() if n)
    given: dict[str, int | None] = {}
    for p in list_table(fs, root, "release_ids", stat=False):
        rows = read_parquet(fs, p.path, ["name", "imdb", "matched_at"])
        rows = rows.filter(pc.is_valid(rows["imdb"]))
        for name, imdb in zip(rows["name"].to_pylist(), rows["imdb"].to_pylist(), strict=True):
            given[name] = imdb
    score = IdsScore(Accuracy(), truth=len(truth))
    for row in truth:
        if row["name"] not in names:
            score.not_rebuilt += 1
            continue
        score.accuracy.add_given(lookup, parse_name(row["name"]), row["imdb"],
                                 row["kind"] == "series", given.get(row["name"]))  # fmt: skip
    return score
