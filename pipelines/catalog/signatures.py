"""Per-signature figures of the pending ladder, and the one rule that discards a signature.

A signature is what an obfuscated upload's headers still tell: its posting tool, its
group and its poster (decision f). The ladder (`pipelines.probe`) counts per signature
how many ladders finished (*climbs*: named or exhausted) and how many of them named the
release; a signature whose ladders almost never name anything is *discarded*: its
releases are no longer climbed (a sample still is). The ladder, the status page and the
Dagster metadata all read the rule here, so it lives once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

# A signature is judged only after this many finished ladders: fewer say too little.
MIN_CLIMBS = 100
# ... and discarded when at most this share of them named their release (0.5 %).
MAX_NAMED_SHARE = 0.005
# The ladder's outcomes (`schema.RELEASE_PROBES.outcome`) that end a climb.
CLIMBED = frozenset({"named", "exhausted"})


class Signature(NamedTuple):
    tool: str | None
    group: str | None
    poster: str | None


@dataclass
class SignatureFigures:
    climbs: int = 0  # finished ladders (named or exhausted)
    named: int = 0
    skipped: int = 0  # releases not climbed because the signature was discarded

    @property
    def discarded(self) -> bool:
        return discarded(self.climbs, self.named)


def discarded(climbs: int, named: int) -> bool:
    """Whether a signature with `climbs` finished ladders, `named` of them named, is
    discarded: at least `MIN_CLIMBS` climbs and at most `MAX_NAMED_SHARE` named."""
    return climbs >= MIN_CLIMBS and named <= MAX_NAMED_SHARE * climbs


def signature_figures(
    rows: Iterable[Mapping[str, Any]], by_poster: bool = True
) -> dict[Signature, SignatureFigures]:
    """The figures of each signature in `rows` (mappings with tool, group, poster and
    outcome: `release_probes` rows, one per release, pending ones only); `by_poster`
    False: per tool + group (poster None), the ladder's coarser verdict."""
    out: dict[Signature, SignatureFigures] = {}
    for row in rows:
        sig = Signature(row.get("tool"), row.get("group"), row.get("poster") if by_poster else None)
        figures = out.setdefault(sig, SignatureFigures())
        outcome = row.get("outcome")
        if outcome in CLIMBED:
            figures.climbs += 1
            figures.named += outcome == "named"
        elif outcome == "discarded":
            figures.skipped += 1
    return out
