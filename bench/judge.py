"""The junk judge's CPU per million releases, over a synthetic catalog.

`usenet-indexer bench-judge --releases 1000000 [--catalog DIR]`: writes a synthetic catalog
(`bench.synthetic_catalog`) with the article pass's rows for a share of its releases (a
probed row each, some passworded) and health verdicts for a few; then times three judge
runs: everything (`--all`), a run with nothing changed, and a run after one new range.
The catalog's writing is not timed.
"""

from __future__ import annotations

import argparse
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bench.synthetic_catalog import write_synthetic_catalog
from pipelines.catalog.partitions import list_table
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import RELEASE_HEALTH, RELEASE_PROBES
from pipelines.catalog.writer import write_partition
from pipelines.corpus.fs import open_fs
from pipelines.judge.run import JudgeSummary, judge_catalog

PROBED_SHARE = 0.2  # of the releases, probed by the article pass
LOCKED_SHARE = 0.01  # of those, passworded with no known password


def add_probe_rows(catalog: str, seed: int = 0) -> None:
    """A release_probes partition beside each releases partition, and health rows."""
    fs, root = open_fs(catalog)
    rng = np.random.default_rng(seed)
    for p in list_table(fs, root, "releases", stat=False):
        if p.compact or p.tail or p.probe:
            continue
        group = p.path.rsplit("/", 2)[-2]
        if fs.exists(f"{root}/release_probes/{group}/{p.first}-{p.last}.parquet"):
            continue
        keys = read_parquet(fs, p.path, ["release_key"])["release_key"].combine_chunks()
        probed = rng.random(len(keys)) < PROBED_SHARE
        chosen = keys.filter(pa.array(probed))
        n = len(chosen)
        locked = rng.random(n) < LOCKED_SHARE
        cols = {
            "release_key": chosen,
            "group": pa.array([group] * n),
            "pending": pa.array(np.zeros(n, bool)),
            "outcome": pa.array(["probed"] * n),
            "password": pa.array(np.where(locked, 1, 0).astype(np.int8)),
            "probes": pa.array(np.ones(n, np.int32)),
            "missing": pa.array(np.zeros(n, np.int32)),
            "probed_at": pa.array(np.full(n, 1_764_460_800, np.int64)),
            "written_range": pa.array(np.full(n, p.first, np.int64)),
        }
        table = pa.table(
            [cols.get(f.name, pa.nulls(n, f.type)) for f in RELEASE_PROBES], schema=RELEASE_PROBES
        )
        write_partition(catalog, "release_probes", group, p.first, p.last, table)
        dead = keys.filter(pa.array(rng.random(len(keys)) < 0.002))
        m = len(dead)
        checked = {
            "release_key": dead, "group": pa.array([group] * m),
            "checked_at": pa.array(np.full(m, 1_764_460_800, np.int64)),
            "verdict": pa.array(["dead"] * m), "segments": pa.array(np.full(m, 3, np.int32)),
            "missing": pa.array(np.full(m, 3, np.int32)),
            "posted_last": pa.array(np.zeros(m, np.int64)),
        }  # fmt: skip
        health = pa.table(
            [checked.get(f.name, pa.nulls(m, f.type)) for f in RELEASE_HEALTH],
            schema=RELEASE_HEALTH,
        )
        path = f"{root}/release_health/{group}/{p.first}-{p.last}.parquet"
        fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        with fs.open(path, "wb") as fh:
            pq.write_table(health, fh)


def _line(what: str, s: JudgeSummary) -> str:
    per = s.cpu_seconds / s.judged * 1e6 if s.judged else 0.0
    return (
        f"{what}: {s.judged:,} of {s.live:,} judged, {s.cpu_seconds:.2f} CPU s "
        f"({per:.2f} CPU s per million judged), {s.seconds:.2f} s"
    )


def run_bench(releases: int, catalog: str | None = None) -> list[str]:
    """The three runs' lines: everything, nothing changed, one new range."""
    with tempfile.TemporaryDirectory() as tmp:
        where = catalog or tmp
        write_synthetic_catalog(where, releases, groups=6)
        add_probe_rows(where)
        now = 1_764_460_800
        lines = [_line("all", judge_catalog(where, everything=True, now=now))]
        lines.append(_line("nothing changed", judge_catalog(where, now=now)))
        write_synthetic_catalog(where, 100_000, seed=1, groups=1, first_range=1000)
        add_probe_rows(where, seed=1)
        lines.append(_line("one new range", judge_catalog(where, now=now)))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--releases", type=int, default=1_000_000)
    ap.add_argument("--catalog", help="a folder (default: a temporary one)")
    args = ap.parse_args()
    print("\n".join(run_bench(args.releases, args.catalog)))


if __name__ == "__main__":
    main()
