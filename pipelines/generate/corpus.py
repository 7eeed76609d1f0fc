"""`generate_corpus` and `generate_range_lines`: the generator's public entry points."""

from __future__ import annotations

import contextlib
import gc
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np
from tqdm import tqdm

from pipelines.articles.store import BODIES_FILE, write_bodies
from pipelines.corpus.fs import open_fs
from pipelines.corpus.writer import CorpusWriter
from pipelines.generate.config import GenerateConfig, GenerateSummary
from pipelines.generate.contents.build import bodies
from pipelines.generate.contents.story import tell
from pipelines.generate.plan import GeneratedCorpus, Planner
from pipelines.generate.pres import write_pres
from pipelines.generate.real import RealPlanner
from pipelines.generate.render import LineRenderer
from pipelines.generate.schedule import XREF_HOST, GroupArticles, number_groups
from pipelines.generate.spots import write_spot_groups
from pipelines.generate.truth import (
    expected_verdict,
    gone_table,
    noise_table,
    uploads_table,
    write_parquet,
)
from pipelines.generate.writer import StoredGroup, write_group, write_json

FORMAT_VERSION = 1
# what a previous run leaves in OUT; only these are ever removed (with force)
OUTPUTS = ("generate.json", "corpus", "truth", "bodies")
CHUNK_LEVEL = 1  # ISA-L deflate level of the chunks


@contextlib.contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while millions of strings are made.

    The generator builds no reference cycles; with the collector on, its repeated
    scans of the growing lists took half the run time.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def build(
    config: GenerateConfig, check_ids: bool = True
) -> tuple[GeneratedCorpus, list[GroupArticles], LineRenderer]:
    """Plan the corpus, number every group's articles, prepare the line renderer."""
    planner = RealPlanner(config) if config.mix == "real" else Planner(config)
    corpus = planner.run()
    ids = corpus.segments.message_ids
    # every tool's shape carries a random token, a counter or a microsecond, so ids are
    # unique by construction; a stored corpus (and its truth) is checked all the same
    if check_ids and len(set(ids)) != len(ids):
        raise RuntimeError(f"seed {config.seed}: two generated articles share a message-id")
    groups, xrefs = number_groups(
        corpus.segments, corpus.group_names, np.random.default_rng([config.seed, 1])
    )
    renderer = LineRenderer(corpus.segments, xrefs, np.random.default_rng([config.seed, 2]))
    return corpus, groups, renderer


def generate_corpus(
    out: str,
    config: GenerateConfig,
    progress: bool = False,
    force: bool = False,
    bodies: bool = True,
) -> GenerateSummary:
    """Write a synthetic corpus and its ground truth under `out` (a folder or fsspec URL),
    and (`bodies`) the stored bodies of its probe targets in `out/bodies/`.

    Refuses an `out` that already holds a generated corpus unless `force`, which
    removes only what a previous run wrote (generate.json, corpus/, truth/, bodies/).
    """
    with _no_gc():
        return _generate(out, config, progress, force, bodies)


def _generate(
    out: str, config: GenerateConfig, progress: bool, force: bool, with_bodies: bool
) -> GenerateSummary:
    started = time.perf_counter()
    root = out.rstrip("/")
    _prepare(root, force)
    corpus, groups, renderer = build(config)
    total = sum(len(g) for g in groups)
    # level 1: as small as level 2 on these lines (random tokens, short repeats) and
    # about a tenth faster
    writer = CorpusWriter(f"{root}/corpus", codec=config.codec, level=CHUNK_LEVEL)
    stored: list[StoredGroup] = []
    with tqdm(
        total=total, unit="line", unit_scale=True, desc="generating", disable=not progress
    ) as bar:
        for priority, arts in enumerate(groups):
            bar.set_postfix(group=arts.name)
            stored.append(
                write_group(
                    writer, renderer, arts, priority, config.range_size, config.chunk, bar.update
                )
            )
    stories = [tell(u, config.seed) for u in corpus.uploads]
    junk = config.split_and_junk
    write_parquet(
        uploads_table(
            corpus.uploads,
            corpus.group_names,
            stories,
            shapes=config.mix != "classic",
            junk=junk,
            tools=config.tool_obfuscation,
        ),
        f"{root}/truth/uploads.parquet",
    )
    if junk:
        write_parquet(gone_table(corpus.uploads), f"{root}/truth/gone.parquet")
    if corpus.ids is not None:  # the films' and series' ids of the uploads' names
        posted = {u.name for u in corpus.uploads}
        write_parquet(corpus.ids.truth_table(posted), f"{root}/truth/ids.parquet")
    if config.pres:
        write_pres(corpus.pres, f"{root}/truth/pres.jsonl")
    if with_bodies:
        # a repost posts the same files: the same contents under its own message-ids; a
        # taken-down article has no body; split uploads (`junk`) make a lone file of each
        # volume, so each has its first segment stored
        made = (
            b
            for u, s in zip(corpus.uploads, stories, strict=True)
            for b in _kept(
                bodies(u, s, config.seed, junk, [corpus.group_names[g] for g in u.groups]),
                u.gone,
            )
        )
        summary_bodies = write_bodies(made, f"{root}/{BODIES_FILE}")
    else:
        summary_bodies = 0
    write_parquet(noise_table(corpus.noise, corpus.group_names), f"{root}/truth/noise.parquet")
    if config.spots:
        write_spot_groups(
            root, corpus.uploads, corpus.group_names, config, corpus.start, corpus.end
        )
    summary = _summary(corpus, stored)
    if junk:
        summary.junk_per_kind = _junk_counts(corpus, stories)
    if config.tool_obfuscation:
        counts = Counter(u.obfuscation for u in corpus.uploads if u.obfuscation)
        summary.obfuscation_per_family = dict(sorted(counts.items()))
    summary.bodies = summary_bodies
    summary.seconds = time.perf_counter() - started
    write_json(f"{root}/generate.json", _manifest(config, corpus, stored, summary))
    return summary


def _kept(made: list[Any], gone: list[str]) -> list[Any]:
    if not gone:
        return made
    taken = set(gone)
    return [b for b in made if b.message_id not in taken]


def _junk_counts(corpus: GeneratedCorpus, stories: list[Any]) -> dict[str, int]:
    """Uploads of each split, fake, repeated and taken-down kind, and of each verdict."""
    counts: Counter[str] = Counter()
    for u, story in zip(corpus.uploads, stories, strict=True):
        if u.split_by:
            counts[f"split_{u.split_by}"] += 1
        if u.fake:
            counts[f"fake_{u.fake}"] += 1
        if u.repeat_of is not None:
            counts["repeated"] += 1
        if u.taken_down:
            counts[f"taken_down_{u.taken_down}"] += 1
        verdict = expected_verdict(u, story)
        if verdict:
            counts[f"verdict_{verdict}"] += 1
    counts["gone_articles"] = sum(len(u.gone) for u in corpus.uploads)
    return dict(sorted(counts.items()))


def _prepare(root: str, force: bool) -> None:
    fs, path = open_fs(root)
    present = [name for name in OUTPUTS if fs.exists(f"{path}/{name}")]
    if present and not force:
        raise FileExistsError(
            f"{root} already holds a generated corpus ({', '.join(present)}); "
            "choose another folder or pass force"
        )
    for name in present:
        fs.rm(f"{path}/{name}", recursive=True)
    fs.makedirs(path, exist_ok=True)


def _summary(corpus: GeneratedCorpus, stored: list[StoredGroup]) -> GenerateSummary:
    return GenerateSummary(
        lines=sum(g.lines for g in stored),
        articles=len(corpus.segments),
        uploads=len(corpus.uploads),
        noise=sum(len(ids) for ids, _, _ in corpus.noise),
        ranges=sum(g.ranges for g in stored),
        chunks=sum(g.chunks for g in stored),
        bytes=sum(g.bytes for g in stored),
        lines_per_group={g.name: g.lines for g in stored},
        uploads_per_kind=dict(sorted(Counter(u.kind for u in corpus.uploads).items())),
        noise_per_kind=dict(sorted(_noise_counts(corpus).items())),
    )


def _noise_counts(corpus: GeneratedCorpus) -> Counter[str]:
    counts: Counter[str] = Counter()
    for ids, _, kind in corpus.noise:
        counts[kind] += len(ids)
    return counts


def _manifest(
    config: GenerateConfig,
    corpus: GeneratedCorpus,
    stored: list[StoredGroup],
    summary: GenerateSummary,
) -> dict[str, Any]:
    return {
        "format": FORMAT_VERSION,
        "config": config.to_json(),
        "seed": config.seed,
        "posting_span": {"start": corpus.start, "end": corpus.end},
        "xref_host": XREF_HOST,
        "groups": [g.__dict__ for g in stored],
        # no timings: the same arguments write the same bytes, this file included
        "counts": {
            k: v
            for k, v in summary.to_json().items()
            if k not in ("seconds", "lines_per_second", "bodies")
        },
        "truth": {
            "uploads": "truth/uploads.parquet",
            "noise": "truth/noise.parquet",
            **({"gone": "truth/gone.parquet"} if config.split_and_junk else {}),
        },
        **({"bodies": {"path": BODIES_FILE, "articles": summary.bodies}} if summary.bodies else {}),
    }


def generate_range_lines(
    n_lines: int, seed: int = 0, days: float | None = None
) -> tuple[bytes, int, int]:
    """One group's first `n_lines` overview lines in article order, in memory.

    Returns (CRLF lines, first article number, last article number). For benchmarks of
    later stages: the lines `generate --groups 1 --articles n_lines` writes (a few more
    articles asked for, in the rare case that falls short), cut to exactly `n_lines`.
    """
    if n_lines < 1:
        raise ValueError(f"n_lines must be positive, not {n_lines}")
    with _no_gc():
        return _range_lines(n_lines, seed, days)


def _range_lines(n_lines: int, seed: int, days: float | None) -> tuple[bytes, int, int]:
    articles = max(n_lines, 100)
    while True:
        config = GenerateConfig(groups=1, articles=articles, seed=seed, days=days)
        _corpus, groups, renderer = build(config, check_ids=False)
        arts = groups[0]
        if len(arts) >= n_lines:
            break
        articles = int(articles * 1.1) + 100
    segs, numbers = arts.segments[:n_lines], arts.numbers[:n_lines]
    return renderer.render(arts.name, segs, numbers), int(numbers[0]), int(numbers[-1])
