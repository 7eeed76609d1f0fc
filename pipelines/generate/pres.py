"""Uploads of scene pres and the PreDB that lists them (`GenerateConfig.pres`).

Titles, sections and sizes come from nZEDb's real daily dumps when `../shared/data/predb`
is there (`USENET_INDEXER_SHARED_DATA` names it elsewhere), else from scene-shaped
words. Each pre's upload is posted one of these ways (`posted` in the truth):

- `named`: `Title.partNN.rar` and its par2 set, the title readable in the subjects (found
  by the title as the release's or a file's name);
- `hashed:<variant>`: every file named by one hash of the title (MD5, MD5 of MD5, SHA-1,
  SHA-256, of the title or of its lowercase), one kind after another (found by the hash);
- `inside`: obfuscated as Nyuu or Postie post with a real yEnc name: random names in the
  subjects, the title only in the yEnc names and the par2 set (found once the article
  pass names it: the title among its inner names, or as its name);
- `mismatched`: named, but its data 50-80 % of the pre's size (the size gate keeps it
  out: it must never link).

Besides, about a third as many pres as are posted are never posted (`posted` = ""), and
a share of all pres is nuked. The pres are written as `truth/pres.jsonl`, a file
`usenet-indexer predb import` reads, each line saying which upload is its pre's.
"""

from __future__ import annotations

import gzip
import json
import os
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipelines.generate.files import ReleaseSpec, _volume_size, draw_size, par2_set, rar_new
from pipelines.generate.rand import HEX
from pipelines.generate.side import SideUploads
from pipelines.generate.subjects import Style
from pipelines.predb.keys import VARIANTS

if TYPE_CHECKING:
    from pipelines.generate.plan import Planner

RATES = {"named": 0.05, "hashed": 0.03, "inside": 0.02, "mismatched": 0.01}
NUKED = 0.15  # of all pres
UNPOSTED = 0.3  # pres never posted, per posted one
REASONS = (
    "bad.rip",
    "dupe.of.an.earlier.release",
    "missing.audio_get.repack",
    "pred.without.proof",
)
NAMED = Style("pre_named", ' [{i}/{n}] - "{file}" yEnc ({k}/{K}) {fsize} ', False, True)
DECK = tuple({"pre": k} for k in ("named", *(["hashed"] * len(VARIANTS)), "inside", "mismatched"))
WORDS = ("dark", "city", "night", "river", "stone", "gold", "ghost", "king", "storm", "echo")


def _dump_pres() -> list[tuple[str, str, int | None]]:
    """(title, section, size) of the real dumps' pres, in dump order."""
    from pipelines.predb.lines import Bad, read_file

    base = os.environ.get("USENET_INDEXER_SHARED_DATA") or str(
        Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
    )
    folder = Path(base) / "predb"
    out = []
    for f in sorted(folder.glob("*.gz")) if folder.is_dir() else []:
        for pre in read_file(f, Bad()):
            if " " not in pre.title:
                out.append((pre.title, pre.category, pre.size))
    return out


class PreUploads(SideUploads):
    """Plans the pres' uploads of one corpus inside a `Planner`'s run."""

    def __init__(self, planner: Planner) -> None:
        super().__init__(planner, "pres")
        self.source = _dump_pres()
        self.rng_titles = random.Random(f"pre-titles-{planner.config.seed}")
        self.hashed = 0
        self.pres: list[dict[str, Any]] = []

    def deck(self) -> list[dict[str, Any]]:
        return [dict(d) for d in DECK]

    def draw(self) -> dict[str, Any] | None:
        """A pre's upload now and then, else None: an ordinary one."""
        kinds = [*RATES, None]
        kind = self.rng.choices(kinds, [*RATES.values(), 1 - sum(RATES.values())])[0]
        return {"pre": kind} if kind else None

    def _title(self) -> tuple[str, str, int | None]:
        for _ in range(100):
            if self.source:
                title, section, size = self.source[self.rng_titles.randrange(len(self.source))]
            else:
                r = self.rng_titles
                words = ".".join(r.choice(WORDS).title() for _ in range(3))
                title = f"{words}.S0{r.randint(1, 9)}E{r.randint(10, 24)}.720p.HDTV.x264-GEN"
                section, size = "TV-X264", None
            if title not in self.p.used_names:
                self.p.used_names.add(title)
                return title, section, size
        raise RuntimeError("could not draw a fresh pre title")

    def post(self, home: int, kind: str) -> None:
        rng = self.rng
        title, section, listed = self._title()
        size = min(listed or draw_size(rng, "video", self.p.cap_bytes), self.p.cap_bytes)
        posted_kind, stem = kind, title
        if kind == "hashed":
            variant = self.hashed % len(VARIANTS) + 1
            self.hashed += 1
            method, digest = VARIANTS[variant]
            stem, posted_kind = digest(title).hex(), f"hashed:{method}"
        if kind == "inside":
            stem = self._token(HEX, 32)
        data = size if kind != "mismatched" else int(size * rng.uniform(0.5, 0.8))
        files = rar_new(stem, data, _volume_size(rng)) + par2_set(rng, stem, data)
        hidden = kind in ("hashed", "inside")
        spec = ReleaseSpec("obfuscated" if hidden else "rar_parts", "other", stem, files)
        upload = self._post(spec, self._plan(home, self._poster(), NAMED, spec))
        if kind == "inside":  # the bodies' story names its files after the title
            upload.obfuscation, upload.real_ext, upload.pre_title = "yenc_name_set", "mkv", title
        pre_time = upload.posted_first - rng.randint(60, 6 * 3600)
        self.pres.append(self._pre(title, section, size, pre_time, posted_kind, upload.upload_id))

    def _pre(self, title: str, section: str, size: int, when: int, posted: str,
             upload: int | None) -> dict[str, Any]:  # fmt: skip
        nuked = self.rng.random() < NUKED
        return {
            "title": title, "time": when, "category": section, "size": size,
            "nuked": 2 if nuked else 0, "reason": self.rng.choice(REASONS) if nuked else "",
            "source": "generator", "posted": posted, "upload_id": upload,
        }  # fmt: skip

    def finish(self) -> None:
        """The pres never posted, at times within the corpus's span."""
        for _ in range(round(len(self.pres) * UNPOSTED)):
            title, section, listed = self._title()
            when = int(self.p.start + self.rng.uniform(0, self.p.span))
            self.pres.append(self._pre(title, section, listed or 0, when, "", None))


def write_pres(pres: list[dict[str, Any]], path: str) -> None:
    """The pres as JSON lines (`predb import` reads them; the extra fields are truth)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    body = "".join(json.dumps(p, sort_keys=True) + "\n" for p in pres)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wt") as fh:
        fh.write(body)
