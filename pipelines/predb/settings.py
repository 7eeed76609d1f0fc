"""The scan schedule's knobs: the seed's own (docs/PREDB.md "The schedule")."""

from __future__ import annotations

from dataclasses import dataclass

MINUTE = 60
HOUR = 3600


@dataclass(frozen=True)
class PredbSettings:
    pre_age_min_secs: int = 600  # propagation wait before a live pre's first scan
    size_match_floor: float = 0.95  # a release's size within this share of the pre's
    size_check_min_predb_bytes: int = 1 << 20  # no size check for smaller pres
    size_short_retry_secs: int = 1800  # a size mismatch retries after this
    size_mismatch_max: int = 3  # ...this many times, then size_mismatch_cap (seed: 3-5)
    stuck_scan_after_secs: int = 300  # the reaper's threshold
    expiry_sweep_secs: int = 300  # how often live pres are checked for expiry
    live_max_age_secs: int = 7 * 24 * HOUR  # a live announce younger than this is P1
    live_expiry_secs: int = 30 * 24 * HOUR  # a live pre this old expires
    recent_historical_secs: int = 36 * HOUR  # a historical pre this young is scanned twice
    recent_second_scan_secs: int = 24 * HOUR
    # P1: the first scan at pre + pre_age_min_secs, then each after the one before
    p1_gaps: tuple[int, ...] = (
        5 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 12 * HOUR, 24 * HOUR,
    )  # fmt: skip

    @property
    def p1_scans(self) -> int:
        return 1 + len(self.p1_gaps)


DEFAULT = PredbSettings()
