"""What can go wrong on purpose in `serve-nntp`: the misbehaviour of real providers.

Counters are shared by all connections of a server, so a test that says "cut every third
overview reply" gets the same replies cut on every run whatever the thread timing.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class Faults:
    cut_every: int = 0  # cut every n-th overview reply short (0: never)
    drop_every: int = 0  # close the connection instead of the n-th overview reply
    cut_at_dot: bool = False  # cut compressed replies at a '.\r\n' in their bytes, as providers do
    first_byte_delay: float = 0.0  # seconds before an overview reply's status line
    idle_timeout: float = 0.0  # close connections silent this long (0: never)
    # article commands (STAT/HEAD/BODY/ARTICLE), counted apart from overview replies:
    article_drop_every: int = 0  # close the connection instead of the n-th reply
    article_stall_every: int = 0  # never answer the n-th: silent until the client leaves
    article_garble_every: int = 0  # the n-th reply is a line that is no NNTP status
    article_delay: float = 0.0  # seconds before each reply: a provider's round trip
    _count: int = 0
    _article_count: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    cuts: int = 0
    drops: int = 0

    def next_overview(self) -> str:
        """'cut', 'drop' or 'ok' for the next overview reply."""
        with self._lock:
            self._count += 1
            n = self._count
            if self.drop_every and n % self.drop_every == 0:
                self.drops += 1
                return "drop"
            if self.cut_every and n % self.cut_every == 0:
                self.cuts += 1
                return "cut"
            return "ok"

    def next_article(self) -> str:
        """'drop', 'stall', 'garble' or 'ok' for the next article command's reply."""
        with self._lock:
            self._article_count += 1
            n = self._article_count
            for every, fate in (
                (self.article_drop_every, "drop"),
                (self.article_stall_every, "stall"),
                (self.article_garble_every, "garble"),
            ):
                if every and n % every == 0:
                    return fate
            return "ok"

    @classmethod
    def parse(cls, spec: str) -> Faults:
        """`cut=3,drop=5,dot,slow=0.5,idle=30,adrop=7,astall=9,agarble=11,alag=0.01`
        (the serve-nntp --faults option; the `a` ones act on article commands)."""
        faults = cls()
        for item in filter(None, (s.strip() for s in spec.split(","))):
            key, _, value = item.partition("=")
            if key == "cut":
                faults.cut_every = int(value)
            elif key == "drop":
                faults.drop_every = int(value)
            elif key == "dot":
                faults.cut_at_dot = True
            elif key == "slow":
                faults.first_byte_delay = float(value)
            elif key == "idle":
                faults.idle_timeout = float(value)
            elif key == "adrop":
                faults.article_drop_every = int(value)
            elif key == "astall":
                faults.article_stall_every = int(value)
            elif key == "agarble":
                faults.article_garble_every = int(value)
            elif key == "alag":
                faults.article_delay = float(value)
            else:
                raise ValueError(
                    f"unknown fault {key!r} (cut=N, drop=N, dot, slow=S, idle=S, adrop=N, "
                    "astall=N, agarble=N, alag=S)"
                )
        return faults
