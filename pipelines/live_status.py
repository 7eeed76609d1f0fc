"""What the live loop's last cycle did, kept in the catalog for monitors (`status.json`).

After each cycle `live` writes `<catalog>/_live/status.json` whole (temporary name, then
rename): when, the cycle's number and seconds, lines captured, ranges and headers
indexed, each stage's figures (the scalar fields of its summary; null: not run), the
cycle's line as `live` prints it, and the newest problems (capture passes and stage runs
that failed and are retried), each with its time. The server reads it
(`serving/admin_status.py`); writing it never fails a cycle.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, fields, is_dataclass
from typing import Any

from pipelines.corpus.fs import atomic_put, open_fs

log = logging.getLogger(__name__)
STATUS_FILE = "_live/status.json"
PROBLEMS_KEPT = 50


class LiveStatus:
    def __init__(self, catalog: str) -> None:
        self.catalog = catalog
        self.problems: list[dict[str, Any]] = []  # the newest PROBLEMS_KEPT, oldest first

    def record(self, cycle: Any) -> None:
        """A cycle's figures (`pipelines.live.Cycle`), written over the last cycle's."""
        now = time.time()
        problems = ([f"capture: {cycle.problem}"] if cycle.problem else []) + list(
            cycle.stages.problems
        )
        self.problems = [*self.problems, *({"at": now, "what": p} for p in problems)]
        self.problems = self.problems[-PROBLEMS_KEPT:]
        stages = {f.name: _figures(getattr(cycle.stages, f.name)) for f in fields(cycle.stages)}
        stages.pop("problems", None)
        totals = cycle.replay.totals
        doc = {
            "at": now,
            "cycle": cycle.number,
            "seconds": round(cycle.seconds, 3),
            "captured": cycle.captured,
            "indexed": {"ranges": totals.ranges, "headers": totals.headers},
            "stages": stages,
            "text": cycle.text(),
            "problems": self.problems,
        }
        try:
            fs, root = open_fs(self.catalog)
            atomic_put(fs, f"{root}/{STATUS_FILE}", json.dumps(doc, default=str).encode())
        except OSError:  # a monitor's view: never worth a cycle
            log.exception("writing the live status failed")


def read_status(catalog: str) -> dict[str, Any] | None:
    """The last cycle's status, or None when no live loop wrote one."""
    fs, root = open_fs(catalog)
    try:
        doc = json.loads(fs.cat_file(f"{root}/{STATUS_FILE}"))
    except FileNotFoundError:
        return None
    return doc if isinstance(doc, dict) else None


def _figures(summary: Any) -> dict[str, Any] | None:
    if summary is None or not is_dataclass(summary) or isinstance(summary, type):
        return None
    return {k: v for k, v in asdict(summary).items()
            if isinstance(v, (int, float, str, bool)) and not isinstance(v, bytes)}  # fmt: skip
