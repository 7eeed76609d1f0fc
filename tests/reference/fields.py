"""Plain-Python reference of kernels.fields: regexes and datetime."""

from __future__ import annotations

import datetime as dt
import re

from kernels.fields import MONTH_NAMES, MONTHS, WEEKDAY_NAMES, WEEKDAYS, ZONES
from pipelines.subjects.hashing import M64, P1, P3, avalanche, hash_bytes

DATE_RE = re.compile(
    rb"^ *(?:([A-Za-z]+) *(?:, *)?)?(\d{1,2})[ -]+([A-Za-z]+)[ -]+(\d{2,4}) +"
    rb"(\d{1,2}):(\d{2})(?::(\d{2}))? *(?:([+-])(\d{4})|([A-Za-z]+)) *(?:\(.*\) *)?$"
)
EPOCH = dt.date(1970, 1, 1)


def parse_uint(b: bytes) -> int:
    t = b.strip(b" ")
    if not t or len(t) > 18 or not t.isdigit():
        return -1
    return int(t)


def parse_date(b: bytes) -> tuple[int, bool]:
    m = DATE_RE.match(b)
    if not m:
        return 0, False
    wd, day, mon, year, hh, mm, ss, sign, zdigits, zname = m.groups()
    if wd is not None and wd.decode().lower() not in (*WEEKDAYS, *WEEKDAY_NAMES):
        return 0, False
    names = [*MONTHS, *MONTH_NAMES]
    if mon.decode().lower() not in names:
        return 0, False
    month = names.index(mon.decode().lower()) % 12 + 1
    y = int(year)
    if len(year) == 2:
        y += 2000 if y < 50 else 1900
    elif len(year) == 3:
        y += 1900
    elif y < 1000:
        return 0, False
    if sign:
        zh, zm = int(zdigits[:2]), int(zdigits[2:])
        if zm > 59:
            return 0, False
        offset = (zh * 60 + zm) * (1 if sign == b"+" else -1)
    else:
        if zname.decode().lower() not in ZONES:
            return 0, False
        offset = ZONES[zname.decode().lower()]
    hour, minute, second = int(hh), int(mm), int(ss or 0)
    if hour > 23 or minute > 59 or second > 60:
        return 0, False
    try:
        days = (dt.date(y, month, int(day)) - EPOCH).days
    except ValueError:
        return 0, False
    return days * 86400 + hour * 3600 + minute * 60 + second - offset * 60, True


def _entries(field: bytes) -> list[tuple[bytes, int]]:
    body = field.lstrip(b" ")
    if body[:5].lower() == b"xref:":
        body = body[5:]
    out = []
    for token in body.split(b" "):
        name, colon, number = token.rpartition(b":")
        if colon and name and number.isdigit() and len(number) <= 18:
            out.append((name, int(number)))
    return out


def xref_owner(field: bytes, groups: list[bytes]) -> tuple[int, int, int]:
    names = list(dict.fromkeys(name for name, _ in _entries(field)))
    owner = min((groups.index(n) for n in names if n in groups), default=-1)
    if not names:
        return owner, 0, 0
    acc = sum(avalanche((hash_bytes(n) * P1 + P3) & M64) for n in names) & M64
    return owner, len(names), avalanche(acc ^ len(names)) or 1


def xref_number(field: bytes, group: bytes) -> int:
    return next((number for name, number in _entries(field) if name == group), -1)
