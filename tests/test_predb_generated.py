"""The PreDB over generated corpora whose uploads carry pres (`generate --pres`): the
shares per kind of posting the issue sets, over several seeds."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench.predb import generated_shares
from pipelines.generate.config import GenerateConfig
from tests.corpora import replayed

SEEDS = (0, 1, 2)


@pytest.mark.slow
def test_posted_pres_link_their_upload_and_nothing_else(tmp_path: Path) -> None:
    tally: Counter[str] = Counter()
    for seed in SEEDS:
        out, cat = tmp_path / f"g{seed}", tmp_path / f"c{seed}"
        replayed(out, cat, GenerateConfig(groups=2, articles=20_000, seed=seed, pres=True))
        tally += generated_shares(out, str(cat))
    for kind in ("named", "hashed", "inside"):
        finished = tally[f"{kind}/pres"] - tally[f"{kind}/still_open"]
        assert tally[f"{kind}/complete_and_right"] >= 0.99 * finished, tally
        assert tally[f"{kind}/nuked_shown"] == tally[f"{kind}/nuked"], tally
    for kind in ("mismatched", "unposted"):
        assert tally[f"{kind}/linked"] == 0, tally
        assert tally[f"{kind}/ended"] == tally[f"{kind}/pres"], tally
    assert sum(v for k, v in tally.items() if k.endswith("wrong_links")) == 0, tally
    assert tally["hashed/pres"] >= 8 * len(SEEDS)  # every hash kind in every seed
    assert tally["inside/pres"] >= len(SEEDS)
