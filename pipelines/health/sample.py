"""Which segments of a release a check STATs: the first, the last, and a few between.

The first and the last say most for their cost (a take-down that removes whole files
removes them; a release whose first segment is gone cannot start), the ones between,
evenly spread over the release's segments in file order, catch partial removals.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReleaseSegments:
    """A release's segments in order (files by their [i/N] index, then name; parts
    ascending) and what the verdict needs of its files."""

    release_key: bytes
    group: str
    posted_last: int
    message_ids: tuple[str, ...]
    recovery: float  # `verdicts.recovery_share` of its files


def spread(count: int, between: int) -> list[int]:
    """Indexes of `count` segments to STAT: 0, count-1 and `between` evenly between,
    ascending and each once."""
    if count <= 0:
        return []
    inner = min(between, max(count - 2, 0))
    picks = {0, count - 1}
    for i in range(1, inner + 1):
        picks.add(round(i * (count - 1) / (inner + 1)))
    return sorted(picks)


def sample(release: ReleaseSegments, between: int) -> list[str]:
    """The message-ids to STAT: the first segment, the last, `between` spread between."""
    return [release.message_ids[i] for i in spread(len(release.message_ids), between)]
