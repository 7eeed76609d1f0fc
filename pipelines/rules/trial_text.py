"""`rules try`'s report as text."""

from __future__ import annotations

from pipelines.rules.trial import Trial

SHOWN = 20  # releases listed per kind


def trial_text(t: Trial) -> str:
    if not t.ranges:
        return "no stored range would change"
    lines = [f"{len(t.ranges)} ranges would be indexed again:"]
    lines += [f"  {g} {a}-{z}: {why}" for g, a, z, why in t.ranges]
    lines.append("headers dropped by any rule, per group (before -> after):")
    for group, c in t.groups.items():
        lines.append(f"  {group}: {c['dropped_before']:,} -> {c['dropped_after']:,}")
    lines.append("per rule, headers matched and dropped (before -> after):")
    for rule, c in sorted(t.rules.items()):
        lines.append(
            f"  {rule}: matched {c['matched_before']:,} -> {c['matched_after']:,}, "
            f"dropped {c['dropped_before']:,} -> {c['dropped_after']:,}"
        )
        lines += [f"    e.g. {s}" for s in t.samples.get(rule, [])]
    for title, rows in (("removed", t.removed), ("added", t.added), ("changed", t.changed)):
        lines.append(f"releases {title}: {len(rows):,}")
        lines += [f"  {r['group']}: {r['name']} ({r['poster']})" for r in rows[:SHOWN]]
        if len(rows) > SHOWN:
            lines.append(f"  ... and {len(rows) - SHOWN:,} more")
    lines.append(f"pending releases: {t.pending_removed:,} removed, {t.pending_added:,} added")
    return "\n".join(lines)
