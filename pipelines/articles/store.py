"""The body store: a generated corpus's stored article bodies, by message-id.

`bodies/bodies.parquet` beside `corpus/` holds one row an article: its file's name,
part, total, part size and file size, the file's real head and tail bytes and the
filler's seed (`pipelines.generate.contents`). A body is rendered on request: the
segment's bytes (head, filler, tail), yEnc-encoded by sabctools. `serve-nntp` and the
prober's offline replay (`--bodies ROOT`) read it through `open_bodies`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.articles.filler import file_head, file_tail
from pipelines.articles.yenc import yenc_article
from pipelines.catalog.reader import read_parquet
from pipelines.corpus.fs import atomic_put, open_fs

BODIES_FILE = "bodies/bodies.parquet"
SCHEMA = pa.schema(
    [
        pa.field("message_id", pa.string(), nullable=False),  # without angle brackets
        pa.field("name", pa.string(), nullable=False),  # the posted file name
        pa.field("part", pa.int32(), nullable=False),
        pa.field("total", pa.int32(), nullable=False),
        pa.field("part_size", pa.int64(), nullable=False),  # every part's bytes but the last's
        pa.field("file_size", pa.int64(), nullable=False),
        pa.field("head", pa.binary(), nullable=False),  # the file's first bytes
        pa.field("tail", pa.binary(), nullable=False),  # its last bytes (a 7z header)
        pa.field("seed", pa.binary(), nullable=False),  # of the filler between
    ]
)


def _int(row: dict[str, object], key: str) -> int:
    value = row[key]
    assert isinstance(value, int)
    return value


def _bytes(row: dict[str, object], key: str) -> bytes:
    value = row[key]
    assert isinstance(value, bytes)
    return value


def segment_bytes(row: dict[str, object]) -> bytes:
    """The bytes of one segment of a file that is head, filler and tail."""
    part, total = _int(row, "part"), _int(row, "total")
    part_size, size = _int(row, "part_size"), _int(row, "file_size")
    head, tail, seed = _bytes(row, "head"), _bytes(row, "tail"), _bytes(row, "seed")
    n = size - part_size * (total - 1) if part == total else part_size
    if part == 1:
        data = file_head(head, seed, n)
        if total == 1 and tail:
            data = data[: max(n - len(tail), 0)] + tail[-n:]
        return data
    if part == total:
        return file_tail(tail, seed, n)
    return file_head(b"", seed + part.to_bytes(4, "little"), n)


def render(row: dict[str, object]) -> bytes:
    """The yEnc body of a stored row."""
    part, total = _int(row, "part"), _int(row, "total")
    begin = (part - 1) * _int(row, "part_size") + 1
    data = segment_bytes(row)
    return yenc_article(data, str(row["name"]), part, total, _int(row, "file_size"), begin)


class BodyStore:
    """Stored bodies by message-id (without angle brackets), rendered on request."""

    def __init__(self, table: pa.Table) -> None:
        self._rows = table.to_pylist()
        self._index = {row["message_id"]: i for i, row in enumerate(self._rows)}

    def body(self, message_id: str) -> bytes | None:
        """The full body as BODY sends it before dot-stuffing (CRLF lines, no final dot)."""
        at = self._index.get(message_id)
        return None if at is None else render(self._rows[at])

    def row(self, message_id: str) -> dict[str, object] | None:
        at = self._index.get(message_id)
        return None if at is None else self._rows[at]

    def __contains__(self, message_id: object) -> bool:
        return message_id in self._index

    def __len__(self) -> int:
        return len(self._rows)

    def message_ids(self) -> Iterator[str]:
        return iter(self._index)


def bodies_url(root: str) -> str | None:
    """Where a corpus's bodies are: `root` is the generator's OUT, its `corpus/`, or
    a folder holding `bodies.parquet`."""
    fs, path = open_fs(root.rstrip("/"))
    for candidate in (f"{path}/{BODIES_FILE}", f"{path.rsplit('/', 1)[0]}/{BODIES_FILE}",
                      f"{path}/bodies.parquet"):  # fmt: skip
        if fs.exists(candidate):
            return candidate
    return None


def open_bodies(root: str) -> BodyStore | None:
    """The store beside a corpus, or None when the corpus has no bodies."""
    url = bodies_url(root)
    if url is None:
        return None
    fs, _ = open_fs(root)
    return BodyStore(read_parquet(fs, url))


def write_bodies(rows: Iterable[object], url: str) -> int:
    """Write bodies (`pipelines.generate.contents.build.Body`) as the store's Parquet
    file, atomically; returns the rows written."""
    cols: dict[str, list[object]] = {f.name: [] for f in SCHEMA}
    for body in rows:
        for name in cols:
            cols[name].append(getattr(body, name))
    table = pa.table(cols, schema=SCHEMA)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", use_dictionary=["name"])
    fs, path = open_fs(url)
    atomic_put(fs, path, sink.getvalue().to_pybytes())
    return table.num_rows
