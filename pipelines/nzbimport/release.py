"""An NZB document as a release's catalog rows, the way the header pass states a release.

The files' subjects go through the header pass's own subject parsing
(`pipelines.index.subjects.parse_shared`: RFC 2047, then the subject kernel), so a file's
name, its `[i/N]` and `(k/K)` counters and its kind are what the header pass would have
read from the same subject. Entries of one file (the same subject but for its part
counter) collapse into one, their segments deduplicated by part number; a message-id
listed twice counts once.

The release's name: the NZB's `<meta type="title">` (or `name`), else the NZB's file name,
else its subjects (the header pass's display name of the first file). Its category: the
`<meta type="category">` when it names a Newznab category, else the name's, as the header
pass finds it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from kernels.names import PAR2_INDEX, PAR2_VOL
from kernels.subject import SubjectFields
from pipelines import naming
from pipelines.index.release_rows import all_counted, release_key
from pipelines.index.subjects import parse_shared
from pipelines.nzb.categories import CATEGORIES
from pipelines.nzbimport.document import NzbDocument, NzbFile, NzbSegment

SOURCE = "nzb"  # releases.source of an imported release
RULES_VERSION = "nzb-import-1"
# the short group prefixes posters and tools write (`a.b.teevee`)
_SHORT_PREFIXES = (("a.b.", "alt.binaries."), ("ab.", "alt.binaries."))


@dataclass
class ImportedRelease:
    """A release's rows before the store places it (its article number, written_range)."""

    key: bytes
    group: str  # the owner group
    release: dict[str, object]  # a row of `releases` less first/last_article, written_range
    files: list[dict[str, object]]  # rows of `release_files` less written_range
    message_ids: list[str]  # distinct, sorted

    @property
    def segments(self) -> int:
        return int(self.release["segments"])  # type: ignore[call-overload]


def normalise_group(name: str) -> str:
    """`A.B.TeeVee ` -> `alt.binaries.teevee`; any other name lower-cased, kept."""
    g = name.strip().lower()
    for short, full in _SHORT_PREFIXES:
        if g.startswith(short):
            return full + g[len(short) :]
    return g


@dataclass
class _File:
    subject: str
    poster: str
    date: int
    groups: list[str]
    segments: dict[int, NzbSegment]  # part number -> the first entry of it


def build_release(
    doc: NzbDocument,
    file_name: str,
    now: int,
    known_groups: frozenset[str] = frozenset(),
    title: str | None = None,
) -> ImportedRelease | None:
    """The release of an NZB (None when no file has a segment). `file_name` is the NZB's
    (for its name when it has no title); `title`: what its source calls it when the NZB
    does not (a spot's title), before the file name; `now` dates files with no date; the
    owner group is the first of the NZB's groups the catalog knows (`known_groups`), else
    the first."""
    entries = [f for f in doc.files if f.segments]
    parsed = _parse([f.subject.encode("utf-8", "surrogateescape") for f in entries])
    kept = _collapse(entries, parsed.fields.file_key, now)
    if not kept:
        return None
    files = [f for _, f in kept]
    subjects = [f.subject.encode("utf-8", "surrogateescape") for f in files]
    fields = _Rows(parsed, [i for i, _ in kept])
    ordered = list(range(len(files)))
    ordered.sort(key=lambda i: (_index(int(fields.file_index[i])), files[i].date, subjects[i]))
    names = [_file_name(fields, i, subjects[i]) for i in range(len(files))]
    groups = list(dict.fromkeys(g for f in files for g in f.groups)) or ["alt.binaries.misc"]
    owner = next((g for g in groups if g in known_groups), groups[0])
    ids = sorted({s.message_id for f in files for s in f.segments.values()})
    # the key is the content: the same NZB (whatever its file name or owner) has one key
    key = release_key(b"nzb:" + hashlib.sha1("\n".join(ids).encode()).digest(), SOURCE, 0)
    rep = ordered[0]
    sizes = [sum(s.nbytes for s in f.segments.values()) for f in files]
    ext = [int(c) for c in fields.ext_class]
    name = _release_name(doc, title or file_name, subjects[rep], bool(title))
    totals = [int(t) for t in fields.file_total if t > 0]
    file_total = max(totals) if totals else None
    indexes = [int(i) for i in fields.file_index]
    short = any(
        fields.part_total[i] > 0 and len(files[i].segments) < fields.part_total[i]
        for i in range(len(files))
    )
    release: dict[str, object] = {
        "release_key": key,
        "identity_key": hashlib.sha1(b"nzb-name:" + name.lower().encode()).digest(),
        "name": name,
        "poster": files[rep].poster,
        "group": owner,
        "groups": groups,
        "posted_first": min(f.date for f in files),
        "posted_last": max(f.date for f in files),
        "files": len(files),
        "file_total": file_total,
        "segments": sum(len(f.segments) for f in files),
        "bytes": sum(sizes),
        "complete": all_counted(indexes, file_total) and not short,
        "readable": True,
        "has_par2": any(c in (PAR2_INDEX, PAR2_VOL) for c in ext),
        "source": SOURCE,
        "category": _category(doc, name, groups, ext, sizes, names),
        "finished": True,
        "members": None,
        "rules_version": RULES_VERSION,
    }
    rows = [_file_row(key, files[i], names[i], fields, i, sizes[i]) for i in ordered]
    rows.sort(key=lambda r: str(r["name"]))
    return ImportedRelease(key, owner, release, rows, ids)


def _collapse(entries: list[NzbFile], file_keys: np.ndarray, now: int) -> list[tuple[int, _File]]:
    """The files (with the entry each first appeared as), entries of one file (the
    parser's file key: the subject less its part counter) joined, a part number or a
    message-id of a file once (another file may list the same article: its own entry)."""
    by_key: dict[object, tuple[int, _File]] = {}
    seen: dict[object, set[str]] = {}
    for i, f in enumerate(entries):
        file_key = int(file_keys[i]) or f.subject
        if file_key not in by_key:
            groups = list(dict.fromkeys(normalise_group(g) for g in f.groups if g.strip()))
            by_key[file_key] = (i, _File(f.subject, f.poster, f.date or now, groups, {}))
        kept = by_key[file_key][1]
        ids = seen.setdefault(file_key, set())
        for s in f.segments:
            if s.message_id in ids or s.number in kept.segments:
                continue
            ids.add(s.message_id)
            kept.segments[s.number] = s
    return [(i, f) for i, f in by_key.values() if f.segments]


class _Parsed(NamedTuple):
    buf: np.ndarray
    fields: SubjectFields


def _parse(subjects: list[bytes]) -> _Parsed:
    data = np.frombuffer(b"".join(subjects), np.uint8)
    lengths = np.array([len(s) for s in subjects], np.int64)
    end = np.cumsum(lengths)
    buf, fields = parse_shared(data, end - lengths, end)
    return _Parsed(buf, fields)


class _Rows:
    """The parsed fields of the kept entries, a file a row."""

    def __init__(self, parsed: _Parsed, rows: list[int]) -> None:
        take = np.array(rows, np.int64)
        f = parsed.fields
        self.buf = parsed.buf
        self.file_index = f.file_index[take]
        self.file_total = f.file_total[take]
        self.part_total = f.part_total[take]
        self.ext_class = f.ext_class[take]
        self.name_start = f.name_start[take]
        self.name_end = f.name_end[take]


def _index(i: int) -> int:
    return int(i) if i > 0 else 1 << 30


def _file_name(fields: _Rows, i: int, subject: bytes) -> str:
    a, b = int(fields.name_start[i]), int(fields.name_end[i])
    if a >= 0:
        name = naming.to_text(fields.buf[a:b].tobytes()).strip()
        if name:
            return name
    return naming.to_text(subject).strip()


def _release_name(doc: NzbDocument, file_name: str, subject: bytes, titled: bool) -> str:
    for kind in ("title", "name"):
        if doc.meta.get(kind):
            return doc.meta[kind]
    if titled:
        return file_name.strip() or naming.display_name(subject)
    stem = file_name.rsplit("/", 1)[-1]
    for suffix in (".gz", ".nzb"):
        stem = stem[: -len(suffix)] if stem.lower().endswith(suffix) else stem
    return stem.strip() or naming.display_name(subject)


def category_id(text: str) -> int | None:
    """A Newznab category from an NZB's category meta: an id (`5040`), or a name as
    indexers write it (`TV > HD`, `TV/HD`, `tv`; `Apps` for PC); None when it names none."""
    t = text.strip()
    if t.isdigit():
        return int(t) if int(t) in CATEGORIES else None
    words = [w.strip().lower() for w in re.split(r"\s*[>/:|-]\s*", t) if w.strip()]
    aliases = {"apps": "pc", "applications": "pc", "music": "audio", "movie": "movies",
               "ebook": "books", "ebooks": "books", "games": "pc"}  # fmt: skip
    if not words:
        return None
    words[0] = aliases.get(words[0], words[0])
    by_name = {v.lower(): k for k, v in CATEGORIES.items()}
    return by_name.get("/".join(words)) or by_name.get(words[0])


def _category(
    doc: NzbDocument, name: str, groups: list[str], ext: list[int], sizes: list[int],
    names: list[str],
) -> int:  # fmt: skip
    stated = category_id(doc.meta.get("category", ""))
    if stated is not None:
        return stated
    content = naming.content_of(ext, sizes, [n.encode("utf-8", "surrogateescape") for n in names])
    return naming.category_of(name, groups, content)


def _file_row(
    key: bytes, f: _File, name: str, fields: _Rows, i: int, nbytes: int
) -> dict[str, object]:
    numbers = sorted(f.segments)
    total = int(fields.part_total[i])
    return {
        "release_key": key,
        "name": name,
        "subject": f.subject,
        "poster": f.poster,
        "date": f.date,
        "groups": f.groups,
        "file_index": int(fields.file_index[i]) if fields.file_index[i] > 0 else None,
        "part_total": total if total > 0 else numbers[-1],
        "bytes": nbytes,
        "seg_numbers": numbers,
        "seg_bytes": [f.segments[n].nbytes for n in numbers],
        "seg_ids": [f.segments[n].message_id for n in numbers],
    }
