"""`corpus check`: read every range of a corpus and report what a reader had to survive.

A group's newest range is its tail while capture fills it: `range.json` says incomplete
and lists the chunks stored so far. When every listed chunk is there and whole, with no
gap, that range is reported *growing*, which is no error. Any other incomplete range (an
older one, or a newest one with a missing, cut or absent chunk or no valid manifest) is.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, TextIO

from tqdm import tqdm

from pipelines.corpus.backbones import backbone_root, corpus_backbones
from pipelines.corpus.reader import CorpusReader, RangeInfo, RangeReport

COMPLETE, GROWING, INCOMPLETE = "complete", "growing", "incomplete"


@dataclass
class CheckSummary:
    ranges: int = 0
    complete: int = 0
    growing: int = 0  # groups' newest ranges, whole as far as they are stored
    chunks: int = 0
    lines: int = 0
    bad_lines: int = 0
    truncated: int = 0
    missing: int = 0
    seconds: float = 0.0

    @property
    def clean(self) -> bool:
        return self.complete + self.growing == self.ranges and self.bad_lines == 0


@dataclass(frozen=True)
class CheckedRange:
    report: RangeReport
    state: str  # COMPLETE, GROWING or INCOMPLETE
    stored_last: int  # the last article of the last chunk range.json lists

    def to_json(self) -> dict[str, Any]:
        return {**self.report.to_json(), "state": self.state, "stored_last": self.stored_last}


def range_state(report: RangeReport, newest: bool) -> str:
    """The one rule: only a group's newest range may be incomplete without being an error."""
    if report.complete:
        return COMPLETE
    return GROWING if newest and report.whole_so_far else INCOMPLETE


def check_corpus(
    root: str, groups: list[str] | None = None, as_json: bool = False, out: TextIO | None = None
) -> CheckSummary:
    reader = CorpusReader(root)
    summary = CheckSummary()
    started = time.perf_counter()
    chosen = groups or reader.groups()
    by_group = [reader.ranges(g) for g in chosen]  # each in article order
    infos = [(info, i == len(ranges) - 1) for ranges in by_group for i, info in enumerate(ranges)]
    bar = tqdm(total=len(infos), unit="range", desc="checking", disable=out is None or as_json)
    checked: list[CheckedRange] = []
    for info, newest in infos:
        report = RangeReport(info.ref.group, info.ref.first, info.ref.last)
        for _chunk in reader.read_range(info, report):
            bar.set_postfix(lines=summary.lines + report.lines)
        one = CheckedRange(report, range_state(report, newest), _stored_last(info))
        checked.append(one)
        _add(summary, one)
        bar.update(1)
    bar.close()
    summary.seconds = time.perf_counter() - started
    if out is not None:
        for one in checked:
            if as_json:
                out.write(json.dumps(one.to_json()) + "\n")
            else:
                out.write(_format(one) + "\n")
        if not as_json:
            out.write(_format_summary(summary) + "\n")
    return summary


def _stored_last(info: RangeInfo) -> int:
    chunks = info.manifest.chunks if info.manifest is not None else ()
    return chunks[-1].last if chunks else info.ref.first - 1


def _add(summary: CheckSummary, one: CheckedRange) -> None:
    report = one.report
    summary.ranges += 1
    summary.complete += one.state == COMPLETE
    summary.growing += one.state == GROWING
    summary.chunks += report.chunks_read
    summary.lines += report.lines
    summary.bad_lines += sum(report.bad_lines.values())
    summary.truncated += report.chunks_truncated
    summary.missing += report.chunks_missing


def _format(one: CheckedRange) -> str:
    r = one.report
    if one.state == COMPLETE:
        state = "complete"
    elif one.state == GROWING:
        stored = f"{r.first}-{one.stored_last}" if one.stored_last >= r.first else "nothing yet"
        state = f"growing (the group's tail: {stored} stored)"
    else:
        start = r.incomplete_from if r.incomplete_from is not None else one.stored_last + 1
        why = f"{r.manifest}, yet not the group's newest" if r.whole_so_far else r.manifest
        state = f"INCOMPLETE from {start} ({why})"
    bad = ", ".join(f"{k} {v}" for k, v in sorted(r.bad_lines.items())) or "none"
    text = (
        f"{r.group} {r.first}-{r.last}: {state}; chunks {r.chunks_read}/{r.chunks_listed} "
        f"(missing {r.chunks_missing}, truncated {r.chunks_truncated}); lines {r.lines:,} "
        f"(ok {r.lines_ok:,}; bad: {bad}; non-UTF-8 {r.non_utf8_lines:,})"
    )
    # the manifest's own message is in the state already
    for problem in [p for p in r.problems if p != r.manifest][:5]:
        text += f"\n    {problem}"
    return text


def _format_summary(s: CheckSummary) -> str:
    rate = s.lines / s.seconds if s.seconds else 0.0
    return (
        f"checked {s.ranges} ranges ({s.complete} complete, {s.growing} growing), "
        f"{s.chunks} chunks, {s.lines:,} lines ({s.bad_lines:,} bad), {s.truncated} truncated "
        f"and {s.missing} missing chunks in {s.seconds:.1f} s ({rate:,.0f} lines/s)"
    )


def check_backbones(
    root: str, groups: list[str] | None = None, as_json: bool = False, out: TextIO | None = None
) -> dict[str, CheckSummary]:
    """`check_corpus` over each backbone of a corpus (docs/CORPUS.md "Several backbones"),
    by backbone name ("" the unnamed one); a corpus of one unnamed backbone as before."""
    names = corpus_backbones(root)
    if names == [""]:
        return {"": check_corpus(root, groups, as_json, out)}
    summaries = {}
    for name in names:
        folder = backbone_root(root, name)
        reader = CorpusReader(folder)
        held = reader.groups() if reader.fs.isdir(reader.root) else []
        chosen = [g for g in groups if g in held] if groups else held
        if not chosen:
            continue  # nothing captured of the groups on that backbone
        if out is not None and not as_json:
            out.write(f"backbone {name or '(unnamed)'} ({folder}):\n")
        summaries[name] = check_corpus(folder, chosen, as_json, out)
    return summaries
