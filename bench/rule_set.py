"""The operator rule sets the header bench runs with (`usenet-indexer bench --rules N`):
nZEDb's real blacklist, every rule on and in every group (the most it can cost), and N
operator rules of the shapes operators write: a spam poster's From as text, a release
group's tag, a fake name's pattern. They match nothing or little of the generated range,
as most of an operator's rules match little of a day: what is measured is the cost of
asking."""

from __future__ import annotations

import os
from pathlib import Path

from pipelines.rules.nzedb import import_blacklist
from pipelines.rules.store import add_rule, load_rules, update_rule

SHARED_DATA = Path(
    os.environ.get("USENET_INDEXER_SHARED_DATA")
    or Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
)
NZEDB = SHARED_DATA / "subjects" / "nzedb_binaryblacklist.tsv"


def operator_rule(i: int) -> dict[str, object]:
    """The i-th made-up operator rule (a third each: poster text, tag, name pattern)."""
    if i % 3 == 0:
        return {"pattern": f"spammer{i} <spam{i}@example.invalid>", "field": "poster",
                "literal": True}  # fmt: skip
    if i % 3 == 1:
        return {"pattern": rf"[\[(]FAKEGRP{i}[\])]"}
    return {"pattern": rf"^(?:www\.)?site{i}\.(?:com|net)\b.*\.(?:exe|scr)"}


def set_up_rules(catalog: str, operator: int, nzedb: bool = True) -> int:
    """Store nZEDb's rules (all on, in every group) and `operator` made-up ones in the
    catalog; how many rules there are."""
    if nzedb:
        if not NZEDB.exists():
            raise FileNotFoundError(f"nZEDb's blacklist is not at {NZEDB} (set "
                                    "USENET_INDEXER_SHARED_DATA)")  # fmt: skip
        import_blacklist(catalog, NZEDB, "bench")
        for rule in load_rules(catalog).operator:
            update_rule(catalog, rule.id, "bench", force=True, state="on", group="")
    for i in range(operator):
        add_rule(catalog, who="bench", force=True, **operator_rule(i))  # type: ignore[arg-type]
    return len(load_rules(catalog).operator)
