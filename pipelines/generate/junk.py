"""Split uploads and junk (`GenerateConfig.split_and_junk`): what merges, the health sweep
and the junk judge are measured on.

Split uploads are ones the header pass cannot join, each with a par2 set that describes
its files:
- `per_file`: an obfuscated set whose every file (data and par2) has its own random name,
  posted under bare subjects (`"<token>.part03.rar" yEnc (1/137)`): no shared token and
  no file counter, so each file is a pending release of its own;
- `tracks`: an album's tracks, each under its own bare subject (`"03 - Band - Song.mp3"
  yEnc (1/9)`), posted within an hour or two, the album's par2 set naming every track;
- `sidecar`: a set's .nfo/.sfv/.nzb posted apart under another counter total by the same
  poster within 10 minutes (`[00/80] - "Name.nzb" yEnc (1/1)` beside `[01/94] -
  "Name.part01.rar" yEnc (1/137)`, as real posts show).
Junk: fakes (a film, episode or album name over a program: an `.exe`, a RAR set whose
listing holds only an executable, a `.mkv` whose first bytes are `MZ`), repeated families
(one media file, same bytes and size, posted as 21-30 releases under different film
names) and taken-down uploads (every article gone, or a few segments).

Every decision draws from a random stream of its own (the posting itself from the
planner's), so a corpus without the option draws nothing more and stays the same bytes.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any

from pipelines.generate import names
from pipelines.generate.contents.names import seven_zip_volume, suffix_of
from pipelines.generate.files import (
    MB,
    ReleaseSpec,
    _archive,
    archive_release,
    draw_size,
    obfuscated_release,
    par2_set,
)
from pipelines.generate.rand import ALNUM, HEX, LOWER_ALNUM
from pipelines.generate.side import SideUploads
from pipelines.generate.subjects import BY_NAME, STYLES
from pipelines.generate.uploads import Upload
from pipelines.generate.words import TRACK_WORDS

if TYPE_CHECKING:
    from pipelines.generate.plan import Planner

HOUR = 3600.0
# per upload drawn after the deck: the share of each kind (a repeated family is 21-30)
RATES = {
    "per_file": 0.02,
    "tracks": 0.015,
    "sidecar": 0.025,
    "fake": 0.02,
    "repeated": 0.002,
}
FAKES = ("exe", "archive", "media")
# of the other uploads (not split, fake or repeated; not albums or batch items)
TAKEN_DOWN = {"all": 0.015, "some": 0.025}
# one of each before the planner's deck, so a small corpus holds every kind
DECK: tuple[dict[str, Any], ...] = (
    {"junk": "per_file"},
    {"junk": "tracks"},
    {"junk": "sidecar"},
    {"junk": "fake", "fake": "exe"},
    {"junk": "fake", "fake": "archive"},
    {"junk": "fake", "fake": "media"},
    {"junk": "repeated"},
    {"junk": "nameless"},  # obfuscated, nothing names it (else 20 % of obfuscated sets)
)
# a family is more than 20 files of one 16 KiB hash: a merge takes such a file for none
FAMILY = (21, 30)
BARE = (BY_NAME["bare"], BY_NAME["bare_no_yenc"])
# counter styles a sidecar's set is posted in (the names of real shapes, data/subjects)
COUNTED = tuple(
    BY_NAME[n] for n in ("nyuu", "bracket", "dash", "size_after", "count_after", "no_yenc")
)
SIDECARS = (".nfo", ".sfv", ".nzb")


class Junk(SideUploads):
    """Plans the split and junk uploads of one corpus inside a `Planner`'s run."""

    def __init__(self, planner: Planner) -> None:
        super().__init__(planner, "junk")

    # -- what to post -----------------------------------------------------------------

    def deck(self) -> list[dict[str, Any]]:
        return [dict(d) for d in DECK]

    def draw(self) -> dict[str, Any] | None:
        """The features of a split or junk upload, or None: an ordinary one."""
        r = self.rng.random()
        for kind, rate in RATES.items():
            if r < rate:
                features: dict[str, Any] = {"junk": kind}
                if kind == "fake":
                    features["fake"] = self.rng.choice(FAKES)
                return features
            r -= rate
        return None

    def post(self, home: int, features: dict[str, Any]) -> None:
        kind = features["junk"]
        if kind == "per_file":
            self._per_file(home)
        elif kind == "tracks":
            self._tracks(home)
        elif kind == "sidecar":
            self._sidecar(home)
        elif kind == "fake":
            self._fake(home, features["fake"])
        elif kind == "nameless":
            self._nameless(home)
        else:
            self._repeated(home)

    # -- split uploads ----------------------------------------------------------------

    def _per_file(self, home: int) -> None:
        """An obfuscated set, every file its own random name, under bare subjects."""
        rng = self.rng
        alphabet, length = rng.choice(((HEX, 32), (HEX, 24), (ALNUM, 27), (LOWER_ALNUM, 30)))
        stem = self._token(alphabet, length)
        total = draw_size(rng, "obfuscated", self.p.cap_bytes)
        par2 = par2_set(rng, stem, total)
        data = _archive(rng, rng.choice(("new", "new", "old", "7z")), stem, total)
        files = [(self._token(alphabet, length) + suffix_of(f), s) for f, s in par2[:1] + data]
        files += [(self._token(alphabet, length) + suffix_of(f), s) for f, s in par2[1:]]
        spec = ReleaseSpec("obfuscated", "other", files[0][0].split(".")[0], files, False)
        upload = self._post(spec, self._plan(home, self._poster(), rng.choice(BARE), spec))
        upload.split_by = "per_file"

    def _tracks(self, home: int) -> None:
        """An album's tracks, each its own subject and stem; the par2 set names them all."""
        rng = self.rng
        band = names.artist(rng)
        album = self._fresh(lambda r: f"{band} - {names.album_title(r)} ({r.randint(1965, 2024)})")
        ext = "flac" if rng.random() < 0.35 else "mp3"
        n = rng.randint(6, 16)
        total = draw_size(rng, "music", self.p.cap_bytes)
        shape = rng.randrange(3)
        titles: list[str] = []
        while len(titles) < n:  # titles that differ by more than their number
            title = " ".join(rng.sample(TRACK_WORDS, rng.randint(1, 4))).title()
            if title not in titles:
                titles.append(title)
        tracks = []
        for i, title in enumerate(titles, 1):
            name = (f"{i:02d} - {title}", f"{i:02d} - {band} - {title}", f"{band} - {title}")
            size = max(int(total / n * rng.uniform(0.6, 1.4)), 200_000)
            tracks.append((f"{name[shape]}.{ext}", size))
        par2 = par2_set(rng, album, sum(s for _, s in tracks))
        files = par2[:1] + tracks + par2[1:] if rng.random() < 0.6 else tracks + par2
        spec = ReleaseSpec("music", "music", album, files, shared_stem=False)
        duration = rng.uniform(0.3 * HOUR, 2 * HOUR)
        plan = self._plan(home, self._poster(), rng.choice(BARE), spec, duration=duration)
        upload = self._post(spec, plan)
        upload.split_by = "tracks"

    def _sidecar(self, home: int) -> None:
        """A set under one counter, its .nfo/.sfv/.nzb posted apart under another total
        by the same poster, just before or just after it."""
        rng = self.rng
        pick = rng.random()
        draw, category = (names.movie, "movie") if pick < 0.5 else (names.tv_episode, "tv")
        name = self._fresh(draw)
        spec = archive_release(rng, "rar_parts", self.p.cap_bytes, name, category)
        main = [(f, s) for f, s in spec.files if not f.lower().endswith(SIDECARS)]
        side = [(f, s) for f, s in spec.files if f.lower().endswith(SIDECARS)]
        nzb = rng.random() < 0.6
        if not side and not nzb:
            side = [(f"{name}.nfo", rng.randint(2_000, 25_000))]
        poster = self._poster(steady=True)
        style = rng.choice(COUNTED)
        main_spec = ReleaseSpec(spec.kind, category, name, main)
        upload = self.p.writer.post_release(
            len(self.p.uploads), main_spec, self._plan(home, poster, style, main_spec)
        )
        # another total: the set's count without its recovery files, or a miscount
        others = [t for t in range(max(2, len(main) - 25), len(main) + 12) if t != len(main)]
        side_spec = ReleaseSpec(spec.kind, category, name, side)
        before = rng.random() < 0.5
        if upload.posted_last + 600 > self.p.start + self.p.span:  # no room after it
            before = True
        elif upload.posted_first - 600 < self.p.start:  # nor before it
            before = False
        gap = rng.uniform(20, 480)
        start = upload.posted_first - gap - 60 if before else upload.posted_last + gap
        plan = self._plan(
            home, poster, style, side_spec, start=start, duration=rng.uniform(5, 60),
            sender=upload.poster, announce=rng.choice(others), nzb_first=nzb,
        )  # fmt: skip
        apart = self.p.writer.post_release(upload.upload_id, side_spec, plan)
        upload.files = apart.files + upload.files if before else upload.files + apart.files
        upload.spec = ReleaseSpec(
            spec.kind, category, name, main + [(f.name, f.size) for f in apart.files]
        )
        upload.apart = tuple(f.name for f in apart.files)
        upload.posted_first = min(upload.posted_first, apart.posted_first)
        upload.posted_last = max(upload.posted_last, apart.posted_last)
        upload.complete = upload.complete and apart.complete
        upload.split_by = "sidecar"
        self.p._keep(upload)

    # -- junk -------------------------------------------------------------------------

    def _nameless(self, home: int) -> None:
        """An obfuscated set under its counter whose files name nothing inside: random
        names in its par2 set and its archive's listing, no password."""
        spec = obfuscated_release(self.rng, self.p.tokens, self.p.cap_bytes)
        style = self.rng.choice(
            [s for s in STYLES if s.has_counter and (s.has_name or spec.shared_stem)]
        )
        upload = self._post(spec, self._plan(home, self._poster(), style, spec))
        upload.nameless = True

    def _fake(self, home: int, how: str) -> None:
        """A film, episode or album name over a program."""
        rng = self.rng
        pick = rng.random()
        if pick < 0.5:
            draw, category = names.movie, "movie"
        elif pick < 0.8:
            draw, category = names.tv_episode, "tv"
        else:
            draw, category = _album_name, "music"
        name = self._fresh(draw)
        if how == "archive":
            spec = archive_release(rng, "rar_parts", self.p.cap_bytes, name, category)
            spec.files = [(f, s) for f, s in spec.files if not f.lower().endswith(SIDECARS)]
        else:
            ext = "exe" if how == "exe" else ("mp3" if category == "music" else "mkv")
            size = min(
                int(math.exp(rng.uniform(math.log(2), math.log(700))) * MB), self.p.cap_bytes
            )
            par2 = par2_set(rng, name, size)
            spec = ReleaseSpec(
                "single", category, name, [*par2[:1], (f"{name}.{ext}", size), *par2[1:]]
            )
        style = rng.choice([s for s in STYLES if s.has_name or spec.shared_stem])
        upload = self._post(spec, self._plan(home, self._poster(), style, spec))
        upload.fake = how

    def _repeated(self, home: int) -> None:
        """One media file posted again and again under different film names by one
        poster over some hours: the same size, the same bytes, par2 sets that agree."""
        rng = self.rng
        p = self.p
        n = rng.randint(*FAMILY)
        poster = self._poster()
        share = max(1, int(p.config.articles * 0.04 / n))  # a family: a few % of a group
        segments = max(1, min(share, p.cap_bytes // poster.article_size))
        size = segments * poster.article_size - rng.randint(0, poster.article_size - 1)
        t = p.start + rng.uniform(0, p.span * 0.7)
        first: int | None = None
        style = rng.choice([s for s in STYLES if s.has_counter])
        for _ in range(n):
            name = self._fresh(names.movie)
            par2 = par2_set(rng, name, size)
            files = [*par2[:1], (f"{name}.mkv", size), *par2[1:]]
            spec = ReleaseSpec("video", "movie", name, files)
            plan = self._plan(home, poster, style, spec, start=t)
            upload = self._post(spec, plan)
            first = upload.upload_id if first is None else first
            upload.repeat_of = first
            t = upload.posted_last + rng.uniform(30, 1800)

    # -- taken down -------------------------------------------------------------------

    def take_down(self, uploads: list[Upload]) -> None:
        """Mark a share of the other uploads taken down: every article (`all`), or a few
        segments (`some`), never a probe target, nor an upload nothing names (taken down,
        it would be dead, and its own verdict, unusable, unseen)."""
        rng = self.rng
        candidates = [
            u
            for u in uploads
            if u.split_by is None
            and u.fake is None
            and u.repeat_of is None
            and not u.nameless
            and u.kind not in ("album", "batch")
        ]
        chosen: dict[str, list[Upload]] = {"all": [], "some": []}
        for u in candidates:
            r = rng.random()
            if r < TAKEN_DOWN["all"]:
                chosen["all"].append(u)
            elif r < TAKEN_DOWN["all"] + TAKEN_DOWN["some"] and _middle(u):
                chosen["some"].append(u)
        for kind in ("all", "some"):  # at least one of each
            if not chosen[kind]:
                left = [u for u in candidates if u.taken_down is None and u not in chosen["all"]]
                left = [
                    u for u in left if u not in chosen["some"] and (kind == "all" or _middle(u))
                ]
                if left:
                    chosen[kind].append(left[0])
        for u in chosen["all"]:
            u.taken_down = "all"
            u.gone = [m for f in u.files for m in f.message_ids]
        posted_at = self.p.table.posted_at() if chosen["some"] else {}
        for u in chosen["some"]:
            u.taken_down = "some"
            u.gone = self._some(u, posted_at)

    def _some(self, u: Upload, posted_at: dict[str, float]) -> list[str]:
        """5-20 % of the middle segments of one to three files, and the upload's last
        article when no probe reads it (a sweep that STATs a release's last finds it)."""
        rng = self.rng
        files = _middle(u)
        gone: list[str] = []
        for f in rng.sample(files, min(len(files), rng.randint(1, 3))):
            middle = list(range(1, len(f.message_ids) - 1))
            k = max(1, round(len(middle) * rng.uniform(0.05, 0.2)))
            gone += [f.message_ids[i] for i in sorted(rng.sample(middle, min(k, len(middle))))]
        last, file = max(
            ((m, f) for f in u.files for m in f.message_ids), key=lambda mf: posted_at[mf[0]]
        )
        if last != file.message_ids[0] and seven_zip_volume(file.name) is None:
            gone += [] if last in gone else [last]
        return gone


def _middle(u: Upload) -> list[Any]:
    """Files with segments between their first and last posted (neither a probe target
    nor a 7z set's tail)."""
    return [f for f in u.files if len(f.message_ids) >= 3 and seven_zip_volume(f.name) is None]


def _album_name(rng: random.Random) -> str:
    band, album = names.artist(rng), names.album_title(rng)
    return names.music(rng, band, album, rng.randint(1970, 2024), rng.random() < 0.4)
