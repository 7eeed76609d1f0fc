"""The id import at IMDb's size, and the id lookup per release.

`usenet-indexer bench-ids --titles 11000000 [--work DIR]`: writes a generated
`title.basics.tsv.gz` of that many titles, in IMDb's real format and shares of kinds
(most are episodes; ~7 % films, ~2 % series, the rest shorts, videos, games...) with a
`title.episode.tsv.gz` for its episodes and a `title.akas.tsv.gz` of two alternative
titles per film and series; then imports them in a child process (`ids import`: time,
and the child's peak resident memory) and times `parse_name` + `match_parsed` over
release names made from the generated titles (µs per release). Writing the files is
not timed.
"""

from __future__ import annotations

import gzip
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from pipelines.generate.id_names import upload_names
from pipelines.ids.lookup import IdLookup
from pipelines.ids.match import Accuracy, match_parsed
from pipelines.names import parse_name

# IMDb's title.basics by titleType (2024: ~11 M rows), as shares
KINDS = (("tvEpisode", 0.77), ("short", 0.09), ("movie", 0.064), ("video", 0.026),
         ("tvSeries", 0.024), ("tvMovie", 0.013), ("tvMiniSeries", 0.005),
         ("tvSpecial", 0.004), ("videoGame", 0.004))  # fmt: skip
WORDS = ("night", "river", "king", "shadow", "house", "dark", "city", "love", "war", "star",
         "blue", "lost", "last", "secret", "road", "iron", "silent", "golden", "winter",
         "dream", "fire", "stone", "heart", "black", "world", "garden", "storm", "light",
         "north", "empire", "glass", "wolf", "ocean", "ghost", "summer", "queen")  # fmt: skip


def _title(rng: np.random.Generator, n: int) -> list[str]:
    """n titles of 1-5 words (titles repeat, as real ones do: remakes, namesakes)."""
    words = np.array([w.capitalize() for w in WORDS])
    k = rng.integers(1, 6, n)
    picks = rng.integers(0, len(words), (n, 5))
    return [" ".join(words[picks[i, : k[i]]]) for i in range(n)]


def write_tables(folder: Path, titles: int, seed: int = 0) -> dict[str, Path]:
    rng = np.random.default_rng(seed)
    kinds = np.array([k for k, _ in KINDS])
    shares = np.array([s for _, s in KINDS])
    kind_of = kinds[rng.choice(len(kinds), titles, p=shares / shares.sum())]
    years = rng.integers(1920, 2025, titles)
    series_at = np.nonzero(np.isin(kind_of, ["tvSeries", "tvMiniSeries"]))[0]
    paths = {n: folder / f"title.{n}.tsv.gz" for n in ("basics", "episode", "akas")}
    chunk = 500_000
    with (gzip.open(paths["basics"], "wt", compresslevel=1) as basics,
          gzip.open(paths["episode"], "wt", compresslevel=1) as episodes,
          gzip.open(paths["akas"], "wt", compresslevel=1) as akas):  # fmt: skip
        basics.write("tconst\ttitleType\tprimaryTitle\toriginalTitle\tisAdult\tstartYear\t"
                     "endYear\truntimeMinutes\tgenres\n")  # fmt: skip
        episodes.write("tconst\tparentTconst\tseasonNumber\tepisodeNumber\n")
        akas.write("titleId\tordering\ttitle\tregion\tlanguage\ttypes\tattributes\t"
                   "isOriginalTitle\n")  # fmt: skip
        for start in range(0, titles, chunk):
            stop = min(titles, start + chunk)
            names = _title(rng, stop - start)
            parents = series_at[rng.integers(0, max(1, len(series_at)), stop - start)]
            b, e, a = [], [], []
            for i in range(start, stop):
                kind, name = kind_of[i], names[i - start]
                b.append(f"tt{i + 1:07d}\t{kind}\t{name}\t{name}\t0\t{years[i]}\t\\N\t42\tDrama\n")
                if kind == "tvEpisode" and len(series_at):
                    e.append(f"tt{i + 1:07d}\ttt{parents[i - start] + 1:07d}\t{1 + i % 9}\t"
                             f"{1 + i % 23}\n")  # fmt: skip
                elif kind in ("movie", "tvSeries", "tvMiniSeries", "tvMovie"):
                    a.append(f"tt{i + 1:07d}\t1\t{name} Returns\tUS\t\\N\t\\N\t\\N\t0\n"
                             f"tt{i + 1:07d}\t2\t{name}\tGB\t\\N\t\\N\t\\N\t0\n")  # fmt: skip
            basics.write("".join(b))
            episodes.write("".join(e))
            akas.write("".join(a))
    return paths


def _peak_mb_children() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def table_titles(basics: Path, n: int) -> list[tuple[int, str, str, int]]:
    """The first n films and series of a title.basics file: (imdb number, kind, title, year)."""
    out: list[tuple[int, str, str, int]] = []
    with gzip.open(basics, "rt", encoding="utf-8") as f:
        next(f)
        for line in f:
            tconst, kind, title, _, _, year = line.split("\t", 6)[:6]
            if kind in ("movie", "tvSeries") and year.isdigit():
                out.append(
                    (int(tconst[2:]), "movie" if kind == "movie" else "series", title, int(year))
                )
                if len(out) >= n:
                    break
    return out


def run_bench(titles: int, work: str | None, lookups: int = 100_000) -> list[str]:
    folder = Path(work or tempfile.mkdtemp(prefix="bench-ids-"))
    folder.mkdir(parents=True, exist_ok=True)
    catalog = folder / "catalog"
    t0 = time.perf_counter()
    paths = {n: folder / f"title.{n}.tsv.gz" for n in ("basics", "episode", "akas")}
    marker = folder / f"titles-{titles}"  # the tables of this size are there: not again
    if not marker.exists() or not all(p.exists() for p in paths.values()):
        paths = write_tables(folder, titles)
        marker.touch()
    if catalog.exists():
        shutil.rmtree(catalog)  # the import is timed from nothing
    written = time.perf_counter() - t0
    sizes = {k: p.stat().st_size / 1e6 for k, p in paths.items()}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cli.main", "ids", "import", *map(str, paths.values()),
                    "--catalog", str(catalog)], check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    imported = time.perf_counter() - t0
    peak = _peak_mb_children()
    t0 = time.perf_counter()
    lookup = IdLookup.load(str(catalog))
    loaded = time.perf_counter() - t0
    assert lookup is not None
    uploads = upload_names(table_titles(paths["basics"], lookups))
    names = [u.name for u in uploads]
    t0 = time.perf_counter()
    parsed = [parse_name(n) for n in names]
    t_parse = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = [match_parsed(p, lookup) for p in parsed]
    t_match = time.perf_counter() - t0
    matched = sum(f.entry is not None for f in found)
    accuracy = Accuracy()
    for u, p in zip(uploads, parsed, strict=True):
        accuracy.add(lookup, p, u.imdb, u.kind == "series")
    return [
        f"generated {titles:,} titles in {written:.1f} s (basics {sizes['basics']:.0f} MB, "
        f"episode {sizes['episode']:.0f} MB, akas {sizes['akas']:.0f} MB gzipped)",
        f"import (3 files, build): {imported:.1f} s, peak resident memory {peak:,.0f} MB",
        f"lookup: {len(lookup):,} entries loaded in {loaded:.2f} s",
        f"per release: parse {t_parse / len(names) * 1e6:.1f} µs, "
        f"match {t_match / len(names) * 1e6:.1f} µs ({matched:,} of {len(names):,} matched)",
        f"ids of generated uploads: {accuracy.text()}",
    ]
