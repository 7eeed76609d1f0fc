"""One `providers check` report: every provider checked, the backbones they share, as a
plain dict (what `providers check --json` prints and the status page reads)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from pipelines.nntp.client import NNTPClient
from pipelines.nntp.provider import Provider
from pipelines.providers.check import check_provider
from pipelines.providers.fingerprint import (
    SAME_ARTICLES,
    SAME_NUMBERING,
    UNKNOWN,
    Fingerprint,
    fingerprint,
)


def _connect(provider: Provider) -> NNTPClient:
    return NNTPClient(provider).connect()


def check_all(providers: Sequence[Provider], groups: Sequence[str]) -> dict[str, Any]:
    """Check each provider (one connection each, one after another), then fingerprint the
    ones that answered."""
    now = time.time()
    checks = [check_provider(p, groups, now) for p in providers]
    reachable = {c.name for c in checks if c.state == "ok"}
    prints = fingerprint(providers, groups, _connect, reachable)
    return {
        "checked_at": int(now),
        "groups": list(groups),
        "providers": [c.to_json() for c in checks],
        "fingerprint": prints.to_json(),
        "mismatches": mismatches(providers, prints),
    }


def mismatches(providers: Sequence[Provider], prints: Fingerprint) -> list[str]:
    """Where the settings file's `backbone` says otherwise than the answers: two
    providers it puts on one backbone that answered differently, or on two that share."""
    by_name = {p.label: p for p in providers}
    out = []
    for pair in prints.pairs:
        a, b = by_name[pair.reference], by_name[pair.other]
        if not (a.backbone and b.backbone) or pair.relation == UNKNOWN:
            continue
        same = pair.relation in (SAME_NUMBERING, SAME_ARTICLES)
        if same != (a.backbone == b.backbone):
            said = "the same backbone" if a.backbone == b.backbone else "other backbones"
            out.append(f"{b.label} and {a.label}: the settings say {said}, "
                       f"the answers say {pair.relation}")  # fmt: skip
    return out


def report_text(report: dict[str, Any]) -> str:
    """The report for people: a paragraph per provider, then the backbones."""
    lines = []
    for p in report["providers"]:
        head = f"{p['name']} ({p['host']}:{p['port']})"
        if p["state"] != "ok":
            lines.append(f"{head}: {p['state'].upper()}: {p['problem']}")
            continue
        lines.append(f"{head}: {p['greeting']}")
        lines.append(
            f"  compression: {p['compression']} (offers {', '.join(p['offers']) or 'none'}); "
            f"round trip {p['round_trip_ms']:.1f} ms; overview "
            f"{p['overview_lines_per_s'] or 0:,.0f} lines/s, "
            f"{(p['overview_bytes_per_s'] or 0) / 1e6:,.2f} MB/s on the wire"
        )
        for g in p["groups"]:
            if not g["carried"]:
                lines.append(f"  {g['group']}: not carried")
                continue
            kept = "?" if g["retention_days"] is None else f"{g['retention_days']:,.1f} days"
            lines.append(f"  {g['group']}: {g['count']:,} articles {g['low']}-{g['high']}, "
                         f"oldest {kept} old")  # fmt: skip
        if p["problem"]:
            lines.append(f"  stopped: {p['problem']}")
    pairs = report["fingerprint"]["pairs"]
    for pair in pairs:
        evidence = f"{pair['numbers_agree']}/{pair['numbers_asked']} numbers agree"
        if pair["ids_asked"]:
            evidence += f", {pair['ids_found']}/{pair['ids_asked']} message-ids found"
        lines.append(f"{pair['other']} vs {pair['reference']} ({pair['group'] or 'no group'}): "
                     f"{pair['relation']} ({evidence})")  # fmt: skip
    for backbone in report["fingerprint"]["backbones"]:
        lines.append(f"backbone: {', '.join(backbone)}")
    lines += [f"check the settings: {m}" for m in report.get("mismatches", [])]
    return "\n".join(lines)
