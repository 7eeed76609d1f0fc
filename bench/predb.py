"""The PreDB's benchmarks: importing millions of pres, and a scan cycle's cost over a
large catalog with many pres waiting.

`import_bench`: a dump in nZEDb's daily format of `pres` lines (titles made unique from
the real dumps' titles when `../shared/data/predb` is there, else from words; 1 % nuked)
is imported in a child process: its time, CPU and peak RSS, the store's size on disk,
then the same file imported again (it adds nothing: the cost of finding that out).

`scan_bench`: a synthetic catalog of `releases` (bench.synthetic_catalog) and `waiting`
live pres announced over the last 41 hours (so their eight steps fall due as the seed's
schedule spreads them); the first cycle (which reads every name once: what a new
install pays once), an idle cycle, a cycle a minute later (the steps then due), and a
cycle after a new range of 100,000 releases lands. CPU-s each.
"""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
import random
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

WORDS = [
    "the", "dark", "night", "city", "house", "world", "love", "secret", "last", "first",
    "blue", "red", "gold", "star", "moon", "sun", "king", "queen", "war", "ghost", "shadow",
    "fire", "ice", "water", "stone", "iron", "blood", "heart", "dream", "road", "river",
]  # fmt: skip
TAGS = ["720p.HDTV.x264", "1080p.WEB.h264", "2160p.WEB.h265", "DVDRip.x264", "1080p.BluRay.x264"]
CATS = ["TV-X264", "X264", "MP3", "TV-XVID", "Movie HD-1080p", "EBOOK", "PRE"]


def _real_titles() -> list[str]:
    here = Path(__file__).resolve().parents[1]
    folder = (
        Path(os.environ.get("USENET_INDEXER_SHARED_DATA") or here / ".." / "shared" / "data")
        / "predb"
    )
    out = []
    for f in sorted(folder.glob("*.gz")) if folder.is_dir() else []:
        for line in gzip.open(f, "rt", errors="replace"):  # noqa: SIM115
            first = line.split("\t\t", 1)[0]
            if len(first) > 2 and first[0] == "'" == first[-1] and " " not in first:
                out.append(first[1:-1])
    return out


def titles(n: int, seed: int = 0) -> Iterator[str]:
    """`n` distinct scene-shaped titles."""
    rng = random.Random(seed)
    real = _real_titles()
    for i in range(n):
        if real:
            base = real[i % len(real)]
            stem, _, group = base.rpartition("-")
            yield f"{stem or base}.N{i:09d}-{group or 'GRP'}"
        else:
            words = ".".join(rng.choice(WORDS).title() for _ in range(3))
            yield f"{words}.S{i % 30:02d}E{i % 24:02d}.{rng.choice(TAGS)}.N{i:09d}-GRP"


def write_dump(path: Path, n: int, now: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    with gzip.open(path, "wt", compresslevel=1) as fh:
        for i, title in enumerate(titles(n, seed)):
            nuked = 2 if i % 100 == 0 else 0
            reason = "'bad.rip'" if nuked else "\\N"
            when = time.strftime(
                "%Y-%m-%d %H:%M:%S", time.gmtime(now - rng.randrange(86400 * 3000))
            )
            size, files = rng.randrange(10, 9000), rng.randrange(1, 90)
            cat = rng.choice(CATS)
            fields = [f"'{title}'", "\\N", f"'{size}MB'", f"'{files}F'", "''", f"'{nuked}'",
                      reason, f"'{cat}'", f"'{when}'", "'bench'", "'0'", "\\N"]  # fmt: skip
            fh.write("\t\t".join(fields) + "\n")


def _peak_kb() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def _import_child(catalog: str, path: str, queue: Any) -> None:
    from pipelines.predb.importer import import_files

    cpu = time.process_time()
    s = import_files(catalog, [path])
    queue.put((s.pres, s.nuke_events, s.seconds, time.process_time() - cpu, _peak_kb()))


def _in_child(target: Any, *args: Any) -> Any:
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=target, args=(*args, queue))
    child.start()
    result = queue.get()
    child.join()
    return result


def _size_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


def import_bench(
    pres: int, where: str | None = None, emit: Callable[[str], None] = print
) -> list[str]:
    """The two imports' lines, each given to `emit` as it is measured (a 10 M import
    takes many minutes)."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(where or tmp)
        dump = base / "1700000000_predb_dump.csv.gz"
        write_dump(dump, pres, 1_700_000_000)
        catalog = str(base / "catalog")
        lines = []
        for label in ("first import", "same file again"):
            n, nukes, wall, cpu, peak = _in_child(_import_child, catalog, str(dump))
            lines.append(
                f"predb import, {label}: {pres:,} lines -> {n:,} new pres, {nukes:,} nuke events; "
                f"{wall:.1f} s, {cpu:.1f} CPU-s ({pres / max(wall, 1e-9):,.0f} lines/s), "
                f"peak RSS {peak / 1024:,.0f} MB"
            )
            emit(lines[-1])
        store = Path(catalog) / "_predb"
        lines.append(f"  store on disk: {_size_mb(store):,.0f} MB "
                     f"({_size_mb(store / 'lookup'):,.0f} MB the lookup)")  # fmt: skip
        emit(lines[-1])
    return lines


def _steady(catalog: str, now: int, rng: random.Random) -> None:
    """The queue as a steady stream of announces leaves it: each pre at a step of its
    schedule, due times spread over the 41 hours the eight steps take."""
    import numpy as np

    from pipelines.predb import queue as Q

    q = Q.load(catalog)
    n = len(q)
    q["due"][:] = now + np.array([rng.randrange(1, 41 * 3600) for _ in range(n)], np.int64)
    q["attempts"][:] = np.array([rng.randrange(1, 8) for _ in range(n)], np.int16)
    q["status"][:] = 1
    Q.save(catalog, q)


def scan_bench(releases: int, waiting: int, where: str | None = None) -> list[str]:
    from bench.synthetic_catalog import write_synthetic_catalog
    from pipelines.predb.importer import import_files
    from pipelines.predb.scan import Scanner, ScanSummary

    now = 1_764_460_800
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(where or tmp)
        catalog = str(base / "catalog")
        t = time.monotonic()
        write_synthetic_catalog(catalog, releases, groups=6, light=True)
        built = time.monotonic() - t
        # live announces spread over the last 41 hours: their steps fall due spread out
        rng = random.Random(1)
        jl = base / "announces.jsonl"
        with jl.open("w") as fh:
            for title in titles(waiting, seed=7):
                rec = {"title": title, "time": now - rng.randrange(41 * 3600), "size": "700MB"}
                fh.write(json.dumps(rec) + "\n")
        import_files(catalog, [str(jl)], live=True, now=lambda: now)
        clock = {"t": now}
        scanner = Scanner(catalog, clock=lambda: clock["t"])

        def line(label: str, s: ScanSummary) -> str:
            return (
                f"predb scan, {label}: {s.cpu_seconds:.3f} CPU-s ({s.seconds:.3f} s); "
                f"{s.scanned:,} scans, {s.new_releases:,} new releases, {s.waiting:,} waiting"
            )

        lines = [
            f"catalog: {releases:,} releases (written in {built:.0f} s), {waiting:,} live pres"
        ]
        lines.append(line("first cycle (every name read once)", scanner.cycle()))
        _steady(catalog, clock["t"], rng)
        lines.append(line("idle (nothing new, nothing due)", scanner.cycle()))
        clock["t"] += 60
        lines.append(line("a minute later (the steps due)", scanner.cycle()))
        write_synthetic_catalog(catalog, 100_000, seed=1, groups=1, first_range=1000, light=True)
        clock["t"] += 60
        lines.append(line("a new range of 100,000 releases", scanner.cycle()))
        fresh = Scanner(catalog, clock=lambda: clock["t"] + 60)
        lines.append(line("a new process's first cycle (lookup and names mapped)", fresh.cycle()))
    return lines


# --- the shares per kind of posting on generated corpora (`generate --pres`) ------------


class _Clock:
    def __init__(self, t: int) -> None:
        self.t = t

    def __call__(self) -> float:
        return float(self.t)


def _catalog_facts(cat: str) -> tuple[dict[bytes, str], dict[bytes, set[str]], set[str]]:
    """Each release's shown name, its segments' message-ids, and the message-ids of the
    pending releases the window has not closed on yet (the group's last uploads: the
    article pass does not climb them until they finish)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipelines.catalog.partitions import list_table
    from pipelines.catalog.versions import newest_rows
    from pipelines.corpus.fs import open_fs

    fs, root = open_fs(cat)
    rel = pa.concat_tables([pq.read_table(p.path) for p in list_table(fs, root, "releases")],
                           promote_options="permissive")  # fmt: skip
    names = {
        rel["release_key"][i].as_py(): rel["name"][i].as_py() for i in newest_rows(rel).tolist()
    }
    ids: dict[bytes, set[str]] = {}
    for p in list_table(fs, root, "release_files"):
        t = pq.read_table(p.path, columns=["release_key", "seg_ids"])
        for key, seg in zip(t["release_key"].to_pylist(), t["seg_ids"].to_pylist(), strict=True):
            ids.setdefault(key, set()).update(seg)
    still_open: set[str] = set()
    for p in list_table(fs, root, "pending_releases"):
        t = pq.read_table(p.path, columns=["release_key", "finished"])
        for key, done in zip(t["release_key"].to_pylist(), t["finished"].to_pylist(), strict=True):
            if not done and key not in names:
                still_open |= ids.get(key, set())
    return names, ids, still_open


def _last_outcomes(cat: str) -> dict[str, Any]:
    """Each pre's last outcome, by title."""
    import numpy as np

    from pipelines.predb import lookup as L
    from pipelines.predb.store import read_batches

    t = read_batches(cat, "pre_outcomes", columns=["pre_key", "outcome"])
    last = dict(zip(t["pre_key"].to_pylist(), t["outcome"].to_pylist(), strict=True))
    lookup = L.load(cat)
    rows = np.arange(lookup.n)
    keys = lookup.column("pre_key", rows).to_pylist()
    titles = lookup.column("title", rows).to_pylist()
    return {title: last.get(key) for key, title in zip(keys, titles, strict=True)}


def generated_shares(out: Path, cat: str) -> Counter[str]:
    """Per kind of posting (named, hashed, inside, mismatched, unposted) of a generated
    corpus indexed into `cat` (the article pass run first over its stored bodies): its
    pres, those complete and linked to their own upload's release (its message-ids)
    under the exact title (`still_open`: an upload the window had not closed on when the
    corpus ends, not named by the article pass yet), wrong links, nuked pres shown nuked,
    and the unposted or mismatched ones linked or ended. Imports the truth's pres and runs the
    scans a historical PreDB gets (one each; size retries 30 min apart; the youngest's
    second a day on)."""
    import pyarrow.parquet as pq

    from pipelines.articles.store import open_bodies
    from pipelines.predb import shown
    from pipelines.predb.importer import import_files
    from pipelines.predb.scan import Scanner
    from pipelines.predb.store import read_batches
    from pipelines.probe.fetch import StoreSource
    from pipelines.probe.run import probe_catalog

    bodies = open_bodies(str(out))
    if bodies is not None:  # the article pass over the stored bodies: what names "inside"
        probe_catalog(cat, StoreSource(bodies))
    pres = [json.loads(line) for line in (out / "truth" / "pres.jsonl").read_text().splitlines()]
    uploads = pq.read_table(out / "truth" / "uploads.parquet", columns=["upload_id", "files"])
    upload_ids = {
        u: {m for f in files for m in f["message_ids"]}
        for u, files in zip(
            uploads["upload_id"].to_pylist(), uploads["files"].to_pylist(), strict=True
        )
    }
    import_files(cat, [str(out / "truth" / "pres.jsonl")])
    clock = _Clock(max(p["time"] for p in pres) + 86400)
    scanner = Scanner(cat, clock=clock)
    for step in (1800, 1800, 1800, 25 * 3600, 0):
        scanner.cycle()
        clock.t += step
    links = read_batches(cat, "pre_links")
    linked: dict[str, list[bytes]] = {}
    for title, key in zip(
        links["title"].to_pylist(), links["release_key"].to_pylist(), strict=True
    ):
        linked.setdefault(title, []).append(key)
    names, ids, still_open = _catalog_facts(cat)
    facts = shown.Shown.load(cat)
    outcomes = _last_outcomes(cat)
    tally: Counter[str] = Counter()
    for pre in pres:
        kind = pre["posted"].split(":")[0] or "unposted"
        tally[f"{kind}/pres"] += 1
        keys = linked.get(pre["title"], [])
        mine = upload_ids.get(pre["upload_id"], set())
        right = [k for k in keys if ids.get(k) and ids[k] <= mine]
        tally[f"{kind}/wrong_links"] += len(keys) - len(right)
        if kind in ("named", "hashed", "inside"):
            if not keys and mine & still_open:
                tally[f"{kind}/still_open"] += 1  # posted last: not finished when the corpus ends
                continue
            named = bool(right) and all(names.get(k) == pre["title"] for k in right)
            tally[f"{kind}/complete_and_right"] += (
                named and outcomes.get(pre["title"]) == "complete"
            )
            if pre["nuked"]:
                tally[f"{kind}/nuked"] += 1
                shows = all(("nuked", "1") in facts.attrs(k) for k in right)
                tally[f"{kind}/nuked_shown"] += bool(right) and shows
        else:
            tally[f"{kind}/linked"] += bool(keys)
            ended = ("not_found_full", "expired", "size_mismatch_cap", "nuked")
            tally[f"{kind}/ended"] += outcomes.get(pre["title"]) in ended
    return tally


def _config(seed: int, articles: int) -> Any:
    from pipelines.generate.config import GenerateConfig

    return GenerateConfig(groups=2, articles=articles, seed=seed, pres=True)


def shares_bench(seeds: int, articles: int, where: str | None = None) -> list[str]:
    """`generated_shares` over several generated corpora (2 groups each)."""
    from bench.served import indexed_corpus

    total: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(seeds):
            out, cat = Path(where or tmp) / f"g{seed}", str(Path(where or tmp) / f"c{seed}")
            indexed_corpus(out, cat, _config(seed, articles))
            total += generated_shares(out, cat)
    lines = [
        f"predb on generated corpora ({seeds} seeds, {articles:,} articles a group, 2 groups):"
    ]
    for kind in ("named", "hashed", "inside", "mismatched", "unposted"):
        got = {k.split("/", 1)[1]: v for k, v in sorted(total.items()) if k.startswith(kind + "/")}
        lines.append(f"  {kind}: " + ", ".join(f"{k} {v}" for k, v in got.items()))
    return lines


def pass_bench(seeds: int, articles: int, where: str | None = None) -> list[str]:
    """The scan cycle against the header pass, as `live` runs them: the pres imported and
    a cycle run (nothing indexed yet), then in the same process the header pass over the
    corpus's ranges and the cycle that reads what it wrote. CPU-s of each, per seed, and
    of the cycle the part that reads, keys and matches the new releases' names (the rest
    writes the links, renamed versions, queue and memo); the process warmed first by the
    same on a small corpus, so neither pays its imports."""
    from bench.served import group_priority
    from pipelines.generate.corpus import generate_corpus
    from pipelines.index.replay import replay
    from pipelines.index.rules import Rules
    from pipelines.predb.importer import import_files
    from pipelines.predb.scan import Scanner

    lines = [f"predb scan cycle against the header pass ({articles:,} articles a group, 2 groups):"]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(where or tmp)
        runs = [(-1, 20_000)] + [(seed, articles) for seed in range(seeds)]
        for seed, n in runs:
            out, cat = base / f"pass{n}" / f"g{seed + 1}", str(base / f"pass{n}" / f"c{seed + 1}")
            generate_corpus(str(out), _config(seed + 1, n), progress=False)
            priority = group_priority(out)
            import_files(cat, [str(out / "truth" / "pres.jsonl")])
            Scanner(cat).cycle()
            t = time.process_time()
            replay(str(out / "corpus"), cat, Rules(groups=priority), progress=False)
            header = time.process_time() - t
            s = Scanner(cat).cycle()
            if seed < 0:
                continue  # the warm-up
            per = max(s.new_releases, 1)
            lines.append(
                f"  seed {seed}: header pass {header:.3f} CPU-s, scan cycle after it "
                f"{s.cpu_seconds:.3f} CPU-s ({100 * s.cpu_seconds / header:.1f} %), of which "
                f"the new releases' names read, keyed and matched {s.matcher_cpu_seconds:.3f} "
                f"CPU-s ({100 * s.matcher_cpu_seconds / header:.1f} %): {s.new_releases:,} new "
                f"releases ({1e6 * s.matcher_cpu_seconds / per:,.0f} us a release matched, "
                f"{1e6 * header / per:,.0f} us a release indexed), {s.renamed:,} renamed"
            )
    return lines
