"""Matching pres to releases: by exact title, by hash, where the name was found.

Order of trust, best first (`RANK`): the title as the release's name, a hash of it as the
release's name, the title among its file names, a hash among its file names, the title
or a hash among the article pass's inner names (par2 sets, archive listings, NFO). A
match must pass the size gate (`size_ok`). Two pres never name one release: of two pres
that claim a release, the better method wins (then the older pre), and a release linked
once stays with its pre. One pre may link several releases (reposts).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from pipelines.predb import keys as K
from pipelines.predb.lookup import Lookup
from pipelines.predb.names import WHERE_NAMES, Release
from pipelines.predb.settings import PredbSettings

WHERE_RANK = {"release": 0, "file": 2, "inner": 4, "request": 6}


@dataclass(frozen=True)
class Candidate:
    row: int  # the pre's row in the lookup
    release_key: bytes
    group: str
    bytes: int
    first_article: int
    last_article: int
    pending: bool
    variant: int
    where: str

    @property
    def method(self) -> str:
        return K.method_of(self.variant, self.where)

    @property
    def rank(self) -> int:
        return WHERE_RANK[self.where] + (0 if self.variant == K.TITLE else 1)


def size_ok(pre_size: int | None, release_bytes: int, settings: PredbSettings) -> bool:
    """The release's size within `size_match_floor` of the pre's, when the pre is at least
    `size_check_min_predb_bytes`; a release of unknown size never passes a checked pre."""
    if pre_size is None or pre_size < settings.size_check_min_predb_bytes:
        return True
    if release_bytes <= 0:
        return False
    return min(pre_size, release_bytes) / max(pre_size, release_bytes) >= settings.size_match_floor


def new_release_candidates(lookup: Lookup, releases: Iterable[Release]) -> list[Candidate]:
    """Every pre a new release's names spell, verified against the title."""
    flat: list[tuple[Release, str, str]] = []
    keys: list[int] = []
    for rel in releases:
        for key, where, text in rel.keyed():
            flat.append((rel, text, where))
            keys.append(key)
    if not keys:
        return []
    q, rows, variants = lookup.find(np.array(keys, dtype=np.uint64))
    out: set[Candidate] = set()
    for i, row, v in zip(q.tolist(), rows.tolist(), variants.tolist(), strict=True):
        rel, text, where = flat[i]
        if v == K.REQUEST:
            pre = lookup.pre(row)
            if f"{pre['request_group']}:{pre['request_id']}" != text:
                continue
        elif where == "request" or not K.verify(lookup.title(row), v, text):
            continue
        out.add(Candidate(row, rel.key, rel.group, rel.bytes, rel.first_article,
                          rel.last_article, rel.pending, v, where))  # fmt: skip
    return sorted(out, key=lambda c: (c.rank, c.row, c.release_key))


def candidate_of_name_row(row: int, variant: int, name: dict) -> Candidate:
    """A candidate from the names index (a scheduled scan): the 64-bit key is the proof."""
    return Candidate(
        row, name["release_key"], name["group"], int(name["bytes"]), int(name["first_article"]),
        int(name["last_article"]), bool(name["pending"]), variant, WHERE_NAMES[int(name["where"])],
    )  # fmt: skip


def choose(candidates: Iterable[Candidate], linked: dict[bytes, bytes]) -> list[Candidate]:
    """The links to make: per release the best candidate, none for a release linked
    already; candidates must have passed the size gate."""
    best: dict[bytes, Candidate] = {}
    for c in sorted(candidates, key=lambda c: (c.rank, c.row)):
        if c.release_key in linked or c.release_key in best:
            continue
        best[c.release_key] = c
    return list(best.values())
