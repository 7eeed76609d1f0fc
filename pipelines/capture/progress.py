"""Live capture figures: lines/s and MB/s in total and per connection, and the summary.

MB/s counts the bytes that came off the socket (compressed, where the variant is), the
figure a provider's line and a metered account care about.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field
from typing import TextIO

from tqdm import tqdm


@dataclass
class ConnectionFigures:
    label: str
    chunks: int = 0
    lines: int = 0
    wire_bytes: int = 0
    busy: float = 0.0  # seconds spent inside overview commands

    def rate(self) -> float:
        """Lines/s while this connection was inside an overview command."""
        return self.lines / self.busy if self.busy else 0.0

    def megabytes_per_second(self) -> float:
        return self.wire_bytes / 1e6 / self.busy if self.busy else 0.0


@dataclass
class CaptureSummary:
    chunks: int = 0
    lines: int = 0
    wire_bytes: int = 0
    stored_bytes: int = 0
    ranges_completed: int = 0
    retries: int = 0
    truncated: int = 0
    splits: int = 0
    recompressed: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    stopped: str = ""  # why the capture stopped early, empty when it finished
    connections: list[ConnectionFigures] = field(default_factory=list)

    @property
    def lines_per_second(self) -> float:
        return self.lines / self.seconds if self.seconds else 0.0

    @property
    def megabytes_per_second(self) -> float:
        return self.wire_bytes / 1e6 / self.seconds if self.seconds else 0.0

    def format(self) -> str:
        head = (
            f"captured {self.chunks} chunks, {self.lines:,} lines, "
            f"{self.wire_bytes / 1e6:,.1f} MB off the wire ({self.stored_bytes / 1e6:,.1f} MB "
            f"stored) in {self.seconds:.1f} s: {self.lines_per_second:,.0f} lines/s, "
            f"{self.megabytes_per_second:.2f} MB/s; {self.ranges_completed} ranges completed; "
            f"retries {self.retries} (cut replies {self.truncated}, split chunks {self.splits}); "
            f"re-compressed {self.recompressed} chunks; client CPU {self.cpu_seconds:.1f} s"
        )
        rows = [
            f"  {c.label}: {c.chunks} chunks, {c.lines:,} lines, {c.wire_bytes / 1e6:,.1f} MB; "
            f"while busy {c.rate():,.0f} lines/s, {c.megabytes_per_second():.2f} MB/s"
            for c in self.connections
            if c.chunks
        ]
        if self.stopped:
            head += f"\nSTOPPED: {self.stopped}"
        return "\n".join([head, *rows])


class Progress:
    """Thread-safe counters behind a tqdm bar over the planned articles."""

    def __init__(self, labels: list[str], show: bool = True, out: TextIO | None = None) -> None:
        self.summary = CaptureSummary(connections=[ConnectionFigures(x) for x in labels])
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._cpu = time.process_time()
        self._bar = tqdm(
            total=0,
            unit="art",
            unit_scale=True,
            desc="capture",
            disable=not show,
            file=out or sys.stderr,
            dynamic_ncols=True,
        )
        self._last_post = 0.0

    def plan(self, articles: int) -> None:
        with self._lock:
            self._bar.total = (self._bar.total or 0) + articles
            self._bar.refresh()

    def chunk(
        self,
        slot: int,
        articles: int,
        lines: int,
        wire: int,
        stored: int,
        busy: float,
        recomp: bool,
    ) -> None:
        with self._lock:
            s = self.summary
            s.chunks += 1
            s.lines += lines
            s.wire_bytes += wire
            s.stored_bytes += stored
            s.recompressed += recomp
            c = s.connections[slot]
            c.chunks += 1
            c.lines += lines
            c.wire_bytes += wire
            c.busy += busy
            self._bar.update(articles)
            now = time.monotonic()
            if now - self._last_post > 0.5:
                self._last_post = now
                self._bar.set_postfix_str(self._postfix(now), refresh=False)

    def _postfix(self, now: float) -> str:
        s = self.summary
        elapsed = max(now - self._started, 1e-9)
        per = " ".join(
            f"{c.rate() / 1e3:.0f}k/{c.megabytes_per_second():.1f}"
            for c in s.connections
            if c.chunks
        )
        return (
            f"{s.lines / elapsed:,.0f} lines/s {s.wire_bytes / 1e6 / elapsed:.2f} MB/s "
            f"[per connection lines/s/MB/s: {per}]"
        )

    def count(self, what: str, n: int = 1) -> None:
        with self._lock:
            setattr(self.summary, what, getattr(self.summary, what) + n)

    def finish(self, stopped: str = "") -> CaptureSummary:
        with self._lock:
            self._bar.close()
            self.summary.seconds = time.monotonic() - self._started
            self.summary.cpu_seconds = time.process_time() - self._cpu
            self.summary.stopped = stopped
            return self.summary
