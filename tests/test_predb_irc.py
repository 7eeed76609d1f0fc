"""`predb listen` against a real IRC server (Debian's ngIRCd on loopback) with an
announcer posting pre lines: announces stored, unknown lines and duplicate floods
counted, a dropped server reconnected to on its own."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pipelines.predb import lookup as L
from pipelines.predb.announce import parse_announce
from pipelines.predb.listen import Listener

NGIRCD = shutil.which("ngircd") or (
    "/usr/sbin/ngircd" if Path("/usr/sbin/ngircd").exists() else None
)
needs_ngircd = pytest.mark.skipif(NGIRCD is None, reason="ngircd is not installed")
CHANNEL = "#pre"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def ngircd(tmp: Path, port: int) -> Iterator[subprocess.Popen[bytes]]:
    conf = tmp / "ngircd.conf"
    conf.write_text(
        "[Global]\nName = irc.test.local\nInfo = test\n"
        f"Ports = {port}\nListen = 127.0.0.1\nPidFile = {tmp}/ngircd.pid\n"
        "[Limits]\nMaxNickLength = 30\n"
        "[Options]\nPAM = no\nIdent = no\nDNS = no\n"
    )
    assert NGIRCD is not None
    proc = subprocess.Popen([NGIRCD, "--nodaemon", "--config", str(conf)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield proc
    finally:
        proc.terminate()
        proc.wait(10)


class Announcer:
    """A raw IRC client that joins the channel and posts lines to it."""

    def __init__(self, port: int, nick: str = "announcer") -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.file = self.sock.makefile("rb")
        self.send(f"NICK {nick}")
        self.send(f"USER {nick} 0 * :announcer")
        self.wait_for(" 001 ")
        self.send(f"JOIN {CHANNEL}")
        self.wait_for(" JOIN ")

    def send(self, line: str) -> None:
        self.sock.sendall((line + "\r\n").encode())

    def wait_for(self, text: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.file.readline().decode("utf-8", "replace")
            if line.startswith("PING"):
                self.send("PONG " + line.split(" ", 1)[1].strip())
            if text in line:
                return line
        raise AssertionError(f"no {text!r} from the server")

    def post(self, lines: list[str]) -> None:
        for line in lines:
            self.send(f"PRIVMSG {CHANNEL} :{line}")

    def close(self) -> None:
        self.sock.close()


def _new(title: str, when: str = "2026-08-14 05:12:33") -> str:
    fields = "[SC: PRE] [CT: TV-X264] [RQ: N/A] [SZ: 520MB] [FL: 15] [FN: N/A]"
    return f"NEW: [DT: {when}] [TT: {title}] {fields}"


def test_announce_lines_parse() -> None:
    pre = parse_announce(
        "\x0304NEW:\x03 [DT: 2026-08-14 05:12:33] [TT: Some.Show.S01E01.720p.HDTV.x264-GRP] "
        "[SC: PRE] [CT: TV-X264] [RQ: 12345:alt.binaries.teevee] [SZ: 520MB] [FL: 15] [FN: N/A]",
        "#pre",
    )
    assert pre is not None and pre.title == "Some.Show.S01E01.720p.HDTV.x264-GRP"
    assert (pre.size, pre.files, pre.request_id, pre.request_group) == (
        520 << 20,
        15,
        12345,
        "alt.binaries.teevee",
    )
    nuke = parse_announce(
        "NUK: [DT: 2026-08-14 05:20:00] [TT: Bad.Release-GRP] [SC: PRE] [NUKED: dupe.of.X]", "#p"
    )
    assert nuke is not None and (nuke.nuke, nuke.reason) == ("nuke", "dupe.of.X")
    un = parse_announce(
        "UNNUK: [DT: 2026-08-14 06:00:00] [TT: Bad.Release-GRP] [UNNUKED: fine]", "#p"
    )
    assert un is not None and (un.nuke, un.reason) == ("unnuke", "fine")
    assert parse_announce("hello everyone", "#p") is None
    assert parse_announce("NEW: [TT: No.Time-GRP]", "#p") is None


@needs_ngircd
def test_listen_stores_announces_counts_junk_and_reconnects(tmp_path: Path) -> None:
    port = _free_port()
    cat = str(tmp_path / "cat")
    listener = Listener(cat, "127.0.0.1", port, CHANNEL, flush_seconds=0.2)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=lambda: loop.run_until_complete(listener.run()), daemon=True)
    with ngircd(tmp_path, port):
        announcer = Announcer(port)
        thread.start()
        announcer.wait_for("uipredb")  # the listener joined
        announcer.post([_new("First.Pre-GRP"), "good morning", _new("Second.Pre-GRP")])
        announcer.post([_new("Second.Pre-GRP")] * 20)  # a flood of the same announce
        announcer.post(["NEW: [DT: nonsense] [TT: Bad.Time-GRP]"])
        announcer.post(
            ["NUK: [DT: 2026-08-14 06:00:00] [TT: First.Pre-GRP] [SC: PRE] [NUKED: dupe]"]
        )
        _wait(lambda: listener.summary.stored.nuke_events == 1)
        announcer.close()
    # the server went away; a new one on the same port: the listener comes back by itself
    with ngircd(tmp_path, port):
        _wait(lambda: listener.summary.connects >= 2 and listener.joined.is_set(), 30)
        announcer = Announcer(port, "announcer2")
        announcer.post([_new("After.Reconnect-GRP")])
        _wait(lambda: listener.summary.stored.pres == 3)
        announcer.close()
        loop.call_soon_threadsafe(listener.stop.set)
        thread.join(15)
    s = listener.summary
    assert (s.stored.pres, s.stored.nuke_events) == (3, 1)
    # every announce line accounted for, however the flushes cut the flood into batches
    assert s.unknown == 2 and s.stored.known == 20
    assert s.stored.pres + s.stored.nuke_events + s.stored.known == s.stored.lines == 24
    assert s.dropped >= 1 and s.connects >= 2
    lookup = L.load(cat)
    rows = lookup.rows_of_titles(["First.Pre-GRP", "Second.Pre-GRP", "After.Reconnect-GRP"])
    assert None not in rows
    first = lookup.pre(rows[0])  # type: ignore[arg-type]
    assert first["live"] and first["nuked"] and first["nuke_reason"] == "dupe"


def _wait(ok: object, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ok():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("timed out")
