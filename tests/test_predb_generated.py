"""The PreDB over generated corpora whose uploads carry pres (`generate --pres`): the
shares per kind of posting the issue sets, over several seeds."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.catalog.partitions import list_table
from pipelines.catalog.versions import newest_rows
from pipelines.corpus.fs import open_fs
from pipelines.generate.config import GenerateConfig
from pipelines.predb import shown
from pipelines.predb.importer import import_files
from pipelines.predb.scan import Scanner
from pipelines.predb.store import read_batches
from tests.corpora import replayed

SEEDS = (0, 1, 2)


def _catalog_facts(cat: str) -> tuple[dict[bytes, str], dict[bytes, set[str]]]:
    """Each release's shown name, and its segments' message-ids."""
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
    return names, ids


@pytest.mark.slow
def test_posted_pres_link_their_upload_and_nothing_else(tmp_path: Path) -> None:
    tally: Counter[str] = Counter()
    for seed in SEEDS:
        out, cat = tmp_path / f"g{seed}", str(tmp_path / f"c{seed}")
        replayed(out, Path(cat), GenerateConfig(groups=2, articles=20_000, seed=seed, pres=True))
        pres = [
            json.loads(line) for line in (out / "truth" / "pres.jsonl").read_text().splitlines()
        ]
        uploads = pq.read_table(out / "truth" / "uploads.parquet", columns=["upload_id", "files"])
        upload_ids = {
            u: {m for f in files for m in f["message_ids"]}
            for u, files in zip(
                uploads["upload_id"].to_pylist(), uploads["files"].to_pylist(), strict=True
            )
        }
        import_files(cat, [str(out / "truth" / "pres.jsonl")])
        clock = Clock(max(p["time"] for p in pres) + 86400)
        scanner = Scanner(cat, clock=clock)
        # historical: one scan each, two a day apart for the youngest; size retries 30 min apart
        for step in (1800, 1800, 1800, 25 * 3600, 0):
            scanner.cycle()
            clock.t += step
        links = read_batches(cat, "pre_links")
        linked: dict[str, list[bytes]] = {}
        for title, key in zip(
            links["title"].to_pylist(), links["release_key"].to_pylist(), strict=True
        ):
            linked.setdefault(title, []).append(key)
        names, ids = _catalog_facts(cat)
        facts = shown.Shown.load(cat)
        outcomes = _last_outcomes(cat)
        for pre in pres:
            kind = pre["posted"].split(":")[0] or "unposted"
            tally[f"{kind}/pres"] += 1
            keys = linked.get(pre["title"], [])
            right = [
                k for k in keys if ids.get(k) and ids[k] <= upload_ids.get(pre["upload_id"], set())
            ]
            tally[f"{kind}/wrong_links"] += len(keys) - len(right)
            if kind in ("named", "hashed"):
                ok = bool(right) and all(names.get(k) == pre["title"] for k in right)
                tally[f"{kind}/complete_and_right"] += (
                    ok and outcomes.get(pre["title"]) == "complete"
                )
                if pre["nuked"]:
                    tally[f"{kind}/nuked"] += 1
                    tally[f"{kind}/nuked_shown"] += all(
                        ("nuked", "1") in facts.attrs(k) for k in right
                    ) and bool(right)
            else:
                tally[f"{kind}/linked"] += bool(keys)
                tally[f"{kind}/ended"] += outcomes.get(pre["title"]) in (
                    "not_found_full",
                    "expired",
                    "size_mismatch_cap",
                    "nuked",
                )
    for kind in ("named", "hashed"):
        assert tally[f"{kind}/complete_and_right"] >= 0.99 * tally[f"{kind}/pres"], tally
        assert tally[f"{kind}/nuked_shown"] == tally[f"{kind}/nuked"], tally
    for kind in ("mismatched", "unposted"):
        assert tally[f"{kind}/linked"] == 0, tally
        assert tally[f"{kind}/ended"] == tally[f"{kind}/pres"], tally
    assert sum(v for k, v in tally.items() if k.endswith("wrong_links")) == 0, tally
    assert tally["hashed/pres"] >= 8 * len(SEEDS)  # every hash kind in every seed
    print(dict(sorted(tally.items())))


class Clock:
    def __init__(self, t: int) -> None:
        self.t = t

    def __call__(self) -> float:
        return float(self.t)


def _last_outcomes(cat: str) -> dict[str, Any]:
    """Each pre's last outcome, by title."""
    from pipelines.predb import lookup as L

    t = read_batches(cat, "pre_outcomes", columns=["pre_key", "outcome"])
    last = dict(zip(t["pre_key"].to_pylist(), t["outcome"].to_pylist(), strict=True))
    lookup = L.load(cat)
    import numpy as np

    rows = np.arange(lookup.n)
    keys = lookup.column("pre_key", rows).to_pylist()
    titles = lookup.column("title", rows).to_pylist()
    return {title: last.get(key) for key, title in zip(keys, titles, strict=True)}
