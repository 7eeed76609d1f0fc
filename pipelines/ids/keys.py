"""Titles as lookup keys: the comparable form (`title_key`) and its 64-bit hash.

The import computes keys for millions of titles in DuckDB (`title_key_sql`), a release's
key is computed in Python (`pipelines.names.title_key`): the same steps in both, and the
same hash (the low half of the key's MD5, DuckDB's `md5_number_lower`), so that a lookup
is a binary search over sorted integers.
"""

from __future__ import annotations

import hashlib

SMALL_WORDS = "the|a|an|and|of"


def key_hash(key: str) -> int:
    """DuckDB's md5_number_lower(key): the MD5's last 8 bytes, little-endian, unsigned."""
    return int.from_bytes(hashlib.md5(key.encode("utf-8")).digest()[8:], "little")


def title_key_sql(column: str) -> str:
    """A SQL expression of `pipelines.names.title_key(column)`."""
    words = (
        f"regexp_replace(replace(replace(replace(lower(strip_accents({column})), '&', ' and '),"
        f" '''', ''), '`', ''), '[^0-9a-z]+', ' ', 'g')"
    )
    kept = f"trim(regexp_replace(' ' || {words} || ' ', ' (?:(?:{SMALL_WORDS}) )+', ' ', 'g'))"
    return f"(CASE WHEN {kept} = '' THEN trim({words}) ELSE {kept} END)"
