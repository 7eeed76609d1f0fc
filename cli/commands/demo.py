"""`usenet-indexer demo`: the main job on the embedded defaults (what scripts/run.sh runs).

Generates a demo corpus with article bodies, split uploads and junk (once), serves it
with the project's news server (`serve-nntp`'s) on loopback for the job's length, its
taken-down articles answering 430 as a provider's would, and materializes every asset
with Dagster on a local instance under the state folder (assets/launch.py: the header
pass, the article pass over that server, merges, health, verdicts, compaction, the
catalog); then prints the URLs to open and how to start the Dagster UI over the same
instance.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "demo",
        run,
        help="generate a demo corpus and index it with Dagster (the main job)",
        description="Under STATE (default var/): demo/ (the corpus, its bodies and truth, "
        "generated once), catalog/ (the Parquet catalog) and dagster/ (the Dagster instance, "
        "DAGSTER_HOME). A news server on loopback serves the corpus while every asset is "
        "materialized: each range's header pass in article order, the article pass, merges, "
        "a health sweep, the judge, compaction and the catalog views. Running it again does "
        "only what is new or stale.",
    )
    p.add_argument("--state", default="var", help="state folder (default var)")
    p.add_argument("--groups", type=int, default=3, help="groups in the demo corpus")
    p.add_argument("--articles", type=int, default=30_000, help="overview lines per group")
    p.add_argument(
        "--connections", type=int, default=4, help="connections to the demo's news server"
    )
    p.add_argument("--range-size", type=int, default=10_000, help="articles per range")
    p.add_argument("--seed", type=int, default=0)
    # long enough that the 24 h window closes on most uploads (picture sets show as
    # albums, few releases are still being posted), as on a real group; and that the
    # front page's newest 50 are mostly finished, so named and merged uploads show among
    # them (the article pass and the merges take finished releases; at 10 days half of
    # them were still open)
    p.add_argument(
        "--days", type=float, default=30.0, help="posting span of the corpus (default 30)"
    )
    p.add_argument(
        "--mix",
        choices=("classic", "real"),
        default="real",
        help="subject shapes: real (the default: real posters' shapes, docs/GENERATOR.md) "
        "or classic",
    )
    p.add_argument(
        "--spots",
        type=int,
        default=24,
        help="uploads with a Spotnet spot (the spot groups free.pt and alt.binaries.ftd, "
        "with tampered, unsigned and deleted spots beside them; 0: none)",
    )
    p.add_argument("--rules", default="", help="rule set (JSON); default: the built-in rules")
    p.add_argument("--port", type=int, default=8000, help="the port `serve` will use (for URLs)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def gone_file(corpus: Path) -> Path:
    """The generator's taken-down articles (docs/GENERATOR.md), beside the corpus."""
    return corpus.parent / "truth" / "gone.parquet"


@contextmanager
def demo_server(corpus: Path) -> Iterator[int]:
    """`serve-nntp`'s server over the corpus on a free loopback port (yielded) while the
    job runs: the generator's stored bodies, its taken-down articles gone (430)."""
    from pipelines.nntpserver.gone import load_gone
    from pipelines.nntpserver.server import NNTPServer, ServerOptions

    found = gone_file(corpus)
    gone = load_gone(str(found)) if found.exists() else frozenset()
    with NNTPServer(str(corpus), "127.0.0.1", 0, ServerOptions(gone=gone)) as server:
        print(f"demo: serving the corpus over NNTP on 127.0.0.1:{server.port} "
              f"({len(gone):,} articles taken down)")  # fmt: skip
        yield server.port


def run(args: argparse.Namespace) -> int:
    state = Path(args.state).resolve()
    home = state / "dagster"
    corpus = state / "demo" / "corpus"
    catalog = state / "catalog"
    # Dagster reads DAGSTER_HOME when the instance is made: set it before importing it
    os.environ["DAGSTER_HOME"] = str(home)

    from pipelines.generate import GenerateConfig, generate_corpus

    if not (corpus).is_dir():
        print(f"demo: generating a corpus into {corpus.parent}")
        config = GenerateConfig(
            groups=args.groups,
            articles=args.articles,
            seed=args.seed,
            range_size=args.range_size,
            chunk=min(args.range_size, 5_000),
            days=args.days,
            mix=args.mix,
            # what the article pass, merges, health and the judge work on
            split_and_junk=True,
            spots=args.spots,  # Spotnet groups: signed spots of some uploads, their NZBs
        )
        print(generate_corpus(str(corpus.parent), config, progress=not args.quiet).format())
    elif not gone_file(corpus).exists():  # an earlier version's demo: headers and few bodies
        print(f"demo: {corpus.parent} holds no split uploads or junk (an earlier demo's); "
              "remove it and run again to see merges and verdicts at work")  # fmt: skip

    import dagster as dg

    from assets.launch import prepare_home, run_main_job
    from assets.resources import NNTPResource

    prepare_home(home)
    with demo_server(corpus) as port, dg.DagsterInstance.get() as instance:
        nntp = NNTPResource(host="127.0.0.1", port=port, connections=args.connections)
        summary = run_main_job(
            instance, str(corpus), str(catalog), args.rules, progress=not args.quiet,
            out=sys.stdout, nntp=nntp,
        )  # fmt: skip
    gone = gone_file(corpus)
    rules_env = f"USENET_INDEXER_RULES={Path(args.rules).resolve()} " if args.rules else ""
    print(
        "\nopen:\n"
        f"  web page   http://127.0.0.1:{args.port}/\n"
        f"  Newznab    http://127.0.0.1:{args.port}/api?t=caps\n"
        "Dagster UI over the same instance (in another shell):\n"
        f"  DAGSTER_HOME={home} USENET_INDEXER_CORPUS={corpus} "
        f"USENET_INDEXER_CATALOG={catalog} {rules_env}"
        ".venv/bin/dagster dev -m assets -h 127.0.0.1 -p 3000\n"
        "  then http://127.0.0.1:3000/asset-groups; for its probe sensor and health schedule,\n"
        f"  .venv/bin/usenet-indexer serve-nntp {corpus} --gone {gone}\n"
        "  and USENET_INDEXER_NNTP_HOST=127.0.0.1 USENET_INDEXER_NNTP_PORT=1119 in the UI's shell"
    )
    return 1 if summary.failed else 0
