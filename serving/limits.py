"""API keys and their daily request and download counters (in memory, per UTC day)."""

from __future__ import annotations

import threading
import time
from collections import Counter


class KeyLimits:
    def __init__(self, keys: list[str], open_api: bool, daily_requests: int, daily_downloads: int):
        self.keys = set(keys)
        self.open_api = open_api
        self.daily_requests = daily_requests
        self.daily_downloads = daily_downloads
        self._lock = threading.Lock()
        self._day = -1
        self._requests: Counter[str] = Counter()
        self._downloads: Counter[str] = Counter()
        self.grabs: Counter[bytes] = Counter()  # per release key, since the server started

    def allowed(self, key: str | None) -> bool:
        return self.open_api or (key is not None and key in self.keys)

    def _roll(self) -> None:
        day = int(time.time() // 86_400)
        if day != self._day:
            self._day = day
            self._requests.clear()
            self._downloads.clear()

    def count_request(self, key: str | None) -> bool:
        """Count one API request; False when the key is over its daily limit."""
        with self._lock:
            self._roll()
            who = key or ""
            if self.daily_requests and self._requests[who] >= self.daily_requests:
                return False
            self._requests[who] += 1
            return True

    def count_download(self, key: str | None, release: bytes) -> bool:
        with self._lock:
            self._roll()
            who = key or ""
            if self.daily_downloads and self._downloads[who] >= self.daily_downloads:
                return False
            self._downloads[who] += 1
            self.grabs[release] += 1
            return True

    def usage(self, key: str | None) -> tuple[int, int]:
        with self._lock:
            self._roll()
            return self._requests[key or ""], self._downloads[key or ""]
