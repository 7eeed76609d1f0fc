"""Deterministic filler: the bytes of a file between its real head and its end.

SHAKE-128 of a seed: any prefix of a longer draw is the shorter draw, so a file's first
16 KiB (what par2 hashes) and its first segment agree however much is asked for.
"""

from __future__ import annotations

import hashlib


def filler(seed: bytes, n: int) -> bytes:
    return hashlib.shake_128(seed).digest(n) if n > 0 else b""


def file_head(head: bytes, seed: bytes, n: int) -> bytes:
    """The first `n` bytes of a file whose content is `head` then filler."""
    if n <= len(head):
        return head[:n]
    return head + filler(seed, n - len(head))


def file_tail(tail: bytes, seed: bytes, n: int) -> bytes:
    """The last `n` bytes of a file that ends with `tail` (filler before it)."""
    if n <= len(tail):
        return tail[len(tail) - n :]
    return filler(seed + b"\0tail", n - len(tail)) + tail
