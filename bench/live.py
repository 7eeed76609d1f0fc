"""The live bench: how soon a new upload answers a search, and what following costs.

A generated group with bodies (split and junk: obfuscated, split, fake,
passworded and taken-down uploads) is served by `serve-nntp --grow --gone`: its articles
become visible at a set rate, as a group being posted to, a share of them there from the
start (history), the taken-down ones answering 430. `usenet-indexer live` runs against it
with its defaults (every stage, a cycle a minute) and serves the catalog; this process
knows when each article became visible (the growth's start and rate) and, every two
seconds, searches (`t=search&q=`) for each upload whose last article is visible and that
has not answered yet:
- a readable upload by the name a batch replay gives it, until its release answers;
- a nameable obfuscated upload by its real name (the truth's hidden name), until its
  pending release answers under it (the article pass named it); one still open where
  the group ends (provisional in a batch replay too: no later post closes the window on
  it) is counted apart, not followed.
An upload's *delay* is from its last article's visibility to the answer; one that answered
before that, while still provisional, counts 0. Which release holds an upload: a batch
replay of the same corpus, by its message-ids. The fake, dead and locked uploads are
searched for too once the run settles: none should answer.

It also reads the live process's CPU (user + system, from /proc): per 100 k lines
captured (every stage: the article pass, merges, health and the judge run in it), while
idle between cycles, and up to its first cycle (the start-up: the history there at the
start, captured and indexed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.served import stop
from pipelines.nntpserver.ports import free_port, wait_port

POLL = 2.0  # seconds between searches for the uploads not found yet
JUNK = ("fake", "dead", "locked")  # verdicts that hide an upload
# an obfuscated upload still open where the group ends (its pending release provisional in
# a batch replay too: the article pass climbs finished releases only): not followed
OPEN = "open"


@dataclass(frozen=True)
class Upload:
    """One upload the bench follows: how it is searched for and which releases hold it."""

    kind: str  # "readable", "obfuscated" (nameable) or one of JUNK
    query: str  # the name searched for
    keys: frozenset[bytes]  # its releases in a batch replay (pending ones for obfuscated)
    last: int  # its last article


@dataclass
class Delays:
    uploads: int = 0
    delays: list[float] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def text(self, what: str, goal: float) -> str:
        if not self.uploads:
            return f"{what}: none in this group"
        d = np.array(self.delays) if self.delays else np.zeros(1)
        line = (
            f"{what}: {len(self.delays)} of {self.uploads} answered; delay from the last "
            f"article: p50 {np.percentile(d, 50):.1f} s, p95 {np.percentile(d, 95):.1f} s "
            f"(goal <= {goal:.0f} s), max {d.max():.1f} s"
        )
        if self.missing:
            line += f"; never answered: {len(self.missing)} ({', '.join(self.missing[:3])})"
        return line


@dataclass
class LiveFigures:
    interval: float
    rate: float
    readable: Delays = field(default_factory=Delays)
    obfuscated: Delays = field(default_factory=Delays)
    still_open: int = 0  # nameable obfuscated uploads open where the group ends
    junk: int = 0  # fake, dead and locked uploads followed
    junk_seen: int = 0  # of them, answered at some point before the run settled
    junk_answering: list[str] = field(default_factory=list)  # still answering, settled
    lines_captured: int = 0
    cpu_seconds: float = 0.0
    startup_seconds: float = 0.0
    startup_cpu: float = 0.0
    idle_cpu_share: float = 0.0
    stage_lines: list[str] = field(default_factory=list)  # live's summary, by stage

    def text(self) -> str:
        per_100k = self.cpu_seconds / max(self.lines_captured, 1) * 100_000
        answering = ", ".join(self.junk_answering[:3])
        lines = [
            f"articles visible at {self.rate:,.0f}/s, live cycles every {self.interval:.0f} s",
            self.readable.text("readable uploads by name", 120),
            self.obfuscated.text("nameable obfuscated uploads by their real name", 300)
            + f" ({self.still_open} more still open where the group ends: not followed)",
            f"fake, dead and locked uploads: {self.junk} ({self.junk_seen} answered while "
            f"posted); still answering once settled: {len(self.junk_answering)}"
            + (f" ({answering})" if answering else ""),
            f"live process CPU (every stage): {self.cpu_seconds:.1f} s for "
            f"{self.lines_captured:,} lines captured = {per_100k:.2f} CPU-s per 100 k new "
            f"lines; between cycles {100 * self.idle_cpu_share:.2f} % of a core",
            f"start-up (to the end of the first cycle, with the history there): "
            f"{self.startup_seconds:.1f} s, {self.startup_cpu:.1f} CPU-s",
        ]
        return "\n".join(lines + self.stage_lines)


def _cpu(pid: int) -> float:
    """User + system CPU-seconds of a process (Linux)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _uploads(out: Path, catalog: str) -> tuple[list[Upload], int, int]:
    """The uploads to follow, by the truth and a batch replay of the corpus (which
    releases hold each, by its message-ids), and the group's low and high article, as
    the news server reports them."""
    import pyarrow.parquet as pq

    from pipelines.catalog.views import CatalogViews
    from pipelines.index.replay import replay
    from pipelines.index.rules import Rules
    from pipelines.nntpserver.served import ServedCorpus

    corpus = str(out / "corpus")
    replay(corpus, catalog, Rules(), progress=False)
    views = CatalogViews(catalog)
    views.refresh()
    try:
        held = views.query(
            "SELECT DISTINCT release_key, unnest(seg_ids) AS mid FROM release_files"
        ).to_pylist()
        rows = views.query(
            "SELECT release_key, name, last_article, finished FROM releases UNION ALL "
            "SELECT release_key, NULL, last_article, finished FROM pending_releases"
        ).to_pylist()
    finally:
        views.close()
    release_of = {r["mid"]: r["release_key"] for r in held}
    names = {r["release_key"]: r["name"] for r in rows if r["name"]}
    last = {r["release_key"]: int(r["last_article"]) for r in rows}
    finished = {r["release_key"] for r in rows if r["finished"]}
    truth = pq.read_table(out / "truth" / "uploads.parquet").to_pylist()
    ups = []
    for u in truth:
        keys = {release_of[m] for f in u["files"] for m in f["message_ids"] if m in release_of}
        if not keys or u["split_by"] or u["expected_verdict"] == "repeated":
            continue  # split: its keys change as it is merged; repeated: hidden by design
        end = max(last.get(k, 0) for k in keys)
        verdict = u["expected_verdict"]
        if u["pending"]:
            # the group's last uploads stay open: no later post moves the window past them
            kind = (verdict or "obfuscated") if keys & finished else OPEN
            if u["inner_name"] and verdict in (None, *JUNK):
                ups.append(Upload(kind, u["inner_name"], frozenset(keys), end))
            continue
        named = sorted(names[k] for k in keys if k in names)
        if named and verdict in (None, *JUNK):
            ups.append(Upload(verdict or "readable", named[0], frozenset(keys), end))
    (group,) = ServedCorpus(corpus).groups.values()
    return sorted(ups, key=lambda u: u.last), group.low, group.high


def _answers(port: int, name: str) -> set[str]:
    query = urllib.parse.urlencode({"t": "search", "q": name, "o": "json", "limit": "100"})
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api?{query}", timeout=10) as r:
        doc: dict[str, Any] = json.loads(r.read())
    items = doc.get("channel", {}).get("item") or []
    return {str(item.get("guid", "")) for item in items}


def _answered(port: int, up: Upload) -> bool:
    guids = _answers(port, up.query)
    return any(key.hex() in guid for key in up.keys for guid in guids)


def run_bench(
    articles: int = 60_000,
    rate: float = 200.0,
    history: float = 0.3,
    interval: float = 60.0,
    seed: int = 3,
    out: Any = sys.stdout,
    mix: str = "real",
) -> LiveFigures:
    from pipelines.generate import GenerateConfig, generate_corpus

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print(f"generating a group of {articles:,} articles with bodies ...", file=out,
              flush=True)  # fmt: skip
        config = GenerateConfig(groups=1, articles=articles, seed=seed, mix=mix,
                                range_size=20_000, chunk=5_000, split_and_junk=True)  # fmt: skip
        generate_corpus(str(root / "served"), config, progress=False)
        served = str(root / "served" / "corpus")
        ups, low, high = _uploads(root / "served", str(root / "batch"))
        start = int(history * (high - low + 1))
        nntp_port, web_port = free_port(), free_port()
        nntp = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "serve-nntp", served, "--port", str(nntp_port),
             "--grow", str(rate), "--grow-from", str(start),
             "--gone", str(root / "served" / "truth" / "gone.parquet")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, process_group=0,
        )  # fmt: skip
        live: subprocess.Popen[str] | None = None
        follow: _Follow | None = None
        try:
            wait_port(nntp_port, 60)
            grown_at = time.monotonic()  # the growth starts as the server listens
            group = json.loads((root / "served" / "generate.json").read_text())["groups"][0]
            print(f"serving {group['name']}: {start:,} articles there, {rate:,.0f}/s more; "
                  f"live every {interval:.0f} s", file=out, flush=True)  # fmt: skip
            started = time.monotonic()
            live = subprocess.Popen(
                [sys.executable, "-m", "cli.main", "live", "--server",
                 f"127.0.0.1:{nntp_port}", "--group", group["name"], "--corpus",
                 str(root / "corpus"), "--catalog", str(root / "catalog"), "--port",
                 str(web_port), "--interval", str(interval), "--range-size", "20000",
                 "--chunk-size", "5000"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, process_group=0,
                env=dict(os.environ, PYTHONUNBUFFERED="1"),
            )  # fmt: skip
            follow = _Follow(live, ups, low, start, rate, grown_at, interval, web_port, out)
            figures = follow.run(started, high)
        finally:
            for proc in (live, nntp):
                if proc is not None:
                    stop(proc, 60)
        if follow is not None:
            follow.reader.join(5)
            figures.stage_lines = [line.rstrip() for line in follow.summary]
        return figures


class _Follow:
    """Search for each visible upload until it answers; read the live process's CPU."""

    def __init__(
        self, live: subprocess.Popen[str], ups: list[Upload], low: int, start: int,
        rate: float, grown_at: float, interval: float, port: int, out: Any,
    ) -> None:  # fmt: skip
        self.live, self.ups, self.port, self.out = live, ups, port, out
        self.low, self.start, self.rate, self.grown_at = low, start, rate, grown_at
        self.interval = interval
        self.cycles: list[tuple[float, float, int]] = []  # (time, CPU, lines captured so far)
        self.summary: list[str] = []  # live's closing lines
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.live.stdout is not None
        lines = 0
        for line in self.live.stdout:
            if line.startswith("cycle "):
                lines += int(line.split("captured ", 1)[1].split(" ", 1)[0].replace(",", ""))
                self.cycles.append((time.monotonic(), _cpu(self.live.pid), lines))
                self.out.write("  " + line)
                self.out.flush()
            elif line.startswith(("live: ", "  ")) and not line.startswith("live: serving"):
                self.summary.append(line)

    def visible_at(self, article: int) -> float:
        return self.grown_at + max(0, article - (self.low - 1 + self.start)) / self.rate

    def run(self, started: float, high: int) -> LiveFigures:
        f = LiveFigures(self.interval, self.rate)
        followed = {"readable": f.readable, "obfuscated": f.obfuscated}
        pending = [u for u in self.ups if u.kind in followed]
        for u in pending:
            followed[u.kind].uploads += 1
        f.still_open = sum(u.kind == OPEN for u in self.ups)
        # junk too, until it answers once: that it is hidden later is then a verdict's doing
        junk = [u for u in self.ups if u.kind in JUNK]
        done_at = self.visible_at(high) + 2 * self.interval + 30
        while pending and time.monotonic() < done_at and self.live.poll() is None:
            now = time.monotonic()
            for u in pending + junk:
                if self.visible_at(u.last) > now:
                    continue
                try:
                    answered = _answered(self.port, u)
                except OSError:
                    break  # the server is not up yet
                if answered and u in junk:
                    f.junk_seen += 1
                    junk.remove(u)
                elif answered:
                    followed[u.kind].delays.append(
                        max(0.0, time.monotonic() - self.visible_at(u.last))
                    )
                    pending.remove(u)
            time.sleep(POLL)
        for u in pending:
            followed[u.kind].missing.append(u.query)
        self._settle(f, self.visible_at(high) + 5 * self.interval)
        self._cpu_figures(f, started)
        return f

    def _settle(self, f: LiveFigures, deadline: float) -> None:
        """Wait (to `deadline` at most) until no fake, dead or locked upload answers."""
        junk = [u for u in self.ups if u.kind in JUNK]
        f.junk = len(junk)
        while True:
            answering = []
            for u in junk:
                try:
                    if _answered(self.port, u):
                        answering.append(f"{u.kind} {u.query}")
                except OSError:
                    answering.append(f"{u.kind} {u.query} (no answer)")
            if not answering or time.monotonic() >= deadline or self.live.poll() is not None:
                f.junk_answering = answering
                return
            time.sleep(POLL)

    def _cpu_figures(self, f: LiveFigures, started: float) -> None:
        cycles = self.cycles
        cpu = _cpu(self.live.pid) if self.live.poll() is None else 0.0
        first = cycles[0] if cycles else (time.monotonic(), cpu, 0)
        f.lines_captured = cycles[-1][2] if cycles else 0
        f.cpu_seconds = (cycles[-1][1] - first[1]) if len(cycles) > 1 else cpu
        f.lines_captured -= first[2] if len(cycles) > 1 else 0
        f.startup_seconds = first[0] - started
        f.startup_cpu = first[1]
        # CPU between cycles: a second after the next cycle's end, for part of the wait
        seen, deadline = len(cycles), time.monotonic() + self.interval + 60
        while len(cycles) == seen and time.monotonic() < deadline and self.live.poll() is None:
            time.sleep(0.2)
        time.sleep(1.0)
        live = self.live
        f.idle_cpu_share = _idle_share(live.pid, self.interval) if live.poll() is None else 0.0


def _idle_share(pid: int, interval: float) -> float:
    """The live process's CPU share over a part of one wait between cycles."""
    span = min(10.0, interval / 3)
    before, t0 = _cpu(pid), time.monotonic()
    time.sleep(span)
    return (_cpu(pid) - before) / (time.monotonic() - t0)
