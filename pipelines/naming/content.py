"""What a release's files hold, as the categories read it: a picture set, music (lossless
or not), books, or nothing decided.

A name such as `P1009359`, `DSC_0852` or `01 - Track Name` says nothing of what it is,
and such a release posted to a TV group was filed under TV. Its files say: the kind of
media that holds most of its bytes, when media hold most of them (an upload of RAR volumes
with a cover picture is not a picture set).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kernels import names as nk

IMAGES = "images"
MUSIC = "music"
LOSSLESS = "lossless"
BOOKS = "books"
VIDEO = "video"

# the media classes and what each says
MEDIA = (nk.IMAGE, nk.AUDIO, nk.EBOOK, nk.VIDEO)
_KIND = (IMAGES, MUSIC, BOOKS, VIDEO)
# audio kept bit for bit (the music categories tell it from lossy)
_LOSSLESS_EXTENSIONS = (b".flac", b".ape", b".wav", b".alac", b".aiff", b".wv")


def content_of(ext_class: Sequence[int], nbytes: Sequence[int], names: Sequence[bytes]) -> str:
    """The content kind of a release's files (IMAGES, MUSIC, LOSSLESS, BOOKS, VIDEO), or
    "" when no kind of media holds more than half of the bytes (archives, for one)."""
    sums = [0] * len(MEDIA)
    for cls, size in zip(ext_class, nbytes, strict=True):
        if cls in MEDIA:
            sums[MEDIA.index(cls)] += size
    return _decide(sums, sum(nbytes), ext_class, names)


def content_of_block(
    ext_class: np.ndarray, nbytes: np.ndarray, offsets: np.ndarray, names: Sequence[bytes]
) -> list[str]:
    """`content_of` of each release of a block (release j: files offsets[j]:offsets[j+1])."""
    starts = offsets[:-1]
    if not len(starts):
        return []
    size = nbytes.astype(np.int64)
    totals = np.add.reduceat(size, starts).tolist()
    sums = [np.add.reduceat(np.where(ext_class == c, size, 0), starts).tolist() for c in MEDIA]
    bounds = offsets.tolist()
    out = []
    for j, total in enumerate(totals):
        a, b = bounds[j], bounds[j + 1]
        media = [s[j] for s in sums]
        out.append(_decide(media, total, ext_class[a:b].tolist(), names[a:b]) if any(media) else "")
    return out


def _decide(
    sums: Sequence[int], total: int, ext_class: Sequence[int], names: Sequence[bytes]
) -> str:
    best = max(range(len(MEDIA)), key=lambda i: sums[i])
    if 2 * sums[best] <= total:
        return ""
    kind = _KIND[best]
    if kind == MUSIC:
        audio = [n for c, n in zip(ext_class, names, strict=True) if c == nk.AUDIO]
        if all(n.lower().endswith(_LOSSLESS_EXTENSIONS) for n in audio):
            return LOSSLESS
    return kind
