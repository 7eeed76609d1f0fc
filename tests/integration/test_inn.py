"""Capture from a real INN 2: articles posted with IHAVE, captured plain and with RFC 8054
COMPRESS DEFLATE, compared field by field with what was posted."""

from __future__ import annotations

import email.utils
import random
import time
from pathlib import Path

import pytest

from pipelines.capture.planner import PlanSettings
from pipelines.capture.prefetch import Capture, CaptureError, CaptureSettings
from pipelines.corpus.reader import CorpusReader
from pipelines.nntp.client import NNTPClient
from pipelines.nntp.errors import NoSuchGroup
from pipelines.nntp.pool import ProviderPools
from pipelines.nntp.provider import Provider
from tests.integration.conftest import INN_GROUPS

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(300)]
ARTICLES = 2500


def _articles(seed: int = 7) -> list[dict[str, str]]:
    rng = random.Random(seed)
    now = time.time()
    posted = []
    for i in range(ARTICLES):
        crosspost = i % 10 == 3
        groups = INN_GROUPS if crosspost else [INN_GROUPS[i % 3 == 0]]
        parts = rng.choice((1, 10, 40))
        k = i % parts + 1
        name = f"Holiday.Photos.{i // 40:04d}.part{k:02d}.rar"
        subject = rng.choice(
            [
                f'[{i}/{ARTICLES}] - "{name}" yEnc ({k}/{parts})',
                f"{rng.getrandbits(128):032x}",
                f"=?UTF-8?B?w4l0w6kgc2VyaWVz?= {i} yEnc ({k}/{parts})",
                f'Déjà vu Ærø {i} - "file{i}.7z.001" yEnc ({k}/{parts})',
            ]
        )
        body_lines = rng.randrange(1, 30)
        posted.append(
            {
                "Message-ID": f"<{rng.getrandbits(64):016x}.{i}@inn.test>",
                "Subject": subject,
                "From": rng.choice(["poster <poster@example.com>", "Yenc@power-post.org (PP)"]),
                "Newsgroups": ",".join(groups),
                "Date": email.utils.formatdate(now - ARTICLES + i, usegmt=True),
                "References": f"<ref{i - 1}@inn.test>" if i % 50 == 7 else "",
                "body": "".join(
                    f"=ybegin line {n} {'x' * (i % 60)}\r\n" for n in range(body_lines)
                ),
                "lines": str(body_lines),
            }
        )
    return posted


def _post(port: int, articles: list[dict[str, str]]) -> None:
    feeder = NNTPClient(Provider("127.0.0.1", port, compression="plain", timeout=30), reader=False)
    feeder.connect()
    for a in articles:
        head = [f"{k}: {a[k]}" for k in ("From", "Newsgroups", "Subject", "Message-ID", "Date")]
        if a["References"]:
            head.append(f"References: {a['References']}")
        raw = ("Path: not-for-mail\r\n" + "\r\n".join(head) + "\r\n\r\n" + a["body"]).encode()
        assert feeder.ihave(a["Message-ID"], raw), a["Message-ID"]
    feeder.quit()


@pytest.fixture(scope="module")
def posted(inn: object) -> list[dict[str, str]]:
    articles = _articles()
    _post(inn.port, articles)  # type: ignore[attr-defined]
    return articles


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
    inn: object, posted: list[dict[str, str]], tmp_path: Path, compression: str
) -> None:
    port = inn.port  # type: ignore[attr-defined]
    probe = NNTPClient(Provider("127.0.0.1", port, compression=compression)).connect()
    assert probe.variant == compression  # INN 2.7 offers COMPRESS DEFLATE after MODE READER
    probe.quit()
    _capture(port, tmp_path, compression)
    captured = _lines(tmp_path)
    for index, group in enumerate(INN_GROUPS):
        expected = [a for a in posted if group in a["Newsgroups"].split(",")]
        rows = captured[group]
        assert len(rows) == len(expected)
        for number, (row, article) in enumerate(zip(rows, expected, strict=True), start=1):
            assert int(row[0]) == number  # INN numbers articles in arrival order
            assert row[1].decode() == article["Subject"]
            assert row[2].decode() == article["From"]
            assert row[3].decode() == article["Date"]
            assert row[4].decode() == article["Message-ID"]
            assert row[5].decode() == article["References"]
            assert int(row[6]) > len(article["body"])  # :bytes counts the whole article
            assert row[7].decode() == article["lines"]
            assert f"{group}:{number}".encode() in row[8]
            if len(article["Newsgroups"].split(",")) > 1:
                other = INN_GROUPS[1 - index]
                assert other.encode() in row[8]
    reader = CorpusReader(str(tmp_path))
    for group in INN_GROUPS:
        infos = reader.ranges(group)
        assert all(i.complete for i in infos[:-1])


def test_plain_and_deflate_captures_are_identical(
    inn: object, posted: list[dict[str, str]], tmp_path: Path
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
