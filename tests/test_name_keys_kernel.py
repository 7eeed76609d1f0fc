"""kernels.name_keys against the plain-Python keys (`pipelines.predb.keys.name_keys`,
hashlib's BLAKE2b): names of every length around BLAKE2b's 128-byte blocks, blanks at
either end, digests in any case, non-ASCII text, and request ids."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.predb import keys as K


def _python(names: Sequence[str]) -> list[list[int]]:
    return [K.name_keys(n, stems=False) for n in names]


def _kernel(names: Sequence[str]) -> list[list[int]]:
    first, second, has = K.column_keys(pa.array(list(names), pa.string()))
    return [
        [int(a), int(b)] if h else [int(a)]
        for a, b, h in zip(first.tolist(), second.tolist(), has.tolist(), strict=True)
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=300), max_size=12))
def test_any_text(names: list[str]) -> None:
    assert _kernel(names) == _python(names)


def test_every_length_around_a_block() -> None:
    names = ["x" * n for n in range(0, 400)] + ["é" * n for n in range(0, 140)]
    assert _kernel(names) == _python(names)


def test_blanks_and_digests() -> None:
    md5 = hashlib.md5(b"Some.Title-GRP").hexdigest()
    sha1 = hashlib.sha1(b"Some.Title-GRP").hexdigest()
    sha256 = hashlib.sha256(b"Some.Title-GRP").hexdigest()
    names = [
        md5, md5.upper(), f"  {sha1}\t", sha256, sha256[:-1], sha256 + "0", md5[:-1] + "g",
        "\x0b\x0cSome.Title-GRP \r\n", " ", "", "\u00a0Title\u00a0", "\x1cTitle",
    ]  # fmt: skip
    got = _kernel(names)
    assert got == _python(names)
    assert [len(k) for k in got[:7]] == [2, 2, 2, 2, 1, 1, 1]
    assert got[0][1] == K.digest_key(bytes.fromhex(md5))


def test_request_keys_and_a_sliced_column() -> None:
    asks = ["alt.binaries.teevee:123456", "a.b.c:1", "g:999999999"]
    keys, _, has = K.column_keys(pa.array(asks), request=True)
    want = [K.request_key(a.rpartition(":")[0], int(a.rpartition(":")[2])) for a in asks]
    assert keys.tolist() == want and not has.any()
    arr = pa.array(["a", None, "b.c", "d"], pa.string())
    first, _, _ = K.column_keys(arr.slice(1, 2))
    assert first.tolist() == [K.title_key(""), K.title_key("b.c")]
    chunked = pa.chunked_array([arr.slice(0, 2), arr.slice(2)])
    assert K.column_keys(chunked)[0].tolist() == [K.title_key(t or "") for t in arr.to_pylist()]
