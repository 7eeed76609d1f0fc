"""nZEDb's `binaryblacklist` as operator rules, as it stands: its groups, regexes, fields
and on/off, in its order.

The export is tab-separated with a header line: id, groupname, regex, msgcol (1 subject,
2 poster, 3 message-id), optype (1 blacklist, 2 whitelist), status (1 active), and a
description. Its backslashes are doubled (a database dump's escaping). nZEDb matches
case-insensitively, as every rule here does.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from pipelines.rules.store import RuleRefused, add_rule

COLUMNS = ("id", "groupname", "regex", "msgcol", "optype", "status", "description")
FIELD_OF = {"1": "subject", "2": "poster", "3": "message_id"}
ACTION_OF = {"1": "drop", "2": "keep"}


@dataclass
class Imported:
    added: list[str]  # rule ids
    refused: list[tuple[str, str]]  # (nZEDb id, why)


def unescape(text: str) -> str:
    return text.replace("\\\\", "\\")


def import_blacklist(catalog: str, path: str | Path, who: str) -> Imported:
    """Add every rule of the file (ids noted as `nzedb:<id>`); a row that cannot be a rule
    is refused with its reason, the others are added."""
    done = Imported([], [])
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    # the header line names the columns with commas, the rows are split by tabs
    header = [c.strip() for c in "\t".join(rows[0]).replace(",", "\t").split("\t")] if rows else []
    header = [c for c in header if c]
    if tuple(header) != COLUMNS:
        raise ValueError(f"{path}: not an nZEDb binaryblacklist export (header {header})")
    for n, row in enumerate(rows[1:], start=2):
        if len(row) != len(COLUMNS):
            done.refused.append((f"line {n}", f"{len(row)} columns, not {len(COLUMNS)}"))
            continue
        doc = dict(zip(COLUMNS, row, strict=True))
        field, action = FIELD_OF.get(doc["msgcol"]), ACTION_OF.get(doc["optype"])
        if field is None or action is None:
            done.refused.append((doc["id"], f"msgcol {doc['msgcol']}, optype {doc['optype']}"))
            continue
        try:
            rule = add_rule(
                catalog,
                unescape(doc["regex"]),
                who,
                field=field,
                group=unescape(doc["groupname"]),
                action=action,
                state="on" if doc["status"] == "1" else "off",
                note=f"nzedb:{doc['id']} {doc['description']}".strip(),
                kind="nzedb",
                force=True,  # the operator's own list, taken as it is
            )
        except RuleRefused as exc:
            done.refused.append((doc["id"], exc.reason))
            continue
        done.added.append(rule.id)
    return done
