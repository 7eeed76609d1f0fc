"""Capture from two backbones: each backbone's overview into a corpus of its own, its
cursor per (backbone, group); a backbone that fails is reported and the other goes on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.backbone_split import SplitSettings, split_corpus
from cli.main import main
from pipelines.corpus.backbones import backbone_root, corpus_backbones
from pipelines.corpus.reader import CorpusReader
from pipelines.generate import GenerateConfig
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from tests.corpora import generate

pytestmark = pytest.mark.timeout(180)
RANGE, CHUNK = 1000, 250
SPLIT = SplitSettings(offset=50_013, retention=100, range_size=RANGE, chunk_size=CHUNK)
PASSWORD_ENV = "TEST_BACKBONE_PASSWORD"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Two backbones' corpora (split from one provider's), to serve one each."""
    out = tmp_path_factory.mktemp("served")
    gen = generate(out / "gen", GenerateConfig(groups=2, articles=2500, seed=4,
                                               range_size=RANGE, chunk=CHUNK))  # fmt: skip
    split_corpus(gen.corpus, str(out / "split"), SPLIT)
    return str(out / "split")


@pytest.fixture()
def password() -> Iterator[None]:
    os.environ[PASSWORD_ENV] = "right"
    yield
    del os.environ[PASSWORD_ENV]


def _settings(path: Path, ports: dict[str, int], password: str = "") -> str:
    """A providers file: one account per backbone, in the order given."""
    blocks = [
        f'[[provider]]\nname = "{name}-news"\nhost = "127.0.0.1"\nport = {port}\n'
        f'connections = 2\nbackbone = "{name}"\nrole = "headers"\ntimeout = 5\n'
        f"connect_timeout = 2\n"
        + (f'user = "u"\npassword_env = "{password}"\n' if password else "")
        for name, port in ports.items()
    ]
    path.write_text("\n".join(blocks))
    return str(path)


def _lines(root: str) -> dict[str, bytes]:
    """Per group, every stored line in article order."""
    reader = CorpusReader(root)
    return {
        g: b"".join(c.data for info in reader.ranges(g) for c in reader.read_range(info))
        for g in reader.groups()
    }


def _args(settings: str, corpus: Path, served: str) -> list[str]:
    reader = CorpusReader(backbone_root(served, "a"))
    groups = [x for g in reader.groups() for x in ("--group", g)]
    return ["capture", "--providers", settings, *groups, "--corpus", str(corpus),
            "--range-size", str(RANGE), "--chunk-size", str(CHUNK), "--headroom", "0",
            "--quiet"]  # fmt: skip


def test_two_backbones_are_captured_each_into_its_own_corpus(served: str, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    with NNTPServer(backbone_root(served, "a")) as a, NNTPServer(backbone_root(served, "b")) as b:
        settings = _settings(tmp_path / "p.toml", {"a": a.port, "b": b.port})
        assert main(_args(settings, corpus, served)) == 0
    assert corpus_backbones(str(corpus)) == ["a", "b", ""]
    assert CorpusReader(str(corpus)).groups() == []
    for name in ("a", "b"):
        assert _lines(backbone_root(str(corpus), name)) == _lines(backbone_root(served, name))


def _whole_chunks(root: Path) -> list[Path]:
    return [p for p in root.glob("*/*/*.xover.*") if ".tmp-" not in p.name]


def test_sigkill_on_one_backbone_loses_and_duplicates_nothing(served: str, tmp_path: Path) -> None:
    """Killed while backbone a is still fetching (paced) and b is done; the next run
    fetches only a's missing chunks and nothing of b."""
    corpus = tmp_path / "corpus"
    slow = ServerOptions(lines_per_second=800)
    with (
        NNTPServer(backbone_root(served, "a"), options=slow) as a,
        NNTPServer(backbone_root(served, "b")) as b,
    ):
        settings = _settings(tmp_path / "p.toml", {"a": a.port, "b": b.port})
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli.main", *_args(settings, corpus, served)]
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if len(_whole_chunks(corpus / "@a")) >= 4:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the capture ended before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    stored_a = len(_whole_chunks(corpus / "@a"))
    stored_b = len(_whole_chunks(corpus / "@b"))
    with NNTPServer(backbone_root(served, "a")) as a, NNTPServer(backbone_root(served, "b")) as b:
        settings = _settings(tmp_path / "p.toml", {"a": a.port, "b": b.port})
        assert main(_args(settings, corpus, served)) == 0
        fetched_a, fetched_b = a.stats.overview_replies, b.stats.overview_replies
    assert fetched_a == len(_whole_chunks(corpus / "@a")) - stored_a > 0
    assert fetched_b == len(_whole_chunks(corpus / "@b")) - stored_b
    for name in ("a", "b"):
        assert _lines(backbone_root(str(corpus), name)) == _lines(backbone_root(served, name))


def test_a_backbone_with_wrong_credentials_is_reported_and_the_other_goes_on(
    served: str, tmp_path: Path, password: None, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    wrong = ServerOptions(user="u", password="not-right")
    with NNTPServer(backbone_root(served, "a"), options=ServerOptions(user="u", password="right")
                    ) as a, NNTPServer(backbone_root(served, "b"), options=wrong) as b:  # fmt: skip
        settings = _settings(tmp_path / "p.toml", {"a": a.port, "b": b.port}, PASSWORD_ENV)
        assert main(_args(settings, corpus, served)) == 1
    err = capsys.readouterr().err
    assert "backbone b (b-news): stopped:" in err and "481" in err
    assert "backbones stopped by an error: b" in err
    assert _lines(backbone_root(str(corpus), "a")) == _lines(backbone_root(served, "a"))


def test_a_backbone_that_is_down_is_reported_and_the_other_goes_on(
    served: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    with NNTPServer(backbone_root(served, "b")) as b:
        down = b.port
    with NNTPServer(backbone_root(served, "a")) as a:
        settings = _settings(tmp_path / "p.toml", {"a": a.port, "b": down})
        assert main(_args(settings, corpus, served)) == 1
    err = capsys.readouterr().err
    assert "backbone b (b-news): stopped: cannot read group bounds" in err
    assert _lines(backbone_root(str(corpus), "a")) == _lines(backbone_root(served, "a"))
