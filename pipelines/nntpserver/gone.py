"""Articles a `serve-nntp` server no longer has: taken down, expired.

`--gone FILE` names them: a Parquet file with a `message_id` column, or text with one
message-id a line (angle brackets optional, `#` comments and blank lines skipped). They
still show in the overview, as a provider's overview keeps listing taken-down articles,
but STAT/HEAD/BODY/ARTICLE answer 430 (by message-id) or 423 (by number).
"""

from __future__ import annotations

import pyarrow as pa

from pipelines.catalog.reader import parquet_rows
from pipelines.corpus.fs import open_fs

_PARQUET_MAGIC = b"PAR1"


def bare(message_id: str) -> str:
    """A message-id without its angle brackets and surrounding spaces."""
    return message_id.strip().removeprefix("<").removesuffix(">")


def load_gone(path: str) -> frozenset[str]:
    """The message-ids (bare) a gone file names; ValueError for a Parquet file without a
    `message_id` column."""
    fs, root = open_fs(path)
    payload = fs.cat_file(root)
    if payload[:4] == _PARQUET_MAGIC:
        table = parquet_rows(payload)
        if "message_id" not in table.column_names:
            raise ValueError(f"{path}: no message_id column")
        ids: list[str | None] = table.column("message_id").cast(pa.string()).to_pylist()
        return frozenset(bare(m) for m in ids if m)
    text = payload.decode("utf-8", "replace")
    lines = (line.strip() for line in text.splitlines())
    return frozenset(bare(line) for line in lines if line and not line.startswith("#"))
