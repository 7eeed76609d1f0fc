"""Whole articles stored as posted: a header and a body each, by message-id.

What overview lines cannot rebuild: a spot's header (its X-XML document, key and
signatures) and the bodies of a spot's NZB articles. The generator writes them to
`bodies/articles.parquet` beside the corpus; `serve-nntp` answers HEAD, BODY and
ARTICLE of those message-ids from them (the overview line still places the article).
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import atomic_put, open_fs

ARTICLES_FILE = "bodies/articles.parquet"
SCHEMA = pa.schema(
    [
        pa.field("message_id", pa.string(), nullable=False),  # without angle brackets
        pa.field("head", pa.binary(), nullable=False),  # CRLF header lines, the last one ended
        pa.field("body", pa.binary(), nullable=False),  # CRLF lines, as BODY sends it unstuffed
    ]
)


class RawArticles:
    def __init__(self, table: pa.Table) -> None:
        ids = table["message_id"].to_pylist()
        self._heads = dict(zip(ids, table["head"].to_pylist(), strict=True))
        self._bodies = dict(zip(ids, table["body"].to_pylist(), strict=True))

    def head(self, message_id: str) -> bytes | None:
        return self._heads.get(message_id)

    def body(self, message_id: str) -> bytes | None:
        return self._bodies.get(message_id)

    def __len__(self) -> int:
        return len(self._heads)


def open_articles(root: str) -> RawArticles | None:
    """The articles stored beside a corpus (`root`: the generator's OUT or its corpus/)."""
    fs, path = open_fs(root.rstrip("/"))
    for candidate in (f"{path}/{ARTICLES_FILE}", f"{path.rsplit('/', 1)[0]}/{ARTICLES_FILE}"):
        if fs.exists(candidate):
            return RawArticles(read_parquet(fs, candidate))
    return None


def write_articles(rows: Iterable[tuple[str, bytes, bytes]], url: str) -> int:
    """Write (message-id, head, body) rows atomically; returns the rows written."""
    ids, heads, bodies = [], [], []
    for message_id, head, body in rows:
        ids.append(message_id)
        heads.append(head)
        bodies.append(body)
    table = pa.table({"message_id": ids, "head": heads, "body": bodies}, schema=SCHEMA)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    fs, path = open_fs(url)
    atomic_put(fs, path, sink.getvalue().to_pybytes())
    return table.num_rows
