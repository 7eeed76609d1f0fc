"""A release's verdict from what its sampled STATs answered.

- healthy: every sampled article is there;
- broken: some are gone, but few, and the release carries par2 recovery volumes that can
  plausibly rebuild them (a download with a par2 repair still works);
- dead: most or all are gone; or some are gone and nothing can repair them (no recovery
  volumes, or the first and the last both gone with less recovery than the missing share).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

HEALTHY = "healthy"
BROKEN = "broken"
DEAD = "dead"
VERDICTS = (HEALTHY, BROKEN, DEAD)

# the share of sampled articles above which a release is dead whatever par2 it has
# ("most" is more than half; a third is already beyond what uploaders add as recovery)
REPAIRABLE_SHARE = 1 / 3
_VOLUME = re.compile(r"\.vol\d+\+\d+\.par2$", re.IGNORECASE)
_PAR2 = re.compile(r"\.par2$", re.IGNORECASE)


def recovery_share(names: Sequence[str], sizes: Sequence[int]) -> float:
    """The bytes of par2 recovery volumes over the bytes of the files they protect (0
    when the release has no volumes): roughly the share of blocks par2 can rebuild."""
    volumes = sum(s for n, s in zip(names, sizes, strict=True) if _VOLUME.search(n))
    data = sum(s for n, s in zip(names, sizes, strict=True) if not _PAR2.search(n))
    if volumes <= 0:
        return 0.0
    return volumes / data if data > 0 else 1.0


def verdict(sent: int, missing: int, ends_missing: int, recovery: float) -> str:
    """The verdict of `sent` STATs of which `missing` answered 430, `ends_missing` of them
    the release's first and last segment (0-2), for a release whose par2 volumes can
    rebuild `recovery` of its bytes."""
    if missing <= 0:
        return HEALTHY
    share = missing / max(sent, 1)
    if recovery <= 0 or share > REPAIRABLE_SHARE:
        return DEAD
    if ends_missing >= 2 and recovery < share:
        return DEAD
    return BROKEN


def served_by(providers: Sequence[str] | None, missing: Sequence[int] | None) -> list[str]:
    """The providers that answered every sampled STAT of a check (a release row's
    `providers` and `provider_missing`; none for a check older than issue 29)."""
    if not providers or not missing:
        return []
    return [p for p, m in zip(providers, missing, strict=False) if m == 0]
