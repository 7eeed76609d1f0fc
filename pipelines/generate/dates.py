"""Date headers as real servers and posting tools send them.

RFC 5322 loosely: with and without the weekday, `GMT`/`UT`/numeric zones, two-digit
years (rarely). Formatting is per article, so the day part is cached and only the time
of day is formatted each time.
"""

from __future__ import annotations

import time

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

# (weekday shown, zone text, zone offset in seconds, two-digit year, zero-padded day)
DATE_STYLES: tuple[tuple[bool, str, int, bool, bool], ...] = (
    (True, "GMT", 0, False, True),
    (False, "GMT", 0, False, False),
    (True, "+0000", 0, False, True),
    (True, "-0500", -5 * 3600, False, False),
    (False, "UT", 0, False, True),
    (True, "+0100", 3600, False, True),
    (False, "+0200", 7200, False, False),
    (True, "GMT", 0, True, True),  # two-digit year: old software, rare
)
# how often each style is given to a poster, in the order above
STYLE_WEIGHTS = (30, 25, 15, 6, 6, 8, 6, 1)
TWO_DIGIT_STYLE = 7


ZONES = tuple(f" {style[1]}" for style in DATE_STYLES)
OFFSETS = tuple(style[2] for style in DATE_STYLES)


class DateFormatter:
    def __init__(self) -> None:
        self._days: dict[tuple[int, int], str] = {}

    def format(self, t: int, style: int) -> str:
        """The Date header for epoch second `t` (already skewed) in the given style."""
        _, zone, offset, _, _ = DATE_STYLES[style]
        local = t + offset
        day, sec = divmod(local, 86400)
        prefix = self._days.get((day, style))
        if prefix is None:
            prefix = self._day_prefix(day, style)
            self._days[(day, style)] = prefix
        return f"{prefix}{sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d} {zone}"

    def day_prefix(self, day: int, style: int) -> str:
        """`Sat, 16 Feb 2019 ` for a local day number (days since the epoch) and a style."""
        key = (day, style)
        prefix = self._days.get(key)
        if prefix is None:
            prefix = self._day_prefix(day, style)
            self._days[key] = prefix
        return prefix

    def _day_prefix(self, day: int, style: int) -> str:
        weekday, _, _, two_digit, pad = DATE_STYLES[style]
        tm = time.gmtime(day * 86400)
        year = f"{tm.tm_year % 100:02d}" if two_digit else str(tm.tm_year)
        mday = f"{tm.tm_mday:02d}" if pad else str(tm.tm_mday)
        text = f"{mday} {_MONTHS[tm.tm_mon - 1]} {year} "
        return f"{_DAYS[tm.tm_wday]}, {text}" if weekday else text


def bogus(t: int, to_1970: bool) -> str:
    """A Date from a broken clock: the epoch itself, or the right day in 2099."""
    if to_1970:
        return "Thu, 01 Jan 1970 00:00:00 GMT"
    tm = time.gmtime(t)
    return (
        f"{_DAYS[tm.tm_wday]}, {tm.tm_mday:02d} {_MONTHS[tm.tm_mon - 1]} 2099 "
        f"{tm.tm_hour:02d}:{tm.tm_min:02d}:{tm.tm_sec:02d} GMT"
    )
