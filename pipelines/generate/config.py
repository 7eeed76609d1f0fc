"""Settings of one generated corpus and the summary of a run."""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from typing import Any

from pipelines.generate.words import GROUP_WORDS

CODECS = ("zlib", "gzip")
MIXES = ("classic", "real")  # classic: today's shapes; real: plus pipelines.generate.shapes


@dataclass(frozen=True)
class GenerateConfig:
    """What to generate. The lines depend on groups, articles, seed, days, start, mix,
    split_and_junk and tool_obfuscation only; range_size, chunk and codec decide how they
    are stored."""

    groups: int = 3
    articles: int = 50_000  # overview lines per group, roughly (crossposts add some)
    seed: int = 0
    range_size: int = 2_000_000
    chunk: int = 100_000
    codec: str = "zlib"
    days: float | None = None  # posting span; None: from articles (2-10 days)
    start: int | None = None  # epoch second of the span's start; None: from the seed
    mix: str = "classic"  # which subject shapes: see MIXES
    # split uploads, fakes, repeats and taken-down articles (pipelines.generate.junk)
    split_and_junk: bool = False
    # obfuscated uploads as obfuscating posting tools write them: random subjects over
    # real yEnc names, random names everywhere, ngPost's archives (pipelines.generate.obfuscation)
    tool_obfuscation: bool = False
    # Spotnet spot groups (free.pt, alt.binaries.ftd) describing this many uploads
    # (pipelines.generate.spots); 0: none
    spots: int = 0
    # TV and film uploads named after the films and series of the IMDb title table in this
    # folder (pipelines.generate.id_names), their ids' truth in truth/ids.parquet
    id_titles: str | None = None
    # uploads of scene pres, named, hashed or size-mismatched, and the PreDB listing them
    # with pres never posted and nukes (pipelines.generate.pres, `truth/pres.jsonl`)
    pres: bool = False

    def __post_init__(self) -> None:
        if self.groups < 1:
            raise ValueError(f"groups must be at least 1, not {self.groups}")
        if self.articles < 100:
            raise ValueError(f"articles must be at least 100, not {self.articles}")
        if self.range_size < 1 or self.chunk < 1:
            raise ValueError("range_size and chunk must be positive")
        if self.chunk > self.range_size:
            raise ValueError(f"chunk ({self.chunk}) is larger than range_size ({self.range_size})")
        if self.codec not in CODECS:
            raise ValueError(f"codec must be one of {CODECS}, not {self.codec!r}")
        if self.mix not in MIXES:
            raise ValueError(f"mix must be one of {MIXES}, not {self.mix!r}")
        if self.days is not None and not 0.1 <= self.days <= 365:
            raise ValueError(f"days must be between 0.1 and 365, not {self.days}")

    @property
    def span_days(self) -> float:
        if self.days is not None:
            return self.days
        return min(10.0, max(2.5, self.articles / 20_000))

    def start_epoch(self) -> int:
        if self.start is not None:
            return self.start
        # somewhere in 2016-2024, at a whole hour, fixed by the seed
        return 1_451_606_400 + random.Random(f"start-{self.seed}").randrange(0, 9 * 8760) * 3600

    def group_names(self) -> list[str]:
        """`alt.binaries.<word>`; group i has priority number i (0 is the first)."""
        names = [f"alt.binaries.{word}" for word in GROUP_WORDS]
        k = 2
        while len(names) < self.groups:
            names.extend(f"alt.binaries.{word}.{k}" for word in GROUP_WORDS)
            k += 1
        return names[: self.groups]

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        if self.mix == "classic":  # a classic corpus's generate.json stays as it was
            del doc["mix"]
        if not self.split_and_junk:  # nor does a corpus without them
            del doc["split_and_junk"]
        if not self.tool_obfuscation:
            del doc["tool_obfuscation"]
        if not self.spots:
            del doc["spots"]
        if self.id_titles is None:
            del doc["id_titles"]
        if not self.pres:
            del doc["pres"]
        return doc


@dataclass
class GenerateSummary:
    lines: int = 0  # overview lines written, all groups (a crosspost counts in each group)
    articles: int = 0  # distinct message-ids
    uploads: int = 0
    noise: int = 0
    ranges: int = 0
    chunks: int = 0
    bytes: int = 0  # compressed bytes stored
    seconds: float = 0.0
    bodies: int = 0  # stored article bodies (pipelines.articles.store)
    lines_per_group: dict[str, int] = field(default_factory=dict)
    uploads_per_kind: dict[str, int] = field(default_factory=dict)
    noise_per_kind: dict[str, int] = field(default_factory=dict)
    junk_per_kind: dict[str, int] = field(default_factory=dict)  # split_and_junk only
    obfuscation_per_family: dict[str, int] = field(default_factory=dict)  # tool_obfuscation

    @property
    def lines_per_second(self) -> float:
        return self.lines / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        if not self.junk_per_kind:  # a corpus without split_and_junk: as it was
            del doc["junk_per_kind"]
        if not self.obfuscation_per_family:
            del doc["obfuscation_per_family"]
        doc["lines_per_second"] = round(self.lines_per_second)
        return doc

    def format(self) -> str:
        kinds = ", ".join(f"{k} {v:,}" for k, v in sorted(self.uploads_per_kind.items()))
        junk = ", ".join(f"{k} {v:,}" for k, v in self.junk_per_kind.items())
        tools = ", ".join(f"{k} {v:,}" for k, v in self.obfuscation_per_family.items())
        return (
            f"generated {self.lines:,} lines ({self.articles:,} articles) in "
            f"{len(self.lines_per_group)} groups: {self.uploads:,} uploads ({kinds}), "
            f"{self.noise:,} noise articles; {self.ranges} ranges, {self.chunks} chunks, "
            f"{self.bytes / 1e6:,.1f} MB in {self.seconds:.1f} s "
            f"({self.lines_per_second:,.0f} lines/s)"
            + (f"; split and junk: {junk}" if junk else "")
            + (f"; tool obfuscation: {tools}" if tools else "")
        )
