"""Names from yEnc headers (issue 25): a lone file whose subject is random and whose yEnc
header (`=ybegin ... name=`) carries the real name is named by it, whatever its bytes;
a yEnc name that is random itself names nothing."""

from __future__ import annotations

import os

import pytest

from pipelines.generate.contents import media
from pipelines.generate.contents.zips import epub_head
from pipelines.probe import inspection as ins
from pipelines.probe.cache import ProbeCache
from pipelines.probe.inspect import inspect_body
from pipelines.probe.ladder import EXHAUSTED, NAMED, Climb, SignatureCounts, climb_all
from pipelines.probe.learned import usable_name
from tests.probe_bodies import first_part
from tests.test_probe_ladder import Scripted

REAL = "Deep.Eagle.2021.S05E04.1080p.WEB.h264-CAKES"
SOFTWARE = "CodeCanvas.IDE.v22.3.97.MacOSX-AMPED"


def _file(head: bytes, size: int = 2_000_000) -> bytes:
    """A file of `size` bytes that starts with `head`; random bytes after it."""
    return head + os.urandom(size - len(head))


@pytest.mark.parametrize(
    ("head", "yenc_name", "want"),
    [
        (media.media_head("mkv"), f"{REAL}.mkv", REAL),
        (media.media_head("iso"), f"{SOFTWARE}.iso", SOFTWARE),  # no format we read
        (b"", f"{SOFTWARE}.bin", SOFTWARE),  # random bytes
        (b"", SOFTWARE, SOFTWARE),  # no extension
        (epub_head(b"seed"), "Ben Hughes - [Target 03] - Rogue Eye.epub",
         "Ben Hughes - [Target 03] - Rogue Eye"),  # a ZIP, but no listing to name it
    ],
)  # fmt: skip
def test_a_real_yenc_name_names_a_lone_file(head: bytes, yenc_name: str, want: str) -> None:
    """The first article of a multi-part file (=ybegin part=1 total=3 ..., =ypart)."""
    body = first_part(_file(head), yenc_name)
    assert b"=ypart " in body.split(b"\r\n", 2)[1]
    result = inspect_body(body)
    assert result.yenc_name == yenc_name
    assert usable_name([result]) == (want, "yenc")


@pytest.mark.parametrize(
    "yenc_name",
    [
        "df1d24f446603ca8dc3c55a5a8f3c9e0.mkv",  # hex
        "5t4zbu6e7d7xajvefxvyd1l1jc",  # the subject's token, no extension
        "q7ZkP2mWx9LrT4vB8nYc3HsJ6dFg1Ae0.bin",  # Postie's 32 alphanumerics
        "0b5c9f3e-8a1d-4c7e-9f2b-6d4a8e1c3b7f.iso",  # a UUID
    ],
)
def test_a_random_yenc_name_names_nothing(yenc_name: str) -> None:
    result = inspect_body(first_part(_file(media.media_head("mkv")), yenc_name))
    assert result.yenc_name == yenc_name and usable_name([result]) is None


def test_the_ladder_names_the_lone_file_and_leaves_the_random_one_pending(tmp_path) -> None:
    """Through the pending ladder: step 2 is the lone file's first part."""
    bodies = {
        "real@x": first_part(_file(b""), f"{SOFTWARE}.bin"),
        "hash@x": first_part(_file(media.media_head("mkv")), "5t4zbu6e7d7xajvefxvyd1l1jc.mkv"),
    }
    source = Scripted(lambda mid: inspect_body(bodies[mid]))
    real = Climb(b"r" * 20, "g", True, "poster", "postie", 0, [(2, ["real@x"])])
    hashed = Climb(b"h" * 20, "g", True, "poster", "postie", 0, [(2, ["hash@x"])])
    climb_all([real, hashed], source, ProbeCache(str(tmp_path)), SignatureCounts())
    assert real.outcome == NAMED and real.named == (SOFTWARE, "yenc")
    assert real.read[0].status == ins.ERROR  # its bytes are no format we read
    assert hashed.outcome == EXHAUSTED and hashed.named is None
