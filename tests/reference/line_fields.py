"""Plain-Python reference of kernels.line_fields: each field by its own reference."""

from __future__ import annotations

from pipelines.subjects.hashing import hash_bytes
from tests.reference import fields


def line_fields(
    buf: bytes, lines: list[dict[str, tuple[int, int]]], groups: list[bytes]
) -> list[tuple[int, bool, int, int, int]]:
    """Per line (spans of its `from`, `date`, `bytes`, `xref`): (date, ok, owner, bytes,
    From hash)."""
    out = []
    for line in lines:
        text = {name: buf[a:z] for name, (a, z) in line.items()}
        date, ok = fields.parse_date(text["date"])
        owner = fields.xref_owner(text["xref"], groups)[0]
        out.append((date, ok, owner, fields.parse_uint(text["bytes"]), hash_bytes(text["from"])))
    return out
