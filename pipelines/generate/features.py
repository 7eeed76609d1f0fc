"""What uploads a corpus gets: kinds, the rates of each oddity, and the deck.

Shares follow real corpora: about a third of the lines are noise (random subjects,
`[PRiVATE]` hashes, a few text posts), the rest uploads. The first uploads of a
corpus work through the deck, one feature an upload, so a corpus of a few thousand
lines a group surely holds each kind and each oddity; after that features are drawn.
"""

from __future__ import annotations

import random
from typing import Any

SHARES = {"random_subject": 0.25, "private_hash": 0.09, "text_post": 0.004}
UPLOAD_SHARE = 1.0 - sum(SHARES.values())
KIND_WEIGHTS = {
    "rar_parts": 18,
    "rar_old": 8,
    "video": 10,
    "obfuscated": 16,
    "music": 8,
    "ebook": 8,
    "sevenzip": 5,
    "software": 6,
    "single": 8,
    "album": 2,
    "batch": 2,
}
RATES = {
    "crosspost": 0.12,
    "rfc2047_b": 0.015,
    "rfc2047_q": 0.01,
    "rfc2047_hidden": 0.008,
    "latin1": 0.015,
    "utf8": 0.01,
    "missing_segments": 0.06,
    "missing_files": 0.03,
    "long": 0.06,
    "repost": 0.04,
    "session": 0.4,
    "nzb_first": 0.05,
}
# Every corpus starts with these, one feature an upload, so each is surely present;
# "poster" i picks the i-th poster, the first posters being one of each posting tool.
DECK: tuple[dict[str, Any], ...] = (
    *({"kind": k, "poster": i} for i, k in enumerate(KIND_WEIGHTS)),
    {"kind": "rar_parts", "crosspost": True, "poster": 8},
    {"kind": "video", "crosspost": True},
    {"kind": "video", "encoding": "rfc2047_b"},
    {"kind": "rar_parts", "encoding": "rfc2047_q"},
    {"kind": "video", "encoding": "rfc2047_hidden"},
    {"kind": "rar_old", "encoding": "latin1"},
    {"kind": "sevenzip", "encoding": "utf8"},
    {"kind": "rar_parts", "missing_segments": 0.04},
    {"kind": "rar_parts", "missing_files": 1},
    {"kind": "rar_parts", "long": True},
    {"kind": "rar_parts", "nzb_first": True},
    {"kind": "video", "repost": True},
)


def draw_features(r: random.Random) -> dict[str, Any]:
    """The features of one upload after the deck: a kind, then each oddity at its rate."""
    kind = r.choices(list(KIND_WEIGHTS), list(KIND_WEIGHTS.values()))[0]
    features: dict[str, Any] = {"kind": kind}
    if kind in ("album", "batch"):
        return features
    for key in ("crosspost", "long", "repost", "nzb_first"):
        if r.random() < RATES[key]:
            features[key] = True
    for enc in ("rfc2047_b", "rfc2047_q", "rfc2047_hidden", "latin1", "utf8"):
        # film and TV titles: the posts that carry them in their own script
        if r.random() < RATES[enc] and kind in ("rar_parts", "rar_old", "video", "sevenzip"):
            features["encoding"] = enc
    if r.random() < RATES["missing_segments"]:
        features["missing_segments"] = r.uniform(0.01, 0.1)
    if r.random() < RATES["missing_files"]:
        features["missing_files"] = r.randint(1, 2)
    return features
