"""Uploads that are not one release of one set: image-dump albums and batch-counter runs.

An album is one poster's single-segment images (`IMG_0001.jpg`...) posted within
hours, each its own `(1/1)` post; the truth names it by its template (`IMG_####.jpg`).
A batch run is one poster numbering every post against one big total
(`[n/68067] "Some.Thing.name.ext" yEnc (1/3)`): each item is an upload of its own and
the counter total is no file count.
"""

from __future__ import annotations

import math
import random

import numpy as np

from pipelines.generate import words as w
from pipelines.generate.subjects import Style
from pipelines.generate.tools import Poster
from pipelines.generate.uploads import Plan, PostedFile, Upload, UploadWriter

ALBUM_STYLES = (
    Style("album_bare", '"{file}" yEnc ({k}/{K})', False, False),
    Style("album_single", '[1/1] - "{file}" yEnc ({k}/{K})', False, False),
    Style("album_no_yenc", '"{file}" ({k}/{K})', False, False),
)
BATCH_STYLE = Style("batch", '[{post}/{batch}] "{file}" yEnc ({k}/{K})', False, False)
# (prefix, digits, extension) of camera and phone file names
CAMERAS = (("IMG_", 4, ".jpg"), ("DSC_", 4, ".JPG"), ("DSCN", 4, ".jpg"), ("P10", 5, ".JPG"))
BATCH_EXTENSIONS = (".mkv", ".mp4", ".avi", ".epub", ".pdf", ".mp3", ".zip", ".jpg")


def post_album(
    writer: UploadWriter,
    upload_id: int,
    plan: Plan,
    n_images: int,
    taken: set[str],
) -> Upload:
    rng = writer.rng
    free = [c for c in CAMERAS if c[0] not in taken] or list(CAMERAS)
    prefix, digits, ext = rng.choice(free)
    taken.add(prefix)
    number = rng.randint(1, 10 ** (digits - 1))
    src = writer.source(plan)
    files: list[PostedFile] = []
    times = writer.schedule(plan.start, plan.duration, n_images, 1)
    for t in times:
        number += 1 if rng.random() < 0.9 else rng.randint(2, 5)  # deleted shots leave gaps
        name = f"{prefix}{number:0{digits}d}{ext}"
        head, tail = plan.style.template.format(file=name, k="\x00", K=1).split("\x00")
        size = rng.randint(120_000, plan.poster.article_size - 1)
        ids = writer.post_file(src, plan, head, tail, np.ones(1, np.int64), 1, np.array([t]), size)
        files.append(PostedFile(name, 1, ids, size, plan.poster.article_size))
    name = f"{prefix}{'#' * digits}{ext}"
    return _whole_upload(upload_id, "album", "pictures", plan.style, name, plan, files, times)


def _whole_upload(
    upload_id: int,
    kind: str,
    category: str,
    style: Style,
    name: str,
    plan: Plan,
    files: list[PostedFile],
    times: np.ndarray,
) -> Upload:
    """An album or a batch item: plain, every article posted and readable, no file total
    (its counter, if any, counts no files), posted from the first time to the last."""
    return Upload(
        upload_id=upload_id,
        kind=kind,
        category=category,
        style=style.name,
        encoding="plain",
        name=name,
        poster=plan.sender,
        groups=plan.groups,
        files=files,
        file_total=None,
        complete=True,
        readable=True,
        pending=False,
        repost_of=None,
        posted_first=int(times.min()),
        posted_last=int(times.max()),
    )


class BatchPoster:
    """The one poster of a corpus whose counter runs over all its uploads."""

    def __init__(self, rng: random.Random, poster: Poster) -> None:
        self.poster = poster
        self.total = rng.randint(20_000, 90_000)
        self.next = rng.randint(1, self.total // 2)

    def item_name(self, rng: random.Random, used: set[str]) -> str:
        while True:
            words = ".".join(rng.sample(w.TITLE_WORDS, rng.randint(2, 4)))
            stem = f"{words}.{rng.randint(1980, 2024)}"
            if stem not in used:
                used.add(stem)
                return stem

    def post_item(
        self, writer: UploadWriter, upload_id: int, plan: Plan, stem: str, size: int
    ) -> Upload:
        ext = writer.rng.choice(BATCH_EXTENSIONS)
        name = f"{stem}{ext}"
        total = max(1, math.ceil(size / self.poster.article_size))
        post = self.next
        self.next += 1
        head, tail = BATCH_STYLE.template.format(
            post=post, batch=self.total, file=name, k="\x00", K=total
        ).split("\x00")
        src = writer.source(plan)
        times = writer.schedule(plan.start, plan.duration, total, 2)
        parts = np.arange(1, total + 1)
        ids = writer.post_file(src, plan, head, tail, parts, total, times, size)
        files = [PostedFile(name, total, ids, size, self.poster.article_size, 1, total)]
        return _whole_upload(upload_id, "batch", "other", BATCH_STYLE, stem, plan, files, times)
