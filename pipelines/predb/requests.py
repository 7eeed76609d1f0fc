"""User requests (the seed's P2): a search for a scene title the catalog does not hold
but the PreDB knows queues that pre for a scan at once.

The server only records the request (`_predb/requests/<batch>.jsonl`, written once: a
title and a time); the scan, the queue's one writer, reads the requests it has not read
yet and queues each known pre that is not complete at P2 (one waiting already is made
due now). A title is asked for once per server process, however often it is searched.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from typing import Any

import pyarrow as pa

from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.predb import lookup as L
from pipelines.predb.store import batch_name, batches, predb_path

log = logging.getLogger(__name__)
FOLDER = "requests"
# Title.Words.2020.Tags-GROUP: dotted or underscored words, a group after the last dash
SCENE_TITLE = re.compile(r"^[\w()'&+,.-]*\w[._][\w()'&+,.-]+-[A-Za-z0-9_]+$")
LOOKUP_SECONDS = 10.0

_asked: set[tuple[str, str]] = set()
_lookups: dict[str, tuple[float, L.Lookup]] = {}
_lock = threading.Lock()


def looks_like_scene_title(q: str) -> bool:
    return bool(SCENE_TITLE.match(q.strip())) and " " not in q.strip()


def _lookup(catalog: str) -> L.Lookup:
    now = time.monotonic()
    held = _lookups.get(catalog)
    if held is None or now - held[0] > LOOKUP_SECONDS:
        lookup = held[1] if held else L.load(catalog)
        if held:
            L.catch_up(lookup)
        _lookups[catalog] = held = (now, lookup)
    return held[1]


def ask(catalog: str, q: str, now: float | None = None) -> bool:
    """Record a request for the pre titled `q` (a search that found nothing); whether
    one was recorded (a scene title the PreDB knows, not asked for before). A PreDB it
    cannot read is logged, never the search's failure."""
    try:
        return _ask(catalog, q, now)
    except (OSError, ValueError, pa.ArrowException) as exc:
        log.warning("predb request for %r not recorded: %s", q, exc)
        return False


def _ask(catalog: str, q: str, now: float | None) -> bool:
    title = q.strip()
    if not looks_like_scene_title(title):
        return False
    with _lock:
        if (catalog, title) in _asked:
            return False
        if not L.has_generation(catalog) and not batches(catalog, "events", newest=1):
            return False
        if _lookup(catalog).rows_of_titles([title])[0] is None:
            return False
        _asked.add((catalog, title))
    fs, _ = open_fs(catalog)
    rec = {"title": title, "at": int(now if now is not None else time.time())}
    atomic_put(
        fs, predb_path(catalog, FOLDER, batch_name(".jsonl")), (json.dumps(rec) + "\n").encode()
    )
    return True


def read_requests(catalog: str, names: list[str]) -> list[dict[str, Any]]:
    fs, _ = open_fs(catalog)
    out = []
    for name in names:
        try:
            text = fs.cat_file(predb_path(catalog, FOLDER, name)).decode("utf-8", "replace")
        except (FileNotFoundError, OSError):
            continue
        for line in text.splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if isinstance(rec, dict) and isinstance(rec.get("title"), str):
                out.append(rec)
    return out
