"""The NNTP client against serve-nntp: every overview variant, articles, errors, TLS."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sabctools import yenc_encode

from pipelines.corpus.codec import inflate
from pipelines.nntp.client import NNTPClient
from pipelines.nntp.compression import InflateCheck, read_xfeature_reply, ydecode
from pipelines.nntp.errors import (
    AuthError,
    NoArticle,
    NoSuchGroup,
    ReplyTimeout,
    ServiceGone,
    TruncatedReply,
    error_for,
)
from pipelines.nntp.provider import Provider, parse_server
from pipelines.nntp.wire import Wire, stuff, unstuff
from pipelines.nntpserver.faults import Faults
from pipelines.nntpserver.server import NNTPServer, ServerOptions
from tests.fixtures.sample_corpus import write_sample_corpus

pytestmark = pytest.mark.timeout(60)
GROUP = "alt.binaries.sample"
VARIANTS = ["plain", "xfeature", "xzver", "deflate"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[bytes]]:
    root = str(tmp_path_factory.mktemp("served"))
    lines = write_sample_corpus(
        root, {GROUP: (1, 2999), "alt.binaries.other": (10, 500)}, 1000, 250
    )
    return root, lines[GROUP]


@pytest.fixture()
def server(corpus: tuple[str, list[bytes]]) -> Iterator[NNTPServer]:
    with NNTPServer(corpus[0]) as srv:
        yield srv


def connect(srv: NNTPServer, **kw: object) -> NNTPClient:
    return NNTPClient(Provider("127.0.0.1", srv.port, timeout=5.0, **kw)).connect()  # type: ignore[arg-type]


def expected(lines: list[bytes], first: int, last: int) -> bytes:
    return b"".join(x for x in lines if first <= int(x.split(b"\t", 1)[0]) <= last)


@pytest.mark.parametrize("variant", VARIANTS)
def test_overview_round_trip_in_every_variant(
    server: NNTPServer, corpus: tuple[str, list[bytes]], variant: str
) -> None:
    client = connect(server, compression=variant)
    assert client.variant == variant
    info = client.group(GROUP)
    assert (info.low, info.high) == (1, 2999)
    for first, last in [(0, 249), (250, 499), (1000, 1999), (17, 17), (5000, 6000)]:
        reply = client.over(first, last)
        text = inflate(reply.payload).data
        assert text == expected(corpus[1], first, last)
        assert reply.lines == text.count(b"\n")
    client.quit()


def test_compressed_replies_are_kept_as_sent(server: NNTPServer) -> None:
    for variant in ("xfeature", "xzver"):
        client = connect(server, compression=variant)
        client.group(GROUP)
        reply = client.over(250, 499)  # exactly a stored chunk: the server sends its bytes
        assert not reply.recompressed
        assert reply.payload[:2] == b"\x78\x01"
        client.quit()
    plain = connect(server, compression="plain")
    plain.group(GROUP)
    assert plain.over(250, 499).recompressed
    plain.quit()


def test_zlib_flavour_of_xfeature(corpus: tuple[str, list[bytes]]) -> None:
    with NNTPServer(corpus[0], options=ServerOptions(gzip_flavour="zlib")) as srv:
        client = connect(srv, compression="xfeature")
        client.group(GROUP)
        reply = client.over(500, 749)
        assert inflate(reply.payload).data == expected(corpus[1], 500, 749)
        assert not reply.recompressed


def test_auto_picks_a_compressed_variant_and_falls_back_to_plain(
    corpus: tuple[str, list[bytes]],
) -> None:
    with NNTPServer(corpus[0]) as srv:
        assert connect(srv).variant == "xfeature"
    with NNTPServer(corpus[0], options=ServerOptions(offer=("deflate",))) as srv:
        assert connect(srv).variant == "deflate"
    with NNTPServer(corpus[0], options=ServerOptions(offer=())) as srv:
        client = connect(srv)
        assert client.variant == "plain"
        client.group(GROUP)
        assert inflate(client.over(1, 100).payload).data == expected(corpus[1], 1, 100)


def test_lists_and_articles(server: NNTPServer, corpus: tuple[str, list[bytes]]) -> None:
    client = connect(server, compression="deflate")
    active = client.list_active("alt.binaries.s*")
    assert [(g.name, g.low, g.high) for g in active] == [(GROUP, 1, 2999)]
    assert len(client.list_active()) == 2
    assert client.overview_format()[:2] == ["Subject:", "From:"]
    assert client.date().year >= 2024
    client.group(GROUP)
    line = next(x for x in corpus[1] if b"yEnc (" in x and not x.startswith(b"1\t"))
    fields = line.rstrip(b"\r\n").split(b"\t")
    number, msgid = int(fields[0]), fields[4].decode()
    assert client.stat(number) == (number, msgid)
    assert client.stat(msgid)[1] == msgid
    head = client.head(msgid)
    assert b"Subject: " + fields[1] in head
    body = client.body(number)
    assert body.startswith(b"=ybegin part=")
    assert client.article(number).startswith(head)
    with pytest.raises(NoArticle):
        client.stat(999_999)
    with pytest.raises(NoArticle):
        client.head("<nope@nowhere>")
    client.quit()


def test_bodies_are_yenc_with_right_names_sizes_and_crcs(
    server: NNTPServer, corpus: tuple[str, list[bytes]]
) -> None:
    client = connect(server)
    client.group(GROUP)
    checked = 0
    for line in corpus[1][:60]:
        fields = line.rstrip(b"\r\n").split(b"\t")
        body = client.body(int(fields[0]))
        lines = body.split(b"\r\n")
        head = dict(t.split(b"=", 1) for t in lines[0].split()[1:] if b"=" in t)
        tail = dict(
            t.split(b"=", 1) for t in body.rstrip(b"\r\n").rsplit(b"\r\n", 1)[1].split()[1:]
        )
        start = 2 if lines[1].startswith(b"=ypart") else 1
        data = ydecode(b"\r\n".join(lines[start:-2]) + b"\r\n")
        assert len(data) == int(tail[b"size"])
        crc = tail.get(b"pcrc32", tail.get(b"crc32"))
        assert crc is not None and int(crc, 16) == zlib.crc32(data)
        if b'"' in fields[1]:
            assert head[b"name"] in fields[1]
        if start == 2:
            part = dict(t.split(b"=", 1) for t in lines[1].split()[1:])
            assert int(part[b"end"]) - int(part[b"begin"]) + 1 == len(data)
        checked += 1
    assert checked == 60


def test_errors_are_clear(corpus: tuple[str, list[bytes]]) -> None:
    opts = ServerOptions(user="reader", password="s3cret")
    with NNTPServer(corpus[0], options=opts) as srv:
        with pytest.raises(AuthError, match="481"):
            connect(srv, user="reader", password="wrong")
        anonymous = connect(srv, compression="plain")
        with pytest.raises(AuthError, match="480"):
            anonymous.group(GROUP)
        client = connect(srv, user="reader", password="s3cret")
        with pytest.raises(NoSuchGroup):
            client.group("alt.binaries.nothere")
        assert client.group(GROUP).count > 0


def test_a_closed_connection_and_a_silent_server(corpus: tuple[str, list[bytes]]) -> None:
    with NNTPServer(corpus[0], options=ServerOptions(faults=Faults(drop_every=1))) as srv:
        client = connect(srv)
        client.group(GROUP)
        with pytest.raises(ServiceGone):
            client.over(1, 100)
    with NNTPServer(corpus[0], options=ServerOptions(faults=Faults(first_byte_delay=1.5))) as srv:
        client = NNTPClient(Provider("127.0.0.1", srv.port, timeout=0.5)).connect()
        client.group(GROUP)
        with pytest.raises(ReplyTimeout):
            client.over(1, 100)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ServiceGone, match="cannot connect"):
        NNTPClient(Provider("127.0.0.1", port, connect_timeout=1.0)).connect()


@pytest.mark.parametrize("variant", ["xfeature", "xzver"])
def test_cut_compressed_replies_are_detected(corpus: tuple[str, list[bytes]], variant: str) -> None:
    opts = ServerOptions(faults=Faults(cut_every=2))
    with NNTPServer(corpus[0], options=opts) as srv:
        client = NNTPClient(
            Provider("127.0.0.1", srv.port, compression=variant, cut_grace=0.3)
        ).connect()
        client.group(GROUP)
        client.over(1, 249)
        with pytest.raises(TruncatedReply):
            client.over(250, 499)


def _wire_pair() -> tuple[Wire, socket.socket]:
    a, b = socket.socketpair()
    return Wire(a, 2.0), b


def test_xfeature_reply_shapes() -> None:
    text = b"1\tsubject\tfrom\tdate\t<id>\t\t10\t1\r\n2\ts\tf\td\t<id2>\t\t10\t1\r\n"
    cases = [
        (zlib.compressobj(6, zlib.DEFLATED, -15), b".\r\n", False),  # raw deflate, '.' after it
        (zlib.compressobj(6, zlib.DEFLATED, 15), b".\r\n", False),  # zlib stream
        (zlib.compressobj(6, zlib.DEFLATED, 31), b".\r\n", False),  # gzip stream
    ]
    for obj, after, recompressed in cases:
        wire, peer = _wire_pair()
        peer.sendall(obj.compress(text) + obj.flush() + after + b"NEXT\r\n")
        stored = read_xfeature_reply(wire, True, 0.2)
        assert inflate(stored.payload).data == text
        assert stored.recompressed is recompressed
        assert stored.lines == 2
        assert wire.read_line() == b"NEXT"
    # the TERMINATOR flavour: the terminator and a stuffed line inside the stream
    wire, peer = _wire_pair()
    obj = zlib.compressobj(6, zlib.DEFLATED, 15)
    peer.sendall(obj.compress(b"..odd\r\n" + text + b".\r\n") + obj.flush() + b"NEXT\r\n")
    stored = read_xfeature_reply(wire, True, 0.2)
    assert inflate(stored.payload).data == b".odd\r\n" + text
    assert stored.recompressed
    assert wire.read_line() == b"NEXT"
    # cut at a '.\r\n' inside the compressed bytes, then silence
    wire, peer = _wire_pair()
    obj = zlib.compressobj(6, zlib.DEFLATED, -15)
    stream = obj.compress(text * 50) + obj.flush()
    peer.sendall(stream[: len(stream) // 2] + b".\r\n")
    with pytest.raises(TruncatedReply):
        read_xfeature_reply(wire, True, 0.2)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000))
def test_ydecode_inverts_yenc(data: bytes) -> None:
    encoded, _ = yenc_encode(data)
    assert ydecode(unstuff(stuff(encoded))) == data


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=20).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))))
def test_dot_stuffing_round_trips(lines: list[bytes]) -> None:
    block = b"".join(x + b"\r\n" for x in lines)
    stuffed = stuff(block)
    assert not any(
        x.startswith(b".") and not x.startswith(b"..") for x in stuffed.split(b"\r\n")[:-1]
    )
    assert unstuff(stuffed) == block


def test_error_mapping_and_server_specs() -> None:
    assert isinstance(error_for(481, "no", "AUTHINFO PASS hunter2"), AuthError)
    assert "hunter2" not in str(error_for(481, "no", "AUTHINFO PASS hunter2"))
    assert isinstance(error_for(411, "no", "GROUP x"), NoSuchGroup)
    assert isinstance(error_for(430, "no", "STAT <x>"), NoArticle)
    assert isinstance(error_for(400, "bye", "GROUP x"), ServiceGone)
    assert error_for(503, "bye", "X").retryable
    assert parse_server("news.example.com") == ("news.example.com", 119)
    assert parse_server("news.example.com", tls=True) == ("news.example.com", 563)
    assert parse_server("news:8119") == ("news", 8119)
    assert parse_server("[::1]:563") == ("::1", 563)


def _certificate(tmp: Path) -> tuple[str, str]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: no certificate for the TLS tests")
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return str(cert), str(key)


@pytest.mark.parametrize("mode", ["implicit", "starttls"])
def test_tls(corpus: tuple[str, list[bytes]], tmp_path: Path, mode: str) -> None:
    cert, key = _certificate(tmp_path)
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    opts = ServerOptions(tls_context=ctx, implicit_tls=mode == "implicit")
    with NNTPServer(corpus[0], options=opts) as srv:
        client = connect(srv, tls=mode, tls_verify=False)
        assert isinstance(client.wire.sock if client.wire else None, ssl.SSLSocket)
        client.group(GROUP)
        assert inflate(client.over(1, 249).payload).data == expected(corpus[1], 1, 249)
        client.quit()


def test_commands_are_safe_from_threads(server: NNTPServer) -> None:
    errors: list[BaseException] = []

    def one() -> None:
        try:
            c = connect(server)
            c.group(GROUP)
            c.over(1, 999)
            c.quit()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert not errors
    assert server.stats.peak >= 2


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(["raw", "zlib", "gzip"]),
    st.integers(1, 400),
    st.lists(st.integers(1, 70_000), min_size=1, max_size=40),
)
def test_inflate_check_finds_the_end_whatever_the_pieces(
    kind: str, repeat: int, cuts: list[int]
) -> None:
    # very repetitive text: a few compressed bytes hold far more than one output piece
    text = b"".join(b"%d\tsame subject\tposter\tdate\t<id>\t\t1\t1\r\n" % i for i in range(repeat))
    text += b"7\t" + b"x" * 300_000 + b"\r\n"
    wbits = {"raw": -15, "zlib": 15, "gzip": 31}[kind]
    obj = zlib.compressobj(6, zlib.DEFLATED, wbits)
    stream = obj.compress(text) + obj.flush()
    check = InflateCheck(kind)
    at = 0
    for size in cuts:
        if check.eof or at >= len(stream):
            break
        check.feed(stream[at : at + size])
        at += size
    if at < len(stream):
        check.feed(stream[at:])
    check.feed(b".\r\n")
    assert check.eof and check.unused == b".\r\n"
    stored = check.stored()
    assert stored.lines == repeat + 1 and stored.text_bytes == len(text)
    assert inflate(stored.payload).data == text


def test_provider_specs() -> None:
    from pipelines.nntp.provider import parse_provider

    env = {"PW": "secret"}
    p = parse_provider("news.example.com,tls,user=me,password-env=PW,connections=12", env)
    assert (p.host, p.port, p.tls, p.user, p.password, p.connections) == (
        "news.example.com", 563, "implicit", "me", "secret", 12)  # fmt: skip
    q = parse_provider("other:8119,starttls,insecure", env, timeout=5.0)
    assert (q.port, q.tls, q.tls_verify, q.timeout) == (8119, "starttls", False, 5.0)
    with pytest.raises(ValueError, match=r"\$NOPE"):
        parse_provider("h,password-env=NOPE", env)
    with pytest.raises(ValueError, match="unknown option"):
        parse_provider("h,colour=blue", env)


def test_a_growing_group_shows_its_articles_at_the_set_rate(
    corpus: tuple[str, list[bytes]],
) -> None:
    opts = ServerOptions(grow_rate=200.0, grow_from=100)
    with NNTPServer(corpus[0], options=opts) as srv:
        served = srv.corpus.groups[GROUP]
        start = served.grow_started
        # the high mark a moment after the start, and where it stops: the group's own
        assert served.visible(start) == served.low - 1 + 100
        assert served.visible(start + 2.0) == served.low - 1 + 100 + 400
        assert served.visible(start + 1e6) == served.high
        client = connect(srv)
        try:
            seen = [client.group(GROUP).high]
            for _ in range(3):
                threading.Event().wait(0.1)
                seen.append(client.group(GROUP).high)
        finally:
            client.close()
    assert seen == sorted(seen) and seen[-1] > seen[0]
    assert served.low - 1 + 100 <= seen[0] <= served.high
