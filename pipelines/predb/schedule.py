"""The seed's scan schedule as a state machine over the queue's columns (docs/PREDB.md).

Priorities: P1 a live announce younger than `live_max_age_secs` (8 scans: pre + 10 min,
then +5 min, +15, +30, +1 h, +3 h, +12 h, +24 h, each after the one before it was due);
P2 a user's request (one scan); P3 a historical import (one scan, or two 24 h apart when
the pre is younger than 36 h). Outcomes of a scan: a release of the right size
(`complete`); releases of the wrong size only (retry after `size_short_retry_secs`, not
using up a step, until `size_mismatch_max` such scans: `size_mismatch_cap`); nothing
(the next step, or `not_found_full` when the schedule is done). Beside the scans: a nuke
ends a waiting pre (`nuked`); a live pre older than `live_expiry_secs` ends `expired`;
the reaper puts a scan stuck past `stuck_scan_after_secs` back without using its step.
"""

from __future__ import annotations

import numpy as np

from pipelines.predb.settings import PredbSettings

# plans: the schedule a pre follows, set when it enters
P1, P2, P3_RECENT, P3 = 1, 2, 3, 4
PRIORITY = {P1: 1, P2: 2, P3_RECENT: 3, P3: 3}
# statuses while waiting
PENDING, RETRYING, SCANNING = 0, 1, 2
STATUS_NAMES = {PENDING: "pending", RETRYING: "retrying", SCANNING: "scanning"}
TERMINAL = ("complete", "nuked", "expired", "not_found_full", "size_mismatch_cap")
FOUND, MISMATCH, NOTHING = "found", "mismatch", "nothing"


def plan_of(pre_time: int, live: bool, requested: bool, now: int, s: PredbSettings) -> int:
    if live and now - pre_time < s.live_max_age_secs:
        return P1
    if requested:
        return P2
    return P3_RECENT if now - pre_time < s.recent_historical_secs else P3


def scans_of(plan: int, s: PredbSettings) -> int:
    return {P1: s.p1_scans, P2: 1, P3_RECENT: 2, P3: 1}[plan]


def first_due(plan: int, pre_time: int, now: int, s: PredbSettings) -> int:
    """When a pre's first scan is due: a live one after the propagation wait."""
    return pre_time + s.pre_age_min_secs if plan == P1 else now


def next_due(plan: int, done: int, was_due: int, now: int, s: PredbSettings) -> int:
    """When step `done + 1` is due, `done` steps taken, the last one due at `was_due` and
    taken `now`: its gap after the later of the two (a step taken late, the process down
    meanwhile, moves the rest along rather than firing them all at once)."""
    gap = s.p1_gaps[done - 1] if plan == P1 else s.recent_second_scan_secs
    return max(was_due, now) + gap


def after_scan(
    plan: int, attempts: int, mismatches: int, was_due: int, found: str, now: int, s: PredbSettings
) -> tuple[str, int, int, int]:
    """A scan's result -> (outcome, attempts, mismatches, next due). The outcome is a
    terminal state, or `not_found` / `size_mismatch` when the pre waits on."""
    if found == FOUND:
        return "complete", attempts, mismatches, 0
    if found == MISMATCH:
        mismatches += 1
        if mismatches >= s.size_mismatch_max:
            return "size_mismatch_cap", attempts, mismatches, 0
        # a size retry keeps the step: it is scanned again, not skipped
        return "size_mismatch", attempts - 1, mismatches, now + s.size_short_retry_secs
    if attempts >= scans_of(plan, s):
        return "not_found_full", attempts, mismatches, 0
    return "not_found", attempts, mismatches, next_due(plan, attempts, was_due, now, s)


def reap(status: np.ndarray, updated: np.ndarray, now: int, s: PredbSettings) -> np.ndarray:
    """The rows stuck in a scan (their process died in it)."""
    return np.flatnonzero((status == SCANNING) & (updated < now - s.stuck_scan_after_secs))


def expired(
    plan: np.ndarray, live: np.ndarray, pre_time: np.ndarray, now: int, s: PredbSettings
) -> np.ndarray:
    """Live pres past `live_expiry_secs` (historical ones never expire)."""
    return np.flatnonzero(live & (pre_time + s.live_expiry_secs < now))
