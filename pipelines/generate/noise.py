"""Articles no header pass can rebuild: per-article random subjects, `[PRiVATE]` hashes,
and text posts. Each is its own article; the truth lists them in `noise.parquet`.

Random-subject and private-hash articles come in bursts from one poster, as the
segments of an upload whose every article got its own subject would.
"""

from __future__ import annotations

import random

import numpy as np

from pipelines.generate import words as w
from pipelines.generate.rand import HEX, Tokens
from pipelines.generate.segments import HEADER_BYTES, SegmentTable, Source
from pipelines.generate.tools import MessageIds, Poster, human_sender, random_sender

NOISE_KINDS = ("random_subject", "private_hash", "text_post")


class NoiseWriter:
    def __init__(
        self,
        table: SegmentTable,
        ids: MessageIds,
        tokens: Tokens,
        rng: random.Random,
        nprng: np.random.Generator,
    ) -> None:
        self.table = table
        self.ids = ids
        self.tokens = tokens
        self.rng = rng
        self.nprng = nprng
        # (message-ids, group, kind): one block a burst
        self.rows: list[tuple[list[str], int, str]] = []

    def _times(self, start: float, duration: float, n: int) -> np.ndarray:
        return start + np.sort(self.nprng.uniform(0.0, duration, size=n))

    def _raw_sizes(self, poster: Poster, n: int) -> np.ndarray:
        raw = np.full(n, poster.article_size, dtype=np.int64)
        raw[-1] = self.rng.randint(10_000, poster.article_size)
        return raw

    def random_subjects(
        self, group: int, poster: Poster, start: float, duration: float, n: int
    ) -> None:
        """ngPost's article obfuscation: a random 32-hex subject per article, often the id too."""
        tokens = self.tokens.many(HEX, 32, n)
        if self.rng.random() < 0.6:
            signature = poster.domain if poster.tool == "ngpost" else "ngPost"
            ids = [f"{tok}@{signature}" for tok in tokens]
        else:
            ids = self.ids.server_ids("news.newshosting.com", n)
        sender = random_sender(self.rng, self.tokens)
        self._add("random_subject", group, poster, sender, start, duration, tokens, ids)

    def private_hashes(
        self, group: int, poster: Poster, start: float, duration: float, n: int
    ) -> None:
        """`[PRiVATE]` posts: a hash where the name would be, no counter."""
        width = self.rng.choice((32, 40))
        shape = self.rng.choice(("[PRiVATE] {} ", "[PRiVATE]-[{}]", "[PRiVATE] {} yEnc"))
        subjects = [shape.format(h) for h in self.tokens.many(HEX, width, n)]
        times = self._times(start, duration, n)
        ids = self.ids.for_file(poster, np.arange(1, n + 1), n, times, 1, 1)
        self._add(
            "private_hash", group, poster, poster.sender, start, duration, subjects, ids, times
        )

    def text_posts(self, group: int, poster: Poster, start: float, duration: float, n: int) -> None:
        """Plain text articles by one reader: readable subjects, no yEnc, no counter, a few kB."""
        # people write these, not posting tools: a reader's own address
        sender = human_sender(self.rng)
        src = self.table.add_source(Source(sender, poster.date_style, poster.skew, (group,)))
        subjects = [
            self.rng.choice(w.TEXT_SUBJECTS).format(
                title=" ".join(self.rng.sample(w.TITLE_WORDS, 2))
            )
            for _ in range(n)
        ]
        lines = self.nprng.integers(8, 140, size=n)
        nbytes = HEADER_BYTES + len(sender) + lines * self.nprng.integers(30, 70, size=n)
        ids = self.ids.server_ids(self.rng.choice(("news.astraweb.com", "giganews.com")), n)
        self.table.add_text(src, self._times(start, duration, n), subjects, ids, nbytes, lines)
        self.rows.append((ids, group, "text_post"))

    def _add(
        self,
        kind: str,
        group: int,
        poster: Poster,
        sender: str,
        start: float,
        duration: float,
        subjects: list[str],
        ids: list[str],
        times: np.ndarray | None = None,
    ) -> None:
        n = len(subjects)
        if times is None:
            times = self._times(start, duration, n)
        src = self.table.add_source(Source(sender, poster.date_style, poster.skew, (group,)))
        overhead = HEADER_BYTES + len(subjects[0]) + len(sender) + 60
        self.table.add(src, times, subjects, ids, self._raw_sizes(poster, n), overhead)
        self.rows.append((ids, group, kind))
