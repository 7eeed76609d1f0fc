"""Reading pres out of what PreDBs publish: nZEDb's daily dumps, JSON lines, CSV, and
the IRC announce lines most pre channels post.

Every reader yields `PreLine`s and counts what it could not read (`Bad`, by reason); a bad
line never stops the file and never costs a good line. Sizes are bytes (`581.0MB` is
581 MiB: scene sizes count in binary units), times are epoch seconds UTC.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# the nuke states a line can carry, as nZEDb numbers them in its dumps (`nuked` column)
NUKE_KINDS = {0: "", 1: "unnuke", 2: "nuke", 3: "modnuke", 4: "renuke", 5: "oldnuke"}
NUKED = frozenset({"nuke", "modnuke", "renuke", "oldnuke"})
_UNITS = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?B)\s*$", re.IGNORECASE)
_FILES = re.compile(r"^\s*(\d+)")
MAX_TITLE = 255  # scene rules cap a dirname far below this; longer is not a title
DUMP_FIELDS = (
    12  # title nfo size files filename nuked nukereason category predate source requestid groupname
)


@dataclass
class PreLine:
    title: str
    pre_time: int
    source: str
    category: str = ""
    size: int | None = None
    files: int | None = None
    filename: str = ""
    nuke: str = ""  # "" none, or one of NUKE_KINDS' names
    reason: str = ""
    request_id: int | None = None
    request_group: str = ""


@dataclass
class Bad:
    """Lines that could not be read, by reason."""

    counts: Counter[str] = field(default_factory=Counter)

    def add(self, reason: str) -> None:
        self.counts[reason] += 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def size_bytes(text: str | None) -> int | None:
    """`581.0MB` -> bytes; None for an empty or unreadable size (not a bad line: most
    dumps leave it out)."""
    if not text:
        return None
    m = _SIZE.match(text)
    if m is None:
        return None
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def file_count(text: str | None) -> int | None:
    """`15F`, `6x60`, `48x50MB` -> the leading count of files."""
    m = _FILES.match(text or "")
    return int(m.group(1)) if m else None


def epoch(text: str) -> int | None:
    """`2014-07-09 06:04:05`, an ISO time (UTC unless it says otherwise) or epoch digits."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return int(t.timestamp())


def good_title(title: str) -> bool:
    """A usable title: printable, no surrounding space (p2p titles may hold a space)."""
    return 0 < len(title) <= MAX_TITLE and title == title.strip() and title.isprintable()


# --- nZEDb's daily dumps ------------------------------------------------------------

_ESCAPES = {"\\": "\\", "'": "'", "t": "\t", "n": "\n", "r": "\r", "0": "\0"}


def _unquote(value: str) -> str | None:
    """A dump field: `\\N` is null, else a value in single quotes with MySQL's escapes."""
    if value == "\\N":
        return None
    if len(value) < 2 or value[0] != "'" or value[-1] != "'":
        raise ValueError("unquoted")
    body = value[1:-1]
    if "\\" not in body:
        return body
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def _fields(parts: list[str]) -> list[str | None]:
    """The fields of a dump line: without a backslash but in `\\N` (most lines), quotes
    taken away at once; else field by field (`_unquote`)."""
    if all("\\" not in p or p == "\\N" for p in parts):
        out: list[str | None] = []
        for p in parts:
            if p == "\\N":
                out.append(None)
            elif len(p) >= 2 and p[0] == "'" == p[-1]:
                out.append(p[1:-1])
            else:
                raise ValueError("unquoted")
        return out
    return [_unquote(p) for p in parts]


def dump_line(line: str, source_file: str) -> PreLine | str:
    """One dump line as a PreLine, or the reason it is bad."""
    parts = line.rstrip("\r\n").split("\t\t")
    if len(parts) != DUMP_FIELDS:
        return "fields"
    try:
        f = _fields(parts)
    except ValueError:
        return "quoting"
    title = f[0] or ""
    if not good_title(title):
        return "title"
    when = epoch(f[8] or "")
    if when is None:
        return "time"
    try:
        nuked = int(f[5] or 0)
        request = int(f[10] or 0)
    except ValueError:
        return "number"
    if nuked not in NUKE_KINDS:
        return "nuke"
    return PreLine(
        title=title,
        pre_time=when,
        source=f[9] or source_file,
        category=f[7] or "",
        size=size_bytes(f[2]),
        files=file_count(f[3]),
        filename=f[4] or "",
        nuke=NUKE_KINDS[nuked],
        reason=(f[6] or "") if nuked else "",
        request_id=request or None,
        request_group=f[11] or "",
    )


# --- JSON lines and CSV -------------------------------------------------------------

# the field names accepted, first the project's own, then what other PreDBs call them
_ALIASES = {
    "title": ("title", "name", "release", "rlsname"),
    "pre_time": ("pre_time", "time", "predate", "pretime", "unixtime"),
    "category": ("category", "section", "cat"),
    "size": ("size",),
    "files": ("files",),
    "filename": ("filename",),
    "nuke": ("nuke", "nuked", "status"),
    "reason": ("reason", "nukereason"),
    "source": ("source",),
    "request_id": ("request_id", "requestid", "reqid"),
    "request_group": ("request_group", "groupname", "group"),
}


def _field(rec: dict[str, Any], name: str) -> Any:
    for alias in _ALIASES[name]:
        if rec.get(alias) not in (None, ""):
            return rec[alias]
    return None


def record_line(rec: Any, source_file: str) -> PreLine | str:
    """A JSON object or CSV row as a PreLine, or the reason it is bad."""
    if not isinstance(rec, dict):
        return "not_object"
    title = str(_field(rec, "title") or "")
    if not good_title(title):
        return "title"
    raw_time = _field(rec, "pre_time")
    when = int(raw_time) if isinstance(raw_time, int | float) else epoch(str(raw_time or ""))
    if when is None:
        return "time"
    size = _field(rec, "size")
    nuke = _nuke(_field(rec, "nuke"))
    if nuke is None:
        return "nuke"
    request = _field(rec, "request_id")
    try:
        request_id = int(request) if request is not None else None
    except (TypeError, ValueError):
        return "number"
    return PreLine(
        title=title,
        pre_time=when,
        source=str(_field(rec, "source") or source_file),
        category=str(_field(rec, "category") or ""),
        size=int(size) if isinstance(size, int | float) else size_bytes(str(size or "")),
        files=int(f) if isinstance(f := _field(rec, "files"), int) else file_count(str(f or "")),
        filename=str(_field(rec, "filename") or ""),
        nuke=nuke or "",
        reason=str(_field(rec, "reason") or "") if nuke else "",
        request_id=request_id or None,
        request_group=str(_field(rec, "request_group") or ""),
    )


def _nuke(value: Any) -> str | None:
    """A record's nuke state: a number as in the dumps, a flag, or a word (`nuked`)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "nuke" if value else ""
    if isinstance(value, int) or str(value).isdigit():
        return NUKE_KINDS.get(int(value))
    text = str(value).lower()
    text = text[:-1] if text.endswith("nuked") else text
    return text if text in NUKE_KINDS.values() else None


# --- files --------------------------------------------------------------------------


def _text(path: Path) -> io.TextIOBase:
    raw = gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")  # noqa: SIM115 (the wrapper closes it)
    return io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline="")


def kind_of(path: Path) -> str:
    """dump | jsonl | csv, by the name (a `.gz` is read through)."""
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".json", ".ndjson")):
        return "jsonl"
    if name.endswith("_predb_dump.csv") or name.endswith(".dump"):
        return "dump"
    if name.endswith((".csv", ".tsv")):
        return "csv"
    return "dump"


def read_file(path: Path, bad: Bad) -> Iterator[PreLine]:
    """Every good pre of one file; bad lines counted into `bad`."""
    kind = kind_of(path)
    origin = path.name
    with _text(path) as fh:
        if kind == "csv":
            rows: Iterator[Any] = csv.DictReader(
                fh, dialect="excel-tab" if ".tsv" in origin else "excel"
            )
            for rec in rows:
                got = record_line({k: v for k, v in rec.items() if k is not None}, origin)
                if isinstance(got, str):
                    bad.add(got)
                else:
                    yield got
            return
        for line in fh:
            if not line.strip():
                continue
            if kind == "jsonl":
                try:
                    got = record_line(json.loads(line), origin)
                except ValueError:
                    got = "json"
            else:
                got = dump_line(line, origin)
            if isinstance(got, str):
                bad.add(got)
            else:
                yield got
