"""The corpus plan: which uploads and noise each group gets, by whom, when.

Groups take turns (the one with the most lines still to fill goes next) until each
has its share of uploads; then each gets its noise. Features come from the deck and
the rates in `features`. Posters work in sessions: several uploads in a row, close
together, each with its own name.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from pipelines.generate import names
from pipelines.generate.config import GenerateConfig
from pipelines.generate.dates import TWO_DIGIT_STYLE
from pipelines.generate.features import DECK, RATES, SHARES, UPLOAD_SHARE, draw_features
from pipelines.generate.files import ReleaseSpec, build_release
from pipelines.generate.id_names import IdUploads
from pipelines.generate.junk import Junk
from pipelines.generate.noise import NoiseWriter
from pipelines.generate.obfuscation import ToolObfuscation
from pipelines.generate.pres import PreUploads
from pipelines.generate.rand import Tokens
from pipelines.generate.segments import Segments, SegmentTable
from pipelines.generate.special import ALBUM_STYLES, BatchPoster, post_album
from pipelines.generate.subjects import BY_NAME, Style, fits, pick_style
from pipelines.generate.tools import TOOLS, MessageIds, Poster, make_poster, random_sender
from pipelines.generate.uploads import Plan, Upload, UploadWriter

REPOST_GAP = (6 * 3600, 30 * 3600)  # well past the 3 h upload gap: a release of its own
HOUR = 3600.0


@dataclass
class GeneratedCorpus:
    config: GenerateConfig
    group_names: list[str]
    segments: Segments
    uploads: list[Upload]
    noise: list[tuple[list[str], int, str]]  # (message-ids, group index, kind) blocks
    start: int
    end: int
    ids: IdUploads | None = None  # with `id_titles`: the ids of the uploads' names
    pres: list[dict[str, Any]] = field(default_factory=list)  # GenerateConfig.pres


@dataclass
class Session:
    poster: Poster
    sender: str
    style: Style
    next_start: float


class Running(Protocol):
    """A poster's run of uploads: a `Session`, or a shape session of the real mix."""

    poster: Poster
    sender: str
    next_start: float


class Planner:
    def __init__(self, config: GenerateConfig) -> None:
        self.config = config
        self.rng = random.Random(config.seed)
        self.nprng = np.random.default_rng(config.seed)
        self.tokens = Tokens(self.nprng)
        self.table = SegmentTable()
        self.ids = MessageIds(self.tokens)
        self.writer = UploadWriter(self.table, self.ids, self.rng, self.nprng)
        self.noise = NoiseWriter(self.table, self.ids, self.tokens, self.rng, self.nprng)
        self.start = config.start_epoch()
        self.span = config.span_days * 86400
        self.names = config.group_names()
        n_posters = min(6 + 4 * config.groups + config.articles // 20_000, 400)
        # one poster of each tool, each Date style but the two-digit year among them
        self.posters = [
            make_poster(self.rng, self.tokens, tool, i % TWO_DIGIT_STYLE)
            for i, tool in enumerate(TOOLS)
        ]
        self.posters += [make_poster(self.rng, self.tokens) for _ in range(n_posters)]
        # a few posters post most uploads, in an order that does not follow the tools
        weights = [1.0 / (i + 1) ** 0.8 for i in range(len(self.posters))]
        self.rng.shuffle(weights)
        self.poster_weights = weights
        self.batch = BatchPoster(self.rng, make_poster(self.rng, self.tokens, "powerpost"))
        self.uploads: list[Upload] = []
        self.used_names: set[str] = set()
        self.cameras: set[str] = set()
        self.sessions: dict[int, Session] = {}
        self.budget = [config.articles * UPLOAD_SHARE] * config.groups
        # a release never takes more than a fortieth of a group: small corpora get many
        self.cap_bytes = max(config.articles // 40, 30) * 716_800
        # upload speed follows the group's density, so several uploads run at once
        self.upload_rate = config.articles * UPLOAD_SHARE / self.span
        self.junk = Junk(self) if config.split_and_junk else None
        self.tool_obfuscation = ToolObfuscation(self) if config.tool_obfuscation else None
        self.id_uploads = IdUploads(config.id_titles, config.seed) if config.id_titles else None
        self.pre_uploads = PreUploads(self) if config.pres else None

    def run(self) -> GeneratedCorpus:
        deck = self._deck()
        if self.junk is not None:  # first: a small corpus holds each of them too
            deck = self.junk.deck() + deck
        if self.tool_obfuscation is not None:
            deck = self.tool_obfuscation.deck() + deck
        if self.pre_uploads is not None:
            deck = self.pre_uploads.deck() + deck
        while max(self.budget) > 0:
            home = max(range(len(self.budget)), key=lambda g: (self.budget[g], -g))
            features = deck.pop(0) if deck else self._next()
            self._upload(home, features)
        if self.junk is not None:
            self.junk.take_down(self.uploads)
        if self.pre_uploads is not None:
            self.pre_uploads.finish()
        for group in range(self.config.groups):
            self._noise(group)
        return GeneratedCorpus(
            self.config,
            self.names,
            self.table.freeze(np.random.default_rng([self.config.seed, 3])),
            self.uploads,
            self.noise.rows,
            self.start,
            int(self.start + self.span),
            self.id_uploads,
            self.pre_uploads.pres if self.pre_uploads is not None else [],
        )

    def _next(self) -> dict[str, Any]:
        """The features of an upload after the deck: a split or junk one now and then
        (split_and_junk), an obfuscating tool's (tool_obfuscation), else an ordinary one."""
        junk = self.junk.draw() if self.junk is not None else None
        if junk is None and self.tool_obfuscation is not None:
            junk = self.tool_obfuscation.draw()
        if junk is None and self.pre_uploads is not None:
            junk = self.pre_uploads.draw()
        return junk or self._draw()

    def _deck(self) -> list[dict[str, Any]]:
        """The features of the first uploads, one an upload."""
        return list(DECK)

    def _draw(self) -> dict[str, Any]:
        """The features of an upload after the deck."""
        return draw_features(self.rng)

    def _groups(self, home: int, crosspost: bool) -> tuple[int, ...]:
        if not crosspost or self.config.groups < 2:
            return (home,)
        others = [g for g in range(self.config.groups) if g != home]
        chosen = [home, *self.rng.sample(others, min(len(others), self.rng.randint(1, 2)))]
        self.rng.shuffle(chosen)  # the Newsgroups header's order, not the priority order
        return tuple(chosen)

    def _charge(self, groups: tuple[int, ...], articles: int) -> None:
        for g in groups:
            self.budget[g] -= max(articles, 1)

    def _upload(self, home: int, features: dict[str, Any]) -> None:
        kind = features.get("kind")
        groups = self._groups(home, bool(features.get("crosspost")))
        before = self.budget[home]
        if "junk" in features:
            assert self.junk is not None
            self.junk.post(home, features)
        elif "obfuscation" in features:
            assert self.tool_obfuscation is not None
            self.tool_obfuscation.post(home, features["obfuscation"])
        elif "pre" in features:
            assert self.pre_uploads is not None
            self.pre_uploads.post(home, features["pre"])
        elif kind == "album":
            self._album(home, groups)
        elif kind == "batch":
            self._batch_run(home)
        else:
            self._release(home, groups, features)
        if self.budget[home] == before:  # nothing fitted: still move on
            self.budget[home] -= 1

    def _spec(self, kind: str) -> ReleaseSpec:
        for _ in range(50):
            spec = build_release(self.rng, self.tokens, kind, self.cap_bytes)
            if spec.name not in self.used_names:
                self.used_names.add(spec.name)
                if self.id_uploads is not None:  # named after a film or series of the tables
                    spec = self.id_uploads.rename(spec, self.used_names)
                return spec
        raise RuntimeError(f"could not draw a fresh {kind} release name")

    def _subject_name(self, encoding: str) -> str:
        for _ in range(50):
            if encoding == "latin1" or (encoding != "plain" and self.rng.random() < 0.3):
                title = names.latin1_title(self.rng)
            else:
                title = names.foreign_title(self.rng)
            if title not in self.used_names:
                self.used_names.add(title)
                return title
        raise RuntimeError("could not draw a fresh title")

    def _release(self, home: int, groups: tuple[int, ...], features: dict[str, Any]) -> None:
        spec = self._spec(features["kind"])
        encoding = features.get("encoding", "plain")
        subject_name = "" if encoding == "plain" else self._subject_name(encoding)
        needs_name = not spec.shared_stem or bool(subject_name)
        # obfuscated posts keep their counters (only the names are random), and a missing
        # file shows only against a file counter
        needs_counter = spec.kind == "obfuscated" or bool(
            features.get("missing_files") or features.get("nzb_first")
        )
        session = self._session(home, needs_name, needs_counter, features.get("poster"))
        start = session.next_start
        if features.get("repost"):  # leave room for the repost inside the span
            start = min(start, self.start + self.span * 0.45)
        start, duration = self._timing(session, spec, features, start)
        plan = self._plan(
            session,
            session.style,
            groups,
            start,
            duration,
            features,
            connections=self._connections(),
            encoding=encoding,
            subject_name=subject_name,
            nzb_first=bool(features.get("nzb_first")),
            extra={"post": str(self.rng.randint(10_000, 299_999)), "board": self._board(home)},
        )
        upload = self._post(session, spec, plan)
        if features.get("repost"):
            self._repost(upload, plan)

    def _timing(
        self, session: Running, spec: ReleaseSpec, features: dict[str, Any], start: float
    ) -> tuple[float, float]:
        """The start (moved inside the span) and the duration of a session's release: the
        time its segments take, or a long post's hours."""
        segments = sum(math.ceil(s / session.poster.article_size) for _, s in spec.files)
        duration = self._duration(segments, bool(features.get("long")))
        return max(min(start, self.start + self.span - duration), self.start), duration

    def _plan(
        self,
        session: Running,
        style: Style,
        groups: tuple[int, ...],
        start: float,
        duration: float,
        features: dict[str, Any],
        **options: Any,
    ) -> Plan:
        """A session's plan: its poster and sender, the features' missing files and
        segments; `options` are the rest of the plan's fields."""
        return Plan(
            poster=session.poster,
            sender=session.sender,
            style=style,
            groups=groups,
            start=start,
            duration=duration,
            missing_files=int(features.get("missing_files", 0)),
            missing_segments=float(features.get("missing_segments", 0.0)),
            **options,
        )

    def _connections(self) -> int:
        """How many connections an upload is posted over."""
        return self.rng.randint(2, 12)

    def _post(self, session: Running, spec: ReleaseSpec, plan: Plan) -> Upload:
        """Posts a session's release; the session's next upload starts a little after it."""
        upload = self.writer.post_release(len(self.uploads), spec, plan)
        self._keep(upload)
        session.next_start = upload.posted_last + self.rng.uniform(5, 900)
        return upload

    def _repost(self, original: Upload, plan: Plan) -> None:
        assert original.spec is not None
        gap = self.rng.uniform(*REPOST_GAP)
        start = min(original.posted_last + gap, self.start + self.span - plan.duration)
        if start < original.posted_last + REPOST_GAP[0]:
            return  # no room left in the span
        poster = plan.poster if self.rng.random() < 0.5 else self._poster()
        repost = Plan(
            poster=poster,
            sender=self._sender(poster),
            style=plan.style,
            groups=plan.groups,
            start=start,
            duration=plan.duration,
            connections=plan.connections,
            encoding=plan.encoding,
            subject_name=plan.subject_name,
            nzb_first=plan.nzb_first,
            extra=plan.extra,
        )
        upload = self.writer.post_release(
            len(self.uploads), original.spec, repost, repost_of=original.upload_id
        )
        self._keep(upload)

    def _keep(self, upload: Upload) -> None:
        self.uploads.append(upload)
        self._charge(upload.groups, upload.articles)

    def _poster(self) -> Poster:
        return self.rng.choices(self.posters, self.poster_weights)[0]

    def _sender(self, poster: Poster) -> str:
        return (
            random_sender(self.rng, self.tokens, poster.tool)
            if poster.fresh_sender
            else poster.sender
        )

    def _session(
        self, home: int, needs_name: bool, needs_counter: bool, poster_index: int | None
    ) -> Session:
        """The home group's running session, or a new poster at a random time."""
        session = self.sessions.get(home)
        if (
            poster_index is None
            and session is not None
            and self.rng.random() < RATES["session"]
            and session.next_start < self.start + self.span * 0.9
            and fits(session.style, needs_name, needs_counter)
        ):
            if session.poster.fresh_sender:
                session.sender = self._sender(session.poster)
            return session
        poster = self._poster() if poster_index is None else self.posters[poster_index]
        session = Session(
            poster=poster,
            sender=self._sender(poster),
            style=pick_style(self.rng, needs_name, needs_counter),
            next_start=self.start + self.rng.uniform(0, self.span),
        )
        self.sessions[home] = session
        return session

    def _duration(self, segments: int, long: bool) -> float:
        if long:
            return min(self.rng.uniform(2 * HOUR, 10 * HOUR), self.span * 0.5)
        # segments a second: a share of the group's upload traffic, so ~1-7 run at once
        rate = self.upload_rate * math.exp(self.rng.uniform(math.log(0.15), math.log(1.5)))
        return min(max(segments / rate, 60.0), 8 * HOUR, self.span * 0.5)

    def _board(self, group: int) -> str:
        return self.names[group].removeprefix("alt.binaries.")

    def _album(self, home: int, groups: tuple[int, ...]) -> None:
        poster = make_poster(self.rng, self.tokens, self.rng.choice(("nyuu", "server", "newsup")))
        n_images = max(5, min(self.rng.randint(20, 150), int(self.budget[home])))
        duration = self.rng.uniform(0.3 * HOUR, 4 * HOUR)
        plan = Plan(
            poster=poster,
            sender=poster.sender,
            style=self.rng.choice(ALBUM_STYLES),
            groups=groups,
            start=self.start + self.rng.uniform(0, self.span - duration),
            duration=duration,
        )
        self._keep(post_album(self.writer, len(self.uploads), plan, n_images, self.cameras))

    def _batch_run(self, home: int) -> None:
        poster = self.batch.poster
        t = self.start + self.rng.uniform(0, self.span * 0.9)
        for _ in range(self.rng.randint(5, 40)):
            size = int(math.exp(self.rng.uniform(math.log(50_000), math.log(5_000_000))))
            parts = math.ceil(size / poster.article_size)
            duration = parts * self.rng.uniform(1.0, 5.0)
            if t + duration > self.start + self.span:
                break
            plan = Plan(poster, poster.sender, BY_NAME["bare"], (home,), t, duration)
            stem = self.batch.item_name(self.rng, self.used_names)
            upload = self.batch.post_item(self.writer, len(self.uploads), plan, stem, size)
            self._keep(upload)
            t = upload.posted_last + self.rng.uniform(5, 120)

    def _noise(self, group: int) -> None:
        articles = self.config.articles
        for kind, share in SHARES.items():
            left = max(1, round(articles * share))
            while left > 0:
                poster = self._poster()
                if kind == "text_post":  # a reader's few posts over the whole span
                    n = min(left, self.rng.randint(1, 30))
                    self.noise.text_posts(group, poster, self.start, self.span, n)
                    left -= n
                    continue
                n = min(left, self.rng.randint(30, 1500))
                duration = min(
                    n / math.exp(self.rng.uniform(math.log(0.1), math.log(3.0))), 8 * HOUR
                )
                start = self.start + self.rng.uniform(0, self.span - duration)
                if kind == "random_subject":
                    self.noise.random_subjects(group, poster, start, duration, n)
                else:
                    self.noise.private_hashes(group, poster, start, duration, n)
                left -= n
