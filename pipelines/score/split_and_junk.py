"""Merges and verdicts against the truth of a `generate --split-and-junk` corpus.

Matched by message-ids as `score.py` matches uploads (the visible releases: newest
version, merged tombstones hidden, pending releases too).

- merges: an upload the header pass splits (the truth's `split_by`) is *joined* when
  exactly one visible release holds exactly its message-ids; the issue's share counts the
  uploads a par2 set describes (`par2_describes`) and the sidecar splits.
- verdicts: per expected verdict (`expected_verdict`), the uploads whose every release
  holding them has that verdict (right), another one (wrong) or none; a real upload (no
  expected verdict) with any verdict on a release holding it is a *false verdict*.
  Uploads in no visible release are not judged and not counted, nor are those with a
  provisional release (the window has not closed on them: the article pass, the merges
  and the judge take finished releases), counted as *open*; so are the members of a
  repeated family one of whose members is open.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from pipelines.score.catalog import CatalogView

_SPLITS = ("per_file", "tracks", "sidecar")
_RULES = ("dead", "fake", "repeated", "locked", "unusable")


@dataclass
class Tally:
    uploads: int = 0
    right: int = 0

    @property
    def share(self) -> float:
        return self.right / self.uploads if self.uploads else 1.0


@dataclass
class SplitJunkScore:
    joined: dict[str, Tally] = field(default_factory=lambda: {k: Tally() for k in _SPLITS})
    verdicts: dict[str, Tally] = field(default_factory=lambda: {k: Tally() for k in _RULES})
    real: Tally = field(default_factory=Tally)  # right: real uploads with no verdict
    open: int = 0  # uploads with a provisional release: neither merged nor judged yet
    misjudged: list[tuple[str, str, str]] = field(default_factory=list)  # (name, want, got)

    @property
    def merge_share(self) -> float:
        return _share(self.joined.values())

    @property
    def verdict_share(self) -> float:
        return _share(self.verdicts.values())

    @property
    def false_verdicts(self) -> int:
        return self.real.uploads - self.real.right

    @property
    def false_share(self) -> float:
        return self.false_verdicts / self.real.uploads if self.real.uploads else 0.0

    def add(self, other: SplitJunkScore) -> None:
        for mine, theirs in ((self.joined, other.joined), (self.verdicts, other.verdicts)):
            for k, t in theirs.items():
                mine[k].uploads += t.uploads
                mine[k].right += t.right
        self.real.uploads += other.real.uploads
        self.real.right += other.real.right
        self.open += other.open
        self.misjudged += other.misjudged[: max(0, 8 - len(self.misjudged))]

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc.update(merge_share=round(self.merge_share, 4),
                   verdict_share=round(self.verdict_share, 4),
                   false_share=round(self.false_share, 4))  # fmt: skip
        return doc

    def format(self) -> str:
        joined = ", ".join(f"{k} {t.right}/{t.uploads}" for k, t in self.joined.items())
        judged = ", ".join(f"{k} {t.right}/{t.uploads}" for k, t in self.verdicts.items())
        return (
            f"split uploads joined: {joined} ({self.merge_share:.1%})\n"
            f"verdicts right: {judged} ({self.verdict_share:.1%}); "
            f"real uploads with a false verdict: {self.false_verdicts} of {self.real.uploads} "
            f"({self.false_share:.2%}); open (not finished): {self.open}"
        )


def _share(tallies: Any) -> float:
    tallies = list(tallies)
    total = sum(t.uploads for t in tallies)
    return sum(t.right for t in tallies) / total if total else 1.0


def _keys(u: dict[str, Any], view: CatalogView) -> set[bytes]:
    return {k for f in u["files"] for m in f["message_ids"] for k in view.release_of.get(m, ())}


def _provisional(view: CatalogView, key: bytes) -> bool:
    row = view.releases.get(key) or view.pending.get(key)
    return row is not None and row.get("finished") is False


def score_split_and_junk(uploads: list[dict[str, Any]], view: CatalogView) -> SplitJunkScore:
    s = SplitJunkScore()
    if not uploads or "expected_verdict" not in uploads[0]:
        return s  # a truth from before --split-and-junk: nothing to score
    keys_of = {u["upload_id"]: _keys(u, view) for u in uploads}
    still_open = {uid for uid, keys in keys_of.items() if any(_provisional(view, k) for k in keys)}
    # a repeated family is judged by its members the article pass read: one still open
    # may be what takes the family to the rule's count
    open_families = {
        u["repeat_of"]
        for u in uploads
        if u["upload_id"] in still_open and u.get("repeat_of") is not None
    }
    for u in uploads:
        mids = {m for f in u["files"] for m in f["message_ids"]}
        keys = keys_of[u["upload_id"]]
        if u["upload_id"] in still_open or u.get("repeat_of") in open_families:
            s.open += 1
            continue
        split_by = u.get("split_by")
        if split_by in s.joined and (u.get("par2_describes") or split_by == "sidecar"):
            tally = s.joined[split_by]
            tally.uploads += 1
            tally.right += len(keys) == 1 and view.ids_of.get(next(iter(keys))) == mids
        if not keys:
            continue
        got = {view.verdicts.get(k) for k in keys}
        want = u["expected_verdict"]
        tally = s.real if want is None else s.verdicts[want]
        tally.uploads += 1
        right = got == {want}
        tally.right += right
        if not right and len(s.misjudged) < 8:
            s.misjudged.append((u["name"], str(want), ",".join(sorted(str(g) for g in got))))
    return s
