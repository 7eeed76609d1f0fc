"""Upload signatures: whether probing an uploader's pending releases is worth it.

A signature is (posting tool, group, poster), or (tool, group) for every poster. Each
finished climb of the pending ladder counts on both: climbs, and how many were named. A
signature with at least `MIN_CLIMBS` climbs and at most `MAX_NAMED_SHARE` of them named is
discarded: its waiting releases are not probed, but for a sample (`pipelines.probe.ladder`)
that notices a change.
"""

from __future__ import annotations

MIN_CLIMBS = 100
MAX_NAMED_SHARE = 0.005


def discarded(climbs: int, named: int) -> bool:
    return climbs >= MIN_CLIMBS and named <= MAX_NAMED_SHARE * climbs
