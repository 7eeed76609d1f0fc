"""How the article pass named the obfuscated uploads, against the truth's hidden names.

An obfuscated upload (the truth's `pending`) has no name its headers carry; its par2 set,
archives or yEnc names may carry one (the truth's `inner_name`). Matched by message-ids
as `score.py` matches readable uploads:

- named right: exactly one catalog release (not pending) holds exactly its message-ids,
  in its owner group, under the inner name (after `normalise_name`);
- named wrong: a catalog release holding any of its message-ids has another name, or
  one was named where the truth knows no name;
- still open: a nameable upload whose pending releases are all provisional (the window
  has not closed on it: the article pass climbs finished releases only); not in the share;
- still pending: a nameable upload no catalog release holds, its release finished;
- split or short: a catalog release under the right name that holds only some of its
  articles, or several releases holding them.

Passwords: a complete obfuscated upload that posts an archive (RAR, 7z, ZIP) and is not
still open (an incomplete one may have lost the part that tells: a 7z set's header is at
its end) is *right* when the article pass's password of every release holding it says what
the truth says (1 when passworded, else 0 or 2), *wrong* when one says otherwise,
*unknown* when none says anything.

Per family (`family_of`): an obfuscating tool's family (the truth's `obfuscation`),
`per_file` for the split uploads, else `obfuscated` (today's obfuscated sets).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

from pipelines.score.catalog import CatalogView


def normalise_name(name: str | None) -> str:
    """NFC, case-folded, `.` `_` and runs of white space as one space, stripped: the
    separators scene and plain names use for a space do not count, any other text does."""
    text = unicodedata.normalize("NFC", name or "").casefold()
    return " ".join(text.replace(".", " ").replace("_", " ").split())


_COUNTS = (
    "obfuscated", "nameable", "named_right", "named_wrong", "still_open", "still_pending", "split",
    "archives", "password_right", "password_wrong", "password_unknown",
)  # fmt: skip
_ARCHIVE = re.compile(r"\.(rar|[r-z]\d\d|7z\.\d{3}|zip)$", re.IGNORECASE)


@dataclass
class NamingScore:
    obfuscated: int = 0
    nameable: int = 0  # with an inner name in the truth
    named_right: int = 0
    named_wrong: int = 0
    still_open: int = 0
    still_pending: int = 0
    split: int = 0
    archives: int = 0  # complete uploads posting an archive, not still open
    password_right: int = 0
    password_wrong: int = 0
    password_unknown: int = 0
    wrong: list[tuple[str, str]] = field(default_factory=list)  # a few (expected, got)

    @property
    def share(self) -> float:
        """Of the nameable uploads the window has closed on, those named right."""
        done = self.nameable - self.still_open
        return self.named_right / done if done else 1.0

    def add(self, other: NamingScore) -> None:
        for attr in _COUNTS:
            setattr(self, attr, getattr(self, attr) + getattr(other, attr))
        self.wrong += other.wrong[: max(0, 8 - len(self.wrong))]

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "share": round(self.share, 4)}

    def format(self) -> str:
        share = f"{self.share:.1%}" if self.nameable > self.still_open else "-"
        return (
            f"obfuscated uploads: {self.obfuscated}, nameable {self.nameable} "
            f"({self.still_open} still open), named right {self.named_right} ({share}), "
            f"wrong {self.named_wrong}, split {self.split}, still pending {self.still_pending}; "
            f"archives {self.archives}: password right {self.password_right}, "
            f"wrong {self.password_wrong}, unknown {self.password_unknown}"
        )


def family_of(u: dict[str, Any]) -> str:
    """The naming score's family of an obfuscated upload."""
    if u.get("obfuscation"):
        return str(u["obfuscation"])
    return "per_file" if u.get("split_by") == "per_file" else "obfuscated"


def score_naming_by_family(
    uploads: list[dict[str, Any]], view: CatalogView
) -> dict[str, NamingScore]:
    """`score_naming` of each family's obfuscated uploads, by family name."""
    families: dict[str, list[dict[str, Any]]] = {}
    for u in uploads:
        if u.get("pending"):
            families.setdefault(family_of(u), []).append(u)
    return {f: score_naming(us, view) for f, us in sorted(families.items())}


def score_naming(uploads: list[dict[str, Any]], view: CatalogView) -> NamingScore:
    s = NamingScore()
    for u in uploads:
        if not u.get("pending"):
            continue
        s.obfuscated += 1
        inner = u.get("inner_name")
        mids = {m for f in u["files"] for m in f["message_ids"]}
        keys = {k for m in mids for k in view.release_of.get(m, ())}
        _passwords(s, u, keys, view)
        named = {k for k in keys if k in view.releases}
        got = [view.releases[k]["name"] for k in named]
        if inner is None:
            s.named_wrong += bool(named)
            continue
        s.nameable += 1
        want = normalise_name(inner)
        if any(normalise_name(name) != want for name in got):
            s.named_wrong += 1
            if len(s.wrong) < 8:
                s.wrong.append((inner, next(n for n in got if normalise_name(n) != want)))
        elif not named:
            still_open = bool(keys) and all(_open(view, k) for k in keys)
            s.still_open += still_open
            s.still_pending += not still_open
        elif len(keys) == 1 and _whole(view, next(iter(named)), mids, u["owner_group"]):
            s.named_right += 1
        else:
            s.split += 1
    return s


def _open(view: CatalogView, key: bytes) -> bool:
    row = view.pending.get(key)
    return row is not None and not row["finished"]


def _whole(view: CatalogView, key: bytes, mids: set[str], group: str) -> bool:
    return view.ids_of.get(key) == mids and view.releases[key]["group"] == group


def _passwords(s: NamingScore, u: dict[str, Any], keys: set[bytes], view: CatalogView) -> None:
    if not keys or not u["complete"] or not any(_ARCHIVE.search(f["name"]) for f in u["files"]):
        return
    if all(_open(view, k) for k in keys):
        return  # the window has not closed on it: not probed yet
    s.archives += 1
    told = [view.passwords[k] for k in keys if view.passwords.get(k) is not None]
    want_locked = bool(u.get("passworded"))
    if not told:
        s.password_unknown += 1
    elif all((p == 1) == want_locked for p in told):
        s.password_right += 1
    else:
        s.password_wrong += 1
