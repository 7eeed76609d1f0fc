"""The signature rule: discarded at >= 100 climbs and <= 0.5 % named."""

from pipelines.catalog.signatures import (
    MAX_NAMED_SHARE,
    MIN_CLIMBS,
    Signature,
    discarded,
    signature_figures,
)


def test_thresholds() -> None:
    assert MIN_CLIMBS == 100 and MAX_NAMED_SHARE == 0.005
    assert not discarded(99, 0)  # too few climbs to judge
    assert discarded(100, 0)
    assert not discarded(100, 1)  # 1 % named
    assert discarded(200, 1)  # 0.5 % named
    assert not discarded(200, 2)


def test_figures_per_signature() -> None:
    rows = [{"tool": "ngPost", "group": "a.b.x", "poster": "p", "outcome": "exhausted"}] * 150
    rows += [{"tool": "ngPost", "group": "a.b.x", "poster": "p", "outcome": "discarded"}] * 3
    rows += [
        {"tool": "ngPost", "group": "a.b.x", "poster": "q", "outcome": "named"},
        {"tool": "ngPost", "group": "a.b.x", "poster": "q", "outcome": "waiting"},
    ]
    figures = signature_figures(rows)
    p = figures[Signature("ngPost", "a.b.x", "p")]
    assert (p.climbs, p.named, p.skipped, p.discarded) == (150, 0, 3, True)
    q = figures[Signature("ngPost", "a.b.x", "q")]
    assert (q.climbs, q.named, q.discarded) == (1, 1, False)
    coarse = signature_figures(rows, by_poster=False)[Signature("ngPost", "a.b.x", None)]
    assert (coarse.climbs, coarse.named) == (151, 1)
