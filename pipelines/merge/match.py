"""Which releases of a frame join which: the par2 merge, the name pass, the sidecar merge.

- **par2**: a release posted within 48 h of a release holding a par2 set joins the set
  when the set describes every file of it (par2 and sidecar files aside) by 16 KiB hash
  and size (its probed first part) or by its exact name, or when it holds par2 files of
  the same set. A (hash, size) more than 20 files share is a common file (an empty
  file, one posted again and again): it describes nothing.
- **name**: the set's poster's releases in the group posted within 12 h of the holder
  join when the set names all their files (compared without case or punctuation;
  sidecars, par2 files and pictures aside): an album's tracks, an index beside its
  differently spelled video.
- **sidecar**: a small release made only of sidecars (.nfo .sfv .nzb; at most 3 files,
  under 1 MB) joins its poster's upload posted within 10 minutes: the one sharing a
  word of 4+ letters with its name, else the one under the same counter total, else none.

Never two uploads: a release holding a set of its own, or that two sets would take, or
that holds a file the set's whole has already (a repost of the set), or a sidecar two
uploads would take equally, joins nothing. A whole goes into its release with the most
files; a former merge's target stays the target (its key was handed out), and a whole
with two of them is not made.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from pipelines.merge import rules
from pipelines.merge.frame import Frame, Par2Facts, ProbeFacts, Release

PAR2, NAME, SIDECAR = "par2", "name", "sidecar"
# how long before a sidecar an upload it joins may have begun (its last post must still
# be within the sidecar window): a day, far longer than any upload takes to post
UPLOAD_SPAN = 24 * 3600


@dataclass
class Merge:
    into: bytes
    members: dict[bytes, str] = field(default_factory=dict)  # absorbed key -> via
    par2_set: bytes | None = None


@dataclass
class _SetIndex:
    facts: Par2Facts
    heads: set[tuple[bytes, int]]
    names: set[str]
    plain: set[str]


def _index(facts: Par2Facts, probes: ProbeFacts) -> _SetIndex:
    heads = set()
    for h, s in zip(facts.hashes, facts.sizes, strict=False):
        if s is None:
            continue
        head = (h, int(s))
        if probes.head_files.get(head, 0) <= rules.COMMON_FILES:
            heads.add(head)
    return _SetIndex(facts, heads, set(facts.names), {rules.plain_name(n) for n in facts.names})


def _described(rel: Release, s: _SetIndex) -> bool:
    """Every file of the release (par2 and sidecar files aside) is one the set lists, by
    head or exact name; at least one is."""
    seen = 0
    for name in rel.files or dict.fromkeys(rel.heads):
        cls = rules.ext_class(name)
        if cls in rules.PAR2_FILES or cls in rules.SIDECARS:
            continue
        head = rel.heads.get(name)
        if (head is not None and head in s.heads) or name in s.names:
            seen += 1
            continue
        return False
    return seen > 0


def _named(rel: Release, s: _SetIndex) -> bool:
    """Every file of the release (sidecars, par2 files and pictures aside) is one the set
    names, without case or punctuation; at least one is."""
    seen = 0
    for name in rel.files:
        if rules.ext_class(name) in rules.NAME_ASIDE:
            continue
        if rules.plain_name(name) not in s.plain:
            return False
        seen += 1
    return seen > 0


def _near(a: Release, b: Release, window: int) -> bool:
    return rules.distance(a.first, a.last, b.first, b.last) <= window


def _candidates(
    rels: dict[bytes, Release], indexes: dict[bytes, _SetIndex]
) -> tuple[dict[bytes, set[bytes]], dict[bytes, set[bytes]]]:
    """Per release (holding no set), the sets that list one of its files by head or exact
    name, and those that name one without case or punctuation: the only sets it may join
    (looked up, not tried one by one)."""
    by_head: dict[tuple[bytes, int], set[bytes]] = {}
    by_name: dict[str, set[bytes]] = {}
    by_plain: dict[str, set[bytes]] = {}
    for sid, idx in indexes.items():
        for listed_head in idx.heads:
            by_head.setdefault(listed_head, set()).add(sid)
        for listed in idx.names:
            by_name.setdefault(listed, set()).add(sid)
        for listed_plain in idx.plain:
            by_plain.setdefault(listed_plain, set()).add(sid)
    exact: dict[bytes, set[bytes]] = {}
    plain: dict[bytes, set[bytes]] = {}
    posters = _holder_posters(rels)
    for rel in rels.values():
        if rel.sets:
            continue
        for name in rel.files or dict.fromkeys(rel.heads):
            head = rel.heads.get(name)
            found = by_name.get(name, set()) | (by_head.get(head, set()) if head else set())
            if found:
                exact.setdefault(rel.key, set()).update(found)
            if rel.poster not in posters:  # the name pass joins the set's poster's only
                continue
            named = by_plain.get(rules.plain_name(name))
            if named:
                plain.setdefault(rel.key, set()).update(named)
    return exact, plain


def _holder_posters(rels: dict[bytes, Release]) -> set[str]:
    return {r.poster for r in rels.values() if r.sets}


def set_merges(frame: Frame, probes: ProbeFacts) -> list[Merge]:
    """The par2 merge and the name pass over the frame: one merge per set that joins two
    releases or more, one of them new."""
    rels = frame.releases
    holders: dict[bytes, list[Release]] = {}
    for rel in rels.values():
        for set_id in rel.sets:
            holders.setdefault(set_id, []).append(rel)
    indexes = {sid: _index(f, probes) for sid, f in frame.sets.items() if sid in holders}
    order = sorted(indexes, key=lambda sid: (min(r.first for r in holders[sid]), sid))
    exact, plain = _candidates(rels, indexes)
    # releases holding sets of their own belong to those; the rest may be claimed
    claims: dict[bytes, dict[bytes, str]] = {}
    for key, sids in exact.items():
        rel = rels[key]
        for sid in sids:
            near = any(_near(rel, h, rules.PAR2_WINDOW) for h in holders[sid])
            if near and _described(rel, indexes[sid]):
                claims.setdefault(key, {})[sid] = PAR2
    for key, sids in plain.items():
        rel = rels[key]
        if key in claims:
            continue
        for sid in sids:
            near = any(
                h.poster == rel.poster and _near(rel, h, rules.NAME_WINDOW) for h in holders[sid]
            )
            if near and _named(rel, indexes[sid]):
                claims.setdefault(key, {})[sid] = NAME
    # a release two sets would take is left to neither, below
    joining: dict[bytes, dict[bytes, str]] = {}
    for key, by in claims.items():
        if len(by) == 1:
            ((sid, via),) = by.items()
            joining.setdefault(sid, {})[key] = via
    out: list[Merge] = []
    used: set[bytes] = set()
    for sid in order:
        whole = _disjoint(rels, indexes[sid], holders[sid], joining.get(sid, {}))
        if len(whole) < 2 or used & whole.keys():
            continue
        if not any(rels[k].new for k in whole):
            continue  # merged when its newest release's span was
        into = _target([rels[k] for k in whole])
        if into is None:
            continue
        used.update(whole)
        out.append(Merge(into, {k: v for k, v in whole.items() if k != into}, sid))
    return out


def _covered(rel: Release, idx: _SetIndex) -> set[int]:
    """The entries of the set (by position) that the release holds a file of."""
    facts = idx.facts
    plain = {rules.plain_name(n) for n in rel.files}
    heads = set(rel.heads.values()) & idx.heads
    out = set()
    for i, listed in enumerate(facts.names):
        size = facts.sizes[i] if i < len(facts.sizes) else None
        h = facts.hashes[i] if i < len(facts.hashes) else None
        head = (h, int(size)) if h is not None and size is not None else None
        by_head = head is not None and head in heads
        if by_head or listed in rel.files or rules.plain_name(listed) in plain:
            out.add(i)
    return out


def _disjoint(
    rels: dict[bytes, Release], idx: _SetIndex, holders: list[Release], joining: dict[bytes, str]
) -> dict[bytes, str]:
    """The set's whole: its holders and the releases joining it, but those holding a file
    the whole has already. The pieces of one upload never hold the same file twice: two
    releases that do are two uploads (a repost of the set beside the first post), and only
    the first (the holder covering most, then the earliest) takes part."""
    whole: dict[bytes, str] = {}
    seen: set[int] = set()
    ranked = sorted(holders, key=lambda r: (-len(_covered(r, idx)), r.first, r.key))
    ranked += sorted((rels[k] for k in joining), key=lambda r: (r.first, r.key))
    for rel in ranked:
        covered = _covered(rel, idx)
        if covered & seen:
            continue
        seen |= covered
        whole[rel.key] = joining.get(rel.key, PAR2)
    return whole


def _target(whole: list[Release]) -> bytes | None:
    """The release a whole goes into: a former merge's target (two: none, they are two
    uploads), else the one with the most files (then a catalog release, then one the
    article pass named, one holding the par2 set, the earliest posted)."""
    former = [r for r in whole if r.merged]
    if len(former) > 1:
        return None
    if former:
        return former[0].key
    best = max(whole, key=lambda r: (
        r.file_count, not r.pending, bool(r.row.get("readable")), bool(r.sets), -r.first, r.key,
    ))  # fmt: skip
    return best.key


def sidecar_only(rel: Release) -> bool:
    if not rel.files or len(rel.files) > rules.SIDECAR_MAX_FILES:
        return False
    if rel.nbytes >= rules.SIDECAR_MAX_BYTES:
        return False
    return all(rules.ext_class(n) in rules.SIDECARS for n in rel.files)


def sidecar_merges(frame: Frame, taken: dict[bytes, bytes]) -> dict[bytes, bytes]:
    """Sidecar release -> the upload it joins (`taken`: keys already absorbed this run,
    to the key of their whole, which a sidecar joins in their place)."""
    rels = frame.releases
    out: dict[bytes, bytes] = {}
    only = {k for k, r in rels.items() if sidecar_only(r)}
    sidecars = [rels[k] for k in only if k not in taken]
    if not sidecars:
        return out
    by_poster: dict[str, list[Release]] = {}
    for r in rels.values():
        if r.key not in only:
            by_poster.setdefault(r.poster, []).append(r)
    starts: dict[str, list[int]] = {}
    for poster, uploads in by_poster.items():
        uploads.sort(key=lambda r: r.first)
        starts[poster] = [r.first for r in uploads]
    for side in sorted(sidecars, key=lambda r: (r.first, r.key)):
        uploads = by_poster.get(side.poster, [])
        at = bisect.bisect_left(starts.get(side.poster, []), side.first - UPLOAD_SPAN)
        end = bisect.bisect_right(starts.get(side.poster, []), side.last + rules.SIDECAR_WINDOW)
        near = [
            u for u in uploads[at:end]
            if _near(side, u, rules.SIDECAR_WINDOW) and (side.new or u.new)
        ]  # fmt: skip
        into = _sidecar_target(side, near, taken)
        if into is not None:
            out[side.key] = into
    return out


def _sidecar_target(side: Release, near: list[Release], taken: dict[bytes, bytes]) -> bytes | None:
    mine = rules.words(side.name)
    shared: dict[bytes, int] = {}
    for u in near:
        whole = taken.get(u.key, u.key)
        shared[whole] = max(shared.get(whole, 0), len(mine & rules.words(u.name)))
    best = max(shared.values(), default=0)
    if best > 0:
        top = [k for k, n in shared.items() if n == best]
        return top[0] if len(top) == 1 else None
    total = side.row.get("file_total")
    if total is None:
        return None
    same = {taken.get(u.key, u.key) for u in near if u.row.get("file_total") == total}
    return same.pop() if len(same) == 1 else None
