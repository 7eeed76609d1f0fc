"""`corpus check`: read every range of a corpus and report what a reader had to survive."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TextIO

from tqdm import tqdm

from pipelines.corpus.reader import CorpusReader, RangeReport


@dataclass
class CheckSummary:
    ranges: int = 0
    complete: int = 0
    chunks: int = 0
    lines: int = 0
    bad_lines: int = 0
    truncated: int = 0
    missing: int = 0
    seconds: float = 0.0

    @property
    def clean(self) -> bool:
        return self.complete == self.ranges and self.bad_lines == 0


def check_corpus(
    root: str, groups: list[str] | None = None, as_json: bool = False, out: TextIO | None = None
) -> CheckSummary:
    reader = CorpusReader(root)
    summary = CheckSummary()
    started = time.perf_counter()
    chosen = groups or reader.groups()
    infos = [info for g in chosen for info in reader.ranges(g)]
    bar = tqdm(total=len(infos), unit="range", desc="checking", disable=out is None or as_json)
    reports: list[RangeReport] = []
    for info in infos:
        report = RangeReport(info.ref.group, info.ref.first, info.ref.last)
        for _chunk in reader.read_range(info, report):
            bar.set_postfix(lines=summary.lines + report.lines)
        reports.append(report)
        _add(summary, report)
        bar.update(1)
    bar.close()
    summary.seconds = time.perf_counter() - started
    if out is not None:
        for report in reports:
            if as_json:
                out.write(json.dumps(report.to_json()) + "\n")
            else:
                out.write(_format(report) + "\n")
        if not as_json:
            out.write(_format_summary(summary) + "\n")
    return summary


def _add(summary: CheckSummary, report: RangeReport) -> None:
    summary.ranges += 1
    summary.complete += report.complete
    summary.chunks += report.chunks_read
    summary.lines += report.lines
    summary.bad_lines += sum(report.bad_lines.values())
    summary.truncated += report.chunks_truncated
    summary.missing += report.chunks_missing


def _format(r: RangeReport) -> str:
    state = "complete" if r.complete else f"INCOMPLETE from {r.incomplete_from} ({r.manifest})"
    bad = ", ".join(f"{k} {v}" for k, v in sorted(r.bad_lines.items())) or "none"
    text = (
        f"{r.group} {r.first}-{r.last}: {state}; chunks {r.chunks_read}/{r.chunks_listed} "
        f"(missing {r.chunks_missing}, truncated {r.chunks_truncated}); lines {r.lines:,} "
        f"(ok {r.lines_ok:,}; bad: {bad}; non-UTF-8 {r.non_utf8_lines:,})"
    )
    for problem in r.problems[:5]:
        text += f"\n    {problem}"
    return text


def _format_summary(s: CheckSummary) -> str:
    rate = s.lines / s.seconds if s.seconds else 0.0
    return (
        f"checked {s.ranges} ranges ({s.complete} complete), {s.chunks} chunks, "
        f"{s.lines:,} lines ({s.bad_lines:,} bad), {s.truncated} truncated and "
        f"{s.missing} missing chunks in {s.seconds:.1f} s ({rate:,.0f} lines/s)"
    )
