"""inspect_body never raises: random bodies, mutated yEnc, and real archives' bytes mutated
under a good yEnc part, so the format readers (not the decoder) meet the damage."""

from __future__ import annotations

import io
import zipfile

from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.probe import inspection as ins
from pipelines.probe.inspect import inspect_body
from pipelines.probe.yenc import encode_part
from tests.probe_bodies import first_part, last_part
from tests.shared_data import DATA

STATUSES = {ins.OK, ins.MISSING, ins.BAD_YENC, ins.BAD_CRC, ins.ERROR}


def _seeds() -> list[bytes]:
    """Real files' first bytes, each a format's reader's input."""
    out = [b"PAR2\x00PKT" + bytes(56), b"Rar!\x1a\x07\x00", b"Rar!\x1a\x07\x01\x00"]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.txt", b"hello" * 50)
        archive.writestr("b.rar", b"x" * 100)
    out.append(buffer.getvalue())
    for rel in (
        "rarfile/rar5-psw.rar",
        "rarfile/rar3-comment-psw.rar",
        "rarfile/rar5-hpsw.rar",
        "rarfile/rar15-comment.rar",
        "nzbget/parchecker/testfile.par2",
        "py7zr/encrypted_1.7z",
        "py7zr/encrypted_3.7z",
        "py7zr/lzma2_1.7z",
        "zip/zip-aes-256.zip",
    ):
        path = DATA / "archives" / rel
        if path.is_file():
            out.append(path.read_bytes()[:20_000])
    return out


SEEDS = _seeds()


def _checked(body: bytes) -> ins.Inspection:
    result = inspect_body(body)
    assert result.status in STATUSES
    # the catch-all in inspect_body is a guard, not how a reader copes with damage
    assert not result.detail.startswith("reader failed"), result.detail
    return result


@settings(max_examples=300)
@given(st.binary(max_size=4000))
def test_random_bodies(body):
    _checked(body)


@settings(max_examples=300)
@given(st.binary(max_size=2000), st.binary(max_size=200), st.integers(0, 3000))
def test_yenc_with_garbage_spliced_in(data, garbage, at):
    body = encode_part(data, "x.bin", file_size=len(data) + 10, total=2)
    _checked(body[:at] + garbage + body[at:])


@settings(max_examples=500)
@given(
    st.sampled_from(SEEDS),
    st.lists(st.tuples(st.integers(0, 20_000), st.integers(0, 255)), max_size=12),
    st.integers(0, 20_000),
    st.booleans(),
)
def test_real_formats_mutated_under_good_yenc(seed, flips, cut, as_tail):
    data = bytearray(seed[: max(cut, 8)])
    for at, value in flips:
        if at < len(data):
            data[at] = value
    body = last_part(bytes(data), "x", keep=len(data)) if as_tail else first_part(bytes(data), "x")
    result = _checked(body)
    if not as_tail:
        assert result.status in (ins.OK, ins.ERROR)
