"""A private INN 2 instance on loopback: its own config, spool and port, run as `news`.

Debian's inn2 package provides the programs; everything else (inn.conf, active, history,
spool, overview) lives in one folder, so a test never touches the system's news server
and leaves nothing behind. Used by tests/integration/conftest.py; runnable by hand:

    python scripts/inn/private_instance.py /tmp/inn 11999 alt.binaries.a alt.binaries.b
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

INN_BIN = Path("/usr/lib/news/bin")
SYSTEM_ETC = Path("/etc/news")


def available() -> str:
    """Why a private instance cannot run here, or '' when it can."""
    if not (INN_BIN / "innd").exists():
        return "inn2 is not installed (scripts/setup.sh --dev installs it as root)"
    if os.geteuid() != 0:
        return "starting INN as the news user needs root"
    if shutil.which("runuser") is None:
        return "runuser is missing"
    return ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PrivateINN:
    def __init__(self, folder: str | Path, port: int) -> None:
        self.folder = Path(folder)
        self.port = port
        self.conf = self.folder / "etc" / "inn.conf"

    def _as_news(self, *args: str, timeout: float = 60) -> str:
        cmd = ["runuser", "-u", "news", "--", "env", f"INNCONF={self.conf}", *args]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed: {done.stdout}{done.stderr}")
        return done.stdout

    def configure(self) -> None:
        f = self.folder
        for sub in ("db", "run", "log", "http", "spool/articles", "spool/overview",
                    "spool/incoming/tmp", "spool/outgoing", "spool/archive"):  # fmt: skip
            (f / sub).mkdir(parents=True, exist_ok=True)
        shutil.copytree(SYSTEM_ETC, f / "etc", dirs_exist_ok=True)
        paths = {
            "pathetc": "etc", "pathdb": "db", "pathrun": "run", "pathlog": "log",
            "pathhttp": "http", "pathspool": "spool", "patharticles": "spool/articles",
            "pathoverview": "spool/overview", "pathincoming": "spool/incoming",
            "pathtmp": "spool/incoming/tmp", "pathoutgoing": "spool/outgoing",
            "patharchive": "spool/archive",
        }  # fmt: skip
        settings = {k: str(f / v) for k, v in paths.items()}
        settings.update(
            port=str(self.port),
            bindaddress="127.0.0.1",
            bindaddress6="none",
            domain="localdomain",  # Debian's hosts often have no FQDN: innd needs one
            pathhost="inn-test.localdomain",
            artcutoff="0",  # accept any Date
            ovmethod="tradindexed",
        )
        keep = [
            line
            for line in (SYSTEM_ETC / "inn.conf").read_text().splitlines()
            if not ((m := re.match(r"^#?\s*([A-Za-z0-9]+):", line)) and m.group(1) in settings)
        ]
        keep += [f"{k}: {v}" for k, v in settings.items()]
        self.conf.write_text("\n".join(keep) + "\n")
        (f / "db" / "active").write_text(
            "control 0000000000 0000000001 n\ncontrol.cancel 0000000000 0000000001 n\n"
            "junk 0000000000 0000000001 n\n"
        )
        for name in ("newsgroups", "active.times", "history"):
            (f / "db" / name).write_text("")
        os.chmod(f, 0o755)
        subprocess.run(["chown", "-R", "news:news", str(f)], check=True)
        self._as_news(str(INN_BIN / "makedbz"), "-i", "-o")

    def start(self, wait: float = 30.0) -> None:
        self._as_news(str(INN_BIN / "innd"))  # it forks into the background
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    if s.recv(64).startswith(b"200"):
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"innd did not answer on port {self.port}: {self.errors()}")

    def newgroup(self, name: str) -> None:
        self._as_news(str(INN_BIN / "ctlinnd"), "newgroup", name, "y")

    def errors(self) -> str:
        log = self.folder / "log" / "errlog"
        return log.read_text()[-2000:] if log.exists() else ""

    def stop(self) -> None:
        pid_file = self.folder / "run" / "innd.pid"
        pid = int(pid_file.read_text().strip()) if pid_file.exists() else None
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self._as_news(str(INN_BIN / "ctlinnd"), "shutdown", "tests done", timeout=30)
        if pid is not None:
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            else:
                os.kill(pid, 9)  # the innd this instance started, by its own pid file


def main(argv: list[str]) -> int:
    reason = available()
    if reason:
        print(reason, file=sys.stderr)
        return 1
    inn = PrivateINN(argv[0], int(argv[1]))
    inn.configure()
    inn.start()
    for group in argv[2:]:
        inn.newgroup(group)
    print(f"innd on 127.0.0.1:{inn.port}; stop with: INNCONF={inn.conf} ctlinnd shutdown done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
