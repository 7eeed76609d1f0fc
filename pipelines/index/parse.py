"""One chunk's lines -> the segments the window takes, and what each rule dropped.

Order of the rules (each line is counted by the first that drops it, so the counts add
up: headers = segments kept + every rule's drops + bad lines):
bad line -> crosspost owned by another indexed group -> garbage signature ->
per-article random subject -> no yEnc part counter (text posts, hash subjects) -> a part
counter no file has (part past its total, absurd totals) -> the operator's rules (the
catalog's rule set, `pipelines/rules`: counted under each rule's id) ->
duplicate part of one file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from kernels import frontier, hashing, segment_rows, spans
from kernels import scan as sc
from kernels.grouping import file_runs
from kernels.line_fields import LineFields, line_fields
from kernels.subject import parse_subjects
from pipelines.corpus.reader import Chunk
from pipelines.index.parsed_chunk import (
    PER_SEGMENT,
    RUN_SPANS,
    SOURCE_STEM,
    SOURCE_SUBJECT,
    ParsedChunk,
)
from pipelines.index.rules import Rules
from pipelines.index.subjects import share_subjects
from pipelines.rfc2047 import decode_subjects
from pipelines.rules.hits import ChunkLines, RuleHits, apply_rules, class_reps
from pipelines.rules.matcher import RuleMatcher
from pipelines.rules.model import BUILTIN_IDS

RULE_CROSSPOST = "crosspost"
RULE_GARBAGE = "garbage_signature"
RULE_RANDOM_SUBJECT = "random_subject"
RULE_NO_COUNTER = "no_part_counter"
RULE_DUPLICATE = "duplicate_segment"
RULE_BAD_COUNTER = "bad_part_counter"
MAX_PARTS = 1_000_000  # ~700 GB at yEnc's usual 700 kB a part: no file is bigger
RULE_BAD_LINE = "bad_line"
SAMPLE_COLUMNS = ("rule", "article", "message_id", "subject", "poster")


@dataclass
class Drops:
    """Per rule (and detail, e.g. the owner group of a crosspost): lines dropped."""

    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    # the kept lines column by column (a dict a sample cost more than the texts)
    samples: dict[str, list[object]] = field(
        default_factory=lambda: {name: [] for name in SAMPLE_COLUMNS}
    )
    hits: RuleHits = field(default_factory=RuleHits)  # every operator rule's matches

    def add(self, rule: str, n: int, detail: str = "") -> None:
        if n:
            self.counts[(rule, detail)] += n

    def total(self) -> int:
        return sum(self.counts.values())

    def sampled(self) -> int:
        return len(self.samples["rule"])


@dataclass(frozen=True)
class GroupContext:
    """What parsing needs to know about the group being indexed and its peers."""

    group: str
    index: int  # the group's position in priority order
    group_hashes: np.ndarray  # uint64 hash of each indexed group's name, priority order
    groups: tuple[str, ...]
    garbage_posters: np.ndarray  # uint64 hashes of garbage posters for this group
    boilerplate: np.ndarray  # uint64 identity keys that name no release
    matcher: RuleMatcher  # the operator's rules that apply in this group


def group_context(group: str, priority: list[str], rules: Rules) -> GroupContext:
    hashes = np.array([hashing.hash_bytes(g.encode()) for g in priority], np.uint64)
    posters = [
        hashing.hash_bytes(sig.poster.encode())
        for sig in rules.garbage
        if sig.poster and sig.group in ("", group)
    ]
    samples = [s.encode("utf-8") for s in rules.boilerplate]
    offsets = np.cumsum([0, *map(len, samples)]).astype(np.int64)
    parsed = parse_subjects(np.frombuffer(b"".join(samples), np.uint8), offsets[:-1], offsets[1:])
    boilerplate = parsed.identity_key[parsed.identity_key != 0]
    return GroupContext(
        group,
        priority.index(group),
        hashes,
        tuple(priority),
        np.array(posters, np.uint64),
        np.unique(boilerplate),
        RuleMatcher(list(rules.filters), group),
    )


def parse_chunk(
    chunk: Chunk,
    ctx: GroupContext,
    rules: Rules,
    state: frontier.FrontierState,
    drops: Drops,
) -> ParsedChunk:
    """Parse, own, judge and group one chunk's lines; the frontier moves on."""
    ix = chunk.lines
    data = np.frombuffer(chunk.data, np.uint8)
    # one field's bounds a column: its own contiguous array (a 2-D `fs[rows, k]` is
    # twice the cost of a 1-D take from the column)
    fs, fe = ix.field_start, ix.field_end
    ok = ix.status == sc.OK
    all_ok = bool(ok.all())
    for code in np.unique(ix.status[~ok]):
        drops.add(RULE_BAD_LINE, int((ix.status == code).sum()), sc.STATUS_NAMES[code])

    # From hash, Date, :bytes and Xref owner of every line, in one pass over the lines
    lf = line_fields(data, fs, fe, ctx.group_hashes)
    dates, date_ok, owner = lf.date, lf.date_ok, lf.owner
    # the frontier reads every good line's date in article order, kept or not
    if all_ok:
        effective = frontier.advance(state, dates, date_ok, lf.poster)
    else:
        effective = np.zeros(len(ix), np.int64)
        effective[ok] = frontier.advance(state, dates[ok], date_ok[ok], lf.poster[ok])

    crosspost = ok & (owner >= 0) & (owner != ctx.index)
    for g in np.unique(owner[crosspost]):
        drops.add(RULE_CROSSPOST, int((owner[crosspost] == g).sum()), ctx.groups[g])
    live = ok & ~crosspost

    # ~1 % of each rule's drops kept in full: the lines whose article number falls on it
    # (the division a line only over the lines a rule dropped)
    def sample(rule: str, mask: np.ndarray) -> None:
        sample_lines(rule, np.flatnonzero(mask))

    def sample_lines(rule: str, dropped: np.ndarray) -> None:
        if rule in BUILTIN_IDS:  # a built-in's drops per day (the operator's: `hits.py`)
            drops.hits.credit(rule, effective[dropped], lf.nbytes[dropped])
        lines = dropped[ix.number[dropped] % rules.sample_every == 0]
        if not len(lines):
            return
        columns = drops.samples
        columns["rule"].extend([rule] * len(lines))
        columns["article"].extend(ix.number[lines].tolist())
        for name, k in (("message_id", sc.F_MESSAGE_ID), ("subject", sc.F_SUBJECT),
                        ("poster", sc.F_FROM)):  # fmt: skip
            columns[name].extend(_sample_texts(chunk.data, fs[lines, k], fe[lines, k]))

    sample(RULE_CROSSPOST, crosspost)

    if len(ctx.garbage_posters):
        garbage = live & np.isin(lf.poster, ctx.garbage_posters)
        drops.add(RULE_GARBAGE, int(garbage.sum()))
        sample(RULE_GARBAGE, garbage)
        live &= ~garbage

    # subjects of the lines still in play, parsed once per class (a file's lines share one)
    lrows = np.flatnonzero(live)
    subj = share_subjects(data, fs[:, sc.F_SUBJECT][lrows], fe[:, sc.F_SUBJECT][lrows])
    table, row = subj.table, subj.row

    def sample_live(rule: str, mask: np.ndarray) -> None:
        """Sample the lines of lrows under mask (no chunk-long mask made for it)."""
        sample_lines(rule, lrows[np.flatnonzero(mask)])

    random_subject = table.random_subject[row]
    drops.add(RULE_RANDOM_SUBJECT, int(random_subject.sum()))
    sample_live(RULE_RANDOM_SUBJECT, random_subject)
    in_play = ~random_subject

    part = subj.part.copy()
    part_total = subj.part_total.copy()
    # a named yEnc file without a (k/K) counter is one whole segment
    single_file = table.has_yenc & (table.name_start >= 0)
    single = in_play & (part < 0) & single_file[row]
    part[single] = 1
    part_total[single] = 1
    no_counter = in_play & (part < 0)
    drops.add(RULE_NO_COUNTER, int(no_counter.sum()))
    in_play &= ~no_counter
    # a counter no file has: part past the total, or a total no upload reaches
    bad_counter = in_play & ((part > part_total) | (part_total > MAX_PARTS))
    drops.add(RULE_BAD_COUNTER, int(bad_counter.sum()))
    sample_live(RULE_BAD_COUNTER, bad_counter)
    in_play &= ~bad_counter
    sample_live(RULE_NO_COUNTER, no_counter)

    # the release identity's part and its source, a row of the table each (a class)
    identity = table.identity_key
    by_stem = (identity == 0) | np.isin(identity, ctx.boilerplate)
    source_of = np.where(by_stem, SOURCE_STEM, SOURCE_SUBJECT).astype(np.uint8)
    # nothing but a nameless counter: the file itself is the release
    stem = table.stem_key
    ident_of = np.where(by_stem, np.where(stem != 0, stem, table.file_key), identity)
    if ctx.matcher.rules:  # the operator's rules, on the files in play (pipelines/rules)
        in_play &= ~_operator_rules(ctx, data, fs, fe, lrows, row, in_play, lf, effective,
                                    ident_of, drops, sample_live)  # fmt: skip
    pos = np.flatnonzero(in_play)  # positions in lrows
    # the chunk's lines and the subject classes as the segment rows read them
    lines = segment_rows.typed(
        segment_rows.Lines(
            poster=lf.poster,
            nbytes=lf.nbytes,
            date=effective,
            number=ix.number,
            mid_start=fs[:, sc.F_MESSAGE_ID],
            mid_end=fe[:, sc.F_MESSAGE_ID],
        )
    )
    classes = segment_rows.typed(
        segment_rows.Classes(
            file_key=table.file_key,
            ident=ident_of,
            source=source_of,
            file_index=table.file_index,
            file_total=table.file_total,
            ext_class=table.ext_class,
            volume=table.volume,
            random_name=table.random_name,
        )
    )
    live_lines = segment_rows.Live(line=lrows, cls=row, part=part, part_total=part_total)
    play = segment_rows.in_play(pos, live_lines, lines, classes)
    runs = file_runs(
        play.file_key, play.date, play.part, play.article, play.nbytes, rules.upload_gap
    )
    n_duplicates = int(runs.duplicate.sum())
    drops.add(RULE_DUPLICATE, n_duplicates)
    if n_duplicates:
        twice = runs.order[runs.duplicate]
        drops.hits.credit(RULE_DUPLICATE, play.date[twice], play.nbytes[twice])
        keep = runs.order[~runs.duplicate]
        # run bounds after the duplicates are gone
        dup_before = np.concatenate(([0], np.cumsum(runs.duplicate)))
        bounds = runs.bounds - dup_before[runs.bounds]
    else:
        keep, bounds = runs.order, runs.bounds

    kept = segment_rows.kept(keep, play, lines, classes)
    sel = kept.line
    mid_data, mid_offsets = spans.gather_stripped(data, kept.mid_start, kept.mid_end)
    message_id = pa.Array.from_buffers(
        pa.binary(),
        len(sel),
        [None, pa.py_buffer(mid_offsets.astype(np.int32)), pa.py_buffer(mid_data)],
    )
    firsts = sel[bounds[:-1]] if len(sel) else sel
    frow = kept.cls[bounds[:-1]] if len(sel) else kept.cls
    # each run's texts from its first line, the four columns gathered and split at once
    subjects = decode_subjects(data, fs[:, sc.F_SUBJECT][firsts], fe[:, sc.F_SUBJECT][firsts])
    run_subject, run_poster, run_name, run_xref = spans.gather_texts(
        [
            subjects,
            (data, fs[:, sc.F_FROM][firsts], fe[:, sc.F_FROM][firsts]),
            (subj.buf, table.name_start[frow], table.name_end[frow]),  # -1: no name
            (data, fs[:, sc.F_XREF][firsts], fe[:, sc.F_XREF][firsts]),
        ]
    )
    # the kept rows' columns and the runs' spans carry the chunk's names (but `poster`)
    segments = {name: getattr(kept, name) for name in PER_SEGMENT if name != "poster_key"}
    spans_of_runs = {f"run_{name}": getattr(runs, name) for name in RUN_SPANS}
    return ParsedChunk(
        bounds=bounds,
        poster_key=kept.poster,
        **segments,
        message_id=message_id,
        **spans_of_runs,
        run_subject=run_subject,
        run_poster=run_poster,
        run_name=run_name,
        run_xref=run_xref,
    )


def _operator_rules(
    ctx: GroupContext,
    data: np.ndarray,
    fs: np.ndarray,
    fe: np.ndarray,
    lrows: np.ndarray,
    row: np.ndarray,
    in_play: np.ndarray,
    lf: LineFields,
    effective: np.ndarray,
    ident_of: np.ndarray,
    drops: Drops,
    sample_live: Callable[[str, np.ndarray], None],
) -> np.ndarray:
    """The lines in play (positions in lrows) an operator rule dropped, counted and
    sampled under the rule's id."""
    at = np.flatnonzero(in_play)
    line = lrows[at]
    lines = ChunkLines(line, row[at], lf.poster[line], effective[line], lf.nbytes[line],
                       ident_of[row[at]], class_reps(row, lrows))  # fmt: skip
    verdict = apply_rules(
        ctx.matcher,
        data,
        (fs[:, sc.F_SUBJECT], fe[:, sc.F_SUBJECT]),
        (fs[:, sc.F_FROM], fe[:, sc.F_FROM]),
        (fs[:, sc.F_MESSAGE_ID], fe[:, sc.F_MESSAGE_ID]),
        lines,
        drops.hits,
    )
    dropped = np.zeros(len(in_play), bool)
    if verdict is None:
        return dropped
    for rule, mask in verdict.by_rule.items():
        lost = np.zeros(len(in_play), bool)
        lost[at[mask]] = True
        drops.add(rule, int(mask.sum()))
        sample_live(rule, lost)
        dropped |= lost
    return dropped


def _sample_texts(data: bytes, start: np.ndarray, end: np.ndarray) -> list[str]:
    spans = zip(start.tolist(), end.tolist(), strict=True)
    return [data[a:z].decode("utf-8", "replace") for a, z in spans]
