"""Generated corpora for the tests: one call writes one, and says where its parts are.

`generate(out, groups=2, articles=2_500, ...)` runs the generator quietly into `out`
(the fields are GenerateConfig's); the `Generated` it returns names the corpus folder,
the groups in the priority order generate.json records, the rules that order makes, and
each group's parse context; `replayed` also indexes it into a catalog.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines.generate import GenerateConfig, generate_corpus
from pipelines.index.parse import GroupContext, group_context
from pipelines.index.replay import ReplaySummary, replay
from pipelines.index.rules import Rules


@dataclass(frozen=True)
class Generated:
    """A folder the generator wrote: generate.json, corpus/, truth/."""

    out: Path

    @property
    def corpus(self) -> str:
        return str(self.out / "corpus")

    @property
    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = json.loads((self.out / "generate.json").read_text())
        return meta

    @property
    def priority(self) -> tuple[str, ...]:
        """The groups, the first in priority first."""
        return tuple(g["name"] for g in sorted(self.meta["groups"], key=lambda g: g["priority"]))

    @property
    def rules(self) -> Rules:
        """The default rules with the groups in their priority order."""
        return Rules(groups=self.priority)

    def groups(self) -> Iterator[tuple[str, GroupContext]]:
        """Each group, the first in priority first, with its parse context under `rules`."""
        priority, rules = list(self.priority), self.rules
        for group in priority:
            yield group, group_context(group, priority, rules)


def generate(out: Path, config: GenerateConfig | None = None, **fields: Any) -> Generated:
    """Generate into `out` by `config`, or by GenerateConfig(**fields)."""
    config = config or GenerateConfig(**fields)
    generate_corpus(str(out), config, progress=False)
    return Generated(out)


def replayed(out: Path, catalog: Path, config: GenerateConfig) -> tuple[Generated, ReplaySummary]:
    """Generate into `out`, then index every range into `catalog` under the rules the
    generator's group priorities make (as `usenet-indexer replay --rules` would)."""
    gen = generate(out, config)
    return gen, replay(gen.corpus, str(catalog), gen.rules, progress=False)
