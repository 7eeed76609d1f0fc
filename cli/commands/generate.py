"""`usenet-indexer generate OUT`: write a synthetic binary-group corpus with ground truth."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "generate",
        run,
        help="generate a synthetic corpus of binary groups with ground truth",
        description="Writes OUT/corpus/<group>/<first>-<last>/ (chunks and range.json, as "
        "capture would), OUT/truth/uploads.parquet and OUT/truth/noise.parquet (what a "
        "header pass should rebuild), OUT/bodies/bodies.parquet (the probe targets' article "
        "bodies) and OUT/generate.json (parameters and counts). The "
        "same arguments give the same bytes; see docs/GENERATOR.md.",
    )
    p.add_argument("out", help="output folder or fsspec URL")
    p.add_argument("--groups", type=int, default=3, help="number of groups (default 3)")
    p.add_argument(
        "--articles",
        type=int,
        default=50_000,
        help="overview lines per group, roughly: crossposts add some (default 50000)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--range-size", type=int, default=2_000_000, help="articles per range (default 2000000)"
    )
    p.add_argument("--chunk", type=int, default=100_000, help="articles per chunk (default 100000)")
    p.add_argument("--codec", choices=("zlib", "gzip"), default="zlib", help="chunk compression")
    p.add_argument(
        "--days", type=float, default=None, help="posting span in days (default: from --articles)"
    )
    p.add_argument(
        "--start", type=int, default=None, help="epoch second the span starts (default: from seed)"
    )
    p.add_argument(
        "--mix",
        choices=("classic", "real"),
        default="classic",
        help="subject shapes: classic (today's, the default) or real (plus the shapes of real "
        "posters, each upload's family in the truth)",
    )
    p.add_argument(
        "--split-and-junk",
        action="store_true",
        help="add uploads the header pass splits (per_file, tracks, sidecar), fakes, repeated "
        "families and taken-down uploads, with their truth columns and OUT/truth/gone.parquet "
        "(the taken-down message-ids); see docs/GENERATOR.md",
    )
    p.add_argument(
        "--pres",
        action="store_true",
        help="add uploads of scene pres (titles from the real PreDB dumps): named, hashed by "
        "each hash kind, obfuscated with the title only inside, size-mismatched; with pres "
        "never posted and nukes, listed in "
        "OUT/truth/pres.jsonl for `predb import` (docs/PREDB.md)",
    )
    p.add_argument(
        "--tool-obfuscation",
        action="store_true",
        help="add obfuscated uploads as obfuscating posting tools (Nyuu, Postie, ngPost) write "
        "them: random subjects over real yEnc names, random names everywhere, par2-only names, "
        "ngPost's archives; the truth's `obfuscation` column names the family (docs/GENERATOR.md)",
    )
    p.add_argument(
        "--spots",
        type=int,
        default=0,
        metavar="N",
        help="add Spotnet groups (free.pt, alt.binaries.ftd): N signed spots of uploads, with "
        "tampered, unsigned and deleted ones and their NZBs, truth in OUT/truth/spots.parquet "
        "(docs/SPOTS.md)",
    )
    p.add_argument(
        "--id-titles",
        metavar="DIR",
        help="name TV and film uploads after the films and series of DIR/title.basics.tsv[.gz] "
        "(IMDb's format), their ids' truth in OUT/truth/ids.parquet (docs/IDS.md)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace an earlier generated corpus in OUT (its corpus/, truth/, generate.json)",
    )
    p.add_argument(
        "--no-bodies",
        action="store_true",
        help="skip OUT/bodies/ (the stored article bodies of the probe targets: par2 "
        "indexes, archive volumes' heads, 7z tails) that serve-nntp and probe --bodies read",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from pipelines.generate import GenerateConfig, generate_corpus

    try:
        config = GenerateConfig(
            groups=args.groups,
            articles=args.articles,
            seed=args.seed,
            range_size=args.range_size,
            chunk=args.chunk,
            codec=args.codec,
            days=args.days,
            start=args.start,
            mix=args.mix,
            split_and_junk=args.split_and_junk,
            tool_obfuscation=args.tool_obfuscation,
            spots=args.spots,
            id_titles=args.id_titles,
            pres=args.pres,
        )
        summary = generate_corpus(
            args.out, config, progress=not args.quiet, force=args.force, bodies=not args.no_bodies
        )
    except (ValueError, FileExistsError) as exc:
        print(f"generate: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(summary.to_json(), sort_keys=True))
    else:
        print(summary.format())
    return 0
