"""API keys and their daily request and download counters (per UTC day).

With several worker processes (`serve --workers N`), each worker's own counters would
let a key through N times its daily limit. Given a file (the index folder the workers
share), the counters live there instead: a memory-mapped array of int64, read and bumped
under an exclusive `flock`, so every worker counts against the same totals, and a
restart on the same day goes on from them. Without a file they live in memory.
"""

from __future__ import annotations

import fcntl
import mmap
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from serving.grabs import Grabs

SHARED_SLOTS = 1024  # keys not in the settings (an open API) share these by hash
_REQUESTS, _DOWNLOADS = 0, 1


class KeyLimits:
    def __init__(
        self,
        keys: list[str],
        open_api: bool,
        daily_requests: int,
        daily_downloads: int,
        shared: str | None = None,
        clock: Callable[[], float] = time.time,
        grabs: str | None = None,
    ):
        self.keys = set(keys)
        self.open_api = open_api
        self.daily_requests = daily_requests
        self.daily_downloads = daily_downloads
        self._clock = clock
        self._lock = threading.Lock()
        self._day = -1
        self._counts: Counter[tuple[str, int]] = Counter()
        # downloads per release key (`serving.grabs`): in the file, when given
        self.grabs = Grabs(grabs)
        self._file = _CounterFile(shared, sorted(self.keys)) if shared else None

    def allowed(self, key: str | None) -> bool:
        return self.open_api or (key is not None and key in self.keys)

    def count_request(self, key: str | None) -> bool:
        """Count one API request; False when the key is over its daily limit."""
        return self._count(key, _REQUESTS, self.daily_requests)

    def count_download(self, key: str | None, release: bytes) -> bool:
        if not self._count(key, _DOWNLOADS, self.daily_downloads):
            return False
        self.grabs.count(release)
        return True

    def usage(self, key: str | None) -> tuple[int, int]:
        day = self._today()
        with self._lock:
            if self._file is not None:
                return self._file.read(day, key or "")
            self._roll(day)
            return self._counts[(key or "", _REQUESTS)], self._counts[(key or "", _DOWNLOADS)]

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        self.grabs.close()

    def _count(self, key: str | None, kind: int, limit: int) -> bool:
        day = self._today()
        with self._lock:
            if self._file is not None:
                return self._file.bump(day, key or "", kind, limit)
            self._roll(day)
            who = (key or "", kind)
            if limit and self._counts[who] >= limit:
                return False
            self._counts[who] += 1
            return True

    def _today(self) -> int:
        return int(self._clock() // 86_400)

    def _roll(self, day: int) -> None:
        if day != self._day:
            self._day = day
            self._counts.clear()


class _CounterFile:
    """[day, then (requests, downloads) per slot] as int64, shared by the workers."""

    def __init__(self, path: str, keys: list[str]):
        self._slots = {k: i for i, k in enumerate(["", *keys])}
        self._size = 8 * (1 + 2 * (len(self._slots) + SHARED_SLOTS))
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        with self._locked():
            if os.fstat(self._fd).st_size != self._size:
                # new, or written for another set of keys: start the day's counts afresh
                os.ftruncate(self._fd, 0)
                os.ftruncate(self._fd, self._size)
        self._map = mmap.mmap(self._fd, self._size)
        self._cells = np.frombuffer(self._map, np.int64)

    def bump(self, day: int, key: str, kind: int, limit: int) -> bool:
        cell = self._cell(key, kind)
        with self._locked():
            self._roll(day)
            if limit and self._cells[cell] >= limit:
                return False
            self._cells[cell] += 1
            return True

    def read(self, day: int, key: str) -> tuple[int, int]:
        with self._locked():
            self._roll(day)
            cell = self._cell(key, _REQUESTS)
            return int(self._cells[cell]), int(self._cells[cell + 1])

    def close(self) -> None:
        del self._cells
        self._map.close()
        os.close(self._fd)

    def _cell(self, key: str, kind: int) -> int:
        slot = self._slots.get(key)
        if slot is None:  # a key the settings do not name: one of the shared slots
            slot = len(self._slots) + _stable_hash(key) % SHARED_SLOTS
        return 1 + 2 * slot + kind

    def _roll(self, day: int) -> None:
        if self._cells[0] != day:
            self._cells[:] = 0
            self._cells[0] = day

    @contextmanager
    def _locked(self) -> Iterator[None]:
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)


def _stable_hash(key: str) -> int:
    # Python's hash() differs per process (PYTHONHASHSEED): the workers must agree
    h = 1469598103934665603
    for b in key.encode("utf-8", "surrogatepass"):
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h
