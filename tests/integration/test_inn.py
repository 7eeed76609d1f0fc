"""Capture from a real INN 2: generated articles posted with IHAVE, captured plain and with
RFC 8054 COMPRESS DEFLATE, compared field by field, byte for byte, with what was posted."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pipelines.capture.planner import PlanSettings
from pipelines.capture.prefetch import Capture, CaptureError, CaptureSettings
from pipelines.corpus.reader import CorpusReader
from pipelines.generate import generate_range_lines
from pipelines.nntp.client import NNTPClient
from pipelines.nntp.errors import NoSuchGroup
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider
from tests.integration.conftest import INN_GROUPS

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(300)]
ARTICLES = 2500


def _articles(seed: int = 5) -> list[dict[str, bytes]]:
    """Articles made from generated overview lines (`pipelines.generate`): real-world
    subject shapes, posters, dates and message-ids, some crossposted to both groups."""
    text, _, _ = generate_range_lines(ARTICLES, seed=seed)
    rng = random.Random(seed)
    posted = []
    for i, line in enumerate(text.split(b"\r\n")[:-1]):
        fields = line.split(b"\t")
        groups = INN_GROUPS if i % 10 == 3 else [INN_GROUPS[i % 3 == 0]]
        body_lines = rng.randrange(1, 30)
        posted.append(
            {
                "Message-ID": fields[4],
                "Subject": fields[1],
                "From": fields[2],
                "Newsgroups": ",".join(groups).encode(),
                "Date": fields[3],
                "References": fields[5],
                "body": b"".join(
                    b"=ybegin line %d %s\r\n" % (n, b"x" * (i % 60)) for n in range(body_lines)
                ),
                "lines": str(body_lines).encode(),
            }
        )
    return posted


def _post(port: int, articles: list[dict[str, bytes]]) -> list[dict[str, bytes]]:
    """IHAVE each article; the ones the server took (a generated repost can repeat an id)."""
    feeder = NNTPClient(Provider("127.0.0.1", port, compression="plain", timeout=30), reader=False)
    feeder.connect()
    taken = []
    for a in articles:
        head = [
            k.encode() + b": " + a[k]
            for k in ("From", "Newsgroups", "Subject", "Message-ID", "Date")
        ]
        if a["References"]:
            head.append(b"References: " + a["References"])
        raw = b"Path: not-for-mail\r\n" + b"\r\n".join(head) + b"\r\n\r\n" + a["body"]
        if feeder.ihave(a["Message-ID"].decode("utf-8", "surrogateescape"), raw):
            taken.append(a)
    feeder.quit()
    assert len(taken) >= len(articles) * 0.99
    return taken


@pytest.fixture(scope="module")
def posted(inn: object) -> list[dict[str, bytes]]:
    return _post(inn.port, _articles())  # type: ignore[attr-defined]


def _capture(port: int, root: Path, compression: str) -> None:
    provider = Provider("127.0.0.1", port, connections=3, compression=compression, timeout=30)
    settings = CaptureSettings(plan=PlanSettings(range_size=1000, chunk_size=250, headroom=0))
    summary = Capture(ProviderPools([provider]), str(root), INN_GROUPS, settings).run()
    assert summary.stopped == ""


def _lines(root: Path) -> dict[str, list[list[bytes]]]:
    reader = CorpusReader(str(root))
    out = {}
    for group in reader.groups():
        data = b"".join(c.data for info in reader.ranges(group) for c in reader.read_range(info))
        out[group] = [line.split(b"\t") for line in data.split(b"\r\n") if line]
    return out


@pytest.mark.parametrize("compression", ["plain", "deflate"])
def test_capture_from_inn_matches_what_was_posted(
    inn: object, posted: list[dict[str, bytes]], tmp_path: Path, compression: str
) -> None:
    port = inn.port  # type: ignore[attr-defined]
    probe = NNTPClient(Provider("127.0.0.1", port, compression=compression)).connect()
    assert probe.variant == compression  # INN 2.7 offers COMPRESS DEFLATE after MODE READER
    probe.quit()
    _capture(port, tmp_path, compression)
    captured = _lines(tmp_path)
    for index, group in enumerate(INN_GROUPS):
        expected = [a for a in posted if group.encode() in a["Newsgroups"].split(b",")]
        rows = captured[group]
        assert len(rows) == len(expected)
        for number, (row, article) in enumerate(zip(rows, expected, strict=True), start=1):
            assert int(row[0]) == number  # INN numbers articles in arrival order
            assert row[1] == article["Subject"]
            assert row[2] == article["From"]
            assert row[3] == article["Date"]
            assert row[4] == article["Message-ID"]
            assert row[5] == article["References"]
            assert int(row[6]) > len(article["body"])  # :bytes counts the whole article
            assert row[7] == article["lines"]
            assert f"{group}:{number}".encode() in row[8]
            if b"," in article["Newsgroups"]:
                assert INN_GROUPS[1 - index].encode() in row[8]
    reader = CorpusReader(str(tmp_path))
    for group in INN_GROUPS:
        infos = reader.ranges(group)
        assert all(i.complete for i in infos[:-1])


def test_plain_and_deflate_captures_are_identical(
    inn: object, posted: list[dict[str, bytes]], tmp_path: Path
) -> None:
    port = inn.port  # type: ignore[attr-defined]
    _capture(port, tmp_path / "plain", "plain")
    _capture(port, tmp_path / "deflate", "deflate")
    assert _lines(tmp_path / "plain") == _lines(tmp_path / "deflate")


def test_unknown_group_on_inn(inn: object, tmp_path: Path) -> None:
    provider = Provider("127.0.0.1", inn.port, connections=1)  # type: ignore[attr-defined]
    capture = Capture(ProviderPools([provider]), str(tmp_path), ["alt.binaries.not.here"])
    with pytest.raises(CaptureError) as err:
        capture.run()
    assert isinstance(err.value.__cause__, NoSuchGroup)
    assert not any(tmp_path.iterdir())


def test_stored_bodies_round_trip_through_inn(inn: object, tmp_path: Path) -> None:
    """A few of the generator's stored bodies (a par2 index, a first volume, a 7z tail),
    posted to INN as articles and fetched back by message-id, byte for byte."""
    from pipelines.articles.store import open_bodies
    from pipelines.generate import GenerateConfig, generate_corpus

    generate_corpus(str(tmp_path), GenerateConfig(groups=1, articles=3000, seed=11))
    store = open_bodies(str(tmp_path))
    assert store is not None
    rows = [store.row(mid) for mid in store.message_ids()]
    picks = [next(r for r in rows if str(r["name"]).endswith(".par2"))]  # type: ignore[index]
    picks += [r for r in rows if str(r["name"]).endswith(".rar")][:2]  # type: ignore[index]
    picks += [r for r in rows if r["tail"] and r["part"] > 1][:1]  # type: ignore[index]
    picks += rows[:2]
    port = inn.port  # type: ignore[attr-defined]
    feeder = NNTPClient(Provider("127.0.0.1", port, compression="plain", timeout=30), reader=False)
    feeder.connect()
    # posted after the capture tests above, which count what the groups hold
    group = INN_GROUPS[0]
    posted = {}
    for row in picks:
        mid = f"<stored.{row['message_id']}>"  # type: ignore[index]
        body = store.body(str(row["message_id"]))  # type: ignore[index]
        assert body is not None
        subject = f'"{row["name"]}" yEnc ({row["part"]}/{row["total"]})'  # type: ignore[index]
        head = (
            f"Path: not-for-mail\r\nFrom: poster <p@example.com>\r\nNewsgroups: {group}\r\n"
            f"Subject: {subject}\r\nMessage-ID: {mid}\r\nDate: Tue, 14 May 2019 20:00:00 GMT\r\n"
        )
        if feeder.ihave(mid, head.encode() + b"\r\n" + body):
            posted[mid] = body
    feeder.quit()
    assert len(posted) >= 4
    reader = NNTPClient(Provider("127.0.0.1", port, compression="plain", timeout=30)).connect()
    try:
        for mid, body in posted.items():
            assert reader.body(mid) == body
    finally:
        reader.quit()
