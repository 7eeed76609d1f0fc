"""`usenet-indexer rules ...`: the operator's rule set in a catalog (docs/RULES.md)."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from typing import Any

from cli.commands import command

EDITS = ("field", "group", "action", "state", "note")


def add_parser(sub: Any) -> None:
    p = command(
        sub,
        "rules",
        lambda args: args.rules_run(args),
        help="the operator's junk rules: list, add, change, try before applying, apply",
        description="The rule set of a catalog: the built-in junk rules and the operator's "
        "(drop, keep or watch by subject, poster or message-id; on, off or shadow), in "
        "evaluation order, with their counters. `try` shows what a draft change would drop "
        "and which releases it would remove or change, without writing; `apply` redoes only "
        "the ranges a change touches.",
    )
    verbs = p.add_subparsers(dest="verb", required=True)

    def verb(name: str, run: Any, help: str) -> argparse.ArgumentParser:
        v = verbs.add_parser(name, help=help, description=help)
        v.set_defaults(rules_run=run)
        v.add_argument("--catalog", required=True, help="catalog root: a folder or fsspec URL")
        return v

    verb("list", _list, "the rules in evaluation order with their counters").add_argument(
        "--json", action="store_true", help="as JSON (the fields of rule_counters)"
    )
    add = verb("add", _add, "add an operator rule (refused: why, on stderr)")
    add.add_argument("pattern", help="a regex (RE2, case-insensitive) or, with --literal, text")
    _rule_options(add)
    add.add_argument("--position", type=int, help="its place among the operator's rules")
    upd = verb("update", _update, "change an operator rule")
    upd.add_argument("id")
    upd.add_argument("--pattern")
    _rule_options(upd, defaults=False)
    mv = verb("move", _move, "move an operator rule to a place among the operator's rules")
    mv.add_argument("id")
    mv.add_argument("position", type=int)
    verb("delete", _delete, "delete an operator rule").add_argument("id")
    imp = verb("import-nzedb", _import, "add the rules of an nZEDb binaryblacklist export")
    imp.add_argument("file")
    trial = verb("try", _try, "what a draft rule (or change) would do, nothing written")
    trial.add_argument(
        "rule", help="a pattern for a new rule, or the id of a rule to change (with options)"
    )
    trial.add_argument("--pattern", help="the changed rule's new pattern")
    trial.add_argument("--delete", action="store_true", help="try deleting the rule")
    _rule_options(trial, defaults=False)
    trial.add_argument("--corpus", required=True, help="corpus root: a folder or fsspec URL")
    trial.add_argument("--ranges", type=int, default=10, help="the last N stored ranges")
    trial.add_argument("--rules", help="rule set (JSON); default: the built-in rules")
    trial.add_argument("--json", action="store_true", help="the whole prediction as JSON")
    app = verb("apply", _apply, "redo the ranges the rule set's changes touch")
    app.add_argument("--corpus", required=True, help="corpus root: a folder or fsspec URL")
    app.add_argument("--rules", help="rule set (JSON); default: the built-in rules")


def _rule_options(p: argparse.ArgumentParser, defaults: bool = True) -> None:
    d: dict[str, Any] = {"field": "subject", "group": "", "action": "drop", "state": "on"}
    d = d if defaults else {}
    p.add_argument("--field", choices=("subject", "poster", "message_id"), default=d.get("field"))
    p.add_argument("--literal", action="store_true", default=None, help="plain text")
    p.add_argument("--group", default=d.get("group"), help="regex of the groups it applies in")
    p.add_argument("--action", choices=("drop", "keep", "watch"), default=d.get("action"))
    p.add_argument("--state", choices=("on", "off", "shadow"), default=d.get("state"))
    p.add_argument("--note", default="" if defaults else None)
    p.add_argument("--force", action="store_true", help="even if it matches a large share")
    p.add_argument("--who", default=getpass.getuser(), help="who makes the change (logged)")


def _changes(args: argparse.Namespace) -> dict[str, Any]:
    out = {k: getattr(args, k) for k in EDITS if getattr(args, k) is not None}
    if args.literal is not None:
        out["literal"] = args.literal
    if getattr(args, "pattern", None) is not None:
        out["pattern"] = args.pattern
    return out


def _guard(run: Any) -> Any:
    def guarded(args: argparse.Namespace) -> int:
        from pipelines.rules.store import RuleRefused

        try:
            return int(run(args))
        except RuleRefused as exc:
            print(f"rules {args.verb}: refused: {exc.reason}", file=sys.stderr)
            return 3
        except (ValueError, FileNotFoundError) as exc:
            print(f"rules {args.verb}: {exc}", file=sys.stderr)
            return 2

    return guarded


@_guard
def _list(args: argparse.Namespace) -> int:
    from pipelines.rules.store import rule_counters

    rows = rule_counters(args.catalog)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(f"{'#':>3} {'id':<18} {'state':<6} {'action':<6} {'field':<10} {'headers':>10} "
          f"{'dropped':>10} {'share':>6} {'drift':>6} last hit    pattern")  # fmt: skip
    for r in rows:
        drift = "-" if r["drift"] is None else f"{r['drift']:.2f}"
        print(f"{r['position']:>3} {r['id']:<18} {r['state']:<6} {r['action']:<6} "
              f"{r['field']:<10} {r['headers']:>10,} {r['dropped']:>10,} {r['share']:>6.1%} "
              f"{drift:>6} {r['last_hit'] or '-':<11} {r['pattern'] or r['note']}")  # fmt: skip
    return 0


@_guard
def _add(args: argparse.Namespace) -> int:
    from pipelines.rules.store import add_rule

    changes = {k: v for k, v in _changes(args).items() if k not in ("pattern", "literal")}
    rule = add_rule(args.catalog, args.pattern, args.who, position=args.position,
                    force=args.force, literal=bool(args.literal), **changes)  # fmt: skip
    print(f"added {rule.id}: run `rules apply` to redo the ranges it touches")
    return 0


@_guard
def _update(args: argparse.Namespace) -> int:
    from pipelines.rules.store import update_rule

    rule = update_rule(args.catalog, args.id, args.who, force=args.force, **_changes(args))
    print(f"changed {rule.id}: run `rules apply` to redo the ranges it touches")
    return 0


@_guard
def _move(args: argparse.Namespace) -> int:
    from pipelines.rules.store import move_rule

    move_rule(args.catalog, args.id, args.position, getpass.getuser())
    return 0


@_guard
def _delete(args: argparse.Namespace) -> int:
    from pipelines.rules.store import delete_rule

    delete_rule(args.catalog, args.id, getpass.getuser())
    return 0


@_guard
def _import(args: argparse.Namespace) -> int:
    from pipelines.rules.nzedb import import_blacklist

    done = import_blacklist(args.catalog, args.file, getpass.getuser())
    print(f"added {len(done.added)} rules ({', '.join(done.added)})")
    for what, why in done.refused:
        print(f"refused {what}: {why}")
    return 0


@_guard
def _try(args: argparse.Namespace) -> int:
    from pipelines.index.rules import Rules
    from pipelines.rules.draft import draft_of
    from pipelines.rules.trial import try_rules

    draft = draft_of(args.catalog, args.rule, _changes(args), args.delete)
    trial = try_rules(args.corpus, args.catalog, Rules.load(args.rules), draft, args.ranges)
    if args.json:
        print(json.dumps(trial.__dict__, indent=1, default=str))
        return 0
    from pipelines.rules.trial_text import trial_text

    print(trial_text(trial))
    return 0


@_guard
def _apply(args: argparse.Namespace) -> int:
    from pipelines.index.rules import Rules
    from pipelines.rules.apply import apply_rules

    scanned, summary = apply_rules(args.corpus, args.catalog, Rules.load(args.rules))
    print(f"scanned for {len(scanned)} rules: {', '.join(r.id for r in scanned) or 'none'}")
    print(summary.text())
    return 0
