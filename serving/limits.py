"""API keys and their daily request and download counters (per UTC day).

A request with a key the settings name counts against that key. Any other (no key, or
a key an open API does not check) is anonymous: counted per client address against the
anonymous limits (none by default), so one busy client never uses up anyone else's day.

With several worker processes (`serve --workers N`), each worker's own counters would
let a key through N times its daily limit. Given a file (the index folder the workers
share), the counters live there instead: a memory-mapped array of int64, read and bumped
under an exclusive `flock`, so every worker counts against the same totals, and a
restart on the same day goes on from them. Without a file they live in memory.
"""

from __future__ import annotations

import mmap
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager

import numpy as np

from serving.grabs import Grabs
from serving.wrong_keys import WrongKeys, flocked

SHARED_SLOTS = 1024  # client addresses without a key of ours share these by hash
ANONYMOUS = "\x00"  # prefix of an anonymous count's name (a client address): no key has a NUL
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
        anonymous_requests: int = 0,
        anonymous_downloads: int = 0,
        wrong_keys: WrongKeys | None = None,
    ):
        self.keys = set(keys)
        self.anonymous_requests = anonymous_requests
        self.anonymous_downloads = anonymous_downloads
        # wrong keys per client address (`serving.wrong_keys`): /api, /rss, /nzb, /signin
        self.wrong_keys = wrong_keys or WrongKeys(10, 6.0)
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

    def count_request(self, key: str | None, client: str = "") -> bool:
        """Count one API request; False when the key (or, without one of ours, the
        client address) is over its daily limit."""
        who, limit = self._who(key, client, self.daily_requests, self.anonymous_requests)
        return self._count(who, _REQUESTS, limit)

    def count_download(self, key: str | None, release: bytes, client: str = "") -> bool:
        who, limit = self._who(key, client, self.daily_downloads, self.anonymous_downloads)
        if not self._count(who, _DOWNLOADS, limit):
            return False
        self.grabs.count(release)
        return True

    def usage(self, key: str | None, client: str = "") -> tuple[int, int]:
        who = self._who(key, client, 0, 0)[0]
        day = self._today()
        with self._lock:
            if self._file is not None:
                return self._file.read(day, who)
            self._roll(day)
            return self._counts[(who, _REQUESTS)], self._counts[(who, _DOWNLOADS)]

    def _who(self, key: str | None, client: str, keyed: int, anonymous: int) -> tuple[str, int]:
        """Whose count a request bumps, and its limit: the key's, or the address's."""
        if key is not None and key in self.keys:
            return key, keyed
        return ANONYMOUS + client, anonymous

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        self.grabs.close()
        self.wrong_keys.close()

    def _count(self, key: str, kind: int, limit: int) -> bool:
        day = self._today()
        with self._lock:
            if self._file is not None:
                return self._file.bump(day, key, kind, limit)
            self._roll(day)
            who = (key, kind)
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

    def _locked(self) -> AbstractContextManager[None]:
        return flocked(self._fd)


def _stable_hash(key: str) -> int:
    # Python's hash() differs per process (PYTHONHASHSEED): the workers must agree
    h = 1469598103934665603
    for b in key.encode("utf-8", "surrogatepass"):
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h
