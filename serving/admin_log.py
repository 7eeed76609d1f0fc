"""The admin actions' log: who did what, when, from where, and how it ended.

One JSON line an action, appended to a file (`admin_log`, by default
`admin-actions.jsonl` in the index folder) with `O_APPEND` in a single write, so the
worker processes' lines never interleave and a killed process leaves whole lines (a
cut last line is skipped when read). Each line also goes to the `usenet_indexer.admin`
logger. Rule changes are kept with the rule set too (`pipelines.rules.store`, its log).
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("usenet_indexer.admin")
TAIL_BYTES = 256 * 1024  # what `recent` reads at most: the newest lines, never the file


class AdminLog:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def record(self, who: str, action: str, target: str = "", outcome: str = "done",
               **details: Any) -> dict[str, Any]:  # fmt: skip
        entry = {"at": int(time.time()), "who": who, "action": action, "target": target,
                 "outcome": outcome, **details}  # fmt: skip
        line = (json.dumps(entry, ensure_ascii=False, default=str) + "\n").encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
        log.info("%s %s %s: %s", who, action, target, outcome)
        return entry

    def recent(self, n: int = 50) -> list[dict[str, Any]]:
        """The newest `n` entries, newest first."""
        try:
            with self.path.open("rb") as fh:
                size = fh.seek(0, os.SEEK_END)
                fh.seek(max(0, size - TAIL_BYTES))
                tail = fh.read()
        except FileNotFoundError:
            return []
        lines = tail.split(b"\n")
        if len(tail) == TAIL_BYTES or size > TAIL_BYTES:
            lines = lines[1:]  # the first may be cut by the tail's start
        out: list[dict[str, Any]] = []
        for raw in reversed(lines):
            if len(out) >= n:
                break
            try:
                entry = json.loads(raw)
            except ValueError:  # empty, or cut short by a kill
                continue
            if isinstance(entry, dict):
                out.append(entry)
        return out
