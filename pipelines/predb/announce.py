"""The announce lines pre channels post (the format nZEDb's IRC scraper reads):

```
NEW: [DT: 2026-08-14 05:12:33] [TT: Title-GRP] [SC: PRE] [CT: TV-X264]
     [RQ: 12345:a.b.teevee] [SZ: 520MB] [FL: 15] [FN: title.r00]      (one line)
UPD: (the same fields, some filled in later)
NUK: [DT: ...] [TT: Title-GRP] [SC: ...] [NUKED: reason]     (MODNUKED, RENUKED, OLDNUKE too)
UNNUK: [DT: ...] [TT: Title-GRP] [SC: ...] [UNNUKED: reason]
```

Fields may come in any order, any may be `N/A`; mIRC colour and bold codes are taken
away first. A line that is not an announce, or one without a title or a time, is
`None` (the listener counts it).
"""

from __future__ import annotations

import re

from pipelines.predb.lines import PreLine, epoch, file_count, good_title, size_bytes

_CODES = re.compile(r"\x03\d{0,2}(?:,\d{1,2})?|[\x02\x0f\x16\x1d\x1f]")
_VERB = re.compile(r"^\s*(NEW|UPD|NUK|UNNUK):\s*(.*)$")
_FIELD = re.compile(r"\[\s*([A-Z]+)\s*:\s*(.*?)\s*\](?=\s*(?:\[|$))")
_NUKES = {"NUKED": "nuke", "MODNUKED": "modnuke", "RENUKED": "renuke", "OLDNUKE": "oldnuke",
          "UNNUKED": "unnuke"}  # fmt: skip


def parse_announce(text: str, channel: str) -> PreLine | None:
    m = _VERB.match(_CODES.sub("", text))
    if m is None:
        return None
    verb, rest = m.groups()
    fields = {k: ("" if v.upper() == "N/A" else v) for k, v in _FIELD.findall(rest)}
    title = fields.get("TT", "")
    when = epoch(fields["DT"]) if fields.get("DT") else None
    if not good_title(title) or when is None:
        return None
    nuke, reason = "", ""
    for field, kind in _NUKES.items():
        if field in fields:
            nuke, reason = kind, fields[field]
    if verb == "NUK" and not nuke:
        nuke, reason = "nuke", fields.get("RS", "")
    if verb == "UNNUK":
        nuke, reason = "unnuke", reason or fields.get("RS", "")
    request_id, request_group = None, ""
    rq = re.match(r"(\d+)(?::(\S+))?", fields.get("RQ", ""))
    if rq:
        request_id, request_group = int(rq.group(1)) or None, rq.group(2) or ""
    return PreLine(
        title=title, pre_time=when, source=fields.get("SC") or f"irc:{channel}",
        category=fields.get("CT", ""), size=size_bytes(fields.get("SZ")),
        files=file_count(fields.get("FL")), filename=fields.get("FN", ""), nuke=nuke,
        reason=reason, request_id=request_id, request_group=request_group,
    )  # fmt: skip
