"""Wrong keys per client address: a few are a typo, a stream of them is someone guessing.

Each address has a token bucket of `burst` wrong keys, filled again at `per_minute`.
Once it is empty the address is *slowed*: its requests are answered with Newznab's
request-limit error before any key is looked at (so a guess made meanwhile, right or
wrong, tells nothing), until the bucket holds a token again. Other addresses are not
touched. The log gets every wrong key of an address not slowed, then one line when it
is slowed and one a minute while it stays so (a flood is a few lines, not a line a
request).

With several worker processes (`serve --workers N`) the buckets live in a file of the
index folder they share, as the daily key counters do (`serving.limits`): a fixed table
of slots by a hash of the address, read and written under an exclusive `flock`, so an
address has one bucket whichever worker answers it. A full table gives the slot of the
longest-quiet address of a few to a new one. Without a file they live in memory.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import math
import mmap
import os
import threading
import time
from array import array
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

log = logging.getLogger("usenet_indexer.keys")
RECENT = 100  # wrong-key events kept for status.json
LOG_EVERY = 60.0  # seconds between the lines of an address that stays slowed
SLOTS = 16_384  # addresses the shared file holds at once
PROBES = 8  # slots an address may take, from its hash on


@dataclass
class _Bucket:
    tokens: float
    stamp: float
    refused: int = 0  # requests answered "slowed" since the last line about them
    logged: float = -math.inf


class WrongKeys:
    def __init__(
        self,
        burst: int,
        per_minute: float,
        clock: Callable[[], float] = time.time,
        shared: str | None = None,
        kept: int = 65_536,
    ) -> None:
        self.burst = burst
        self.rate = per_minute / 60.0
        self._clock = clock
        self._lock = threading.Lock()
        self._store: _Memory | _File = _File(shared) if shared else _Memory(kept)
        self.recent: deque[dict[str, Any]] = deque(maxlen=RECENT)  # this process's
        self.wrong_total = 0
        self.slowed_total = 0

    def wait(self, client: str) -> float:
        """Seconds until `client` may send a key again (0: now). A positive answer
        counts as a request refused."""
        if not self._store.known(client):  # nearly every request: no wrong key seen
            return 0.0
        with self._lock, self._store.bucket(client, None) as bucket:
            if bucket is None:
                return 0.0
            now = self._refill(bucket)
            if bucket.tokens >= 1:
                return 0.0
            bucket.refused += 1
            self.slowed_total += 1
            if now - bucket.logged >= LOG_EVERY:
                log.warning("client %s slowed: %d requests refused after too many wrong keys",
                            client, bucket.refused)  # fmt: skip
                bucket.logged, bucket.refused = now, 0
            return (1 - bucket.tokens) / self.rate

    def wrong(self, client: str, where: str, key: str | None) -> None:
        """A wrong key from `client` at `where` (the key itself is never kept or logged:
        a typo of a real key is most of it)."""
        fresh = _Bucket(float(self.burst), self._clock())
        with self._lock, self._store.bucket(client, fresh) as bucket:
            assert bucket is not None
            now = self._refill(bucket)
            bucket.tokens = max(0.0, bucket.tokens - 1)
            self.wrong_total += 1
            chars = 0 if key is None else len(key)
            self.recent.append({"at": now, "client": client, "where": where,
                                "key_chars": chars})  # fmt: skip
            if bucket.tokens < 1:
                log.warning("wrong key from %s at %s: slowed to %.0f a minute",
                            client, where, self.rate * 60)  # fmt: skip
                bucket.logged = now
            else:
                log.warning("wrong key from %s at %s", client, where)

    def is_slowed(self, client: str) -> bool:
        """Whether `client` is slowed now (not counted as a request refused)."""
        with self._lock, self._store.bucket(client, None) as bucket:
            if bucket is None:
                return False
            self._refill(bucket)
            return bucket.tokens < 1

    def slowed_now(self) -> list[str]:
        """The addresses this process has seen wrong keys from that are slowed now."""
        seen = list(dict.fromkeys(e["client"] for e in self.recent))
        if isinstance(self._store, _Memory):
            seen = list(self._store.clients())
        return [c for c in seen if self.is_slowed(c)]

    def close(self) -> None:
        self._store.close()

    def _refill(self, bucket: _Bucket) -> float:
        now = self._clock()
        elapsed = max(0.0, now - bucket.stamp)  # a clock stepped back refills nothing
        bucket.tokens = min(float(self.burst), bucket.tokens + elapsed * self.rate)
        bucket.stamp = now
        return now


class _Memory:
    """The buckets of one process, the longest quiet forgotten past `kept`."""

    def __init__(self, kept: int) -> None:
        self._kept = kept
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def bucket(self, client: str, fresh: _Bucket | None) -> AbstractContextManager[_Bucket | None]:
        found = self._buckets.get(client)
        if found is None and fresh is not None:
            found = self._buckets[client] = fresh
            if len(self._buckets) > self._kept:
                self._buckets.popitem(last=False)
        if fresh is not None:
            self._buckets.move_to_end(client)
        return _held(found)

    def clients(self) -> list[str]:
        return list(self._buckets)

    def known(self, client: str) -> bool:
        return client in self._buckets

    def close(self) -> None:
        pass


@contextmanager
def _held(bucket: _Bucket | None) -> Iterator[_Bucket | None]:
    yield bucket


_FIELDS = 5  # a slot: address hash, tokens, stamp, logged, refused (8 bytes each)


class _File:
    """[SLOTS] of (address hash, tokens, stamp, logged, refused), shared by the workers."""

    def __init__(self, path: str) -> None:
        size = SLOTS * _FIELDS * 8
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        with self._locked():
            if os.fstat(self._fd).st_size != size:  # new, or of another layout: empty
                os.ftruncate(self._fd, 0)
                os.ftruncate(self._fd, size)
        self._map = mmap.mmap(self._fd, size)
        self._hashes = memoryview(self._map).cast("Q")  # the same cells seen as integers
        self._floats = memoryview(self._map).cast("d")  # and as floats

    def known(self, client: str) -> bool:
        """Whether the address has a slot: told without the lock (an aligned 8-byte
        cell is never read half-written; a slot taken meanwhile is seen next time)."""
        h = _address_hash(client)
        hashes = self._hashes
        for k in range(PROBES):
            found = hashes[(h + k) % SLOTS * _FIELDS]
            if found == h:
                return True
            if found == 0:  # slots are never emptied: none of its probes lies past one
                return False
        return False

    @contextmanager
    def bucket(self, client: str, fresh: _Bucket | None) -> Iterator[_Bucket | None]:
        h = _address_hash(client)
        with self._locked():
            i = self._find(h, fresh is not None)
            if i is None:
                yield None
                return
            at = i * _FIELDS
            if self._hashes[at] != h:  # a new address in this slot
                assert fresh is not None
                bucket = fresh
            else:
                f = self._floats
                bucket = _Bucket(f[at + 1], f[at + 2], self._hashes[at + 4], f[at + 3])
            yield bucket
            self._hashes[at] = h
            self._floats[at + 1 : at + 4] = memoryview(
                array("d", [bucket.tokens, bucket.stamp, bucket.logged])
            )
            self._hashes[at + 4] = bucket.refused

    def _find(self, h: int, take: bool) -> int | None:
        """The slot of address hash `h`; with `take`, else an empty one or the one of
        the longest-quiet address among its probes."""
        probes = [(h + k) % SLOTS for k in range(PROBES)]
        for i in probes:
            found = self._hashes[i * _FIELDS]
            if found == h:
                return i
            if found == 0:  # the first empty probe: it is not further on
                return i if take else None
        if not take:
            return None
        return min(probes, key=lambda i: self._floats[i * _FIELDS + 2])

    def close(self) -> None:
        self._hashes.release()
        self._floats.release()
        self._map.close()
        os.close(self._fd)

    def _locked(self) -> AbstractContextManager[None]:
        return flocked(self._fd)


@contextmanager
def flocked(fd: int) -> Iterator[None]:
    """An exclusive `flock` on the open file `fd` for the block: one worker at a time."""
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


@lru_cache(maxsize=8192)  # clients come back: their hash is looked up, not made again
def _address_hash(client: str) -> int:
    # the same in every process (hash() is not: PYTHONHASHSEED); never 0 (an empty slot)
    digest = hashlib.blake2b(client.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little") or 1
