"""Where a group's tail begins: the seam between history capture and tail capture.

When history and the tail are captured by separate runs at once (the Dagster jobs), they
must never fill the same range: two writers of one `range.json` could put back an
incomplete manifest over a complete one. So the first tail pass of a group writes
`<root>/<group>/tail.json` before it fetches anything:

    {"group": "alt.binaries.x", "first": 6000000, "resume": 8000000}

- `first`: the first article of the range holding the group's fetch limit at that first
  pass. It never moves: the tail fills the ranges from it on, history those below it.
- `resume`: the first article of the lowest range the tail still fills; every range from
  `first` to below `resume` is complete. A tail pass starts there (so it does not read the
  manifests of all the ranges it completed over the months) and moves it up afterwards.

Readers of the corpus skip the file: it is no range folder (CORPUS.md's layout, extended).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from fsspec import AbstractFileSystem

from pipelines.corpus.fs import atomic_put

TAIL_NAME = "tail.json"


@dataclass(frozen=True)
class TailMark:
    group: str
    first: int
    resume: int

    def to_json(self) -> dict[str, object]:
        return {"group": self.group, "first": self.first, "resume": self.resume}


def tail_path(root: str, group: str) -> str:
    return f"{root.rstrip('/')}/{group}/{TAIL_NAME}"


def read_tail(fs: AbstractFileSystem, root: str, group: str) -> TailMark | None:
    """The group's tail mark; None when no tail pass ran yet (or the file is not one)."""
    try:
        doc = json.loads(fs.cat_file(tail_path(root, group)))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("group") != group:
        return None
    first, resume = doc.get("first"), doc.get("resume")
    if not isinstance(first, int) or not isinstance(resume, int) or resume < first:
        return None
    return TailMark(group, first, resume)


def write_tail(fs: AbstractFileSystem, root: str, mark: TailMark) -> None:
    atomic_put(fs, tail_path(root, mark.group), json.dumps(mark.to_json()).encode() + b"\n")
