"""The corpus reader: a range's chunks in article order, inflated and indexed.

Everything CORPUS.md says a reader must survive is counted in the range's report and
never raised: bad lines, truncated or corrupt streams, missing chunk files, a missing
or invalid `range.json`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernels.scan import STATUS_NAMES, LineIndex, scan_chunk
from pipelines.corpus.backbones import backbone_of, is_backbone_folder
from pipelines.corpus.codec import inflate
from pipelines.corpus.fs import open_fs
from pipelines.corpus.layout import RangeRef, parse_span
from pipelines.corpus.manifest import ManifestError, RangeManifest

MAX_PROBLEMS = 50  # messages kept per report; the counts are always whole
# a valid range.json that says `complete: false`: the range is still being filled
SAYS_INCOMPLETE = "range.json says incomplete"


@dataclass(frozen=True)
class Chunk:
    """One chunk's inflated lines: one contiguous buffer, its article span and its index."""

    ref: RangeRef
    file: str
    first: int
    last: int
    data: bytes
    lines: LineIndex
    whole: bool  # the stream inflated to its end


@dataclass(frozen=True)
class RangeInfo:
    ref: RangeRef
    manifest: RangeManifest | None
    problem: str = ""  # why the range is not readable as complete

    @property
    def complete(self) -> bool:
        return self.manifest is not None and self.manifest.complete and not self.problem


@dataclass
class RangeReport:
    group: str
    first: int
    last: int
    manifest: str = "ok"
    chunks_listed: int = 0
    chunks_read: int = 0
    chunks_missing: int = 0
    chunks_truncated: int = 0
    lines: int = 0
    lines_ok: int = 0
    bad_lines: dict[str, int] = field(default_factory=dict)
    non_utf8_lines: int = 0
    compressed_bytes: int = 0
    inflated_bytes: int = 0
    incomplete_from: int | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.manifest == "ok" and self.incomplete_from is None

    @property
    def whole_so_far(self) -> bool:
        """Not complete only because range.json says so: every chunk it lists is there and
        whole, with no gap from the range's first article on (how a growing tail looks)."""
        return self.manifest == SAYS_INCOMPLETE and self.incomplete_from is None

    def note(self, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(message)

    def mark_incomplete(self, article: int) -> None:
        if self.incomplete_from is None or article < self.incomplete_from:
            self.incomplete_from = article

    def count_lines(self, index: LineIndex) -> None:
        self.lines += len(index)
        counts = np.bincount(index.status, minlength=len(STATUS_NAMES))
        self.lines_ok += int(counts[0])
        for code in range(1, len(STATUS_NAMES)):
            if counts[code]:
                name = STATUS_NAMES[code]
                self.bad_lines[name] = self.bad_lines.get(name, 0) + int(counts[code])
        self.non_utf8_lines += int(index.non_utf8.sum())

    def to_json(self) -> dict[str, Any]:
        doc = dict(self.__dict__)
        doc["complete"] = self.complete
        doc["bad_lines_total"] = sum(self.bad_lines.values())
        return doc


class CorpusReader:
    def __init__(self, root: str, storage_options: dict[str, Any] | None = None) -> None:
        self.root_url = root
        self.fs, self.root = open_fs(root, storage_options)
        self.backbone = backbone_of(self.root)

    def groups(self) -> list[str]:
        if not self.fs.isdir(self.root):
            raise FileNotFoundError(f"no corpus at {self.root_url}")
        names = [p.rsplit("/", 1)[-1] for p in self.fs.ls(self.root, detail=False)]
        return sorted(
            n
            for n in names
            if not n.startswith(".")
            and not is_backbone_folder(n)  # another backbone's corpus, not a group
            and self.fs.isdir(f"{self.root}/{n}")
        )

    def ranges(self, group: str) -> list[RangeInfo]:
        """The group's range folders in article order, each with its manifest if valid."""
        return [self._range_info(ref) for ref in self.range_refs(group)]

    def range_refs(self, group: str) -> list[RangeRef]:
        """The group's range folders in article order, without reading their manifests
        (one listing: what a caller that already knows most ranges reads first)."""
        refs = []
        for info in self.fs.ls(f"{self.root}/{group}", detail=True):
            span = parse_span(info["name"].rsplit("/", 1)[-1])
            if span is None or info.get("type") != "directory":
                continue
            refs.append(RangeRef(group, *span))
        return sorted(refs, key=lambda r: r.first)

    def range_info(self, ref: RangeRef) -> RangeInfo:
        return self._range_info(ref)

    def _range_info(self, ref: RangeRef) -> RangeInfo:
        path = ref.manifest_path(self.root)
        if not self.fs.exists(path):
            return RangeInfo(ref, None, "range.json missing")
        try:
            manifest = RangeManifest.loads(self.fs.cat_file(path))
        except ManifestError as exc:
            return RangeInfo(ref, None, f"range.json invalid: {exc}")
        if (manifest.group, manifest.first, manifest.last) != (ref.group, ref.first, ref.last):
            return RangeInfo(
                ref,
                None,
                f"range.json names {manifest.group} {manifest.first}-{manifest.last}, "
                f"not its folder {ref.group}/{ref.name}",
            )
        if manifest.backbone != self.backbone:
            # numbers of one backbone mean other articles on another: never mixed
            return RangeInfo(
                ref,
                None,
                f"range.json names backbone {manifest.backbone or '(unnamed)'}, "
                f"not its folder's {self.backbone or '(unnamed)'}",
            )
        if not manifest.complete:
            return RangeInfo(ref, manifest, SAYS_INCOMPLETE)
        return RangeInfo(ref, manifest)

    def read_range(
        self, info: RangeInfo, report: RangeReport | None = None, after: int | None = None
    ) -> Iterator[Chunk]:
        """Yield the range's chunks in article order; problems go into `report`. `after`:
        only the chunks past that article (a tail indexed before up to it)."""
        report = (
            report
            if report is not None
            else RangeReport(info.ref.group, info.ref.first, info.ref.last)
        )
        if info.manifest is None:
            report.manifest = info.problem or "range.json missing"
            report.mark_incomplete(info.ref.first)
            report.note(report.manifest)
            return
        if info.problem:
            report.manifest = info.problem
            report.note(info.problem)
        chunks = info.manifest.chunks
        expect = info.ref.first
        if after is not None:
            chunks = tuple(c for c in chunks if c.first > after)
            expect = after + 1
        report.chunks_listed = len(chunks)
        folder = info.ref.path(self.root)
        for entry in chunks:
            if entry.first != expect:
                report.note(f"articles {expect}-{entry.first - 1} are in no chunk")
                report.mark_incomplete(expect)
            expect = entry.last + 1
            path = f"{folder}/{entry.file}"
            try:
                payload = self.fs.cat_file(path)
            except FileNotFoundError:
                report.chunks_missing += 1
                report.mark_incomplete(entry.first)
                report.note(f"chunk {entry.file} is missing")
                continue
            chunk = self._chunk(info.ref, entry.file, entry.first, entry.last, payload, report)
            # neither the stream nor the chunk held here while the caller works on it and
            # the next one inflates: two chunks' buffers (~30 MB) alive at once set the
            # header pass's memory peak
            del payload
            yield chunk
            del chunk
        if expect != info.ref.last + 1 and info.manifest.complete:
            report.note(f"articles {expect}-{info.ref.last} are in no chunk")
            report.mark_incomplete(expect)

    def _chunk(
        self, ref: RangeRef, name: str, first: int, last: int, payload: bytes, report: RangeReport
    ) -> Chunk:
        inflated = inflate(payload)
        report.chunks_read += 1
        report.compressed_bytes += len(payload)
        report.inflated_bytes += len(inflated.data)
        if not inflated.complete:
            report.chunks_truncated += 1
            report.mark_incomplete(first)
            report.note(f"chunk {name}: {inflated.error}")
        index = scan_chunk(inflated.data, first, last, terminated=inflated.complete)
        report.count_lines(index)
        return Chunk(ref, name, first, last, inflated.data, index, inflated.complete)

    def complete_ranges(self, group: str) -> list[RangeInfo]:
        return [i for i in self.ranges(group) if i.complete]
