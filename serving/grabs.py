"""How many times each release's NZB was downloaded (`grabs`), shared and kept.

Downloads (`t=get`, `/nzb/<guid>`, the web's NZB links) are few beside searches, and
the releases grabbed are any of millions: a fixed array per release, as the key
counters use, does not fit. Given a file (in the index folder the workers share, beside
`key-counters.bin`), each grab appends the release key (20 bytes) to it under an
exclusive `flock`, and every process reads what was appended since it last looked
before it answers with counts: the workers show one total, and a server restarted on
the same index folder goes on from it. A record cut short (a process killed inside its
write) is cut off by the next writer and never read. Without a file the counts live in
this process's memory.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections import Counter
from collections.abc import Mapping

RECORD = 20  # a release key


class Grabs:
    def __init__(self, path: str | None = None) -> None:
        self._counts: Counter[bytes] = Counter()
        self._lock = threading.Lock()
        self._read = 0  # bytes of the file counted so far
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600) if path else None

    def count(self, release: bytes) -> None:
        """One download of `release`."""
        with self._lock:
            if self._fd is None:
                self._counts[release] += 1
                return
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                size = os.fstat(self._fd).st_size
                if size % RECORD:  # a writer killed mid-record: its bytes are dropped
                    os.ftruncate(self._fd, size - size % RECORD)
                os.write(self._fd, release)
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def get(self, release: bytes, default: int = 0) -> int:
        self._catch_up()
        return self._counts.get(release, default)

    def __getitem__(self, release: bytes) -> int:
        return self.get(release)

    def current(self) -> Mapping[bytes, int]:
        """Every count, after one look at the file (a page of items asks once, not per
        item)."""
        self._catch_up()
        return self._counts

    def _catch_up(self) -> None:
        """Count what the processes appended since this one last looked (one `fstat`
        when nothing was)."""
        if self._fd is None:
            return
        with self._lock:
            size = os.fstat(self._fd).st_size
            whole = size - size % RECORD
            if whole <= self._read:
                return
            data = os.pread(self._fd, whole - self._read, self._read)
            whole = self._read + len(data) - len(data) % RECORD
            self._counts.update(
                data[i : i + RECORD] for i in range(0, len(data) // RECORD * RECORD, RECORD)
            )
            self._read = whole

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
