"""Providers that fail repeatedly are rested: not asked for a while, so a provider that is
down does not cost every article a connect timeout while the others could answer.

A provider rests after `after` transport failures in a row (an answer of any kind, a 430
included, resets the run) for `rest` seconds, doubled each time it fails again right
after a rest, up to `longest`. Refused credentials rest it for the rest of the process: no
later attempt will do better. Each rest is logged and handed to `record` (the status
page's file, `pipelines/providers/status.py`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

FOREVER = float("inf")


@dataclass(frozen=True)
class Rest:
    """One provider's rest: from when, how long (FOREVER: the process's), and why."""

    provider: str
    since: float  # epoch seconds
    seconds: float
    failures: int  # in a row, the last of which started the rest
    reason: str

    @property
    def until(self) -> float:
        return self.since + self.seconds


@dataclass
class _State:
    in_a_row: int = 0
    rests: int = 0  # in a row: each one rests twice as long
    until: float = 0.0  # monotonic time before which it is not asked
    rest: Rest | None = None


class Resting:
    """Which providers are being rested, shared by every thread of a pass (and by passes)."""

    def __init__(
        self,
        after: int = 8,
        rest: float = 60.0,
        longest: float = 900.0,
        record: Callable[[Rest], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if after < 1 or rest <= 0:
            raise ValueError("resting needs after >= 1 and a positive rest")
        self.after, self.rest, self.longest = after, rest, longest
        self.record = record
        self.clock = clock
        self._lock = threading.Lock()
        self._states: dict[str, _State] = {}

    def _state(self, name: str) -> _State:
        return self._states.setdefault(name, _State())

    def resting(self, name: str) -> bool:
        with self._lock:
            return self.clock() < self._state(name).until

    def answered(self, name: str) -> None:
        """The provider answered (an article, a 430, a STAT): its run of failures ends."""
        with self._lock:
            state = self._state(name)
            state.in_a_row = 0
            if self.clock() >= state.until:
                state.rests = 0

    def failed(self, name: str, reason: str) -> bool:
        """A transport failure; True when it started a rest."""
        with self._lock:
            state = self._state(name)
            state.in_a_row += 1
            if state.in_a_row < self.after or self.clock() < state.until:
                return False
            seconds = min(self.rest * 2**state.rests, self.longest)
            state.rests += 1
            return self._start(name, state, seconds, reason)

    def refused(self, name: str, reason: str) -> bool:
        """Credentials refused: rested for the process; True when it started the rest."""
        with self._lock:
            state = self._state(name)
            if state.until == FOREVER:
                return False
            state.in_a_row += 1
            return self._start(name, state, FOREVER, reason)

    def _start(self, name: str, state: _State, seconds: float, reason: str) -> bool:
        state.until = self.clock() + seconds
        state.rest = Rest(name, time.time(), seconds, state.in_a_row, reason)
        state.in_a_row = 0
        how_long = "for this run" if seconds == FOREVER else f"for {seconds:.0f} s"
        log.warning("provider %s rested %s after %d failures: %s",
                    name, how_long, state.rest.failures, reason)  # fmt: skip
        if self.record is not None:
            self.record(state.rest)
        return True

    def wake(self, names: list[str]) -> None:
        """End the rests of `names` but those for refused credentials: a pass that finds
        every provider resting asks them again rather than doing nothing."""
        with self._lock:
            for name in names:
                state = self._state(name)
                if state.until != FOREVER:
                    state.until = 0.0

    def rests(self) -> list[Rest]:
        """The rests now in force, by provider."""
        with self._lock:
            now = self.clock()
            return sorted(
                (s.rest for s in self._states.values() if s.rest is not None and now < s.until),
                key=lambda r: r.provider,
            )
