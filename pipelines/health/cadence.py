"""When a release is checked, and how closely: both follow its age.

A new release is where take-downs happen (a notice comes within days of posting), so it
is checked often and with few STATs; an old one changes rarely but loses articles to
retention and piecemeal removals, so it is checked seldom and with more. Nothing is
checked before the propagation guard has passed: a release minutes old may not have
reached the provider's every spool yet, and a 430 then says nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HOUR = 3600
DAY = 24 * HOUR


@dataclass(frozen=True)
class Band:
    """Releases at most `max_age` seconds old: checked again every `recheck` seconds,
    with `between` segments STATted between the first and the last."""

    max_age: float
    recheck: int
    between: int


@dataclass(frozen=True)
class Cadence:
    guard: int = 2 * HOUR  # younger releases are not checked at all
    bands: tuple[Band, ...] = (
        Band(7 * DAY, DAY, 3),
        Band(30 * DAY, 7 * DAY, 4),
        Band(365 * DAY, 30 * DAY, 6),
        Band(float("inf"), 90 * DAY, 10),
    )

    def band(self, age: float) -> Band:
        for band in self.bands:
            if age <= band.max_age:
                return band
        return self.bands[-1]

    def recheck(self, age: float) -> int:
        return self.band(age).recheck

    def between(self, age: float) -> int:
        return self.band(age).between

    def due(self, posted_last: int, checked_at: int | None, now: int) -> bool:
        """Whether a release posted last at `posted_last`, last checked at `checked_at`
        (None: never), is to be checked at `now`."""
        if now - posted_last < self.guard:
            return False
        if checked_at is None:
            return True
        # the age at the last check sets the wait: a release checked when young is
        # looked at again soon, even if it has aged into a slower band since
        return now - checked_at >= self.recheck(checked_at - posted_last)

    def due_mask(self, posted_last: np.ndarray, checked_at: np.ndarray, now: int) -> np.ndarray:
        """`due` of many releases at once (`checked_at` < 0: never checked)."""
        limits = np.array([b.max_age for b in self.bands])
        waits = np.array([b.recheck for b in self.bands], dtype=np.int64)
        band = np.minimum(np.searchsorted(limits, checked_at - posted_last), len(waits) - 1)
        again = now - checked_at >= waits[band]
        return (now - posted_last >= self.guard) & ((checked_at < 0) | again)


DEFAULT = Cadence()
