"""Capture from serve-nntp into a corpus: identical line for line, whatever goes wrong."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.main import main
from pipelines.capture.planner import PlanSettings
from pipelines.capture.prefetch import Capture, CaptureError, CaptureSettings
from pipelines.capture.schedule import Limits
from pipelines.corpus.check import check_corpus
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.reader import CorpusReader, RangeReport
from pipelines.nntp.errors import AuthError, NoSuchGroup
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider
from pipelines.nntpserver.faults import Faults
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from tests.fixtures.sample_corpus import write_sample_corpus

pytestmark = pytest.mark.timeout(120)
GROUPS = {"alt.binaries.one": (5, 4321), "alt.binaries.two": (1000, 2500)}
RANGE, CHUNK = 1000, 250


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, list[bytes]]]:
    root = str(tmp_path_factory.mktemp("served"))
    return root, write_sample_corpus(root, GROUPS, RANGE, CHUNK)


def capture(
    port: int,
    root: str,
    compression: str = "auto",
    connections: int = 3,
    groups: list[str] | None = None,
    plan: PlanSettings | None = None,
    limits: Limits | None = None,
    **provider: object,
) -> Capture:
    p = Provider(
        "127.0.0.1",
        port,
        connections=connections,
        compression=compression,
        cut_grace=0.2,
        timeout=5.0,
        **provider,  # type: ignore[arg-type]
    )
    settings = CaptureSettings(
        plan=plan or PlanSettings(RANGE, CHUNK, headroom=0), limits=limits or Limits()
    )
    return Capture(ProviderPools([p]), root, groups or list(GROUPS), settings)


def corpus_lines(root: str) -> dict[str, tuple[bytes, int, list[tuple[str, bool]]]]:
    """Per group: all lines in order, bad lines counted, and the ranges with completeness."""
    reader = CorpusReader(root)
    out = {}
    for group in reader.groups():
        data: list[bytes] = []
        ranges: list[tuple[str, bool]] = []
        bad = 0
        for info in reader.ranges(group):
            report = RangeReport(group, info.ref.first, info.ref.last)
            data.extend(c.data for c in reader.read_range(info, report))
            bad += sum(report.bad_lines.values()) + report.chunks_truncated
            ranges.append((info.ref.name, info.complete))
        out[group] = (b"".join(data), bad, ranges)
    return out


def assert_identical(root: str, served: dict[str, list[bytes]]) -> None:
    got = corpus_lines(root)
    assert sorted(got) == sorted(served)
    for group, (data, bad, ranges) in got.items():
        assert bad == 0
        assert data == b"".join(served[group])
        # every range but the group's newest is complete; the newest only when full
        assert all(ok for _, ok in ranges[:-1])


@pytest.mark.parametrize("variant", ["plain", "xfeature", "xzver", "deflate"])
def test_capture_is_identical_with_faults(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path, variant: str
) -> None:
    faults = Faults(cut_every=4, drop_every=7, cut_at_dot=True)
    with NNTPServer(served[0], options=ServerOptions(faults=faults)) as srv:
        summary = capture(srv.port, str(tmp_path), variant).run()
        # a replaced connection may still count at the server for a moment after its close
        assert srv.stats.peak <= 4
    assert_identical(str(tmp_path), served[1])
    assert summary.retries > 0 and summary.stopped == ""
    assert summary.ranges_completed == 5
    if variant in ("xfeature", "xzver"):
        assert summary.recompressed == 0  # the server's compressed bytes were kept


def test_a_second_run_fetches_nothing(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    with NNTPServer(served[0]) as srv:
        capture(srv.port, str(tmp_path)).run()
        assert srv.stats.peak <= 3
        before = srv.stats.overview_replies
        again = capture(srv.port, str(tmp_path)).run()
        # only the two newest, incomplete ranges are looked at again, and they are whole
        assert srv.stats.overview_replies == before
        assert again.chunks == 0
    assert_identical(str(tmp_path), served[1])


def test_resume_fetches_only_what_is_missing(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    root = str(tmp_path)
    with NNTPServer(served[0]) as srv:
        capture(srv.port, root).run()
        # a crash leaves chunk files without range.json, and a stray temporary file
        folder = tmp_path / "alt.binaries.one" / "1000-1999"
        (folder / "range.json").unlink()
        (folder / "1250-1499.xover.zz").unlink()
        (folder / "1500-1749.xover.zz.tmp-dead").write_bytes(b"half")
        before = srv.stats.overview_replies
        resumed = capture(srv.port, root).run()
        assert srv.stats.overview_replies - before == 1
        assert resumed.chunks == 1 and resumed.ranges_completed == 1
    assert_identical(root, served[1])


def _whole_chunks(root: str) -> list[Path]:
    """Chunk files under their final names (a kill can leave a `.tmp-*` beside them)."""
    return [p for p in Path(root).glob("*/*/*.xover.*") if ".tmp-" not in p.name]


def test_sigkill_mid_range_loses_and_duplicates_nothing(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    root = str(tmp_path / "corpus")
    args = [
        sys.executable, "-m", "cli.commands.capture", "capture",
        "--group", "alt.binaries.one", "--group", "alt.binaries.two",
        "--corpus", root, "--connections", "2",
        "--range-size", str(RANGE), "--chunk-size", str(CHUNK), "--headroom", "0", "--quiet",
    ]  # fmt: skip
    with NNTPServer(served[0], options=ServerOptions(lines_per_second=1500)) as srv:
        proc = subprocess.Popen([*args, "--server", f"127.0.0.1:{srv.port}"])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if len(_whole_chunks(root)) >= 5:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the capture ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        stored = len(_whole_chunks(root))
        assert 5 <= stored < 25  # killed mid-capture: 25 chunks in all
    with NNTPServer(served[0]) as srv:
        assert main([*args[3:], "--server", f"127.0.0.1:{srv.port}"]) == 0
        assert srv.stats.overview_replies == 25 - stored  # only what was missing
    assert_identical(root, served[1])


def test_wrong_credentials_stop_cleanly(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    opts = ServerOptions(user="reader", password="right")
    with NNTPServer(served[0], options=opts) as srv:
        with pytest.raises(CaptureError, match="481") as err:
            capture(srv.port, str(tmp_path), user="reader", password="wrong").run()
        assert isinstance(err.value.__cause__, AuthError)
        assert list(tmp_path.iterdir()) == []
        ok = capture(srv.port, str(tmp_path), user="reader", password="right").run()
        assert ok.ranges_completed == 5


def test_unknown_group_stops_cleanly(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    with NNTPServer(served[0]) as srv, pytest.raises(CaptureError, match="no such group") as err:
        capture(srv.port, str(tmp_path), groups=["alt.binaries.one", "alt.binaries.nope"]).run()
    assert isinstance(err.value.__cause__, NoSuchGroup)
    assert list(tmp_path.iterdir()) == []


def test_a_server_that_keeps_closing_stops_the_capture_with_the_corpus_intact(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    root = str(tmp_path)
    with NNTPServer(served[0]) as srv:
        capture(srv.port, root, groups=["alt.binaries.two"]).run()
    before = corpus_lines(root)
    opts = ServerOptions(faults=Faults(drop_every=1))
    with NNTPServer(served[0], options=opts) as srv:
        with pytest.raises(CaptureError, match="after 6 attempts") as err:
            capture(srv.port, root, limits=Limits(max_attempts=6)).run()
        assert "closed the connection" in str(err.value)
    after = corpus_lines(root)
    assert after["alt.binaries.two"] == before["alt.binaries.two"]
    assert after.get("alt.binaries.one", (b"", 0, []))[1] == 0


def test_tail_follows_new_articles_below_the_headroom(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    root = str(tmp_path)
    opts = ServerOptions(overview_lag=50)
    with NNTPServer(served[0], options=opts) as srv:
        group = srv.corpus.groups["alt.binaries.one"]
        group.visible_high = 1700
        cap = capture(srv.port, root, plan=PlanSettings(RANGE, CHUNK, headroom=100))
        cap.run_pass()
        assert cap.high_water["alt.binaries.one"] == 1600
        got = corpus_lines(root)["alt.binaries.one"]
        assert got[2] == [("0-999", True), ("1000-1999", False)]
        # a tailed corpus passes the check: its newest ranges are growing, not broken
        tailed = check_corpus(root)
        assert tailed.clean and tailed.growing == 2
        assert got[0] == b"".join(
            x for x in served[1]["alt.binaries.one"] if int(x.split(b"\t")[0]) <= 1600
        )
        for high in (1900, 2600, 4400):
            group.visible_high = high
            cap.run_pass()
        group.visible_high = None
        cap.settings.plan = PlanSettings(RANGE, CHUNK, headroom=0)
        srv.options.overview_lag = 0
        cap.run_pass()
        cap.pools.close()
    assert_identical(root, served[1])
    names = [p.name for p in (tmp_path / "alt.binaries.one" / "1000-1999").glob("*.xover.*")]
    assert "1500-1600.xover.zz" in names  # the tail's short chunk stays as fetched


@pytest.mark.parametrize("variant", ["plain", "xfeature", "xzver"])
def test_the_span_below_the_low_mark_is_stored_as_a_valid_empty_stream(
    tmp_path: Path, variant: str
) -> None:
    served_root = str(tmp_path / "served")
    lines = write_sample_corpus(served_root, {"alt.binaries.late": (600, 1400)}, RANGE, CHUNK)
    root = str(tmp_path / "corpus")
    with NNTPServer(served_root) as srv:
        assert srv.corpus.groups["alt.binaries.late"].low >= 600
        capture(srv.port, root, variant, groups=["alt.binaries.late"]).run()
    assert_identical(root, {"alt.binaries.late": lines["alt.binaries.late"]})
    # cells 0-249 and 250-499 lie wholly below the low mark: one empty chunk
    stored = (tmp_path / "corpus" / "alt.binaries.late" / "0-999" / "0-499.xover.zz").read_bytes()
    assert stored and zlib.decompress(stored) == b""


def test_prefetch_stops_at_the_ahead_limit_and_the_disk_cap(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    with NNTPServer(served[0]) as srv:
        # per group: group one's first two ranges, group two's complete one (its newest
        # is incomplete)
        summary = capture(srv.port, str(tmp_path / "a"), limits=Limits(ahead=2)).run()
        assert summary.ranges_completed == 3
        assert "prefetch limit" in summary.stopped
        consumed: set[RangeRef] = set()
        cap = capture(srv.port, str(tmp_path / "b"), limits=Limits(ranges_open=1, disk_cap=1))
        cap.consumed = consumed.__contains__
        schedule = cap.run_pass()
        assert len(schedule.completed) == 1
        consumed.update(schedule.completed)  # the indexer took it: room for the next one
        assert len(cap.run_pass().completed) == 1


def test_newest_first(served: tuple[str, dict[str, list[bytes]]], tmp_path: Path) -> None:
    with NNTPServer(served[0]) as srv:
        plan = PlanSettings(RANGE, CHUNK, newest_first=True, headroom=0)
        cap = capture(srv.port, str(tmp_path), groups=["alt.binaries.one"], plan=plan,
                      connections=1, limits=Limits(ranges_open=1))  # fmt: skip
        schedule = cap.run_pass()
        cap.pools.close()
    assert [r.first for r in schedule.completed] == [3000, 2000, 1000, 0]


def test_capture_command(served: tuple[str, dict[str, list[bytes]]], tmp_path: Path,
                         capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    root = str(tmp_path)
    opts = ServerOptions(user="u", password="pw")
    os.environ["TEST_NNTP_PASSWORD"] = "pw"
    with NNTPServer(served[0], options=opts) as srv:
        code = main([
            "capture", "--server", f"127.0.0.1:{srv.port}", "--user", "u",
            "--password-env", "TEST_NNTP_PASSWORD", "--group", "alt.binaries.one",
            "--group", "alt.binaries.two", "--corpus", root, "--connections", "2",
            "--range-size", str(RANGE), "--chunk-size", str(CHUNK), "--headroom", "0",
        ])  # fmt: skip
        assert code == 0
        assert "lines/s" in capsys.readouterr().out
        os.environ["TEST_NNTP_PASSWORD"] = "bad"
        code = main([
            "capture", "--server", f"127.0.0.1:{srv.port}", "--user", "u",
            "--password-env", "TEST_NNTP_PASSWORD", "--group", "alt.binaries.one",
            "--corpus", root, "--quiet",
        ])  # fmt: skip
        assert code == 1
        assert "authentication failed" in capsys.readouterr().err
    del os.environ["TEST_NNTP_PASSWORD"]
    assert_identical(root, served[1])


@pytest.fixture()
def no_env() -> Iterator[None]:
    os.environ.pop("TEST_NNTP_MISSING", None)
    yield


def test_capture_command_needs_its_password(
    no_env: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["capture", "--server", "127.0.0.1:1", "--user", "u", "--password-env",
                 "TEST_NNTP_MISSING", "--group", "g", "--corpus", str(tmp_path)])  # fmt: skip
    assert code == 2
    assert "TEST_NNTP_MISSING" in capsys.readouterr().err


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> str:
    from pipelines.generate import GenerateConfig, generate_corpus

    out = str(tmp_path_factory.mktemp("generated"))
    generate_corpus(
        out, GenerateConfig(groups=2, articles=3000, seed=3, range_size=2000, chunk=500)
    )
    return f"{out}/corpus"


@pytest.mark.parametrize("variant", ["plain", "xfeature", "xzver", "deflate"])
def test_capture_of_a_generated_corpus_is_identical(
    generated: str, tmp_path: Path, variant: str
) -> None:
    faults = Faults(cut_every=5, drop_every=9)
    with NNTPServer(generated, options=ServerOptions(faults=faults)) as srv:
        groups = sorted(srv.corpus.groups)
        cap = capture(srv.port, str(tmp_path), variant, groups=groups,
                      plan=PlanSettings(2000, 500, headroom=0))  # fmt: skip
        summary = cap.run()
    assert summary.retries > 0
    served = corpus_lines(generated)
    got = corpus_lines(str(tmp_path))
    assert sorted(got) == groups
    for group in groups:
        assert got[group][0] == served[group][0]  # line for line, bytes for bytes
        assert got[group][1] == served[group][1]  # and exactly as many bad lines


def test_ctrl_c_finishes_the_chunks_in_flight_and_writes_the_manifests(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    import _thread
    import threading

    with NNTPServer(served[0], options=ServerOptions(lines_per_second=2000)) as srv:
        cap = capture(srv.port, str(tmp_path), connections=2)
        timer = threading.Timer(0.6, _thread.interrupt_main)
        timer.start()
        try:
            summary = cap.run()
        finally:
            timer.cancel()
    assert summary.stopped == "interrupted"
    assert 0 < summary.chunks < 25
    reader = CorpusReader(str(tmp_path))
    manifests = 0
    for group in reader.groups():
        for info in reader.ranges(group):
            manifests += info.manifest is not None
            report = RangeReport(group, info.ref.first, info.ref.last)
            data = b"".join(c.data for c in reader.read_range(info, report))
            assert sum(report.bad_lines.values()) == 0 and report.chunks_truncated == 0
            if info.complete:  # a complete range holds exactly the served lines of its span
                span = [x for x in served[1][group]
                        if info.ref.first <= int(x.split(b"\t")[0]) <= info.ref.last]  # fmt: skip
                assert data == b"".join(span)
    assert manifests >= 1  # the open ranges' manifests were written on the way out


def test_mirror_corpus_captures_every_group(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    from tests.fixtures.mirror import mirror_corpus

    summary = mirror_corpus(served[0], str(tmp_path), connections=2, range_size=RANGE,
                            chunk_size=CHUNK)  # fmt: skip
    assert summary.ranges_completed == 5 and summary.stopped == ""
    assert_identical(str(tmp_path), served[1])
    with pytest.raises(ValueError, match="no group"):
        mirror_corpus(str(tmp_path / "alt.binaries.one" / "0-999"), str(tmp_path / "x"))


def test_a_corpus_it_cannot_read_stops_the_capture(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path
) -> None:
    # a directory where a chunk file belongs: reading the stored chunks fails
    (tmp_path / "alt.binaries.two" / "1000-1999" / "1000-1249.xover.zz").mkdir(parents=True)
    with NNTPServer(served[0]) as srv, pytest.raises(CaptureError, match="stored corpus"):
        capture(srv.port, str(tmp_path), groups=["alt.binaries.two"]).run()


def test_two_providers_with_accounts_of_their_own(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setenv("PW_ONE", "first")
    monkeypatch.setenv("PW_TWO", "second")
    one = ServerOptions(user="alice", password="first", lines_per_second=20_000)
    two = ServerOptions(user="bob", password="second", lines_per_second=20_000)
    with NNTPServer(served[0], options=one) as a, NNTPServer(served[0], options=two) as b:
        code = main([
            "capture", "--quiet", "--corpus", str(tmp_path), "--headroom", "0",
            "--range-size", str(RANGE), "--chunk-size", str(CHUNK),
            "--group", "alt.binaries.one", "--group", "alt.binaries.two",
            "--provider", f"127.0.0.1:{a.port},user=alice,password-env=PW_ONE,connections=2",
            "--provider", f"127.0.0.1:{b.port},user=bob,password-env=PW_TWO,connections=1",
        ])  # fmt: skip
        assert code == 0, capsys.readouterr().err
        assert a.stats.overview_replies > 0 and b.stats.overview_replies > 0
        assert a.stats.peak <= 2 and b.stats.peak <= 1
    assert_identical(str(tmp_path), served[1])
    assert main(["capture", "--group", "g", "--corpus", str(tmp_path)]) == 2
    assert "--server or --provider" in capsys.readouterr().err


def test_a_tail_rides_out_a_provider_outage(
    served: tuple[str, dict[str, list[bytes]]], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from pipelines.nntp.errors import ServiceGone

    with NNTPServer(served[0]) as srv:
        cap = capture(srv.port, str(tmp_path))
        real = cap.bounds
        calls: list[int] = []

        def flaky() -> dict[str, object]:
            calls.append(1)
            if len(calls) == 2:
                raise ServiceGone("the server closed the connection")
            return real()  # type: ignore[return-value]

        cap.bounds = flaky  # type: ignore[method-assign,assignment]
        summary = cap.run(tail=True, interval=0.05, passes=3)
    assert len(calls) == 3 and summary.stopped == ""
    assert "retrying" in caplog.text
    assert_identical(str(tmp_path), served[1])
    with NNTPServer(served[0]) as srv:
        cap = capture(srv.port, str(tmp_path), groups=["alt.binaries.gone"])
        with pytest.raises(CaptureError, match="no such group"):
            cap.run(tail=True, interval=0.05, passes=3)
