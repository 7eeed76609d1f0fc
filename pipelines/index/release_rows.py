"""The rows of `releases`, `pending_releases` and `probe_candidates`: a version of a
release as the catalog states it, and what its row is made of (its keys, groups, name,
posting tool).

`ReleaseRows.add` is the one way from a release's version to its rows: the hand-out of
objects and the block hand-out (`pipelines.index.catalog_rows`) each gather a `Version`
from what they hold and hand it here.
"""

from __future__ import annotations

import functools
import hashlib
import struct
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from kernels.xref_numbers import strip_article_numbers
from pipelines import naming
from pipelines.catalog import schema
from pipelines.index.albums import sidecar_name
from pipelines.index.parsed_chunk import SOURCE_ALBUM, SOURCE_NAMES, SOURCE_STEM
from pipelines.index.probes import Probe
from pipelines.index.release import OpenFile, OpenRelease

MAX_MEMBERS = 20
TOOLS = (b"ngpost", b"nyuu", b"powerpost", b"jbinup", b"camelsystem")


def identity_of(rel: OpenRelease) -> bytes:
    """The release identity as bytes: the poster-mixed identity hash, or an album's template."""
    if rel.source == SOURCE_ALBUM:
        return b"album:" + struct.pack(">Q", rel.poster_key) + rel.album_template
    return struct.pack(">Q", rel.ident)


def keys_of(rel: OpenRelease, group: str) -> tuple[bytes, bytes]:
    """(release_key, identity_key). An album takes its first member's release key, so the
    album's versions supersede what was written of that member on its own."""
    identity = identity_of(rel)
    keyed = rel.first_member if rel.source == SOURCE_ALBUM and rel.first_member else rel
    key = release_key(identity_of(keyed), group, keyed.first_article)
    return key, hashlib.sha1(identity).digest()


def release_key(identity: bytes, group: str, first_article: int) -> bytes:
    """SHA-1 of identity, owner group and first article: a redone range writes the same key."""
    h = hashlib.sha1(identity)
    h.update(b"\0" + group.encode() + b"\0" + str(first_article).encode())
    return h.digest()


def groups_of(xref: bytes, fallback: str) -> list[str]:
    """Group names of an Xref field (`Xref: host g:n ...`), in the order given."""
    # the article numbers make every Xref unique; the groups without them repeat
    return list(_groups_of(strip_article_numbers(xref), fallback))


def groups_of_each(xrefs: list[bytes], fallback: str) -> list[list[str]]:
    """`groups_of` of every Xref field, their article numbers cut in one kernel pass over
    them all (an Xref holds no line end, so joined by LF each one's end still ends its
    last token)."""
    joined = b"\n".join(xrefs)
    if joined.count(b"\n") != max(len(xrefs) - 1, 0):  # not from an overview line
        return [groups_of(xref, fallback) for xref in xrefs]
    stripped = strip_article_numbers(joined).split(b"\n") if xrefs else []
    memo: dict[bytes, list[str]] = {}
    out = []
    for xref in stripped:
        names = memo.get(xref)
        if names is None:
            names = memo[xref] = list(_groups_of(xref, fallback))
        out.append(names)
    return out


def one_list_each(lists: list[list[str]], starts: np.ndarray) -> np.ndarray:
    """Per run of lists (run j from starts[j] to the next start): is it one list object
    throughout?"""
    if not len(starts):
        return np.zeros(0, np.bool_)
    ids = np.fromiter(map(id, lists), np.uint64, len(lists))
    return np.minimum.reduceat(ids, starts) == np.maximum.reduceat(ids, starts)


@functools.lru_cache(maxsize=4096)
def _groups_of(xref: bytes, fallback: str) -> tuple[str, ...]:
    names = []
    for token in xref.split()[1:] if xref.lower().startswith(b"xref:") else xref.split():
        name, sep, _ = token.rpartition(b":")
        if sep and name and b"." in name:
            names.append(naming.to_text(name))
    if not names:
        names.append(fallback)
    return tuple(dict.fromkeys(names))


class Version(NamedTuple):
    """One version of a release, as its rows state it."""

    key: bytes
    identity_key: bytes
    name: str  # as `naming.usable_name` left it
    readable: bool  # a usable name: a row of releases, else of pending_releases
    poster: str
    groups: list[str]
    first_date: int
    last_date: int
    first_article: int
    last_article: int
    files: int
    file_total: int | None
    segments: int
    nbytes: int
    complete: bool
    finished: bool
    source: int
    has_par2: bool  # read when readable
    content: str  # what the files hold (`naming.content_of`), read when readable
    members: list[str] | None  # read when readable
    tool: str  # read when pending
    probes: list[Probe]


class ReleaseRows:
    """The range's rows of releases (tombstones too), pending_releases and
    probe_candidates, as lists of dicts (turned into Arrow at the end)."""

    def __init__(self, group: str, written_range: int, rules_version: str) -> None:
        self.group = group
        self.written_range = written_range
        self.rules_version = rules_version
        self.releases: list[dict[str, object]] = []
        self.pending: list[dict[str, object]] = []
        self.probes: list[dict[str, object]] = []

    def add(self, v: Version) -> dict[str, object]:
        """The version's row (in releases or pending_releases) and its probes' rows."""
        row: dict[str, object] = {
            "release_key": v.key,
            "identity_key": v.identity_key,
            "name": v.name,
            "poster": v.poster,
            "group": self.group,
            "groups": v.groups,
            "posted_first": v.first_date,
            "posted_last": v.last_date,
            "first_article": v.first_article,
            "last_article": v.last_article,
            "files": v.files,
            "file_total": v.file_total,
            "segments": v.segments,
            "bytes": v.nbytes,
            "complete": v.complete,
            "finished": v.finished,
            "written_range": self.written_range,
            "rules_version": self.rules_version,
        }
        if v.readable:
            row.update(
                readable=True,
                has_par2=v.has_par2,
                source=SOURCE_NAMES[v.source],
                category=naming.category_of(v.name, v.groups, v.content),
                members=v.members,
            )
            self.releases.append(row)
        else:
            row.update(tool=v.tool, probe_ids=[p[2] for p in v.probes])
            self.pending.append(row)
        for kind, name, message_id, segment in v.probes:
            self.probes.append(
                {
                    "release_key": v.key,
                    "kind": kind,
                    "file_name": naming.to_text(name),
                    "message_id": message_id,
                    "segment": segment,
                    "pending": not v.readable,
                    "written_range": self.written_range,
                }
            )
        return row

    def tombstone(self, member: OpenRelease, into: bytes) -> None:
        """A finished row saying a release written on its own went into another."""
        key, identity_key = keys_of(member, self.group)
        self.releases.append(
            {
                "release_key": key,
                "identity_key": identity_key,
                "group": self.group,
                "first_article": member.first_article,
                "last_article": member.last_article,
                "finished": True,
                "written_range": self.written_range,
                "rules_version": self.rules_version,
                "merged_into": into,
            }
        )

    def tables(self) -> dict[str, pa.Table]:
        return {
            "releases": _sorted(pa.Table.from_pylist(self.releases, schema.RELEASES)),
            "pending_releases": _sorted(
                pa.Table.from_pylist(self.pending, schema.PENDING_RELEASES)
            ),
            "probe_candidates": pa.Table.from_pylist(self.probes, schema.PROBE_CANDIDATES).sort_by(
                [("release_key", "ascending"), ("kind", "ascending"), ("message_id", "ascending")]
            ),
        }


def _sorted(table: pa.Table) -> pa.Table:
    return table.sort_by([("first_article", "ascending"), ("release_key", "ascending")])


def announced_total(total: int, batch_total: bool) -> int | None:
    """The file count a release's counter announces; None for none, or a batch number."""
    return total if total > 0 and not batch_total else None


def all_counted(file_index: list[int], file_total: int | None) -> bool:
    """Are all the announced files there (by their counters; each file once if none)?"""
    counted = len({i for i in file_index if i > 0}) or len(file_index)
    return file_total is None or counted >= file_total


def name_of(source: int, file_name: bytes, subject: bytes) -> str:
    """The release name its representative file gives (not an album's)."""
    if source == SOURCE_STEM:
        return naming.stem(naming.to_text(file_name)) or naming.to_text(file_name)
    return naming.display_name(subject)


def release_name(rel: OpenRelease, first: OpenFile) -> str:
    """The name a release's representative file gives, or an album's template (or, for
    tracks of several stems, their sidecars' name: `albums.sidecar_name`)."""
    if rel.source == SOURCE_ALBUM:
        return naming.to_text(rel.album_template)
    if rel.source == SOURCE_STEM and len(rel.files) > 2:
        files = rel.files
        by_sidecars = sidecar_name([f.name for f in files], [f.ext_class for f in files])
        if by_sidecars:
            return by_sidecars
    return name_of(rel.source, first.name, first.subject)


def representative(files: list[OpenFile]) -> OpenFile:
    """The file whose subject names the release: the first by file counter, else by article."""
    return min(
        files, key=lambda f: (f.file_index if f.file_index > 0 else 1 << 30, f.first_article)
    )


def tool_of(message_id: bytes, poster: bytes) -> str:
    """The posting tool a message-id or poster names, if one of TOOLS."""
    probe: bytes = message_id.lower() + b" " + poster.lower()
    for tool in TOOLS:
        if tool in probe:
            return tool.decode()
    return ""
