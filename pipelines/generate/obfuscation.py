"""Obfuscated uploads as obfuscating posting tools write them (`GenerateConfig.tool_obfuscation`).

The shapes come from the tools' own documentation and code (`data/subjects`:
`message_id_and_from_shapes.md`, `ngpost/`, `nyuu/`):
- Nyuu's `--subject` is the whole subject and `--yenc-name` defaults to `{filename}`: a
  poster who puts a random string in the subject (a script's `$(openssl rand -hex 16)`)
  hides the name from the headers while the yEnc header keeps the real file name; with
  `--filename ${rand(N)}` the yEnc name is random too. Its default subject is
  `{comment} [{0filenum}/{files}] - "{filename}" yEnc ({part}/{parts}) {filesize}`.
- Postie (a Go poster) obfuscates to `[i/N] "<32 alnum>" - yEnc (k/K)`, a random From
  (`<14> <<14>@<5>.<3>>`) and ids `<32>@<8>.<3>`; partly (the subject only, the yEnc
  name real) or fully (the file name random too).
- ngPost `--compress --gen_name --gen_pass --gen_par2` posts a RAR set under a random
  22-character name, adds `-hp` when it makes a password, and makes the par2 set on the
  renamed volumes: nothing inside names it when passworded.

Families (the truth's `obfuscation`), every one pending (random subjects):

| family | files | where the real name is |
|---|---|---|
| `yenc_name` | one file (.mkv .mp4 .avi .epub .pdf .iso .bin, or no extension) | its yEnc name |
| `yenc_name_set` | a RAR set (half with par2) under random names | its yEnc names, par2, listing |
| `yenc_random` | one file | nowhere: the yEnc name is the subject's token or another random one |
| `par2_only` | one file and its par2 set, every name random | the par2 set (made before renaming) |
| `ngpost_archive` | ngPost's RAR set and par2 set | the listing; passworded (`-hp`): nowhere |

The real names and the bytes are the story's (`pipelines.generate.contents.story`), drawn
from the bodies' own stream; this module decides only what the headers show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pipelines.generate.files import (
    ReleaseSpec,
    _volume_size,
    draw_size,
    par2_set,
    rar_new,
    rar_old,
)
from pipelines.generate.rand import ALNUM, HEX, LOWER_ALNUM
from pipelines.generate.side import SideUploads
from pipelines.generate.subjects import BY_NAME, Style
from pipelines.generate.tools import Poster, make_poster

if TYPE_CHECKING:
    from pipelines.generate.plan import Planner

# per upload drawn after the deck (the split and junk option draws first when both are on)
RATES = {
    "yenc_name": 0.05,
    "yenc_name_set": 0.015,
    "yenc_random": 0.025,
    "par2_only": 0.015,
    "ngpost_archive": 0.02,
}
FAMILIES = tuple(RATES)
# a lone file's real kind: (extension, share); "" is a file with no extension
LONE_EXTS = (
    ("mkv", 30), ("mp4", 12), ("avi", 4), ("epub", 8), ("pdf", 5), ("iso", 10), ("bin", 8), ("", 8),
)  # fmt: skip
# how often the subject's random name keeps the real extension (Postie and Nyuu scripts
# often append it; ngPost's archives keep their volume suffixes)
SHOW_EXT = 0.4
GEN_PASS = 0.6  # ngPost posts that make a password (and so -hp)
LENGTH_NAME = 22  # ngPost.conf's LENGTH_NAME

# the subjects (templates as `pipelines.generate.subjects`; `{name}` a random comment)
NYUU_DEFAULT = Style("nyuu_default", ' [{i}/{n}] - "{file}" yEnc ({k}/{K}) {fsize} ', False, True)
NYUU_COMMENT = BY_NAME["nyuu"]  # `{comment} [..] - "{file}" yEnc (k/K) size`, a random comment
POSTIE = Style("postie", '[{i}/{n}] "{file}" - yEnc ({k}/{K})', False, True)
NGPOST = Style("ngpost", '[{i}/{n}] - "{file}" yEnc ({k}/{K})', False, True)
BARE = BY_NAME["bare"]
# the random file names the tools write: (alphabet, length); a UUID apart
TOKENS = ((HEX, 32), (ALNUM, 32), (LOWER_ALNUM, 26), (HEX, 24))
# one of each family first, so a small corpus holds them all
DECK: tuple[dict[str, Any], ...] = tuple({"obfuscation": f} for f in FAMILIES)


class ToolObfuscation(SideUploads):
    """Plans the obfuscating tools' uploads of one corpus inside a `Planner`'s run."""

    def __init__(self, planner: Planner) -> None:
        super().__init__(planner, "tool-obfuscation")

    def deck(self) -> list[dict[str, Any]]:
        return [dict(d) for d in DECK]

    def draw(self) -> dict[str, Any] | None:
        """An obfuscating tool's upload, or None: an ordinary one."""
        r = self.rng.random()
        for family, rate in RATES.items():
            if r < rate:
                return {"obfuscation": family}
            r -= rate
        return None

    def post(self, home: int, family: str) -> None:
        rng = self.rng
        tool = "ngpost" if family == "ngpost_archive" else rng.choice(("nyuu", "postie"))
        poster = self._tool_poster(tool)
        if family == "ngpost_archive":
            self._ngpost(home, poster)
            return
        ext = rng.choices([e for e, _ in LONE_EXTS], [w for _, w in LONE_EXTS])[0]
        token = self._name()
        if family == "yenc_name_set":
            stem = token
            total = draw_size(rng, "obfuscated", self.p.cap_bytes)
            volumes = rng.choice((rar_new, rar_old))(stem, total, _volume_size(rng))
            par2 = par2_set(rng, stem, total) if rng.random() < 0.5 else []
            files = par2[:1] + volumes + par2[1:]
            ext = "mkv"
        else:
            size = self._lone_size(ext)
            shown = f"{token}.{ext}" if ext and rng.random() < SHOW_EXT else token
            files = [(shown, size)]
            if family == "par2_only":
                files = [(shown, size), *par2_set(rng, self._name(), size)]
        spec = ReleaseSpec("obfuscated", "other", token, files, False)
        style = self._style(tool, len(files) > 1)
        plan = self._plan(home, poster, style, spec)
        if style is NYUU_COMMENT:
            plan.subject_name = self._name()  # the random comment before the counter
        upload = self._post(spec, plan)
        upload.obfuscation, upload.real_ext = family, ext

    def _ngpost(self, home: int, poster: Poster) -> None:
        rng = self.rng
        stem = self._token(ALNUM, LENGTH_NAME)
        total = draw_size(rng, "obfuscated", self.p.cap_bytes)
        files = rar_new(stem, total, _volume_size(rng))
        par2 = par2_set(rng, stem, total)
        spec = ReleaseSpec("obfuscated", "other", stem, par2[:1] + files + par2[1:])
        upload = self._post(spec, self._plan(home, poster, NGPOST, spec))
        upload.obfuscation, upload.real_ext = "ngpost_archive", "mkv"

    def _tool_poster(self, tool: str) -> Poster:
        """A poster of the tool, for this upload (obfuscating posters change their From)."""
        return make_poster(self.rng, self.p.tokens, tool)

    def _name(self) -> str:
        rng = self.rng
        if rng.random() < 0.1:
            t = self._token(HEX, 32)
            return f"{t[:8]}-{t[8:12]}-{t[12:16]}-{t[16:20]}-{t[20:]}"
        return self._token(*rng.choice(TOKENS))

    def _lone_size(self, ext: str) -> int:
        kind = "ebook" if ext in ("epub", "pdf") else "obfuscated"
        return draw_size(self.rng, kind, self.p.cap_bytes)

    def _style(self, tool: str, several: bool) -> Style:
        """The subject a tool writes; a lone file may also go bare (`"name" yEnc (k/K)`)."""
        if tool == "postie":
            return POSTIE
        if not several and self.rng.random() < 0.25:
            return BARE
        return NYUU_COMMENT if self.rng.random() < 0.5 else NYUU_DEFAULT
