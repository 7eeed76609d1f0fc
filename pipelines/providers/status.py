"""What the status page shows of the providers: the newest `providers check` and the
recent rests, as small JSON files in the catalog, each written once.

`<catalog>/providers/check-<ns>.json`: one report of `providers check`;
`<catalog>/providers/rests/<ns>-<provider>.json`: one rest (`resting.Rest`). The page
reads the newest check and the last `RECENT` rests (names sort by time).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from pipelines.corpus.fs import atomic_put, is_temporary, open_fs
from pipelines.providers.resting import FOREVER, Rest

log = logging.getLogger(__name__)

FOLDER = "providers"
RECENT = 20


def _folder(catalog: str) -> tuple[Any, str]:
    fs, root = open_fs(catalog)
    return fs, f"{root.rstrip('/')}/{FOLDER}"


def write_check(catalog: str, report: dict[str, Any]) -> str:
    """Store one check's report; returns its path."""
    fs, folder = _folder(catalog)
    path = f"{folder}/check-{time.time_ns():020d}.json"
    atomic_put(fs, path, json.dumps(report, indent=1, sort_keys=True).encode())
    return path


def rest_recorder(catalog: str) -> Callable[[Rest], None]:
    """A `Resting.record` that stores each rest for the status page (a failed write is
    logged: a rest is still a rest)."""

    def record(rest: Rest) -> None:
        fs, folder = _folder(catalog)
        row = asdict(rest)
        row["seconds"] = None if rest.seconds == FOREVER else rest.seconds
        path = f"{folder}/rests/{time.time_ns():020d}-{rest.provider}.json"
        try:
            atomic_put(fs, path, json.dumps(row, sort_keys=True).encode())
        except OSError as exc:
            log.warning("cannot store the rest of %s: %s", rest.provider, exc)

    return record


def _names(fs: Any, folder: str, prefix: str) -> list[str]:
    try:
        names = [str(p).rsplit("/", 1)[-1] for p in fs.ls(folder, detail=False)]
    except FileNotFoundError:
        return []
    wanted = (n for n in names if n.startswith(prefix) and n.endswith(".json"))
    return sorted(n for n in wanted if not is_temporary(n))


def _load(fs: Any, path: str) -> dict[str, Any] | None:
    try:
        doc = json.loads(fs.cat_file(path))
    except (OSError, ValueError) as exc:
        log.warning("%s: unreadable: %s", path, exc)
        return None
    return doc if isinstance(doc, dict) else None


def newest_check(catalog: str) -> dict[str, Any] | None:
    """The newest stored check's report, or None."""
    fs, folder = _folder(catalog)
    for name in reversed(_names(fs, folder, "check-")):
        doc = _load(fs, f"{folder}/{name}")
        if doc is not None:
            return doc
    return None


def recent_rests(catalog: str, count: int = RECENT) -> list[dict[str, Any]]:
    """The last `count` rests, newest first (seconds None: for the run, credentials)."""
    fs, folder = _folder(catalog)
    out = []
    for name in reversed(_names(fs, f"{folder}/rests", "")):
        doc = _load(fs, f"{folder}/rests/{name}")
        if doc is not None:
            out.append(doc)
        if len(out) >= count:
            break
    return out


def oldest_articles(catalog: str) -> dict[tuple[str, str], int]:
    """(provider, group) -> the posting time of the oldest article the newest check found
    there: what it could still serve (its retention then; the window only moves on)."""
    check = newest_check(catalog) or {}
    out: dict[tuple[str, str], int] = {}
    for p in check.get("providers", []):
        for g in p.get("groups", []) if isinstance(p, dict) else []:
            if isinstance(g, dict) and isinstance(g.get("oldest"), int):
                out[(str(p.get("name")), str(g.get("group")))] = g["oldest"]
    return out


def providers_status(catalog: str) -> dict[str, Any]:
    """What the status page shows: the newest check (or None) and the recent rests."""
    return {"check": newest_check(catalog), "rests": recent_rests(catalog)}
