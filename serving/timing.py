"""Server-Timing for NZB downloads: where one request's time went, stage by stage.

A download's tail comes from cold work (a partition's footer not parsed yet, pages
read from disk) that shows only per request, so each NZB reply says what it spent:
wall time per stage, the thread's CPU time and its major page faults (reads from
disk through the memory-mapped catalog). The bench reads the header to compare the
slowest downloads with the median ones; a browser's network panel shows it too.
"""

from __future__ import annotations

import resource
import time

_THREAD = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)


def _major_faults() -> int:
    return resource.getrusage(_THREAD).ru_majflt


class Stages:
    """Stage times of one request, measured in the thread that serves it."""

    __slots__ = ("_cpu", "_faults", "_last", "_last_cpu", "cpu_seconds", "seconds")

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}  # wall time per stage, in the order first seen
        self.cpu_seconds: dict[str, float] = {}  # the thread's CPU time per stage
        self._cpu = self._last_cpu = time.thread_time()
        self._faults = _major_faults()
        self._last = time.perf_counter()

    def mark(self, stage: str) -> None:
        """The time since the previous mark (or the start) was spent in `stage`."""
        now, cpu = time.perf_counter(), time.thread_time()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + now - self._last
        self.cpu_seconds[stage] = self.cpu_seconds.get(stage, 0.0) + cpu - self._last_cpu
        self._last, self._last_cpu = now, cpu

    def header(self) -> str:
        """The `Server-Timing` value: each stage's wall `dur` in ms (its CPU ms in `desc`),
        then the whole request's `cpu` and major `faults`."""
        parts = [
            f'{name};dur={s * 1000:.2f};desc="{self.cpu_seconds[name] * 1000:.2f}"'
            for name, s in self.seconds.items()
        ]
        parts.append(f"cpu;dur={(time.thread_time() - self._cpu) * 1000:.2f}")
        parts.append(f'faults;desc="{_major_faults() - self._faults}"')
        return ", ".join(parts)


def parse_server_timing(value: str) -> dict[str, float]:
    """`Server-Timing` back to {metric: ms}; a numeric `desc` beside a `dur` is read as
    the metric's CPU ms (`<metric> cpu`), alone as the metric's value."""
    out: dict[str, float] = {}
    for item in value.split(","):
        name, *params = (p.strip() for p in item.split(";"))
        found: dict[str, float] = {}
        for param in params:
            key, _, raw = param.partition("=")
            try:
                found[key] = float(raw.strip('"'))
            except ValueError:
                continue
        if "dur" in found:
            out[name] = found["dur"]
            if "desc" in found:
                out[f"{name} cpu"] = found["desc"]
        elif "desc" in found:
            out[name] = found["desc"]
    return out
