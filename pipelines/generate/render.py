"""Overview lines: `number, Subject, From, Date, Message-ID, References, :bytes, :lines, Xref`.

This loop is the generator's hot path: everything per upload is precomputed, each
line is one f-string, and a chunk is encoded to bytes once. Subjects are kept in their
wire form (one character a byte), so that encoding is a plain copy.
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import itemgetter
from typing import Any

import numpy as np

from pipelines.generate.dates import OFFSETS, ZONES, DateFormatter, bogus
from pipelines.generate.schedule import XREF_HOST
from pipelines.generate.segments import Segments

BOGUS_RATE = 0.0003  # articles dated 1970 or 2099 by a broken clock
PIECE_LINES = 8192


class LineRenderer:
    def __init__(self, segments: Segments, xrefs: dict[int, str], rng: np.random.Generator):
        self.segments = segments
        self.xrefs = xrefs
        self.crossed = _mask(len(segments), xrefs)
        skew = np.array([s.skew for s in segments.sources], dtype=np.int64)
        style = np.array([s.date_style for s in segments.sources], dtype=np.int64)
        self.date_style = style[segments.source]
        # the poster's local clock: true time, the clock's skew, the zone it writes
        self.date_time = segments.times.astype(np.int64) + skew[segments.source]
        self.local_time = self.date_time + np.array(OFFSETS, dtype=np.int64)[self.date_style]
        self.senders = [s.sender for s in segments.sources]
        self.dates = DateFormatter()
        self.bogus = self._bogus_dates(rng)
        self.bogus_mask = _mask(len(segments), self.bogus)

    def _bogus_dates(self, rng: np.random.Generator) -> dict[int, str]:
        n = len(self.segments)
        if n < 1000:
            return {}
        count = max(4, int(n * BOGUS_RATE))
        chosen = np.sort(rng.choice(n, size=count, replace=False))
        return {
            int(s): bogus(int(self.date_time[s]), to_1970=bool(i % 2))
            for i, s in enumerate(chosen.tolist())
        }

    def _date_parts(self, segs: np.ndarray) -> tuple[list[str], list[str], list[str]]:
        """Each article's Date as three strings: day prefix, time of day, zone."""
        local = self.local_time[segs]
        style = self.date_style[segs]
        keys, inverse = np.unique((local // 86400) * 16 + style, return_inverse=True)
        prefixes = np.array(
            [self.dates.day_prefix(int(k) // 16, int(k) % 16) for k in keys.tolist()], dtype=object
        )
        days = prefixes[inverse].tolist()
        times = _HMS[local % 86400].tolist()
        zones = _ZONES[style].tolist()
        return days, times, zones

    def render(self, group: str, segs: np.ndarray, numbers: np.ndarray) -> bytes:
        """The CRLF lines of `segs` (in article order) as numbered in `group`."""
        return b"".join(self.pieces(group, segs, numbers))

    def pieces(self, group: str, segs: np.ndarray, numbers: np.ndarray) -> Iterator[bytes]:
        """The same lines in pieces of a few MB: small buffers the allocator reuses, where
        one of tens of MB would be fresh pages each time."""
        for i in range(0, len(segs), PIECE_LINES):
            yield self._render(group, segs[i : i + PIECE_LINES], numbers[i : i + PIECE_LINES])

    def _render(self, group: str, segs: np.ndarray, numbers: np.ndarray) -> bytes:
        if len(segs) == 0:
            return b""
        idx = segs.tolist()
        seg = self.segments
        days, times, zones = self._date_parts(segs)
        for i in np.nonzero(self.bogus_mask[segs])[0].tolist():
            days[i], times[i], zones[i] = self.bogus[idx[i]], "", ""
        # Xref: `head + number` for one group; the whole field for a crosspost
        nums = list(map(str, numbers.tolist()))  # formatted once, written twice
        heads = [f"Xref: {XREF_HOST} {group}:"] * len(idx)
        tails = list(nums)
        for i in np.nonzero(self.crossed[segs])[0].tolist():
            heads[i], tails[i] = self.xrefs[idx[i]], ""
        out = [
            f"{n}\t{subj}\t{frm}\t{d}{t}{z}\t<{mid}>\t\t{nb}\t{nl}\t{xh}{xt}\r\n"
            for n, subj, frm, d, t, z, mid, nb, nl, xh, xt in zip(
                nums,
                _take(seg.subjects, idx),
                _take(self.senders, seg.source[segs].tolist()),
                days,
                times,
                zones,
                _take(seg.message_ids, idx),
                seg.nbytes[segs].tolist(),
                seg.nlines[segs].tolist(),
                heads,
                tails,
                strict=True,
            )
        ]
        return "".join(out).encode("latin-1")  # every character is one byte (subjects.on_wire)


def _mask(n: int, keys: dict[int, str]) -> np.ndarray:
    """Which segments have an entry in `keys`: a lookup a chunk piece can index."""
    mask = np.zeros(n, dtype=bool)
    if keys:
        mask[np.fromiter(keys, dtype=np.int64, count=len(keys))] = True
    return mask


def _take(values: list[Any], idx: list[int]) -> tuple[Any, ...]:
    if len(idx) == 1:
        return (values[idx[0]],)
    return itemgetter(*idx)(values)


# every time of day as `HH:MM:SS`, and the zone text of each Date style
_MM_SS = [f":{m:02d}:{s:02d}" for m in range(60) for s in range(60)]  # built at import: cheaply
_HMS = np.array([f"{h:02d}{ms}" for h in range(24) for ms in _MM_SS], dtype=object)
_ZONES = np.array(ZONES, dtype=object)
