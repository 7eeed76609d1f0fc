"""Which segments of a release a check STATs: the first, the last, and a few between.

The first and the last say most for their cost (a take-down that removes whole files
removes them; a release whose first segment is gone cannot start), the ones between,
evenly spread over the release's segments in file order, catch partial removals. A
release with no par2 volume to repair it is checked whole when small, at each file's end
too when not: one segment gone is its end.
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
    file_ends: tuple[int, ...] = ()  # each file's last segment, as an index of message_ids


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


# a release no par2 volume can repair dies of any one segment gone: one this small is
# checked whole, a larger one at its files' last segments too (a take-down that cuts a
# file's end, or the last file posted), this many of them
WHOLE_WITHOUT_RECOVERY = 400
FILE_ENDS_WITHOUT_RECOVERY = 40


def sample(release: ReleaseSegments, between: int) -> list[str]:
    """The message-ids to STAT: the first segment, the last, `between` spread between;
    for a release without recovery volumes every segment when it has at most
    `WHOLE_WITHOUT_RECOVERY`, else also each file's last segment (at most
    `FILE_ENDS_WITHOUT_RECOVERY` files)."""
    ids = release.message_ids
    if release.recovery == 0 and len(ids) <= WHOLE_WITHOUT_RECOVERY:
        return list(ids)
    picks = set(spread(len(ids), between))
    if release.recovery == 0:
        ends = release.file_ends[:FILE_ENDS_WITHOUT_RECOVERY]
        picks.update(i for i in ends if 0 <= i < len(ids))
    return [ids[i] for i in sorted(picks)]
