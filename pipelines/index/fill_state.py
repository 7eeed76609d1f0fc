"""Where the fill from other backbones stands after a range: one file per (group, range).

`_fill/<group>/<first>-<last>.npz`, written just before the range's window snapshot (the
snapshot marks the range done, so a done range always has it), holds for each other
backbone the cursor (its first article not yet taken) and the offset between its numbers
and the primary's at the last message-id both hold; and two sets of message-id hashes: the
primary's last chunk (an article the other backbone sends a little late is still known
as the primary's) and the articles filled in this range and the one before (an article
the primary sends late is not indexed a second time). The next range starts from it, as
it starts from the range's window; a range indexed again starts from its predecessor's.

`_fill/<group>/primary.json` pins the group's primary backbone once a second backbone
holds the group: the catalog's article numbers are the primary's, so it never changes.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field

import numpy as np

from pipelines.catalog.layout import span_name
from pipelines.corpus.fs import atomic_put, open_fs

FOLDER = "_fill"
VERSION = 1


@dataclass
class SourceState:
    """One other backbone's stream in a group."""

    cursor: int | None = None  # its first article not yet taken; None: from its start
    offset: int | None = None  # primary number minus its number, at the last shared article
    seek: int | None = None  # before an offset is known: where the search for one got to


@dataclass
class FillState:
    sources: dict[str, SourceState] = field(default_factory=dict)
    recent: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))  # sorted
    filled: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))  # sorted
    counts: dict[str, int] = field(default_factory=dict)  # this range's outcomes

    def source(self, backbone: str) -> SourceState:
        return self.sources.setdefault(backbone, SourceState())


def state_path(catalog: str, group: str, first: int, last: int) -> str:
    return f"{catalog.rstrip('/')}/{FOLDER}/{group}/{span_name(first, last)}.npz"


def save_state(catalog: str, group: str, first: int, last: int, state: FillState) -> int:
    meta = {
        "version": VERSION,
        "sources": {k: [v.cursor, v.offset, v.seek] for k, v in sorted(state.sources.items())},
        "counts": dict(sorted(state.counts.items())),
    }
    buf = io.BytesIO()
    np.savez(buf, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8),
             recent=state.recent, filled=state.filled)  # fmt: skip
    fs, _ = open_fs(catalog)
    payload = buf.getvalue()
    atomic_put(fs, state_path(catalog, group, first, last), payload)
    return len(payload)


def load_state(catalog: str, group: str, first: int, last: int) -> FillState | None:
    """The state after that range; None when it has none (indexed before the fill, or
    lost: the fill starts over from the other backbones' starts)."""
    fs, _ = open_fs(catalog)
    try:
        raw = fs.cat_file(state_path(catalog, group, first, last))
        with np.load(io.BytesIO(raw)) as z:
            meta = json.loads(z["meta"].tobytes())
            recent, filled = z["recent"].astype(np.uint64), z["filled"].astype(np.uint64)
    except (OSError, ValueError, KeyError):
        return None
    if meta.get("version") != VERSION:
        return None
    sources = {k: SourceState(*v) for k, v in meta["sources"].items()}
    return FillState(sources, recent, filled, {})


def read_pin(catalog: str, group: str) -> str | None:
    """The group's pinned primary backbone; None when none is pinned yet."""
    fs, _ = open_fs(catalog)
    try:
        pinned = json.loads(fs.cat_file(_pin_path(catalog, group))).get("primary")
    except (OSError, ValueError, AttributeError):
        return None
    return pinned if isinstance(pinned, str) else None


def write_pin(catalog: str, group: str, primary: str) -> None:
    fs, _ = open_fs(catalog)
    doc = {"group": group, "primary": primary}
    atomic_put(fs, _pin_path(catalog, group), json.dumps(doc).encode() + b"\n")


def _pin_path(catalog: str, group: str) -> str:
    return f"{catalog.rstrip('/')}/{FOLDER}/{group}/primary.json"
