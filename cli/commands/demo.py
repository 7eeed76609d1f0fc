"""`usenet-indexer demo`: the main job on the embedded defaults (what scripts/run.sh runs).

Generates a demo corpus (once), materializes every range partition with Dagster on a
local instance under the state folder, compacts, refreshes the catalog asset, and
prints the URLs to open and how to start the Dagster UI over the same instance.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "demo",
        run,
        help="generate a demo corpus and index it with Dagster (the main job)",
        description="Under STATE (default var/): demo/corpus (generated once), catalog/ "
        "(the Parquet catalog) and dagster/ (the Dagster instance, DAGSTER_HOME). Every "
        "range partition is materialized in article order, groups are compacted, and the "
        "catalog asset is refreshed. Running it again indexes only what is new or stale.",
    )
    p.add_argument("--state", default="var", help="state folder (default var)")
    p.add_argument("--groups", type=int, default=3, help="groups in the demo corpus")
    p.add_argument("--articles", type=int, default=30_000, help="overview lines per group")
    p.add_argument("--range-size", type=int, default=10_000, help="articles per range")
    p.add_argument("--seed", type=int, default=0)
    # long enough that the 24 h window closes on most uploads (picture sets show as
    # albums, few releases are still being posted), as on a real group
    p.add_argument(
        "--days", type=float, default=10.0, help="posting span of the corpus (default 10)"
    )
    p.add_argument(
        "--mix",
        choices=("classic", "real"),
        default="real",
        help="subject shapes: real (the default: real posters' shapes, docs/GENERATOR.md) "
        "or classic",
    )
    p.add_argument("--rules", default="", help="rule set (JSON); default: the built-in rules")
    p.add_argument("--port", type=int, default=8000, help="the port `serve` will use (for URLs)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


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
        )
        print(generate_corpus(str(corpus.parent), config, progress=not args.quiet).format())

    import dagster as dg

    from assets.launch import prepare_home, run_main_job

    prepare_home(home)
    with dg.DagsterInstance.get() as instance:
        summary = run_main_job(
            instance, str(corpus), str(catalog), args.rules, progress=not args.quiet, out=sys.stdout
        )
    rules_env = f"USENET_INDEXER_RULES={Path(args.rules).resolve()} " if args.rules else ""
    print(
        "\nopen:\n"
        f"  web page   http://127.0.0.1:{args.port}/\n"
        f"  Newznab    http://127.0.0.1:{args.port}/api?t=caps\n"
        "Dagster UI over the same instance (in another shell):\n"
        f"  DAGSTER_HOME={home} USENET_INDEXER_CORPUS={corpus} "
        f"USENET_INDEXER_CATALOG={catalog} {rules_env}"
        ".venv/bin/dagster dev -m assets -h 127.0.0.1 -p 3000\n"
        "  then http://127.0.0.1:3000/asset-groups"
    )
    return 1 if summary.failed else 0
