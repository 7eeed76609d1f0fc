"""History and tail as separate passes, the prefetch held to each group's index cursor.

serve-nntp in front of a sample corpus whose groups grow (`visible_high`); the captures
are real (sockets, the corpus writer), and so is the indexing that consumes ranges
(`pipelines.index.runs.index_group` into a catalog).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from pipelines.capture.indexed import IndexedRanges
from pipelines.capture.planner import PlanSettings
from pipelines.capture.prefetch import Capture, CaptureSettings
from pipelines.capture.schedule import Limits
from pipelines.capture.standing import standing
from pipelines.capture.tail import read_tail
from pipelines.corpus.fs import open_fs
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.reader import CorpusReader
from pipelines.index.rules import Rules
from pipelines.index.runs import GroupJob, index_group
from pipelines.index.schedule import GroupSchedule
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from tests.fixtures.sample_corpus import write_sample_corpus
from tests.test_capture import assert_identical

pytestmark = pytest.mark.timeout(180)
ONE, TWO = "alt.binaries.one", "alt.binaries.two"
GROUPS = {ONE: (5, 5321), TWO: (1000, 3900)}
RANGE, CHUNK = 1000, 250


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, list[bytes]]]:
    root = str(tmp_path_factory.mktemp("served"))
    return root, write_sample_corpus(root, GROUPS, RANGE, CHUNK)


def capture(
    port: int,
    root: str,
    part: str = "all",
    limits: Limits | None = None,
    consumed: IndexedRanges | None = None,
    groups: tuple[str, ...] = (ONE, TWO),
) -> Capture:
    provider = Provider("127.0.0.1", port, connections=3, timeout=5.0)
    settings = CaptureSettings(
        plan=PlanSettings(RANGE, CHUNK, headroom=0), limits=limits or Limits(), part=part
    )
    return Capture(ProviderPools([provider]), root, list(groups), settings, consumed=consumed)


def index(corpus: str, catalog: str, group: str) -> list[RangeRef]:
    """Index every complete range of the group not indexed yet, in article order."""
    indexed = IndexedRanges(catalog, refresh=0)
    refs = [i.ref for i in CorpusReader(corpus).ranges(group) if i.complete and not indexed(i.ref)]
    index_group(GroupJob(corpus, catalog, Rules(), group, tuple(refs)))
    return refs


def stored_bytes(root: str, group: str, name: str) -> int:
    manifest = json.loads((Path(root) / group / name / "range.json").read_text())
    return sum(int(c["bytes"]) for c in manifest["chunks"])


def stored_ranges(root: str, group: str) -> list[tuple[str, bool]]:
    return [(i.ref.name, i.complete) for i in CorpusReader(root).ranges(group)]


def test_the_prefetch_stays_ahead_of_each_groups_index_cursor(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    corpus, catalog = str(tmp_path / "corpus"), str(tmp_path / "catalog")
    with NNTPServer(served[0]) as srv:
        # ahead 2 per group: group one's five ranges do not hold group two back
        summary = capture(
            srv.port, corpus, limits=Limits(ahead=2), consumed=IndexedRanges(catalog)
        ).run()
        assert "prefetch limit" in summary.stopped and "alt.binaries.one 2" in summary.stopped
        assert stored_ranges(corpus, ONE) == [("0-999", True), ("1000-1999", True)]
        assert stored_ranges(corpus, TWO) == [("1000-1999", True), ("2000-2999", True)]
        # a new run counts what is stored and not indexed: nothing to fetch
        again = capture(srv.port, corpus, limits=Limits(ahead=2), consumed=IndexedRanges(catalog))
        assert again.run().chunks == 0

        # the indexer takes group one's two ranges: two more of it, none of group two
        assert index(corpus, catalog, ONE) == [RangeRef(ONE, 0, 999), RangeRef(ONE, 1000, 1999)]
        cap = capture(srv.port, corpus, limits=Limits(ahead=2), consumed=IndexedRanges(catalog))
        assert sorted(r.name for r in cap.run_pass().completed) == ["2000-2999", "3000-3999"]
        cap.pools.close()
        assert len(stored_ranges(corpus, TWO)) == 2

        # the size cap holds every group (checked as a range opens): group one's two
        # waiting ranges hold group two back too
        capped = Limits(ahead=9, disk_cap=1, ranges_open=1)
        cap = capture(srv.port, corpus, limits=capped, consumed=IndexedRanges(catalog))
        assert cap.run_pass().completed == []
        cap.pools.close()
        index(corpus, catalog, ONE)
        index(corpus, catalog, TWO)
        cap = capture(srv.port, corpus, limits=capped, consumed=IndexedRanges(catalog))
        assert cap.run_pass().completed == [RangeRef(ONE, 4000, 4999)]
        cap.pools.close()
        assert len(stored_ranges(corpus, TWO)) == 2


def test_indexed_ranges_agree_with_the_range_scheduler(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    corpus, catalog = str(tmp_path / "corpus"), str(tmp_path / "catalog")
    with NNTPServer(served[0]) as srv:
        capture(srv.port, corpus, groups=(ONE,)).run()
    refs = index(corpus, catalog, ONE)
    assert len(refs) == 5
    fs, root = open_fs(catalog)
    fs.rm(f"{root}/_window/{ONE}/{refs[1].name}.snapshot")  # a lost window
    fs.rm(f"{root}/ranges/{ONE}/{refs[3].name}.parquet")  # a lost range log
    schedule = GroupSchedule(catalog, refs, Rules())
    indexed = IndexedRanges(catalog)
    for ref in refs:
        state = schedule.states[ref]
        assert indexed(ref) == bool(state.log and state.snapshot), ref
    assert [indexed(r) for r in refs] == [True, False, True, False, True]


def test_the_tail_goes_first_and_history_stays_below_it(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    corpus = str(tmp_path / "corpus")
    with NNTPServer(served[0]) as srv:
        one, two = srv.corpus.groups[ONE], srv.corpus.groups[TWO]
        one.visible_high, two.visible_high = 3500, 2200
        # history before any tail pass: the tail goes first, nothing is fetched
        assert capture(srv.port, corpus, "history").run().chunks == 0
        assert not Path(corpus, ONE).exists()

        tail = capture(srv.port, corpus, "tail")
        tail.run_pass()
        assert read_tail(*open_fs(corpus), ONE).first == 3000  # type: ignore[union-attr]
        assert stored_ranges(corpus, ONE) == [("3000-3999", False)]
        assert stored_ranges(corpus, TWO) == [("2000-2999", False)]

        # the group grows past a range's end: the tail completes it and moves on
        one.visible_high = 4600
        tail.run_pass()
        tail.pools.close()
        mark = read_tail(*open_fs(corpus), ONE)
        assert mark is not None and (mark.first, mark.resume) == (3000, 4000)
        assert stored_ranges(corpus, ONE) == [("3000-3999", True), ("4000-4999", False)]

        # history fills what lies below the tail, and nothing above
        capture(srv.port, corpus, "history").run()
        assert stored_ranges(corpus, ONE)[:3] == [(n, True) for n in ("0-999", "1000-1999",
                                                                       "2000-2999")]  # fmt: skip
        assert stored_ranges(corpus, TWO) == [("1000-1999", True), ("2000-2999", False)]
        one.visible_high = two.visible_high = None
        capture(srv.port, corpus, "tail").run()
    assert_identical(corpus, served[1])


def test_history_and_tail_at_once_never_share_a_range(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    """A paced history pass and tail passes running side by side, as two Dagster runs do."""
    corpus = str(tmp_path / "corpus")
    with NNTPServer(served[0], options=ServerOptions(lines_per_second=2_000)) as srv:
        one, two = srv.corpus.groups[ONE], srv.corpus.groups[TWO]
        one.visible_high, two.visible_high = 3100, 2100
        capture(srv.port, corpus, "tail").run()
        history = capture(srv.port, corpus, "history")
        thread = threading.Thread(target=history.run)
        thread.start()
        tail = capture(srv.port, corpus, "tail")
        for high in (3600, 4200, 4999, None):
            one.visible_high = two.visible_high = high
            tail.run_pass()
        thread.join(120)
        tail.pools.close()
        assert not thread.is_alive()
        # the tail wrote only from its mark up, history only below it
        mark = read_tail(*open_fs(corpus), ONE)
        assert mark is not None and mark.first == 3000
        assert all(r.last < 3000 for r in history.known_complete if r.group == ONE)
    assert_identical(corpus, served[1])
    assert [ok for _, ok in stored_ranges(corpus, ONE)] == [True] * 5 + [False]


def test_standing_says_where_capture_and_the_index_are(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    corpus, catalog = str(tmp_path / "corpus"), str(tmp_path / "catalog")
    with NNTPServer(served[0]) as srv:
        srv.corpus.groups[ONE].visible_high = 4400
        tail = capture(srv.port, corpus, "tail", groups=(ONE,))
        tail.run_pass()
        tail.pools.close()
        low = tail.bounds_seen[ONE].low
        history = capture(srv.port, corpus, "history", limits=Limits(ahead=3),
                          consumed=IndexedRanges(catalog), groups=(ONE,))  # fmt: skip
        history.run()
    reader = CorpusReader(corpus)
    before = standing(reader, IndexedRanges(catalog), ONE, RANGE, low=low)
    assert before.tail_first == 4000 and before.stored_high == 4400
    assert before.ranges_stored == 4 and before.growing == ("4000-4999",)
    assert before.waiting == 3 and before.history_left == 1 and before.indexed_through == -1
    assert before.waiting_bytes == sum(
        stored_bytes(corpus, ONE, n) for n in ("0-999", "1000-1999", "2000-2999")
    )
    index(corpus, catalog, ONE)
    after = standing(reader, IndexedRanges(catalog), ONE, RANGE, low=low)
    assert (after.ranges_indexed, after.indexed_through, after.waiting) == (3, 2999, 0)
    assert after.to_json()["growing"] == ["4000-4999"]


def test_the_capture_command_counts_what_the_catalog_has_not_indexed(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    from cli.main import main

    corpus, catalog = str(tmp_path / "corpus"), str(tmp_path / "catalog")
    with NNTPServer(served[0]) as srv:
        args = [
            "capture", "--server", f"127.0.0.1:{srv.port}", "--group", ONE, "--corpus", corpus,
            "--range-size", str(RANGE), "--chunk-size", str(CHUNK), "--headroom", "0",
            "--ahead", "1", "--catalog", catalog, "--quiet",
        ]  # fmt: skip
        assert main(args) == 0
        assert main(args) == 0  # one range stored and not indexed: nothing more
        assert stored_ranges(corpus, ONE) == [("0-999", True)]
        index(corpus, catalog, ONE)
        assert main(args) == 0
    assert stored_ranges(corpus, ONE) == [("0-999", True), ("1000-1999", True)]
