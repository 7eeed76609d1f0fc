"""Searches by id against searches by word, over one catalog, in the search index itself.

`usenet-indexer bench-ids --search-catalog DIR`: takes the films and series the names of
a catalog's first partitions read as (`parse_name`), writes them as an IMDb title table
(`tt` numbers of our own) and imports it, matches the catalog's releases (`ids match`),
builds the search index in-process and times, with the result cache off, `t=tvsearch`
and `t=movie` queries by id against queries by one title word (p50, p95, ms). It writes
`_ids/` and `release_ids/` into the catalog (a bench catalog: `bench-serve`'s).
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

import numpy as np

from pipelines.catalog.partitions import list_table
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import open_fs
from pipelines.ids.build import build_lookup
from pipelines.ids.sources import import_file
from pipelines.ids.stage import ids_catalog
from pipelines.names import parse_name
from serving import text
from serving.index.manager import IndexManager
from serving.index.searcher import SearchQuery

HEADER = (
    "tconst\ttitleType\tprimaryTitle\toriginalTitle\tisAdult\tstartYear\tendYear\t"
    "runtimeMinutes\tgenres\n"
)


def _titles(catalog: str, partitions: int, titles: int) -> list[tuple[str, str, int]]:
    fs, root = open_fs(catalog)
    found: dict[tuple[str, str], int] = {}
    for p in list_table(fs, root, "releases", stat=False)[:partitions]:
        for name in read_parquet(fs, p.path, ["name"])["name"].to_pylist():
            parsed = parse_name(name or "")
            if parsed.kind == "movie" and parsed.year:
                found.setdefault((parsed.title, "movie"), parsed.year)
            elif parsed.kind == "episode":
                found.setdefault((parsed.title, "tvSeries"), 2000)
            if len(found) >= titles:
                break
    return [(t, k, y) for (t, k), y in found.items()]


def _p(samples: list[float], q: float) -> float:
    return round(float(np.percentile(samples, q)) * 1000, 2)


def run_search_bench(catalog: str, titles: int = 5000, searches: int = 300) -> list[str]:
    work = Path(tempfile.mkdtemp(prefix="bench-ids-search-"))
    rows = _titles(catalog, 4, titles)
    basics = work / "title.basics.tsv"
    with basics.open("w", encoding="utf-8") as f:
        f.write(HEADER)
        for i, (title, kind, year) in enumerate(rows, 1):
            f.write(f"tt{i:07d}\t{kind}\t{title}\t{title}\t0\t{year}\t\\N\t40\tDrama\n")
    import_file(catalog, basics)
    build_lookup(catalog)
    t0 = time.perf_counter()
    matched = ids_catalog(catalog)
    matching = time.perf_counter() - t0
    manager = IndexManager(catalog, index_dir=str(work / "index"), in_process=True, result_cache=0)
    try:
        manager.refresh()
        snapshot = manager.snapshot
        rng = random.Random(0)
        picks = [rng.randrange(1, len(rows) + 1) for _ in range(searches)]
        cats = [(5000,) if rows[i - 1][1] != "movie" else (2000,) for i in picks]
        words = [tuple(text.words(rows[i - 1][0])[:1]) for i in picks]
        queries = {
            # t=tvsearch / t=movie by id: the function's category, as the API sets it
            "id": [SearchQuery(ids=(("imdb", i),), categories=c, limit=100)
                   for i, c in zip(picks, cats, strict=True)],
            "word": [SearchQuery(words=w, categories=c, limit=100)
                     for w, c in zip(words, cats, strict=True)],
            "id alone": [SearchQuery(ids=(("imdb", i),), limit=100) for i in picks],
            "word alone": [SearchQuery(words=w, limit=100) for w in words],
        }  # fmt: skip
        timings: dict[str, list[float]] = {k: [] for k in queries}
        found = 0
        for n in range(searches):
            for kind, qs in queries.items():
                t0 = time.perf_counter()
                result = snapshot.search(qs[n])
                timings[kind].append(time.perf_counter() - t0)
                found += kind == "id" and result.total > 0
    finally:
        manager.close()
    return [
        f"ids: {len(rows):,} titles from the catalog's names imported; {matched.releases:,} "
        f"release versions read, {matched.matched:,} matched in {matching:.1f} s",
        f"{found} of {searches} id searches found releases (the others: titles of several "
        "imported entries, matched to none)",
        *(
            f"search by {k + ',':<11} in-process, no cache: p50 {_p(v, 50)} ms, p95 {_p(v, 95)} ms"
            for k, v in timings.items()
        ),
    ]
