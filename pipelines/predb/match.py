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

import pyarrow as pa
import pyarrow.compute as pc

from pipelines.predb import keys as K
from pipelines.predb.lookup import Lookup
from pipelines.predb.name_texts import WHERE_NAMES
from pipelines.predb.names import NewNames
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


def new_release_candidates(lookup: Lookup, new: NewNames) -> list[Candidate]:
    """Every pre a group's new names spell, verified against the title (the keys looked
    up at once; only the hits are read out)."""
    if not new.names.num_rows:
        return []
    q, rows, variants = lookup.find(new.names["key"].to_numpy())
    if not len(q):
        return []
    hit = new.names.take(pa.array(q))
    hits = hit.to_pylist()
    facts = new.facts.filter(pc.is_in(new.facts["release_key"], hit["release_key"]))
    of = {f["release_key"]: f for f in facts.to_pylist()}
    out: set[Candidate] = set()
    for hit, row, v in zip(hits, rows.tolist(), variants.tolist(), strict=True):
        text, where = hit["text"], WHERE_NAMES[hit["where"]]
        if v == K.REQUEST:
            pre = lookup.pre(row)
            if f"{pre['request_group']}:{pre['request_id']}" != text:
                continue
        elif where == "request" or not K.verify(lookup.title(row), v, text):
            continue
        f = of[hit["release_key"]]
        out.add(Candidate(row, f["release_key"], new.group, int(f["bytes"]),
                          int(f["first_article"]), int(f["last_article"]), bool(f["pending"]),
                          v, where))  # fmt: skip
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
