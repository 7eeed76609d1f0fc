"""Batch counters: a `[i/N]` total shared by many uploads of one poster (`[n/68067]`) is
a batch number, not a file count, and such a release gets no file total.

Per (poster, total), the identities of the uploads that announced it (up to
`batch_uploads_min`: enough to decide). Not a parsed chunk (`parsed_chunk`).
"""

from __future__ import annotations

from pipelines.index.release import OpenRelease
from pipelines.index.rules import Rules

# (poster key, counter total) -> identities of the uploads that announced the total
BatchUploads = dict[tuple[int, int], set[int]]


def is_batch_total(
    batch_uploads: BatchUploads, rules: Rules, rel: OpenRelease, finished: bool
) -> bool:
    """Is the release's counter total a batch number rather than its file count?

    Yes when several uploads of its poster share the total, or when a finished
    release holds a sliver of the files it announced (one file of `[n/68067]`).
    """
    return batch_total_of(
        batch_uploads, rules, rel.poster_key, rel.file_total, len(rel.files), finished
    )


def batch_total_of(
    batch_uploads: BatchUploads,
    rules: Rules,
    poster_key: int,
    total: int,
    files: int,
    finished: bool,
) -> bool:
    """`is_batch_total` of a release given by its poster, counter total and file count."""
    if total < rules.batch_total_min:
        return False
    uploads = batch_uploads.get((poster_key, total))
    if uploads is not None and len(uploads) >= rules.batch_uploads_min:
        return True
    return finished and files * 20 < total


def count_batch(
    batch_uploads: BatchUploads,
    rules: Rules,
    poster_key: int,
    total: int,
    ident: int,
) -> None:
    """A new release announced `total` files: one more upload of its poster with it."""
    uploads = batch_uploads.setdefault((poster_key, total), set())
    if len(uploads) < rules.batch_uploads_min:
        uploads.add(ident)
