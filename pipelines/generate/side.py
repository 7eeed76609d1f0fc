"""Uploads a corpus option adds inside a `Planner`'s run (split and junk, obfuscating
posting tools), each option drawing from a random stream of its own: a corpus without
the option draws nothing more and stays the same bytes. The helpers both share: a poster,
a fresh name, a random token, a plan, a post.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any

from pipelines.generate.files import ReleaseSpec
from pipelines.generate.subjects import Style
from pipelines.generate.tools import Poster
from pipelines.generate.uploads import Plan, Upload

if TYPE_CHECKING:
    from pipelines.generate.plan import Planner

NO_PAR2_WORDS = ("vol", "par2")  # a random name holding these reads as a recovery volume


class SideUploads:
    """The shared helpers of an option's uploads; `label` keys its random stream."""

    def __init__(self, planner: Planner, label: str) -> None:
        self.p = planner
        self.rng = random.Random(f"{label}-{planner.config.seed}")

    def _poster(self, steady: bool = False) -> Poster:
        """A poster; `steady`: one whose From stays the same from post to post."""
        for _ in range(50):
            poster = self.p._poster()
            if not (steady and poster.fresh_sender):
                return poster
        return next(p for p in self.p.posters if not p.fresh_sender)

    def _fresh(self, draw: Any) -> str:
        for _ in range(50):
            name = str(draw(self.rng))
            if name not in self.p.used_names:
                self.p.used_names.add(name)
                return name
        raise RuntimeError("could not draw a fresh release name")

    def _token(self, alphabet: str, length: int) -> str:
        while True:
            token = self.p.tokens.one(alphabet, length)
            if not any(w in token.lower() for w in NO_PAR2_WORDS):
                return token

    def _plan(
        self,
        home: int,
        poster: Poster,
        style: Style,
        spec: ReleaseSpec,
        start: float | None = None,
        duration: float | None = None,
        sender: str | None = None,
        **options: Any,
    ) -> Plan:
        p = self.p
        if duration is None:
            segments = sum(math.ceil(s / poster.article_size) for _, s in spec.files)
            duration = p._duration(segments, False)
        if start is None:
            start = p.start + self.rng.uniform(0, max(p.span - duration, 1.0))
        start = max(min(start, p.start + p.span - duration), p.start)
        return Plan(
            poster=poster,
            sender=sender or p._sender(poster),
            style=style,
            groups=(home,),
            start=start,
            duration=duration,
            connections=p._connections(),
            extra={"post": str(self.rng.randint(10_000, 299_999)), "board": p._board(home)},
            **options,
        )

    def _post(self, spec: ReleaseSpec, plan: Plan) -> Upload:
        upload = self.p.writer.post_release(len(self.p.uploads), spec, plan)
        self.p._keep(upload)
        return upload
