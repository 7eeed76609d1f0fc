"""A spot as the catalog keeps it: one row of `spots` per article of the spot group read,
valid or not (an invalid one keeps only why), and what its text says (passwords, IMDb).

A password is kept with where it came from: `{{pw}}` in the title (`spot-title`), or a
`password: pw` line of the description (`spot-text`). A moderation message (key 2, titled
`delete|dispose|remove <message-id>`) is a row of kind `delete` naming its target.
"""

from __future__ import annotations

import re
from typing import Any

from pipelines.naming import to_text
from pipelines.spots.article import SpotXml
from pipelines.spots.categories import newznab_category
from pipelines.spots.header import SpotFrom, parse_subject
from pipelines.spots.signing import KEY_MODERATOR
from pipelines.spots.verify import Verdict

COMMANDS = ("delete", "dispose", "remove")
_TITLE_PASSWORD = re.compile(r"\{\{([^{}]+)\}\}")
_TEXT_PASSWORD = re.compile(r"(?i)\b(?:password|passwd|wachtwoord|pass|pw)\s*[:=]\s*([^\s\[<]+)")
_IMDB = re.compile(r"imdb\.com/title/(tt\d{7,8})")


def moderation_target(frm: SpotFrom, subject: bytes) -> str | None:
    """The message-id a moderation message removes, or None for another message."""
    if frm.key_id != KEY_MODERATOR:
        return None
    title, _ = parse_subject(subject, frm.key_id)
    words = to_text(title).split()
    if len(words) >= 2 and words[0].lower() in COMMANDS:
        return words[1].strip("<>")
    return None


def passwords_of(title: str, description: str) -> list[tuple[str, str]]:
    """(password, source) pairs a spot's text names."""
    found = [(m.group(1).strip(), "spot-title") for m in _TITLE_PASSWORD.finditer(title)]
    text = description.replace("[br]", "\n")
    found += [(m.group(1).strip(), "spot-text") for m in _TEXT_PASSWORD.finditer(text)]
    return [(p, s) for p, s in dict.fromkeys(found) if p]


def imdb_id(*texts: str) -> str:
    for text in texts:
        m = _IMDB.search(text)
        if m:
            return m.group(1)
    return ""


def spot_row(
    article: int, message_id: str, posted: int, verdict: Verdict, frm: SpotFrom | None,
    doc: SpotXml | None, subject: bytes, read_at: int,
) -> dict[str, Any]:  # fmt: skip
    """The `spots` row of one article read."""
    row: dict[str, Any] = {
        "article": article,
        "message_id": message_id,
        "kind": "spot",
        "valid": verdict.valid,
        "reason": verdict.reason or None,
        "posted": posted,
        "read_at": read_at,
    }
    if frm is not None:
        row.update(key_id=frm.key_id, poster=to_text(frm.nickname), size=frm.size,
                   head_category=frm.category, subcats=frm.subcats)  # fmt: skip
        target = moderation_target(frm, subject)
        if target is not None:
            row.update(kind="delete", target=target)
    if not verdict.valid:
        return row
    row.update(spotter_id=verdict.spotter_id or None, key_bits=verdict.key_bits or None)
    title, tag = parse_subject(subject, frm.key_id if frm else 0)
    row.update(title=to_text(title), tag=to_text(tag))
    if doc is not None:
        subcats = doc.subcats or (frm.subcats if frm else [])
        pw = passwords_of(doc.title, doc.description)
        row.update(
            title=doc.title, tag=doc.tag, description=doc.description, website=doc.website,
            head_category=doc.category, subcats=subcats,
            category=newznab_category(doc.category, subcats), size=doc.size or row.get("size"),
            image_ids=doc.image_ids, image_url=doc.image or None, nzb_ids=doc.nzb_ids,
            passwords=[p for p, _ in pw] or None, password_sources=[s for _, s in pw] or None,
            imdb=imdb_id(doc.website, doc.description) or None,
        )  # fmt: skip
    return row
