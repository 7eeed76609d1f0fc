"""The NZB import's cost: NZBs imported per second and CPU per segment.

Writes NZBs of the shape posting tools give (a release of RAR volumes and par2 files,
each file its segments), imports them into an empty catalog, then into a catalog holding
them already through other files (every one a link: the overlap search is the cost),
then the same files again (every one a duplicate by its bytes).
"""

from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pipelines.nzbimport.run import ImportSummary, import_paths

DAY = 86400


@dataclass
class NzbImportBench:
    nzbs: int
    segments: int
    fresh: ImportSummary
    links: ImportSummary
    again: ImportSummary

    def text(self) -> str:
        rows = [f"bench-import-nzb: {self.nzbs:,} NZBs, {self.segments:,} segments"]
        for label, s in (("new", self.fresh), ("linked", self.links), ("again", self.again)):
            per = s.cpu_seconds / max(self.segments, 1) * 1e6  # of the segments read
            rate = s.nzbs / s.seconds if s.seconds else 0.0
            rows.append(
                f"  {label:>6}: {rate:,.1f} NZBs/s, CPU {s.cpu_seconds:.2f} s "
                f"({per:.2f} us a segment), {s.bytes_read / 1e6:,.1f} MB read"
            )
        return "\n".join(rows)


def write_nzbs(folder: Path, nzbs: int, files: int, segments: int, seed: int, tag: str) -> int:
    """`nzbs` NZB files of `files` files of `segments` segments each; the segments."""
    rnd = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    start = 1_700_000_000
    for n in range(nzbs):
        name = f"Some.Film.{n}.2023.1080p.BluRay.x264-GRP"
        date = start + rnd.randrange(30 * DAY)
        parts = []
        for f in range(files):
            ext = f"part{f + 1:02d}.rar" if f < files - 2 else f"vol{f:02d}+01.par2"
            segs = "".join(
                f'<segment bytes="{rnd.randrange(700_000, 800_000)}" number="{k + 1}">'
                f"{rnd.getrandbits(64):016x}{n}.{f}.{k}@nyuu.example</segment>"
                for k in range(segments)
            )
            parts.append(
                f'<file poster="poster@example.com" date="{date + f}" '
                f'subject="[{f + 1}/{files}] - &quot;{name}.{ext}&quot; yEnc (1/{segments})">'
                f"<groups><group>alt.binaries.moovee</group></groups>"
                f"<segments>{segs}</segments></file>"
            )
        head = f'<head><meta type="title">{name}</meta><meta type="tag">{tag}</meta></head>'
        body = f'<?xml version="1.0"?><nzb xmlns="http://www.newzbin.com/DTD/2003/nzb">{head}'
        (folder / f"{name}.nzb").write_text(body + "".join(parts) + "</nzb>")
    return nzbs * files * segments


def run_bench(nzbs: int, files: int, segments: int) -> NzbImportBench:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        total = write_nzbs(root / "in", nzbs, files, segments, 1, "a")
        # the same articles under other bytes (another tag): links, not duplicates
        write_nzbs(root / "other", nzbs, files, segments, 1, "b")
        # the subject kernels load (numba's cache) on first use: not the import's cost
        write_nzbs(root / "warm", 1, 1, 1, 2, "w")
        import_paths([str(root / "warm")], str(root / "warm-cat"))
        catalog = str(root / "cat")
        fresh = import_paths([str(root / "in")], catalog)
        links = import_paths([str(root / "other")], catalog)
        again = import_paths([str(root / "in")], catalog)
    return NzbImportBench(nzbs, total, fresh, links, again)
