"""The health sweep's rules without a server: samples, verdicts, cadence, the stored
table, a STAT reply's status; and serve-nntp's --gone over the wire."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.corpus.codec import inflate
from pipelines.health.cadence import DAY, HOUR, Cadence
from pipelines.health.check import status_of
from pipelines.health.sample import spread
from pipelines.health.store import latest_health, read_health, write_batch
from pipelines.health.verdicts import BROKEN, DEAD, HEALTHY, recovery_share, verdict
from pipelines.nntp.client import NNTPClient
from pipelines.nntp.errors import NoArticle
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.faults import Faults
from pipelines.nntpserver.gone import load_gone
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from tests.corpora import generate


@given(st.integers(0, 500), st.integers(0, 12))
def test_a_sample_holds_the_first_and_the_last_and_spreads_the_rest(
    count: int, between: int
) -> None:
    picks = spread(count, between)
    if count == 0:
        assert picks == []
        return
    assert picks[0] == 0 and picks[-1] == count - 1
    assert picks == sorted(set(picks))
    assert len(picks) == min(count, between + 2)


def test_verdicts() -> None:
    assert verdict(5, 0, 0, 0.0) == HEALTHY
    assert verdict(5, 1, 0, 0.1) == BROKEN  # few gone, par2 volumes there
    assert verdict(5, 1, 0, 0.0) == DEAD  # few gone, nothing to repair them with
    assert verdict(5, 2, 0, 0.5) == DEAD  # more than a third gone
    assert verdict(12, 2, 2, 0.1) == DEAD  # first and last gone, less par2 than missing
    assert verdict(12, 2, 2, 0.2) == BROKEN  # ... but recovery enough
    assert verdict(5, 5, 2, 0.2) == DEAD


def test_recovery_share_counts_volumes_over_data() -> None:
    names = ["a.r00", "a.r01", "a.par2", "a.vol00+01.par2", "a.vol01+02.PAR2"]
    assert recovery_share(names, [100, 100, 1, 10, 20]) == pytest.approx(0.15)
    assert recovery_share(["a.mkv", "a.par2"], [100, 1]) == 0.0


def test_the_cadence_by_age() -> None:
    c = Cadence()
    posted = 1_000_000_000
    assert not c.due(posted, None, posted + HOUR)  # inside the propagation guard
    assert c.due(posted, None, posted + 3 * HOUR)
    checked = posted + DAY  # checked a day old: again a day later
    assert not c.due(posted, checked, checked + DAY - 1)
    assert c.due(posted, checked, checked + DAY)
    checked = posted + 400 * DAY  # checked a year old: again 90 days later
    assert not c.due(posted, checked, checked + 89 * DAY)
    assert c.due(posted, checked, checked + 90 * DAY)
    assert c.between(DAY) < c.between(400 * DAY)  # more STATs for old releases


@given(
    st.lists(
        st.tuples(st.integers(0, 500 * DAY), st.one_of(st.none(), st.integers(0, 500 * DAY))),
        min_size=1,
        max_size=50,
    ),
    st.integers(0, 1000 * DAY),
)
def test_the_vector_cadence_agrees_with_the_scalar_one(
    pairs: list[tuple[int, int | None]], now: int
) -> None:
    c = Cadence()
    posted = np.array([p for p, _ in pairs], dtype=np.int64)
    checked = np.array([-1 if k is None else p + k for p, k in pairs], dtype=np.int64)
    mask = c.due_mask(posted, checked, now)
    for i, (p, k) in enumerate(pairs):
        assert bool(mask[i]) == c.due(p, None if k is None else p + k, now)


def test_status_lines() -> None:
    assert status_of(b"223 0 <a@b>") == 223
    assert status_of(b"430") == 430
    assert status_of(b"?? garbled") is None
    assert status_of(b"2234 x") is None
    assert status_of(b"") is None


def _row(key: bytes, checked: int, verdict: str | None) -> dict[str, object]:
    return dict(release_key=key, group="g", checked_at=checked, verdict=verdict, segments=3,
                missing=0, posted_last=1)  # fmt: skip


def test_the_newest_check_is_the_current_one_and_a_damaged_file_is_skipped(
    tmp_path: Path,
) -> None:
    catalog = str(tmp_path)
    a, b = b"a" * 20, b"b" * 20
    write_batch(catalog, [_row(a, 10, "healthy"), _row(b, 10, "dead")], sweep=1, batch=0)
    write_batch(catalog, [_row(a, 20, None)], sweep=2, batch=0)
    write_batch(catalog, [_row(b, 5, "healthy")], sweep=3, batch=0)  # older, stored later
    current = {bytes(r["release_key"]): r for r in latest_health(catalog).to_pylist()}
    assert current[a]["verdict"] is None and current[a]["checked_at"] == 20
    assert current[b]["verdict"] == "dead"
    assert latest_health(catalog, group="other").num_rows == 0
    folder = tmp_path / "release_health" / "g"
    (folder / "sweep-00000000000000000009-000000-1.parquet").write_bytes(b"PAR1 cut short")
    (folder / "sweep-x.parquet.tmp-123").write_bytes(b"being written")
    stored = read_health(catalog)
    assert stored.files == 3 and len(stored.damaged) == 1
    assert latest_health(catalog).num_rows == 2


def test_gone_files_parquet_and_text(tmp_path: Path) -> None:
    parquet = tmp_path / "gone.parquet"
    pq.write_table(pa.table({"message_id": ["a@x", "<b@x>", None]}), parquet)
    assert load_gone(str(parquet)) == {"a@x", "b@x"}
    text = tmp_path / "gone.txt"
    text.write_text("# taken down\n<c@x>\n\nd@x\n")
    assert load_gone(str(text)) == {"c@x", "d@x"}
    pq.write_table(pa.table({"id": ["a"]}), parquet)
    with pytest.raises(ValueError, match="message_id"):
        load_gone(str(parquet))


def test_article_faults_parse() -> None:
    f = Faults.parse("adrop=3,astall=4,agarble=5,alag=0.01")
    assert (f.article_drop_every, f.article_stall_every, f.article_garble_every) == (3, 4, 5)
    assert f.article_delay == 0.01
    every_second = Faults.parse("agarble=2")
    assert [every_second.next_article() for _ in range(4)] == ["ok", "garble"] * 2


def test_serve_nntp_answers_430_for_gone_articles_and_still_lists_them(tmp_path: Path) -> None:
    gen = generate(tmp_path / "gen", groups=1, articles=300, seed=1, range_size=1_000, chunk=500)
    with NNTPServer(gen.corpus) as probe_server:
        group = next(iter(probe_server.corpus.groups))
        _, low, high = probe_server.corpus.bounds(group)
        line = probe_server.corpus.find(group, low)
        assert line is not None
        message_id = line.split(b"\t")[4].decode()
    gone = frozenset({message_id.strip("<>")})
    server = NNTPServer(gen.corpus, options=ServerOptions(gone=gone))
    provider = Provider("127.0.0.1", 0, compression="plain")
    with server, NNTPClient(replace(provider, port=server.port)).connect() as c:
        for verb in ("STAT", "HEAD", "BODY", "ARTICLE"):
            assert c.command(f"{verb} {message_id}")[0] == 430, verb
        c.group(group)
        with pytest.raises(NoArticle):
            c.stat(low)  # by number: 423
        assert c.stat(low + 1)[0] == low + 1  # the others are there
        listed = inflate(c.over(low, high).payload).data
        assert message_id.encode() in listed


def test_a_key_ending_in_a_zero_byte_keeps_its_twenty_bytes(tmp_path: Path) -> None:
    from pipelines.catalog.schema import RELEASES
    from pipelines.catalog.views import CatalogViews
    from pipelines.catalog.writer import write_partition
    from pipelines.health.cadence import DEFAULT
    from pipelines.health.candidates import due_candidates

    key = b"k" * 19 + b"\x00"
    row = dict.fromkeys(RELEASES.names)
    row.update(release_key=key, identity_key=key, group="g", posted_last=1, finished=True,
               written_range=0)  # fmt: skip
    write_partition(str(tmp_path), "releases", "g", 0, 9, pa.Table.from_pylist([row], RELEASES))
    views = CatalogViews(str(tmp_path))
    try:
        (found,) = due_candidates(views, latest_health(str(tmp_path)), 10 * DAY, DEFAULT)
    finally:
        views.close()
    assert found.release_key == key


def test_a_release_checked_while_still_being_posted_is_checked_again_once_grown(
    tmp_path: Path,
) -> None:
    """A provisional version (a growing range's tail) may lack its par2 volumes and last
    articles: a gap seen then makes it dead. Once a later version carries more (a later
    `posted_last`), the check is redone, not left until its recheck (days or months)."""
    from pipelines.catalog.schema import RELEASES
    from pipelines.catalog.views import CatalogViews
    from pipelines.catalog.writer import write_partition
    from pipelines.health.cadence import DEFAULT
    from pipelines.health.candidates import due_candidates
    from pipelines.health.store import write_batch

    def version(posted_last: int, first: int, last: int) -> None:
        row = dict.fromkeys(RELEASES.names)
        row.update(release_key=b"k" * 20, identity_key=b"k" * 20, group="g",
                   posted_last=posted_last, finished=False, written_range=first)  # fmt: skip
        table = pa.Table.from_pylist([row], RELEASES)
        write_partition(str(tmp_path), "releases", "g", first, last, table, tail=True)

    def due() -> list[bytes]:
        views = CatalogViews(str(tmp_path))
        try:
            found = due_candidates(views, latest_health(str(tmp_path)), 10 * DAY, DEFAULT)
        finally:
            views.close()
        return [c.release_key for c in found]

    version(100, 0, 4)
    assert due() == [b"k" * 20]
    checked = {"release_key": b"k" * 20, "group": "g", "checked_at": 10 * DAY - 60,
               "verdict": "dead", "segments": 3, "missing": 1, "posted_last": 100}  # fmt: skip
    write_batch(str(tmp_path), [checked], 1, 0)
    assert due() == []  # checked: its recheck is a day away
    version(200, 5, 9)  # a later part adds its last articles
    assert due() == [b"k" * 20]


def test_a_release_without_recovery_is_checked_whole_or_at_each_file_s_end() -> None:
    """One segment gone kills a release no par2 volume repairs: a small one is STATted
    whole, a large one at each file's last segment too (at most FILE_ENDS_WITHOUT_RECOVERY
    files); one with recovery only by the spread."""
    from pipelines.health.sample import (
        FILE_ENDS_WITHOUT_RECOVERY,
        WHOLE_WITHOUT_RECOVERY,
        ReleaseSegments,
        sample,
    )  # fmt: skip

    ids = tuple(f"s{i}@x" for i in range(30))  # three files of 10 segments
    assert sample(ReleaseSegments(b"k" * 20, "g", 0, ids, 0.0, (9, 19, 29)), 1) == list(ids)
    repairable = ReleaseSegments(b"k" * 20, "g", 0, ids, 0.1, (9, 19, 29))
    assert sample(repairable, 1) == ["s0@x", "s14@x", "s29@x"]
    big = tuple(f"b{i}@x" for i in range(WHOLE_WITHOUT_RECOVERY + 100))  # 100 files of 5
    ends = tuple(range(4, len(big), 5))
    picked = sample(ReleaseSegments(b"k" * 20, "g", 0, big, 0.0, ends), 1)
    assert {f"b{i}@x" for i in ends[:FILE_ENDS_WITHOUT_RECOVERY]} <= set(picked)
    assert len(picked) <= FILE_ENDS_WITHOUT_RECOVERY + 3
