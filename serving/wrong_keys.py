"""Wrong keys per client address: a few are a typo, a stream of them is someone guessing.

Each address has a token bucket of `burst` wrong keys, filled again at `per_minute`.
Once it is empty the address is *slowed*: its requests are answered with Newznab's
request-limit error before any key is looked at (so a guess made meanwhile, right or
wrong, tells nothing), until the bucket holds a token again. Other addresses are not
touched. The log gets every wrong key of an address not slowed, then one line when it
is slowed and one a minute while it stays so (a flood is a few lines, not a line a
request). Addresses are remembered up to `kept`, the longest quiet forgotten first.

Per process: with `serve --workers N` an address may try N times as many.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("usenet_indexer.keys")
RECENT = 100  # wrong-key events kept for status.json
LOG_EVERY = 60.0  # seconds between the lines of an address that stays slowed


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
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        kept: int = 65_536,
    ) -> None:
        self.burst = burst
        self.rate = per_minute / 60.0
        self._clock = clock
        self._wall = wall
        self._kept = kept
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self.recent: deque[dict[str, Any]] = deque(maxlen=RECENT)
        self.wrong_total = 0
        self.slowed_total = 0

    def wait(self, client: str) -> float:
        """Seconds until `client` may send a key again (0: now). A positive answer
        counts as a request refused."""
        with self._lock:
            bucket = self._buckets.get(client)
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
        with self._lock:
            bucket = self._buckets.get(client)
            if bucket is None:
                bucket = self._buckets[client] = _Bucket(float(self.burst), self._clock())
                if len(self._buckets) > self._kept:
                    self._buckets.popitem(last=False)
            self._buckets.move_to_end(client)
            now = self._refill(bucket)
            bucket.tokens = max(0.0, bucket.tokens - 1)
            self.wrong_total += 1
            chars = 0 if key is None else len(key)
            self.recent.append({"at": self._wall(), "client": client, "where": where,
                                "key_chars": chars})  # fmt: skip
            if bucket.tokens < 1:
                log.warning("wrong key from %s at %s: slowed to %.0f a minute",
                            client, where, self.rate * 60)  # fmt: skip
                bucket.logged = now
            else:
                log.warning("wrong key from %s at %s", client, where)

    def is_slowed(self, client: str) -> bool:
        """Whether `client` is slowed now (not counted as a request refused)."""
        with self._lock:
            bucket = self._buckets.get(client)
            if bucket is None:
                return False
            self._refill(bucket)
            return bucket.tokens < 1

    def slowed_now(self) -> list[str]:
        """The addresses slowed at this moment."""
        slowed = []
        with self._lock:
            for client, bucket in self._buckets.items():
                self._refill(bucket)
                if bucket.tokens < 1:
                    slowed.append(client)
        return slowed

    def _refill(self, bucket: _Bucket) -> float:
        now = self._clock()
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.stamp) * self.rate)
        bucket.stamp = now
        return now
