"""What readers show of a release that came from outside the header pass, or that a spot
describes: per release key, its spot (linked or standalone) or its import's provenance,
and a password a spot's text or an NZB's `<meta type="password">` names.

Small (a row per spot and per import): read whole, again only when a file of the spots,
their NZB outcomes or the import log came, went or changed (`refresh`).
"""

from __future__ import annotations

import threading
from typing import Any

import pyarrow as pa

from pipelines.catalog.partitions import is_local
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import is_temporary, open_fs
from pipelines.nzbimport.store import LOG
from pipelines.spots.store import live_spots

_WATCHED = ("spots/*/*.parquet", "spot_nzbs/*/*.parquet", f"{LOG}/*.parquet")


class ReleaseSources:
    def __init__(self, catalog: str) -> None:
        self.catalog = catalog
        self.fs, self.root = open_fs(catalog)
        self._seen: dict[str, Any] = {}
        self._lock = threading.Lock()
        self.spots: dict[bytes, dict[str, Any]] = {}  # release key -> its newest spot
        self.imports: dict[bytes, dict[str, Any]] = {}  # release key -> its import (inserted)
        self.passwords: dict[bytes, tuple[str, str]] = {}  # release key -> (password, source)

    def refresh(self) -> bool:
        """Read again when a watched file changed; whether anything was read."""
        listing = self._listing()
        if listing == self._seen:
            return False
        spots, imports, passwords = self._load()
        with self._lock:
            self.spots, self.imports, self.passwords = spots, imports, passwords
            self._seen = listing
        return True

    def _listing(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for pattern in _WATCHED:
            for path, info in self.fs.glob(f"{self.root}/{pattern}", detail=True).items():
                if not is_temporary(str(path)):
                    found[str(path)] = (info.get("size"), info.get("mtime") or info.get("updated"))
        return found

    def _load(self) -> tuple[dict[bytes, Any], dict[bytes, Any], dict[bytes, tuple[str, str]]]:
        spots: dict[bytes, dict[str, Any]] = {}
        passwords: dict[bytes, tuple[str, str]] = {}
        for s in reversed(live_spots(self.catalog)):  # oldest first: the newest spot wins
            key = s.get("release_key")
            if not key or s.get("nzb_outcome") not in ("linked", "inserted", "duplicate"):
                continue
            spots[key] = s
            if s.get("passwords"):
                passwords[key] = (s["passwords"][0], (s.get("password_sources") or ["spot"])[0])
        imports: dict[bytes, dict[str, Any]] = {}
        for row in self._log().to_pylist():
            key = row.get("release_key")
            if not key:
                continue
            if row["outcome"] == "inserted":
                imports[key] = row
            if row.get("passwords") and key not in passwords:
                passwords[key] = (row["passwords"][0], "nzb")
        return spots, imports, passwords

    def _log(self) -> pa.Table:
        paths = sorted(str(p) for p in self.fs.glob(f"{self.root}/{LOG}/*.parquet"))
        parts = [read_parquet(self.fs, p) for p in paths if not is_temporary(p)]
        return pa.concat_tables(parts) if parts else pa.table({})

    def attrs(self, key: bytes) -> list[tuple[str, str]]:
        """Newznab attributes: `spotid` (the spot's message-id), `source` (spot, nzb)."""
        out = []
        spot = self.spots.get(key)
        if spot is not None:
            out.append(("spotid", spot["message_id"]))
            if spot.get("nzb_outcome") == "inserted":
                out.append(("source", "spot"))
        elif key in self.imports:
            out.append(("source", "nzb"))
        return out

    def password(self, key: bytes) -> str | None:
        found = self.passwords.get(key)
        return found[0] if found else None

    def about(self, key: bytes) -> dict[str, Any] | None:
        """What the release page shows: {"spot": ...} or {"import": ...}, or None."""
        spot = self.spots.get(key)
        if spot is not None:
            return {"spot": spot, "password": self.passwords.get(key)}
        found = self.imports.get(key)
        if found is not None:
            return {"import": found, "password": self.passwords.get(key)}
        return None


# per catalog, in this process: the judge runs every cycle with work, and the spots and
# imports change far more seldom (a listing tells; they are read again only then)
_KEPT: dict[str, ReleaseSources] = {}


def known_passwords(catalog: str) -> dict[bytes, str]:
    """Per release key, the password a spot or its NZB names (the judge's `locked`)."""
    sources = _KEPT.get(catalog) or ReleaseSources(catalog)
    if is_local(sources.fs):  # elsewhere a listing may not tell a file rewritten
        _KEPT[catalog] = sources
    sources.refresh()
    return {key: pw for key, (pw, _) in sources.passwords.items()}
