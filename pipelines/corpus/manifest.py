"""`range.json`: the manifest of one stored range (CORPUS.md), parsed strictly."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


class ManifestError(ValueError):
    """A range.json that is not valid JSON or does not follow the contract."""


@dataclass(frozen=True)
class ChunkEntry:
    file: str
    first: int
    last: int
    lines: int
    bytes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "first": self.first,
            "last": self.last,
            "lines": self.lines,
            "bytes": self.bytes,
        }


def chunks_cover(first: int, last: int, chunks: Iterable[ChunkEntry]) -> bool:
    """Whether the chunks, in order, cover articles first..last with neither gap nor overlap."""
    expect = first
    for c in chunks:
        if c.first != expect:
            return False
        expect = c.last + 1
    return expect == last + 1


@dataclass(frozen=True)
class RangeManifest:
    group: str
    first: int
    last: int
    complete: bool
    chunks: tuple[ChunkEntry, ...]
    filtered: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def backbone(self) -> str:
        """The backbone the range was captured from; "" for the unnamed one (backbones.py)."""
        name = self.extra.get("backbone", "")
        return name if isinstance(name, str) else ""

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "group": self.group,
            "first": self.first,
            "last": self.last,
            "complete": self.complete,
            "filtered": self.filtered,
            "chunks": [c.to_json() for c in self.chunks],
        }
        doc.update(self.extra)
        return doc

    def dumps(self) -> bytes:
        return (json.dumps(self.to_json(), indent=1) + "\n").encode()

    @classmethod
    def loads(cls, raw: bytes | str) -> RangeManifest:
        try:
            doc = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ManifestError(f"range.json is not JSON: {exc}") from exc
        if not isinstance(doc, dict):
            raise ManifestError("range.json is not an object")
        try:
            group = _typed(doc, "group", str)
            first = _typed(doc, "first", int)
            last = _typed(doc, "last", int)
            complete = _typed(doc, "complete", bool)
            chunks_raw = _typed(doc, "chunks", list)
        except KeyError as exc:
            raise ManifestError(f"range.json lacks {exc}") from None
        if first > last:
            raise ManifestError(f"range.json first {first} > last {last}")
        chunks = tuple(_chunk(c) for c in chunks_raw)
        prev_last = first - 1
        for c in chunks:
            if c.first <= prev_last or c.last > last:
                raise ManifestError(
                    f"range.json chunk {c.file} ({c.first}-{c.last}) is out of order "
                    f"or outside {first}-{last}"
                )
            prev_last = c.last
        known = {"group", "first", "last", "complete", "filtered", "chunks"}
        extra = {k: v for k, v in doc.items() if k not in known}
        return cls(group, first, last, complete, chunks, bool(doc.get("filtered")), extra)


def _typed(doc: dict[str, Any], key: str, kind: type) -> Any:
    value = doc[key]
    # bool is an int in Python: keep numbers and flags apart.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ManifestError(f"range.json {key!r} is not {kind.__name__}: {value!r}")
    return value


def _chunk(raw: Any) -> ChunkEntry:
    if not isinstance(raw, dict):
        raise ManifestError(f"range.json chunk is not an object: {raw!r}")
    try:
        entry = ChunkEntry(
            file=_typed(raw, "file", str),
            first=_typed(raw, "first", int),
            last=_typed(raw, "last", int),
            lines=int(raw.get("lines", 0)),
            bytes=int(raw.get("bytes", 0)),
        )
    except KeyError as exc:
        raise ManifestError(f"range.json chunk lacks {exc}") from None
    except (TypeError, ValueError) as exc:
        raise ManifestError(f"range.json chunk {raw!r}: {exc}") from None
    if "/" in entry.file or entry.file in ("", ".", ".."):
        raise ManifestError(f"range.json chunk file name {entry.file!r} is not a plain name")
    if entry.first > entry.last:
        raise ManifestError(f"range.json chunk {entry.file} first > last")
    return entry
