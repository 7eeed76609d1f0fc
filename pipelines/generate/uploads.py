"""Posting one upload: its files' segments into the segment table, its truth row back.

An upload is posted file after file, segment after segment, over its duration; several
connections make neighbouring segments arrive out of order (a jitter of a few
positions before the table is sorted by time). Damage drops whole files or segments:
what was never posted is in neither the corpus nor the truth's message-ids.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from pipelines.generate.files import ReleaseSpec
from pipelines.generate.segments import HEADER_BYTES, SegmentTable, Source
from pipelines.generate.subjects import (
    Style,
    encoded_word_b,
    encoded_word_q,
    encoded_words_b,
    on_wire,
    size_text,
    split_template,
)
from pipelines.generate.tools import MessageIds, Poster

# How a subject carries non-ASCII text or hides its counter.
ENCODINGS = ("plain", "rfc2047_b", "rfc2047_q", "rfc2047_hidden", "latin1", "utf8")


@dataclass
class PostedFile:
    name: str
    part_total: int
    message_ids: list[str]  # in part order, only segments actually posted
    # what the bodies need (pipelines.generate.contents): not in the truth table
    size: int = 0  # the file's bytes
    part_size: int = 0  # the poster's article size: every part's bytes but the last's
    first_part: int = 1  # the first and last part posted (damage may drop either)
    last_part: int = 1


@dataclass
class Upload:
    upload_id: int
    kind: str
    category: str
    style: str
    encoding: str
    name: str
    poster: str
    groups: tuple[int, ...]
    files: list[PostedFile]
    file_total: int | None
    complete: bool
    readable: bool
    pending: bool
    repost_of: int | None
    posted_first: int
    posted_last: int
    spec: ReleaseSpec | None = None  # kept so a repost can post the same files
    # the real mix's subject shape (pipelines.generate.shapes): "classic" for today's
    family: str = "classic"
    group_kind: str = ""  # the kind of group the shape comes from; "" for classic
    expected_name: str | None = None  # shaped uploads: the name a person expects, or none
    # split and junk uploads (GenerateConfig.split_and_junk, pipelines.generate.junk)
    split_by: str | None = None  # per_file | tracks | sidecar: how the header pass splits it
    apart: tuple[str, ...] = ()  # files posted apart, outside its par2 set (sidecars)
    fake: str | None = None  # exe | archive | media: a media name over a program
    repeat_of: int | None = None  # the first upload of a family posting the same media file
    taken_down: str | None = None  # all | some: its articles gone from the server
    nameless: bool = False  # obfuscated with no name inside (par2, listing): unusable
    gone: list[str] = field(default_factory=list)  # the message-ids taken down
    # tool obfuscation (GenerateConfig.tool_obfuscation, pipelines.generate.obfuscation):
    # the family, and the extension of the real file behind a lone random name ("": none)
    obfuscation: str | None = None
    real_ext: str = ""
    # a pre's upload (GenerateConfig.pres, pipelines.generate.pres) obfuscated with its
    # title only inside: the real name its bodies carry
    pre_title: str | None = None

    @property
    def articles(self) -> int:
        return sum(len(f.message_ids) for f in self.files)


@dataclass
class Plan:
    """How one release is posted: by whom, where, when, in what subject style."""

    poster: Poster
    sender: str
    style: Style
    groups: tuple[int, ...]
    start: float
    duration: float
    connections: int = 4
    encoding: str = "plain"
    subject_name: str = ""  # the name as the subject shows it, when not the release name
    missing_files: int = 0
    missing_segments: float = 0.0  # share of segments lost in the damaged files
    nzb_first: bool = False  # an `.nzb` of the set posted first as file 0: `[00/27]`
    announce: int | None = None  # the counter's total when not the files posted (sidecars)
    extra: dict[str, str] = field(default_factory=dict)  # template fields: post, board


class UploadWriter:
    def __init__(
        self, table: SegmentTable, ids: MessageIds, rng: random.Random, nprng: np.random.Generator
    ) -> None:
        self.table = table
        self.ids = ids
        self.rng = rng
        self.nprng = nprng

    def source(self, plan: Plan) -> int:
        p = plan.poster
        return self.table.add_source(Source(plan.sender, p.date_style, p.skew, plan.groups))

    def post_release(
        self, upload_id: int, spec: ReleaseSpec, plan: Plan, repost_of: int | None = None
    ) -> Upload:
        """Post every file of a release at once: numpy over all its segments, Python per file
        only for the subject's head and tail."""
        size = plan.poster.article_size
        posted = list(spec.files)
        nzb = plan.nzb_first and plan.style.has_counter
        if nzb:  # numbered 0: not counted in the file total
            posted.insert(0, (f"{spec.name}.nzb", 5_000 + len(spec.files) * 1_500))
        sizes = np.array([s for _, s in posted], dtype=np.int64)
        totals = np.maximum(1, -(-sizes // size))
        n_files = len(posted)
        announced = n_files - 1 if nzb else n_files
        if plan.announce is not None:
            announced = plan.announce
        times = self.schedule(plan.start, plan.duration, int(totals.sum()), plan.connections)
        keep = self._kept(totals, plan)
        # per segment: its file, its part number (1-based), only those posted
        file_of = np.repeat(np.arange(n_files), totals)[keep]
        part = (np.arange(len(keep)) - np.repeat(np.cumsum(totals) - totals, totals) + 1)[keep]
        times = times[keep]
        shown = plan.subject_name or spec.name
        heads, tails = self._subject_parts(plan, shown, spec, posted, totals, nzb, announced)
        file_list, part_list = file_of.tolist(), part.tolist()
        if plan.encoding == "rfc2047_hidden":  # the whole subject, counter included, encoded
            subjects = self._hidden_subjects(heads, tails, file_list, part_list)
        else:
            # rows are grouped by file: one comprehension a file, head and tail held in locals
            bounds = np.searchsorted(file_of, np.arange(n_files + 1)).tolist()
            subjects = []
            for f in range(n_files):
                head, tail = heads[f], tails[f]
                subjects += [f"{head}{k}{tail}" for k in part_list[bounds[f] : bounds[f + 1]]]
        numbers = [i if nzb else i + 1 for i in range(n_files)]
        message_ids = self.ids.for_upload(
            plan.poster, file_of, part, totals, times, numbers, announced
        )
        raw = np.full(len(part), size, dtype=np.int64)
        last = part == totals[file_of]
        raw[last] = (sizes - size * (totals - 1))[file_of[last]]
        overhead = np.array([len(h) + len(t) for h, t in zip(heads, tails, strict=True)])
        overhead += HEADER_BYTES + len(plan.sender) + 50
        self.table.add(self.source(plan), times, subjects, message_ids, raw, overhead[file_of])
        counts = np.bincount(file_of, minlength=n_files).tolist()
        files: list[PostedFile] = []
        start = 0
        for (file_name, file_size), total, count in zip(
            posted, totals.tolist(), counts, strict=True
        ):
            if count:  # a file with no segment posted is missing, not empty
                ids = message_ids[start : start + count]
                parts = (part_list[start], part_list[start + count - 1])
                files.append(PostedFile(file_name, total, ids, file_size, size, *parts))
                start += count
        # complete as headers can tell: a missing file shows only against a file counter
        complete = all(len(f.message_ids) == f.part_total for f in files) and (
            len(files) == n_files or not plan.style.has_counter
        )
        first, last_time = float(times.min()), float(times.max())
        return Upload(
            upload_id=upload_id,
            kind=spec.kind,
            category=spec.category,
            style=plan.style.name,
            encoding=plan.encoding,
            name=shown,
            poster=plan.sender,
            groups=plan.groups,
            files=files,
            file_total=announced if plan.style.has_counter else None,
            complete=complete,
            readable=spec.kind != "obfuscated",
            pending=spec.kind == "obfuscated",
            repost_of=repost_of,
            posted_first=int(first),
            posted_last=int(last_time),
            spec=spec,
        )

    def _kept(self, totals: np.ndarray, plan: Plan) -> np.ndarray:
        """Which segments get posted: missing files lose all, damaged files a few."""
        n_files = len(totals)
        starts = (np.cumsum(totals) - totals).tolist()
        keep = np.ones(int(totals.sum()), dtype=bool)
        missing = self._missing_files(n_files, plan.missing_files)
        for i in sorted(missing):
            keep[starts[i] : starts[i] + int(totals[i])] = False
        damaged = self._damaged_files(totals.tolist(), missing, plan.missing_segments)
        for i, loss in damaged.items():
            kept = self._kept_parts(int(totals[i]), loss)
            block = np.zeros(int(totals[i]), dtype=bool)
            block[kept - 1] = True
            keep[starts[i] : starts[i] + int(totals[i])] = block
        return keep

    def _subject_parts(
        self,
        plan: Plan,
        shown: str,
        spec: ReleaseSpec,
        posted: list[tuple[str, int]],
        totals: np.ndarray,
        nzb: bool,
        announced: int,
    ) -> tuple[list[str], list[str]]:
        """Each file's subject around its segment number, on the wire (but for hidden)."""
        encode = {"rfc2047_b": encoded_word_b, "rfc2047_q": encoded_word_q}.get(plan.encoding)
        name_text = encode(shown) if encode else shown
        extra = dict(plan.extra)
        extra["size"] = size_text(sum(s for _, s in spec.files), plan.poster.decimal_comma)
        heads, tails = [], []
        for index, ((file_name, file_size), total) in enumerate(
            zip(posted, totals.tolist(), strict=True)
        ):
            extra["fsize"] = str(file_size)
            number = index if nzb else index + 1
            head, tail = split_template(
                plan.style, name_text, file_name, number, announced, total, extra
            )
            if plan.encoding != "rfc2047_hidden":
                head, tail = on_wire(head, plan.encoding), on_wire(tail, plan.encoding)
            heads.append(head)
            tails.append(tail)
        return heads, tails

    @staticmethod
    def _hidden_subjects(
        heads: list[str], tails: list[str], file_list: list[int], part_list: list[int]
    ) -> list[str]:
        subjects: list[str] = []
        start = 0
        while start < len(file_list):  # one run of segments a file
            f = file_list[start]
            end = start
            while end < len(file_list) and file_list[end] == f:
                end += 1
            subjects += encoded_words_b(heads[f], part_list[start:end], tails[f])
            start = end
        return subjects

    def schedule(self, start: float, duration: float, n: int, connections: int) -> np.ndarray:
        """Posting times of n segments in posting order, jittered over a few positions."""
        jitter = self.nprng.uniform(0.0, float(connections), size=n)
        return start + duration * (np.arange(n) + jitter) / max(n + connections, 1)

    def post_file(
        self,
        src: int,
        plan: Plan,
        head: str,
        tail: str,
        parts: np.ndarray,
        part_total: int,
        times: np.ndarray,
        file_size: int,
        counter: tuple[int, int] = (1, 1),
    ) -> list[str]:
        """Add the posted segments of one file to the table; parts are 1-based, ascending.

        Returns the segments' message-ids in part order.
        """
        ks = parts.tolist()
        if plan.encoding == "rfc2047_hidden":  # the whole subject, counter included, encoded
            subjects = encoded_words_b(head, ks, tail)
        else:
            head, tail = on_wire(head, plan.encoding), on_wire(tail, plan.encoding)
            subjects = [f"{head}{k}{tail}" for k in ks]
        poster = plan.poster
        message_ids = self.ids.for_file(poster, parts, part_total, times, *counter)
        raw = np.full(len(parts), poster.article_size, dtype=np.int64)
        raw[parts == part_total] = file_size - poster.article_size * (part_total - 1)
        overhead = HEADER_BYTES + len(head) + len(tail) + len(plan.sender) + 50
        self.table.add(src, times, subjects, message_ids, raw, overhead)
        return message_ids

    def _missing_files(self, n_files: int, count: int) -> set[int]:
        if count <= 0 or n_files < 3:
            return set()
        return set(self.rng.sample(range(1, n_files), min(count, n_files - 2)))

    def _damaged_files(
        self, totals: list[int], missing: set[int], share: float
    ) -> dict[int, float]:
        if share <= 0:
            return {}
        # a one-segment file cannot lose a segment and stay a file: damage the others
        candidates = [i for i, t in enumerate(totals) if i not in missing and t > 1]
        chosen = self.rng.sample(candidates, min(len(candidates), self.rng.randint(1, 3)))
        return {i: share for i in chosen}

    def _kept_parts(self, total: int, loss: float) -> np.ndarray:
        parts = np.arange(1, total + 1)
        if loss <= 0 or total < 2:
            return parts
        lost = self.nprng.random(total) < loss
        if not lost.any():  # damage always shows: at least one segment goes
            lost[self.rng.randrange(total)] = True
        if lost.all():  # a file with no segment left would be a missing file instead
            lost[0] = False
        return parts[~lost]
