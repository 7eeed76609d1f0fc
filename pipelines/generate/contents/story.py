"""What an upload's files hold inside: its hidden real name, passwords, which names its
par2 set and archive listing show. Drawn from a random stream of its own (seed, upload),
so the header-level corpus is the same with or without bodies.

Obfuscated uploads get a real name (a film, an episode, software) hidden behind their
random file names, in the mixes real posts show: most par2 sets were made before the
files were renamed and name the real files; some after (random names) while the
archive listing still holds the real name; some hold no name anywhere; about one in
eight is passworded (RAR -hp hides its listing, -p leaves the names; 7z -mhe hides
them). Readable archive sets are passworded now and then too.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from pipelines.generate import names as release_names
from pipelines.generate.contents.names import (
    first_volume,
    packaging,
    rar_volume,
    seven_zip_volume,
    stem_of,
    suffix_of,
    usable_stem,
)
from pipelines.generate.obfuscation import GEN_PASS
from pipelines.generate.rand import HEX
from pipelines.generate.uploads import Upload

ARCHIVE_KINDS = ("rar_parts", "rar_old", "sevenzip", "software")
OBFUSCATED_PASSWORDED = 0.12
READABLE_PASSWORDED = 0.08
ZIP_PASSWORDED = 0.10
# the carrier a namer meets first, in the ladder's order (par2 index, first file, 7z tail)
CARRIERS = ("par2", "archive", "7z", "nfo", "yenc", "none")


@dataclass
class Story:
    key: int  # the upload whose files these are (a repost's original)
    real_stem: str  # the stem inside: the hidden real name, or the readable stem
    par2_real: bool  # the par2 set names the real files (else the posted names)
    inner: list[tuple[str, int]]  # the archive's listing (name, unpacked size)
    inner_random: bool  # the listing's names are random too
    password: str | None
    hide_names: bool  # RAR -hp / 7z -mhe: nothing readable without the password
    compressed: bool
    rar5: bool
    real_names: bool  # the posted names are the real ones (readable uploads)
    inner_name: str | None = None
    name_carrier: str = "none"
    # files whose bytes are another's (a repeated family's media file): name -> (key, name)
    shared: dict[str, tuple[int, str]] = field(default_factory=dict)
    exe_head: bool = False  # media-named files that begin with a program's `MZ`
    # tool obfuscation (pipelines.generate.obfuscation): each posted file's real name (its
    # bytes follow it; a par2 set made before renaming lists it) and the name its yEnc
    # header carries, where either is not the posted name
    real_files: dict[str, str] = field(default_factory=dict)
    yenc_names: dict[str, str] = field(default_factory=dict)
    yenc_real: bool = False  # the yEnc names are the real ones

    def real_name(self, posted: str) -> str:
        return self.real_files.get(posted, posted)

    def yenc_name(self, posted: str) -> str:
        return self.yenc_names.get(posted, posted)

    @property
    def passworded(self) -> bool:
        return self.password is not None


def spec_files(u: Upload) -> list[tuple[str, int]]:
    """Every file of the upload's set, posted or not (a par2 set names the missing too)."""
    if u.spec is not None:
        return list(u.spec.files)
    return [(f.name, f.size) for f in u.files]


def _hidden_name(rng: random.Random) -> tuple[str, str]:
    pick = rng.random()
    if pick < 0.45:
        return release_names.tv_episode(rng), "mkv"
    if pick < 0.8:
        return release_names.movie(rng), rng.choice(("mkv", "mkv", "mp4"))
    return release_names.software(rng), "iso"


def _token(rng: random.Random, n: int = 32) -> str:
    return "".join(rng.choice(HEX) for _ in range(n))


def tell(u: Upload, seed: int) -> Story:
    key = u.repost_of if u.repost_of is not None else u.upload_id
    rng = random.Random(f"bodies-{seed}-{key}")
    files = spec_files(u)
    data = [(n, s) for n, s in files if rar_volume(n) or seven_zip_volume(n) is not None]
    data_size = sum(s for _, s in data)
    compressed = rng.random() < 0.3
    old_naming = any(n.lower().endswith(".rar") and ".part" not in n.lower() for n, _ in data)
    rar5 = not old_naming and rng.random() < 0.75
    if u.obfuscation is not None:
        story = tool_story(u, rng, key, files, data_size, compressed, rar5)
    elif u.kind == "obfuscated":
        stem, ext = _hidden_name(rng)
        mix = rng.random()
        par2_real = mix < 0.62
        inner_random = mix >= 0.82  # 20 %: no name anywhere, the upload stays pending
        if u.split_by == "per_file":  # its par2 set, made before renaming, joins the files
            par2_real, inner_random = True, False
        password = _token(rng, 12) if rng.random() < OBFUSCATED_PASSWORDED else None
        if u.nameless:
            par2_real, inner_random, password = False, True, None
        inner_stem = _token(rng) if inner_random else stem
        story = Story(
            key, stem, par2_real and not inner_random, [(f"{inner_stem}.{ext}", data_size)],
            inner_random, password, password is not None and rng.random() < 0.5, compressed,
            rar5, False,
        )  # fmt: skip
    else:
        stem = u.name if u.spec is None else u.spec.name
        ext = "iso" if u.category == "software" else "mkv"
        password = None
        if u.kind in ARCHIVE_KINDS and rng.random() < READABLE_PASSWORDED:
            password = _token(rng, 12)
        hide = password is not None and rng.random() < 0.5
        if any(n.lower().endswith(".zip") for n, _ in files):
            # a ZIP's encryption leaves its names readable
            password = _token(rng, 12) if rng.random() < ZIP_PASSWORDED else None
            hide, ext = False, "pdf"
        if u.fake == "archive":  # a film's name over a program: stored, open to read
            password, hide, compressed, ext = None, False, False, "exe"
        story = Story(
            key, stem, True, [(f"{stem}.{ext}", data_size)], False, password, hide,
            compressed, rar5, True,
        )  # fmt: skip
        story.exe_head = u.fake == "media"
        if u.repeat_of is not None:  # the family's one media file
            for name, _ in files:
                if not packaging(name):
                    story.shared[name] = (u.repeat_of, "repeated-media")
    story.inner_name, story.name_carrier = _carrier(u, story, files)
    return story


def par2_names(story: Story, files: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The files a set's par2 index names: every file but the par2 files, under their
    real names when the set was made before the files were renamed."""
    out = []
    for name, size in files:
        if name.lower().endswith(".par2"):
            continue
        if story.par2_real and story.real_files:
            name = story.real_name(name)
        elif story.par2_real and not story.real_names:
            name = story.real_stem + suffix_of(name)
        out.append((name, size))
    return out


def _carrier(u: Upload, story: Story, files: list[tuple[str, int]]) -> tuple[str | None, str]:
    """The name the first probed article that carries one gives, and which article that
    is, taking the ladder's steps in order: the par2 index, the first file (an archive's
    listing), a 7z set's tail; for readable uploads the NFO or the yEnc name after."""
    posted = {f.name: f for f in u.files}
    named = story.real_names or story.par2_real
    for name in posted:
        index = name.lower().endswith(".par2") and ".vol" not in name.lower()
        if index and posted[name].first_part == 1 and named:
            stem = usable_stem(par2_names(story, files))
            if stem:
                return stem, "par2"
    listing = None if story.inner_random or story.hide_names else usable_stem(story.inner)
    if listing:
        for name, f in posted.items():
            if first_volume(name) and rar_volume(name) and f.first_part == 1:
                return listing, "archive"
            if name.lower().endswith(".zip") and f.first_part == 1:
                return listing, "archive"
        sevens = [(seven_zip_volume(n), n) for n in posted if seven_zip_volume(n) is not None]
        if sevens:
            last = posted[max(sevens)[1]]
            if last.last_part == last.part_total:
                return listing, "7z"
    if story.yenc_real:
        stem = _first_file_yenc(u, story)
        if stem:
            return stem, "yenc"
    if not story.real_names:
        return None, "none"
    for name, f in posted.items():
        if name.lower().endswith(".nfo") and f.first_part == 1:
            return story.real_stem, "nfo"
    shown = [(f.name, f.size) for f in u.files if f.first_part == 1 and not packaging(f.name)]
    stem = usable_stem(shown)
    return (stem, "yenc") if stem else (None, "none")


def _first_file_yenc(u: Upload, story: Story) -> str | None:
    """The stem of the yEnc name the ladder's step 2 reads: the first RAR volume's, else
    the first posted file's that is no par2 file; None when its first part is not posted."""
    files = [f for f in u.files if not f.name.lower().endswith(".par2")]
    firsts = [f for f in files if rar_volume(f.name) and first_volume(f.name)]
    for f in (firsts or files)[:1]:
        if f.first_part == 1:
            return stem_of(story.yenc_name(f.name))
    return None


# a lone file's real name by its kind
_REAL_NAMES = {"epub": release_names.book, "pdf": release_names.book}


def tool_story(
    u: Upload,
    rng: random.Random,
    key: int,
    files: list[tuple[str, int]],
    data_size: int,
    compressed: bool,
    rar5: bool,
) -> Story:
    """What an obfuscating tool's upload holds (`pipelines.generate.obfuscation`): a real
    name behind its random names, shown by its yEnc names, its par2 set or its listing as
    the family has it."""
    family, ext = u.obfuscation, u.real_ext
    if u.pre_title:  # a pre's upload: its title is the name inside
        stem = u.pre_title
    elif ext in ("mkv", "mp4", "avi"):
        stem = release_names.tv_episode(rng) if rng.random() < 0.5 else release_names.movie(rng)
    else:
        stem = _REAL_NAMES.get(ext, release_names.software)(rng)
    real_file = f"{stem}.{ext}" if ext else stem
    password = hide = None
    if family == "ngpost_archive" and rng.random() < GEN_PASS:
        password, hide = _token(rng, 15), True  # ngPost adds -hp to a generated password
    real_files = {}
    for name, _ in files:
        if rar_volume(name) or name.lower().endswith(".par2"):
            real_files[name] = stem + suffix_of(name)
        else:
            real_files[name] = real_file
    yenc_real = family in ("yenc_name", "yenc_name_set")
    yenc_names = dict(real_files) if yenc_real else {}
    if family == "yenc_random" and rng.random() < 0.5:  # another random name than the subject's
        yenc_names = {name: _token(rng, 32) + (f".{ext}" if ext else "") for name, _ in files}
    story = Story(
        key, stem, family in ("yenc_name_set", "par2_only"), [(real_file, data_size)], False,
        password, bool(hide), compressed, rar5, False,
        real_files=real_files, yenc_names=yenc_names, yenc_real=yenc_real,
    )  # fmt: skip
    return story
