"""`usenet-indexer ids`: film and series ids from local files, on releases (issue 30).

`ids import FILE ... --catalog DIR` imports IMDb's title tables (title.basics,
title.episode, title.akas; gzipped or not), TVmaze's show records (JSON as its API pages
return them) and a CSV of TMDB ids (`tmdb_id,kind,imdb_id,title,year`), each file as its
kind's source (the same file again: nothing; a newer one: it takes the old one's place),
then builds the lookup the releases are matched to. `ids match --catalog DIR` matches the
releases new since its last run; `ids show NAME --catalog DIR` tells what a name matches.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cli.commands import command


def add_parser(sub: Any) -> None:
    p = command(
        sub, "ids", _usage, help="film and series ids (IMDb, TVDB, TVmaze, TMDB) on releases",
        description=__doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else "",
    )  # fmt: skip
    actions = p.add_subparsers(dest="action")
    imp = actions.add_parser("import", help="import id files and build the lookup")
    imp.add_argument("files", nargs="+", type=Path, help="IMDb TSV, TVmaze JSON or TMDB CSV files")
    imp.add_argument("--catalog", required=True, help="the catalog: a folder or an fsspec URL")
    imp.set_defaults(run=run_import)
    match = actions.add_parser("match", help="match the releases new since the last run")
    match.add_argument("--catalog", required=True, help="the catalog: a folder or an fsspec URL")
    match.set_defaults(run=run_match)
    score = actions.add_parser("score", help="a generated corpus's uploads' ids against truth")
    score.add_argument("out", help="the generated corpus (`generate --id-titles`)")
    score.add_argument("--catalog", required=True, help="its catalog, replayed and matched")
    score.set_defaults(run=run_score)
    agree = actions.add_parser("agreement", help="the name parser against Sonarr's cases")
    agree.add_argument(
        "--cases", default="../shared/data/names/sonarr_parser_testcases.tsv",
        help="Sonarr's parser test cases (tab-separated; the shared data's by default)",
    )  # fmt: skip
    agree.add_argument("--failures", action="store_true", help="list the cases that disagree")
    agree.set_defaults(run=run_agreement)
    show = actions.add_parser("show", help="what release names match")
    show.add_argument("names", nargs="+", help="release names")
    show.add_argument("--catalog", required=True, help="the catalog: a folder or an fsspec URL")
    show.set_defaults(run=run_show)


def _usage(args: argparse.Namespace) -> int:
    print("usenet-indexer ids {import,match,show} ... (--help for each)", file=sys.stderr)
    return 2


def run_import(args: argparse.Namespace) -> int:
    from pipelines.ids.build import build_lookup
    from pipelines.ids.formats import UnknownFormat
    from pipelines.ids.sources import import_file

    status = 0
    for path in args.files:
        try:
            done = import_file(args.catalog, path)
        except (UnknownFormat, OSError) as exc:
            print(f"ids import: {exc}", file=sys.stderr)
            status = 1
            continue
        state = "unchanged" if done.unchanged else f"{done.rows:,} rows"
        rejected = f", {done.rejected:,} lines rejected" if done.rejected else ""
        print(f"{path}: {done.format}, {state}{rejected}")
    built = build_lookup(args.catalog)
    counts = ", ".join(f"{v:,} {k}" for k, v in sorted(built.counts.items()))
    print(f"lookup {built.build}: {'unchanged' if built.unchanged else 'built'} ({counts})")
    return status


def run_match(args: argparse.Namespace) -> int:
    from pipelines.ids.stage import ids_catalog

    s = ids_catalog(args.catalog)
    if not s.lookup:
        print("ids match: no lookup yet (usenet-indexer ids import ...)", file=sys.stderr)
        return 1
    methods = ", ".join(f"{k} {v:,}" for k, v in sorted(s.methods.items()))
    print(
        f"ids: {s.groups} groups, {s.partitions} partitions, {s.releases:,} release versions, "
        f"{s.matched:,} matched, {s.ambiguous:,} ambiguous ({methods})"
    )
    return 0


def run_show(args: argparse.Namespace) -> int:
    from pipelines.ids.lookup import IdLookup
    from pipelines.ids.match import match_parsed
    from pipelines.names import parse_name

    lookup = IdLookup.load(args.catalog)
    if lookup is None:
        print("ids show: no lookup yet (usenet-indexer ids import ...)", file=sys.stderr)
        return 1
    for name in args.names:
        parsed = parse_name(name)
        found = match_parsed(parsed, lookup)
        ids = lookup.ids_of(found.entry) if found.entry is not None else {}
        print(f"{name}\n  parsed {parsed}\n  {found.method} ({found.candidates} candidates) {ids}")
    return 0


def run_score(args: argparse.Namespace) -> int:
    from pipelines.ids.score import score_ids

    try:
        print(score_ids(args.out, args.catalog).text())
    except (ValueError, FileNotFoundError) as exc:
        print(f"ids score: {exc}", file=sys.stderr)
        return 1
    return 0


def run_agreement(args: argparse.Namespace) -> int:
    from pipelines.names.agreement import agreement, overall

    path = Path(args.cases)
    if not path.is_file():
        print(f"ids agreement: {path} is not a file", file=sys.stderr)
        return 1
    rows = agreement(path)
    for r in rows:
        print(f"{r.share:7.1%} {r.agreed:4}/{r.cases:<4} {r.claims:<15} {r.fixture}.{r.method}")
        for name in r.disagreed if args.failures else ():
            print(f"          {name}")
    cases = sum(r.cases for r in rows)
    print(f"{overall(rows):7.2%} {sum(r.agreed for r in rows):4}/{cases:<4} all claimed fields")
    return 0
