"""The operator's rules in the header pass, on a generated corpus with its truth:

- every matching rule gets credit, the first deciding rule decides (a keep before a drop
  keeps), shadow and watch rules count and drop nothing; the counts are the truth's;
- `rules try` predicts exactly what applying the change then does;
- applying redoes only the ranges the change touches, and the catalog then holds what a
  fresh replay under the new rules makes; taking the rule back restores the catalog.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from pipelines.index.replay import replay
from pipelines.rules import store
from pipelines.rules.apply import apply_rules
from pipelines.rules.model import Rule
from pipelines.rules.trial import range_rows, try_rules
from tests.corpora import Generated, generate

# the rows a range writes; `ranges` and the window snapshots say which rules they ran
# under and when, which a redo changes by design
TABLES = ("releases", "release_files", "pending_releases", "probe_candidates",
          "rule_counts", "rule_samples", "rule_hits")  # fmt: skip


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    out = tmp_path_factory.mktemp("rules") / "demo"
    return generate(out, groups=2, articles=2_500, seed=11, range_size=1_000, chunk=500)


@pytest.fixture(scope="module")
def base(gen: Generated, tmp_path_factory: pytest.TempPathFactory) -> str:
    catalog = str(tmp_path_factory.mktemp("base") / "catalog")
    replay(gen.corpus, catalog, gen.rules, progress=False)
    return catalog


def _uploads(gen: Generated) -> list[dict[str, Any]]:
    return pq.read_table(f"{gen.out}/truth/uploads.parquet").to_pylist()


def _articles(uploads: list[dict[str, Any]]) -> int:
    return sum(len(f["message_ids"]) for u in uploads for f in u["files"])


def _content(catalog: str) -> dict[str, list[str]]:
    out = {}
    for table in TABLES:
        rows = pq.read_table(f"{catalog}/{table}").to_pylist()
        out[table] = sorted(
            repr(sorted((k, v) for k, v in r.items() if k != "rules_version")) for r in rows
        )
    return out


def _hits(catalog: str) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for row in pq.read_table(f"{catalog}/rule_hits").to_pylist():
        c = out.setdefault(row["rule"], Counter())
        c.update({"headers": row["headers"], "dropped": row["dropped"], "bytes": row["bytes"]})
    return out


def _copy(catalog: str, to: Path) -> str:
    shutil.copytree(catalog, to)
    return str(to)


def _late_upload(gen: Generated, base: str) -> dict[str, Any]:
    """A complete upload of one group, posted late (the ranges before it stay as they are),
    whose name the catalog shows."""
    names = {r["name"] for r in pq.read_table(f"{base}/releases").to_pylist()}
    plain = [u for u in _uploads(gen) if u["complete"] and len(u["groups"]) == 1
             and u["name"] in names and re.fullmatch(r"[\w.-]+", u["name"])]  # fmt: skip
    return max(plain, key=lambda u: u["posted_first"])


def test_counts_are_the_truths_and_every_rule_gets_credit(
    gen: Generated, base: str, tmp_path: Path
) -> None:
    uploads = _uploads(gen)
    posters = Counter(u["poster"] for u in uploads if u["complete"] and len(u["groups"]) == 1)
    poster = next(p for p, n in posters.most_common() if all(
        len(u["groups"]) == 1 for u in uploads if u["poster"] == p))  # fmt: skip
    theirs = [u for u in uploads if u["poster"] == poster]
    kept = _late_upload(gen, base)
    catalog = str(tmp_path / "catalog")
    name = re.escape(kept["name"])
    keep = store.add_rule(catalog, name, "t", action="keep")
    drop_name = store.add_rule(catalog, name, "t", force=True)
    drop = store.add_rule(catalog, poster, "t", field="poster", literal=True, force=True)
    watch = store.add_rule(catalog, poster, "t", field="poster", literal=True, action="watch")
    shadow = store.add_rule(catalog, poster.split()[0], "t", field="poster", literal=True,
                            state="shadow", force=True)  # fmt: skip
    seen = store.add_rule(catalog, kept["poster"], "t", field="poster", literal=True,
                          action="watch")  # fmt: skip
    replay(gen.corpus, catalog, gen.rules, progress=False)
    hits = _hits(catalog)
    # the poster's every article: matched by the drop, the watch and the shadow rule,
    # dropped by the first only
    n = _articles(theirs)
    assert hits[drop.id]["headers"] == hits[drop.id]["dropped"] == n
    assert hits[watch.id]["headers"] == n and hits[watch.id]["dropped"] == 0
    assert hits[shadow.id]["headers"] >= n and hits[shadow.id]["dropped"] == 0
    # a keep rule before a drop rule keeps: both matched, nothing dropped
    k = _articles([kept])
    assert hits[keep.id]["headers"] == hits[drop_name.id]["headers"] == k
    assert hits[keep.id]["dropped"] == hits[drop_name.id]["dropped"] == 0
    releases = pq.read_table(f"{catalog}/releases").to_pylist()
    assert not any(r["poster"] == poster for r in releases)
    assert any(r["name"] == kept["name"] for r in releases)
    # rule_counts add up: the drop rule's drops are counted under its id
    counts = pq.read_table(f"{catalog}/rule_counts").to_pylist()
    assert sum(r["count"] for r in counts if r["rule"] == drop.id) == n
    # the operator's view: lifetime, share of all drops, last hit, per day
    view = {r["id"]: r for r in store.rule_counters(catalog)}
    assert view[drop.id]["dropped"] == n and view[drop.id]["share"] > 0
    assert sum(d["headers"] for d in view[watch.id]["days"]) == n
    assert view[watch.id]["last_hit"] is not None
    total = sum(r["count"] for r in counts)
    assert view[drop.id]["share"] == pytest.approx(n / total)
    # the built-ins: every drop a day, as many as rule_counts has (bad lines have no date)
    for builtin in ("crosspost", "random_subject", "no_part_counter"):
        assert hits[builtin]["headers"] == hits[builtin]["dropped"] > 0
        assert hits[builtin]["headers"] == sum(r["count"] for r in counts if r["rule"] == builtin)
        assert view[builtin]["days"] and view[builtin]["bytes"] == hits[builtin]["bytes"]
    # the poster watch: every watched header's fate, and the kept poster's releases
    watch_view = {w["id"]: w["outcomes"] for w in store.poster_watch(catalog)}
    assert watch_view[watch.id] == [
        {"stage": "header_pass", "reason": f"dropped by {drop.id}", "headers": n,
         "releases": watch_view[watch.id][0]["releases"]}
    ]  # fmt: skip
    fates = {(o["stage"], o["reason"]): o for o in watch_view[seen.id]}
    assert fates[("header_pass", "kept")]["headers"] == hits[seen.id]["headers"] > 0
    mine = {r["release_key"] for r in releases if r["poster"] == kept["poster"]}
    grouped = fates.get(("releases", "grouped"), {"releases": 0})["releases"]
    provisional = fates.get(("releases", "provisional"), {"releases": 0})["releases"]
    assert grouped + provisional == len(mine) > 0
    # build outcomes by day: the operator's drops as blacklisted, each day with a sample
    outcomes = store.build_outcomes(catalog, 30)
    blacklisted = sum(o["count"] for o in outcomes if o["outcome"] == "blacklisted")
    operator = {r.id for r in store.load_rules(catalog).operator}
    assert blacklisted == sum(r["count"] for r in counts if r["rule"] in operator) == n
    built = [o for o in outcomes if o["outcome"] == "built"]
    assert built and all(o["sample"] for o in built)


def test_a_rule_matching_most_headers_needs_force(base: str, tmp_path: Path) -> None:
    catalog = _copy(base, tmp_path / "c")
    with pytest.raises(store.RuleRefused, match="force"):
        store.add_rule(catalog, "yEnc", "t")
    assert store.add_rule(catalog, "yEnc", "t", force=True).pattern == "yEnc"
    # a watch or shadow... a keep is no drop: no share to weigh
    assert store.add_rule(catalog, "yEnc", "t", action="keep").action == "keep"


def test_try_predicts_apply_and_apply_equals_a_fresh_replay(
    gen: Generated, base: str, tmp_path: Path
) -> None:
    late = _late_upload(gen, base)
    group = late["owner_group"]
    scope = f"^{re.escape(group)}$"
    catalog = _copy(base, tmp_path / "applied")
    draft = [Rule(id="r1", pattern=re.escape(late["name"]), group=scope)]
    trial = try_rules(gen.corpus, catalog, gen.rules, draft)
    assert trial.removed and {r["name"] for r in trial.removed} == {late["name"]}
    assert {g for g, *_ in trial.ranges} == {group}  # the other group is not touched
    before = {(g, a): _range_releases(catalog, g, a, z) for g, a, z, _ in trial.ranges}
    untouched = _files_outside(catalog, trial.ranges)
    assert _content(catalog) == _content(base)  # try wrote nothing

    store.add_rule(catalog, re.escape(late["name"]), "t", group=scope)
    _, summary = apply_rules(gen.corpus, catalog, gen.rules)
    redone = [(r.group, r.first, r.last) for r in summary.results]
    assert redone == [(g, a, z) for g, a, z, _ in trial.ranges]
    removed, added, changed = [], [], []
    for (g, a), old in before.items():
        new = _range_releases(catalog, g, a, a + 999)
        removed += [old[k]["name"] for k in old.keys() - new.keys()]
        added += [new[k]["name"] for k in new.keys() - old.keys()]
        changed += [k for k in old.keys() & new.keys() if old[k] != new[k]]
    assert sorted(removed) == sorted(r["name"] for r in trial.removed)
    assert sorted(added) == sorted(r["name"] for r in trial.added)
    assert len(changed) == len(trial.changed)
    assert _files_outside(catalog, trial.ranges) == untouched  # nothing else rewritten

    fresh = str(tmp_path / "fresh")
    shutil.copytree(f"{catalog}/_rules", f"{fresh}/_rules")
    replay(gen.corpus, fresh, gen.rules, progress=False)
    assert _content(catalog) == _content(fresh)

    # taken back: the ranges where it fired are redone, and the catalog is as before
    rule_id = store.load_rules(catalog).operator[0].id
    store.update_rule(catalog, rule_id, "t", state="off")
    _, summary = apply_rules(gen.corpus, catalog, gen.rules)
    assert [(r.group, r.first) for r in summary.results] == [(g, a) for g, a, *_ in trial.ranges]
    assert _content(catalog) == _content(base)


def test_shadow_counts_and_changes_no_release(gen: Generated, base: str, tmp_path: Path) -> None:
    late = _late_upload(gen, base)
    catalog = _copy(base, tmp_path / "shadow")
    rule = store.add_rule(catalog, re.escape(late["name"]), "t", state="shadow")
    trial = try_rules(gen.corpus, catalog, gen.rules, store.load_rules(catalog).operator)
    assert trial.ranges and not trial.removed and not trial.added and not trial.changed
    apply_rules(gen.corpus, catalog, gen.rules)
    assert _hits(catalog)[rule.id]["headers"] == _articles([late])
    assert _hits(catalog)[rule.id]["dropped"] == 0
    without = {k: v for k, v in _content(catalog).items() if k != "rule_hits"}
    assert without == {k: v for k, v in _content(base).items() if k != "rule_hits"}


def _range_releases(catalog: str, group: str, first: int, last: int) -> dict[bytes, Any]:
    from pipelines.corpus.layout import RangeRef

    rows = range_rows(catalog, "releases", RangeRef(group, first, last))
    keep = ("name", "poster", "files", "segments", "bytes", "complete", "finished")
    return {r["release_key"]: {k: r[k] for k in keep} for r in rows}


def _files_outside(catalog: str, ranges: list[tuple[str, int, int, str]]) -> dict[str, bytes]:
    touched = {f"{g}/{a}-{z}" for g, a, z, _ in ranges}
    out = {}
    for path in sorted(Path(catalog).rglob("*.parquet")):
        rel = path.relative_to(catalog)
        if f"{rel.parent.name}/{rel.stem}" not in touched and rel.parts[0] != "ranges":
            out[str(rel)] = path.read_bytes()
    return out


def test_the_rules_command(gen: Generated, base: str, tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    catalog = _copy(base, tmp_path / "cli")
    rules_file = tmp_path / "rules.json"
    rules_file.write_text(json.dumps(gen.rules.to_json()))
    late = _late_upload(gen, base)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "cli.main", "rules", *args,
                               "--catalog", catalog], capture_output=True, text=True,
                              timeout=300)  # fmt: skip

    refused = run("add", "")
    assert refused.returncode == 3 and "empty pattern" in refused.stderr
    assert run("add", "yEnc").returncode == 3  # most headers: needs force
    trial = run("try", re.escape(late["name"]), "--corpus", gen.corpus, "--rules",
                str(rules_file), "--ranges", "100")  # fmt: skip
    assert trial.returncode == 0, trial.stderr
    assert "releases removed: " in trial.stdout and late["name"] in trial.stdout
    assert run("add", re.escape(late["name"]), "--note", "a test").returncode == 0
    applied = run("apply", "--corpus", gen.corpus, "--rules", str(rules_file))
    assert applied.returncode == 0, applied.stderr
    listed = json.loads(run("list", "--json").stdout)
    mine = next(r for r in listed if r["note"] == "a test")
    assert mine["dropped"] == _articles([late])
