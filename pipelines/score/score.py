"""Score a catalog against a generator's truth, per subject family and overall.

An upload is matched to the catalog by its message-ids: the visible releases (newest
version, merged tombstones hidden; pending releases too) whose files hold any of them.

- exact: a complete readable upload (albums of single posts excluded) is exactly one
  release of its owner group holding exactly its message-ids.
- split: an upload (complete or not) whose message-ids are in two or more releases.
- missing: a complete readable upload in no release at all.
- contaminated: an upload in a release that also holds another upload's or a noise
  article's message-ids (an album release of classic single-image posts excepted: it
  is many uploads by design). `contaminated_releases` counts the releases.
- incomplete one: an incomplete readable upload that is one release marked incomplete.
- names right: of the exact uploads with an expected name, those whose release name
  equals it after `normalise_name`.
- the obfuscated uploads, as the article pass named them: `naming.py`.
- merges and the judge's verdicts (a `--split-and-junk` truth): `split_and_junk.py`.

A classic truth (no `family` column) scores as one family, `classic`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import fsspec

from pipelines.catalog.reader import read_parquet
from pipelines.naming.no_name import no_name
from pipelines.score.catalog import CatalogView, load_catalog
from pipelines.score.naming import (
    NamingScore,
    normalise_name,
    score_naming,
    score_naming_by_family,
)
from pipelines.score.split_and_junk import SplitJunkScore, score_split_and_junk

OVERALL = "overall"


@dataclass
class FamilyScore:
    family: str
    uploads: int = 0  # readable uploads (obfuscated ones are pending, not scored)
    wanted: int = 0  # complete readable uploads, albums of single posts excluded
    exact: int = 0
    split: int = 0
    missing: int = 0
    contaminated: int = 0
    incomplete: int = 0
    incomplete_one: int = 0
    named: int = 0  # exact uploads with an expected name
    names_right: int = 0
    misses: list[str] = field(default_factory=list)  # a few names, for a reader
    wrong_names: list[tuple[str, str]] = field(default_factory=list)  # a few (expected, got)

    @property
    def exact_share(self) -> float:
        return self.exact / self.wanted if self.wanted else 1.0

    @property
    def incomplete_share(self) -> float:
        return self.incomplete_one / self.incomplete if self.incomplete else 1.0

    @property
    def names_share(self) -> float:
        return self.names_right / self.named if self.named else 1.0

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["exact_share"] = round(self.exact_share, 4)
        doc["incomplete_share"] = round(self.incomplete_share, 4)
        doc["names_share"] = round(self.names_share, 4)
        return doc


@dataclass
class Score:
    families: dict[str, FamilyScore]  # overall included, last
    contaminated_releases: int = 0
    noisy_releases: int = 0
    naming: NamingScore = field(default_factory=NamingScore)  # the obfuscated uploads
    split_junk: SplitJunkScore | None = None  # merges and verdicts (a --split-and-junk truth)
    # the obfuscated uploads' naming per family (`naming.family_of`), shown with by_family
    naming_families: dict[str, NamingScore] = field(default_factory=dict)
    by_family: bool = False
    # catalog releases (not pending) named by text that is no name (`naming.no_name`:
    # `Description`, `????`, a site's tag, `1080p`), and the first few such names
    boilerplate_named: int = 0
    boilerplate_names: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "families": {k: v.to_json() for k, v in self.families.items()},
            "contaminated_releases": self.contaminated_releases,
            "noisy_releases": self.noisy_releases,
            "naming": self.naming.to_json(),
            "split_junk": None if self.split_junk is None else self.split_junk.to_json(),
            "naming_families": {k: v.to_json() for k, v in self.naming_families.items()},
            "boilerplate_named": self.boilerplate_named,
            "boilerplate_names": self.boilerplate_names,
        }

    def format(self) -> str:
        width = max(20, *(len(k) for k in self.families))
        head = (
            f"{'family':<{width}} {'uploads':>7} {'whole':>6} {'exact':>6} {'share':>7} "
            f"{'split':>5} {'miss':>5} {'contam':>6} {'incompl':>7} {'as one':>6} "
            f"{'named':>5} {'right':>7}"
        )
        rows = [head]
        for f in self.families.values():
            rows.append(
                f"{f.family:<{width}} {f.uploads:>7} {f.wanted:>6} {f.exact:>6} "
                f"{f.exact_share:>7.1%} {f.split:>5} {f.missing:>5} {f.contaminated:>6} "
                f"{f.incomplete:>7} {f.incomplete_one:>6} {f.named:>5} "
                + (f"{f.names_share:>7.1%}" if f.named else f"{'-':>7}")
            )
        rows.append(
            f"releases mixing uploads: {self.contaminated_releases}, "
            f"holding noise: {self.noisy_releases}, named by boilerplate: "
            f"{self.boilerplate_named}"
            + (
                f" ({', '.join(map(repr, self.boilerplate_names))})"
                if self.boilerplate_names
                else ""
            )
        )
        rows.append(self.naming.format())
        if self.by_family:
            rows += [f"  {name}: {n.format()}" for name, n in self.naming_families.items()]
        if self.split_junk is not None:
            rows.append(self.split_junk.format())
        return "\n".join(rows)


def load_truth(corpus_out: str | Path) -> tuple[list[dict[str, Any]], set[str]]:
    """The generator's uploads (rows) and noise message-ids."""
    fs = fsspec.filesystem("file")
    root = str(Path(corpus_out))
    uploads = read_parquet(fs, f"{root}/truth/uploads.parquet").to_pylist()
    noise = read_parquet(fs, f"{root}/truth/noise.parquet", ["message_id"])
    return uploads, set(noise.column("message_id").to_pylist())


def _ids(upload: dict[str, Any]) -> set[str]:
    return {m for f in upload["files"] for m in f["message_ids"]}


def score_catalog(
    corpus_out: str | Path, catalog: str | Path, by_style: bool = False, by_family: bool = False
) -> Score:
    uploads, noise = load_truth(corpus_out)
    score = score_view(uploads, noise, load_catalog(Path(catalog)), by_style)
    score.by_family = by_family
    return score


def score_view(
    uploads: list[dict[str, Any]], noise: set[str], view: CatalogView, by_style: bool = False
) -> Score:
    """The score of a loaded catalog against truth rows (what `score_catalog` reads);
    `by_style` splits each family by subject shape (`family:style`, classic stays one)."""
    owner: dict[str, int] = {}
    for u in uploads:
        for m in _ids(u):
            owner[m] = u["upload_id"]
    kind_of = {u["upload_id"]: u["kind"] for u in uploads}
    bad: set[bytes] = set()
    noisy = 0
    mixed = 0
    for key, mids in view.ids_of.items():
        holders = {owner.get(m, -1) for m in mids}
        has_noise = bool(mids & noise) or -1 in holders
        row = view.releases.get(key)
        album = row is not None and row.get("source") == "album"
        many = len(holders - {-1}) > 1 and not (
            album and {kind_of.get(h) for h in holders} == {"album"}
        )
        noisy += has_noise
        mixed += many
        if has_noise or many:
            bad.add(key)
    families: dict[str, FamilyScore] = {}
    overall = FamilyScore(OVERALL)
    for u in uploads:
        if not u["readable"]:
            continue
        family = u.get("family") or "classic"
        if by_style and family != "classic":
            family = f"{family}:{u['style']}"
        scores = (families.setdefault(family, FamilyScore(family)), overall)
        mids = _ids(u)
        keys = {k for m in mids for k in view.release_of.get(m, ())}
        expected = u["expected_name"] if "expected_name" in u else _classic_name(u)
        for s in scores:
            _count(s, u, mids, keys, bad, view, expected)
    ordered = dict(sorted(families.items(), key=lambda kv: (kv[0] != "classic", kv[0])))
    ordered[OVERALL] = overall
    split_junk = (
        score_split_and_junk(uploads, view)
        if uploads and "expected_verdict" in uploads[0]
        else None
    )
    boilerplate = [  # (an album's template, `IMG_#.jpg`, is its name)
        row["name"]
        for row in view.releases.values()
        if row.get("source") != "album" and no_name(row["name"] or "")
    ]
    return Score(
        ordered, mixed, noisy, score_naming(uploads, view), split_junk,
        score_naming_by_family(uploads, view), boilerplate_named=len(boilerplate),
        boilerplate_names=boilerplate[:5],
    )  # fmt: skip


def _classic_name(u: dict[str, Any]) -> str | None:
    return None if u["kind"] == "album" else u["name"]


def _count(
    s: FamilyScore,
    u: dict[str, Any],
    mids: set[str],
    keys: set[bytes],
    bad: set[bytes],
    view: CatalogView,
    expected: str | None,
) -> None:
    s.uploads += 1
    s.split += len(keys) > 1
    s.contaminated += bool(keys & bad)
    if u["kind"] == "album":
        return
    if not u["complete"]:
        s.incomplete += 1
        if len(keys) == 1:
            row = view.releases.get(next(iter(keys)))
            s.incomplete_one += row is not None and not row["complete"]
        return
    s.wanted += 1
    s.missing += not keys
    key = next(iter(keys)) if len(keys) == 1 else b""
    row = view.releases.get(key)
    if row is None or view.ids_of[key] != mids or row["group"] != u["owner_group"]:
        if len(s.misses) < 8:
            s.misses.append(u["name"])
        return
    s.exact += 1
    if expected is not None:
        s.named += 1
        right = normalise_name(row["name"]) == normalise_name(expected)
        s.names_right += right
        if not right and len(s.wrong_names) < 8:
            s.wrong_names.append((expected, row["name"]))


_COUNTS = (
    "uploads", "wanted", "exact", "split", "missing", "contaminated",
    "incomplete", "incomplete_one", "named", "names_right",
)  # fmt: skip


def combine(scores: list[Score]) -> Score:
    """The sum of several corpora's scores (seeds): counts add up, shares follow."""
    families: dict[str, FamilyScore] = {}
    for score in scores:
        for name, f in score.families.items():
            total = families.setdefault(name, FamilyScore(name))
            for attr in _COUNTS:
                setattr(total, attr, getattr(total, attr) + getattr(f, attr))
            total.misses += f.misses[: max(0, 8 - len(total.misses))]
            total.wrong_names += f.wrong_names[: max(0, 8 - len(total.wrong_names))]
    overall = families.pop(OVERALL, FamilyScore(OVERALL))
    ordered = dict(sorted(families.items(), key=lambda kv: (kv[0] != "classic", kv[0])))
    ordered[OVERALL] = overall
    naming = NamingScore()
    naming_families: dict[str, NamingScore] = {}
    split_junk: SplitJunkScore | None = None
    for score in scores:
        naming.add(score.naming)
        for name, n in score.naming_families.items():
            naming_families.setdefault(name, NamingScore()).add(n)
        if score.split_junk is not None:
            split_junk = split_junk or SplitJunkScore()
            split_junk.add(score.split_junk)
    return Score(
        ordered,
        sum(s.contaminated_releases for s in scores),
        sum(s.noisy_releases for s in scores),
        naming,
        split_junk,
        dict(sorted(naming_families.items())),
        any(s.by_family for s in scores),
        sum(s.boilerplate_named for s in scores),
        [n for s in scores for n in s.boilerplate_names][:5],
    )


def format_json(score: Score) -> str:
    return json.dumps(score.to_json(), sort_keys=True)
