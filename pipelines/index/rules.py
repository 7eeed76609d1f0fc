"""The rule set a range runs with: window timings, group priorities, garbage signatures.

Versioned: every partition a range writes is stamped with the fingerprint, and a changed
rule marks the ranges where it fired stale (`pipelines.index.schedule` compares the rule
set a range ran with, recorded in the catalog, with the current one).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from pipelines.rules.model import Rule


@dataclass(frozen=True)
class GarbageSignature:
    """Drop what matches all given parts: a poster's From, a group, a posting tool."""

    poster: str = ""
    group: str = ""
    tool: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Rules:
    # the built-in rules' version: a change that regroups what earlier ranges made moves
    # it, and every range is redone (2: the file counter as a release signal, the file's
    # quoted name picked among several, unquoted names of several words; issue 17; 3: a
    # long one-case token with a digit is a random name, probe candidates for bare media;
    # 4: bare file counters `28 of 48`, `[01 of 84 - 64 kb]`, `01/43]`, albums named by
    # their sidecars, boilerplate names pending: issue 26; no range records which of its
    # subjects these touch, so every range is redone; 5: the NZB files an upload posts
    # are probe candidates, which the article pass imports: issue 28)
    version: str = "5"
    groups: tuple[str, ...] = ()  # indexed groups in priority order (first = owns crossposts)
    upload_gap: int = 3 * 3600  # files of one release lie within this of each other
    window: int = 24 * 3600  # a release finishes when the frontier is this far past it
    batch_total_min: int = 100  # a counter total at least this big ...
    batch_uploads_min: int = 3  # ... shared by this many uploads of a poster is a batch number
    album_max_files: int = 1000
    sample_every: int = 100  # keep 1 in N of each rule's drops in full
    garbage: tuple[GarbageSignature, ...] = field(default_factory=tuple)
    # sample subjects whose identity is a poster's boilerplate, not a release name: files
    # under it are grouped by their stems instead (the identity is taken from each sample)
    boilerplate: tuple[str, ...] = (
        '<TOWN> www.town.ag > sponsored by www.ssl-news.info > (1/2) "x.nfo" yEnc (1/1)',
    )

    # the operator's rules from the catalog's rule set (`pipelines.rules`), in evaluation
    # order; only what they match and do (`Rule.matching`) is kept here
    filters: tuple[Rule, ...] = ()

    @cached_property
    def fingerprint(self) -> str:
        """The version and a hash of the content: two rule sets with one version still differ."""
        return fingerprint_of(self.to_json())

    def priority(self, corpus_groups: list[str]) -> list[str]:
        """Indexed groups in priority order: the configured ones, then the rest by name."""
        rest = sorted(g for g in corpus_groups if g not in self.groups)
        return [*self.groups, *rest]

    def to_json(self) -> dict[str, Any]:
        doc = asdict(replace(self, filters=()))  # asdict copies each rule: done apart
        doc["groups"] = list(self.groups)
        doc["boilerplate"] = list(self.boilerplate)
        doc["garbage"] = [asdict(g) for g in self.garbage]
        # no operator rules: the key is left out, so a catalog's fingerprints stay as they were
        del doc["filters"]
        if self.filters:
            doc["filters"] = [r.matching() for r in self.filters]
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Rules:
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(doc) - known
        if unknown:
            raise ValueError(f"unknown rule settings: {', '.join(sorted(unknown))}")
        doc = dict(doc)
        doc["groups"] = tuple(doc.get("groups", ()))
        if "boilerplate" in doc:
            doc["boilerplate"] = tuple(doc["boilerplate"])
        doc["garbage"] = tuple(GarbageSignature(**g) for g in doc.get("garbage", ()))
        doc["filters"] = tuple(Rule.from_json(r) for r in doc.get("filters", ()))
        for name in ("upload_gap", "window", "batch_total_min", "batch_uploads_min"):
            if name in doc and (not isinstance(doc[name], int) or doc[name] <= 0):
                raise ValueError(f"rule {name} must be a positive integer, not {doc[name]!r}")
        return cls(**doc)

    @classmethod
    def load(cls, path: str | Path | None) -> Rules:
        if path is None:
            return cls()
        try:
            doc = json.loads(Path(path).read_text())
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read rules from {path}: {exc}") from exc
        if not isinstance(doc, dict):
            raise ValueError(f"rules file {path} is not a JSON object")
        return cls.from_json(doc)


def fingerprint_of(doc: dict[str, Any]) -> str:
    """The fingerprint of a rule set's JSON document (`Rules.to_json`)."""
    body = json.dumps(doc, sort_keys=True).encode()
    return f"{doc.get('version', '')}-{hashlib.sha1(body).hexdigest()[:10]}"
