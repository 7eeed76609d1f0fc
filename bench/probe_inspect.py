"""The article pass's reading cost: CPU per probed article, decode and parse, per kind.

Each kind is a real yEnc body of a 750 KB segment (smaller where the file is: a par2
index, an NFO): par2 (an index and a recovery volume's first part, made by Debian's par2),
RAR4 and RAR5 (real volumes' headers from the shared data, the segment filled to 750 KB
behind the archive's end), a 7z set's last part (py7zr), a ZIP's first part (zipfile), an
NFO, media (an mkv's first bytes), and garbage (random bytes, yEnc-encoded: as a
first part, and as a last part, where the 7z tail reader looks everywhere). The yEnc
decode alone is measured on the same bodies: what the readers add is the rest.
"""

from __future__ import annotations

import io
import os
import random
import shutil
import subprocess
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pipelines.probe.inspect import inspect_body
from pipelines.probe.inspection import Inspection
from pipelines.probe.yenc import decode_part, encode_part

SEGMENT = 750_000
SHARED_DATA = Path(
    os.environ.get("USENET_INDEXER_SHARED_DATA")
    or Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
)
_RAR_VOLUMES = {
    "rar4": "nzbget/rarrenamer/testfile3.part01.rar",
    "rar5": "nzbget/rarrenamer/testfile5.part01.rar",
}


@dataclass
class KindFigures:
    kind: str
    segment_bytes: int
    inspect_ms: float  # CPU per article, the least of the repeats
    decode_ms: float  # the yEnc decode alone
    result: str  # what inspect_body said, to show the body is what it claims


@dataclass
class InspectFigures:
    articles: int
    repeat: int
    kinds: list[KindFigures] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def text(self) -> str:
        lines = [
            f"CPU per probed article (decode + parse), least of {self.repeat} runs "
            f"of {self.articles} articles per kind:"
        ]
        for k in self.kinds:
            lines.append(
                f"  {k.kind:<12} {k.inspect_ms:6.3f} ms  (yEnc decode alone {k.decode_ms:6.3f} ms; "
                f"segment {k.segment_bytes / 1000:,.0f} KB; {k.result})"
            )
        worst = max(self.kinds, key=lambda k: k.inspect_ms)
        lines.append(f"slowest: {worst.kind} {worst.inspect_ms:.3f} ms (floor to beat: 2 ms)")
        lines += [f"  skipped {s}" for s in self.skipped]
        return "\n".join(lines)


def _random(seed: int, size: int) -> bytes:
    return random.Random(seed).randbytes(size)


def _first_part(data: bytes, name: str, file_size: int | None = None) -> bytes:
    size = file_size or len(data)
    total = max(1, -(-size // SEGMENT))
    return encode_part(data[:SEGMENT], name, file_size=size, total=total)


def _par2_bodies(tmp: Path) -> dict[str, bytes]:
    par2 = shutil.which("par2")
    if par2 is None:
        return {}
    for i in range(8):
        (tmp / f"Some.Release.2024.1080p-GRP.part{i + 1:02d}.rar").write_bytes(
            _random(10 + i, 400_000)
        )
    names = sorted(p.name for p in tmp.glob("*.rar"))
    subprocess.run(
        [par2, "create", "-q", "-q", "-s16384", "-r25", "-n1", "set.par2", "--", *names],
        cwd=tmp,
        check=True,
        capture_output=True,
    )
    index = (tmp / "set.par2").read_bytes()
    volume = next(tmp.glob("set.vol*.par2")).read_bytes()
    return {
        "par2 index": _first_part(index, "a1.par2"),
        "par2 volume": _first_part(volume, "a2.par2", max(len(volume), 2 * SEGMENT)),
    }


def _rar_bodies() -> dict[str, bytes]:
    out = {}
    for kind, rel in _RAR_VOLUMES.items():
        path = SHARED_DATA / "archives" / rel
        if path.is_file():
            volume = path.read_bytes()
            data = volume + _random(20, SEGMENT - len(volume))
            out[kind] = _first_part(data, "b.bin", 50 * SEGMENT)
    return out


def _seven_zip_tail() -> bytes:
    import py7zr

    buffer = io.BytesIO()
    with py7zr.SevenZipFile(buffer, "w") as archive:
        for i in range(20):
            archive.writestr(_random(30 + i, 90_000), f"Some.Release.2024/file{i:02d}.bin")
    data = buffer.getvalue()
    begin = max(32, len(data) - SEGMENT)
    return encode_part(data[begin:], "c.bin", begin=begin, file_size=len(data), part=3, total=3)


def _zip_first_part() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("Some.Release.2024.1080p-GRP.mkv", _random(40, 2 * SEGMENT))
    return _first_part(buffer.getvalue(), "d.bin")


def _nfo() -> bytes:
    art = "░▒▓████████████████████████▓▒░\r\n" * 40
    text = (
        art
        + "  Some.Release.2024.1080p.BluRay.x264-GRP\r\n\r\n"
        + "  Size....: 4.2 GB\r\n  Source..: BluRay\r\n" * 100
        + art
    )
    return _first_part(text.encode("cp437"), "e.nfo")


def bodies() -> tuple[dict[str, bytes], list[str]]:
    out: dict[str, bytes] = {}
    skipped = []
    with tempfile.TemporaryDirectory() as tmp:
        par2 = _par2_bodies(Path(tmp))
    if not par2:
        skipped.append("par2: Debian's par2 is not installed")
    out.update(par2)
    rar = _rar_bodies()
    if not rar:
        skipped.append(f"rar4, rar5: the shared data ({SHARED_DATA}) is absent")
    out.update(rar)
    out["7z tail"] = _seven_zip_tail()
    out["zip"] = _zip_first_part()
    out["nfo"] = _nfo()
    out["media"] = _first_part(b"\x1a\x45\xdf\xa3" + _random(50, SEGMENT), "f.bin", 20 * SEGMENT)
    out["garbage"] = _first_part(_random(60, SEGMENT), "g.bin", 20 * SEGMENT)
    # a last part that is no 7z's: every place a 7z header could start is tried
    out["garbage tail"] = encode_part(
        _random(70, SEGMENT), "h.bin", begin=SEGMENT, file_size=2 * SEGMENT, part=2, total=2
    )
    return out, skipped


def _cpu_ms(call: Callable[[bytes], object], body: bytes, articles: int) -> float:
    start = time.process_time()
    for _ in range(articles):
        call(body)
    return (time.process_time() - start) * 1000 / articles


def _said(result: Inspection) -> str:
    parts = [result.status, result.kind]
    if result.names:
        parts.append(f"{len(result.names)} names")
    if result.encrypted is not None:
        parts.append(f"encrypted={result.encrypted}")
    return " ".join(parts)


def run_bench(articles: int = 200, repeat: int = 3) -> InspectFigures:
    made, skipped = bodies()
    figures = InspectFigures(articles, repeat, skipped=skipped)
    for kind, body in made.items():
        inspect_body(body)  # warm: imports, first allocations
        best = min(_cpu_ms(inspect_body, body, articles) for _ in range(repeat))
        decode = min(_cpu_ms(decode_part, body, articles) for _ in range(repeat))
        size = len(decode_part(body).data)
        figures.kinds.append(KindFigures(kind, size, best, decode, _said(inspect_body(body))))
    return figures
