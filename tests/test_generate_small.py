"""Small and odd configurations: every corpus is valid and its truth accounts for every line."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.corpus.check import check_corpus
from pipelines.corpus.reader import CorpusReader
from pipelines.generate import GenerateConfig, generate_corpus


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    groups=st.integers(1, 4),
    articles=st.integers(100, 2_500),
    seed=st.integers(0, 2**31),
    range_size=st.sampled_from([700, 1_000, 5_000, 100_000]),
    days=st.one_of(st.none(), st.floats(0.1, 4.0)),
)
def test_any_small_corpus_is_valid_and_accounted_for(
    groups: int, articles: int, seed: int, range_size: int, days: float | None
) -> None:
    config = GenerateConfig(
        groups=groups,
        articles=articles,
        seed=seed,
        range_size=range_size,
        chunk=min(range_size, 500),
        days=days,
    )
    with tempfile.TemporaryDirectory() as tmp:
        summary = generate_corpus(tmp, config)
        check = check_corpus(f"{tmp}/corpus")
        assert check.clean and check.lines == summary.lines
        reader = CorpusReader(f"{tmp}/corpus")
        seen: Counter[tuple[str, str]] = Counter()
        for group in reader.groups():
            for info in reader.ranges(group):
                for chunk in reader.read_range(info):
                    for line in chunk.data.split(b"\r\n")[:-1]:
                        seen[(line.split(b"\t")[4][1:-1].decode(), group)] += 1
        expected: Counter[tuple[str, str]] = Counter()
        for u in pq.read_table(Path(tmp) / "truth" / "uploads.parquet").to_pylist():
            assert u["files"] and u["posted_first"] <= u["posted_last"]
            for f in u["files"]:
                for mid in f["message_ids"]:
                    expected.update((mid, g) for g in u["groups"])
        for row in pq.read_table(Path(tmp) / "truth" / "noise.parquet").to_pylist():
            expected[(row["message_id"], row["group"])] += 1
        assert seen == expected and max(seen.values()) == 1
        assert sum(summary.lines_per_group.values()) == summary.lines
        for lines in summary.lines_per_group.values():
            assert 0.8 * articles <= lines  # roughly what was asked, crossposts on top
