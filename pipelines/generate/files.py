"""The files of one release by kind: archive volumes, par2 sets, sidecars, tracks, books.

Names follow the tools that make them: WinRAR's `.partNN.rar` and old `.rar/.rNN`
volumes, 7-Zip's `.7z.NNN` split, par2's `.volSSS+CCC.par2` recovery files with
doubling block counts. Sizes are bytes of the encoded file; segment counts follow
from the poster's article size later.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field

from pipelines.generate import names
from pipelines.generate import words as w
from pipelines.generate.rand import ALNUM, HEX, LOWER_ALNUM, Tokens

MB = 1_000_000

# (kind, smallest, largest data size in MB): drawn log-uniformly, then capped per corpus.
SIZE_MB = {
    "rar_parts": (30, 8000),
    "rar_old": (30, 4000),
    "video": (20, 3000),
    "sevenzip": (20, 3000),
    "software": (5, 2500),
    "obfuscated": (30, 8000),
    "music": (30, 600),
    "ebook": (0.3, 12),
}


@dataclass
class ReleaseSpec:
    kind: str
    category: str
    name: str  # what a good indexer shows
    files: list[tuple[str, int]] = field(default_factory=list)  # (file name, bytes), post order
    shared_stem: bool = True  # every file's stem is the name: subjects may omit the name
    scene_names: bool = False  # files carry a short scene stem: subjects must carry the name


def draw_size(rng: random.Random, kind: str, cap_bytes: int) -> int:
    lo, hi = SIZE_MB[kind]
    size = int(math.exp(rng.uniform(math.log(lo), math.log(hi))) * MB)
    return max(min(size, cap_bytes), 50_000)


def volume_sizes(total: int, volume: int) -> list[int]:
    """Sizes of the volumes of a split archive: all `volume` bytes but the last."""
    if total <= volume:  # a small set is still split: two or three volumes
        volume = max(math.ceil(total / 3), 1)
    if math.ceil(total / volume) > 150:
        volume = math.ceil(total / 150)
    n = math.ceil(total / volume)
    return [volume] * (n - 1) + [total - volume * (n - 1)]


def rar_new(stem: str, total: int, volume: int) -> list[tuple[str, int]]:
    sizes = volume_sizes(total, volume)
    width = len(str(len(sizes)))  # part1..part9, part01..part99, part001..: as WinRAR does
    return [(f"{stem}.part{i:0{width}d}.rar", s) for i, s in enumerate(sizes, 1)]


def rar_old(stem: str, total: int, volume: int) -> list[tuple[str, int]]:
    sizes = volume_sizes(total, volume)
    out = [(f"{stem}.rar", sizes[0])]
    for i, size in enumerate(sizes[1:]):
        letter = chr(ord("r") + i // 100)  # .r99 is followed by .s00
        out.append((f"{stem}.{letter}{i % 100:02d}", size))
    return out


def seven_zip(stem: str, total: int, volume: int) -> list[tuple[str, int]]:
    return [(f"{stem}.7z.{i:03d}", s) for i, s in enumerate(volume_sizes(total, volume), 1)]


def par2_set(rng: random.Random, stem: str, data: int) -> list[tuple[str, int]]:
    """The index file and recovery volumes: 1, 2, 4, 8... blocks, about 5-15 % of the data."""
    blocks = rng.choice((50, 100, 200, 1000, 2000))
    block_size = max(data // blocks, 4096)
    recovery = max(1, int(blocks * rng.uniform(0.05, 0.15)))
    width = max(2, len(str(recovery)))
    out = [(f"{stem}.par2", rng.randint(20_000, 60_000))]
    start, count = 0, 1
    while start < recovery:
        count = min(count, recovery - start)
        out.append((f"{stem}.vol{start:0{width}d}+{count:0{width}d}.par2", count * block_size))
        start += count
        count *= 2
    return out


def _volume_size(rng: random.Random) -> int:
    return rng.choice((5, 10, 15, 20, 50, 50, 100, 100, 250)) * MB


def _archive(rng: random.Random, style: str, stem: str, total: int) -> list[tuple[str, int]]:
    volume = _volume_size(rng)
    if style == "old":
        return rar_old(stem, total, volume)
    if style == "7z":
        return seven_zip(stem, total, volume)
    return rar_new(stem, total, volume)


def _sidecars(rng: random.Random, stem: str) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    head = [(f"{stem}.nfo", rng.randint(2_000, 25_000))] if rng.random() < 0.6 else []
    sfv = [(f"{stem}.sfv", rng.randint(300, 3_000))] if rng.random() < 0.4 else []
    return head, sfv


def _ordered(rng: random.Random, parts: list[list[tuple[str, int]]]) -> list[tuple[str, int]]:
    """Posting order: as grouped (sidecars, index, data, recovery) or sorted by name."""
    flat = [f for group in parts for f in group]
    return sorted(flat) if rng.random() < 0.4 else flat


def _video_name(rng: random.Random) -> tuple[str, str]:
    pick = rng.random()
    if pick < 0.45:
        return names.tv_episode(rng), "tv"
    if pick < 0.6:
        return names.tv_season(rng), "tv"
    return names.movie(rng), "movie"


def archive_release(
    rng: random.Random, kind: str, cap: int, name: str, category: str
) -> ReleaseSpec:
    total = draw_size(rng, kind, cap)
    style = {"rar_old": "old", "sevenzip": "7z"}.get(kind) or (
        rng.choice(("new", "old")) if kind == "software" else "new"
    )
    scene = style == "old" and rng.random() < 0.5
    stem = names.scene_abbrev(rng, name) if scene else name
    head, sfv = _sidecars(rng, stem)
    par2 = par2_set(rng, stem, total)
    files = _ordered(rng, [head, sfv, par2[:1], _archive(rng, style, stem, total), par2[1:]])
    return ReleaseSpec(kind, category, name, files, shared_stem=not scene, scene_names=scene)


def video_release(rng: random.Random, cap: int) -> ReleaseSpec:
    name, category = _video_name(rng)
    total = draw_size(rng, "video", cap)
    ext = "avi" if "XviD" in name else rng.choice(("mkv", "mkv", "mp4"))
    par2 = par2_set(rng, name, total)
    season = re.search(r"\.S(\d\d)\.(COMPLETE\.|MULTi\.)?", name)
    if season and rng.random() < 0.6:  # a season pack: one file an episode, the pack's par2
        n = rng.randint(4, 13)
        episodes = [
            (name.replace(season.group(0), f".S{season.group(1)}E{e:02d}.") + f".{ext}", total // n)
            for e in range(1, n + 1)
        ]
        files = _ordered(rng, [par2[:1], episodes, par2[1:]])
        return ReleaseSpec("video", category, name, files, shared_stem=False)
    files = _ordered(rng, [par2[:1], [(f"{name}.{ext}", total)], par2[1:]])
    return ReleaseSpec("video", category, name, files)


def music_release(rng: random.Random, cap: int) -> ReleaseSpec:
    band, album = names.artist(rng), names.album_title(rng)
    flac = rng.random() < 0.4
    name = names.music(rng, band, album, rng.randint(1970, 2024), flac)
    scene = "_" in name
    n_tracks = rng.randint(6, 16)
    total = draw_size(rng, "music", cap)
    ext = "flac" if flac else "mp3"
    tracks = [
        (names.track_file(rng, i, band, scene, ext), max(total // n_tracks, 200_000))
        for i in range(1, n_tracks + 1)
    ]
    stem = name.lower() if scene else name
    extras = [(f"00-{stem}.nfo" if scene else f"{name}.nfo", rng.randint(2_000, 9_000))]
    extras.append((f"00-{stem}.sfv" if scene else f"{name}.sfv", rng.randint(400, 1_500)))
    if rng.random() < 0.6:
        extras.append((f"00-{stem}.m3u" if scene else f"{name}.m3u", rng.randint(300, 1_200)))
    cover = [(rng.choice(("cover.jpg", "folder.jpg", "front.jpg")), rng.randint(60_000, 900_000))]
    par2 = par2_set(rng, name, total) if rng.random() < 0.3 else []
    files = _ordered(rng, [extras, par2[:1], tracks, cover, par2[1:]])
    return ReleaseSpec("music", "music", name, files, shared_stem=False)


def ebook_release(rng: random.Random, cap: int) -> ReleaseSpec:
    name = names.book(rng)
    exts = ["epub"] + [e for e in ("mobi", "pdf", "azw3") if rng.random() < 0.3]
    files = []
    for ext in exts:
        size = draw_size(rng, "ebook", cap) * (4 if ext == "pdf" else 1)
        files.append((f"{name}.{ext}", size))
    return ReleaseSpec("ebook", "book", name, files)


def obfuscated_release(rng: random.Random, tokens: Tokens, cap: int) -> ReleaseSpec:
    """Random names for every file: a shared random stem, or a random name per file."""
    alphabet, length = rng.choice(((HEX, 32), (HEX, 24), (ALNUM, 27), (LOWER_ALNUM, 30)))
    stem = tokens.one(alphabet, length)
    total = draw_size(rng, "obfuscated", cap)
    par2 = par2_set(rng, stem, total)
    data = _archive(rng, rng.choice(("new", "new", "old", "7z")), stem, total)
    if rng.random() < 0.3:  # each file its own random name; the subject's token ties them
        renamed = [(_rename(f, tokens.one(ALNUM, rng.randint(16, 24))), s) for f, s in data]
        return ReleaseSpec("obfuscated", "other", stem, par2[:1] + renamed + par2[1:], False)
    return ReleaseSpec("obfuscated", "other", stem, par2[:1] + data + par2[1:])


def _rename(file_name: str, new_stem: str) -> str:
    for suffix in (".7z.", ".part", ".r", ".s"):
        at = file_name.rfind(suffix)
        if at > 0:
            return new_stem + file_name[at:]
    return new_stem + file_name[file_name.rfind(".") :]


# (extension, category, smallest and largest size in kB) of files posted on their own
SINGLES = (
    ("mp3", "music", 3_000, 12_000),
    ("pdf", "book", 500, 20_000),
    ("jpg", "pictures", 100, 700),
    ("nfo", "other", 2, 20),
    ("srt", "tv", 30, 100),
    ("zip", "other", 100, 5_000),
    ("mkv", "tv", 100_000, 400_000),
)


def single_release(rng: random.Random, cap: int) -> ReleaseSpec:
    """One file on its own, as most real releases are: a track, a document, a subtitle."""
    ext, category, lo, hi = rng.choice(SINGLES)
    if ext == "mp3":
        stem = f"{names.artist(rng)} - {names.album_title(rng)}"
    elif ext == "pdf":
        stem = names.book(rng)
    elif ext in ("srt", "mkv"):
        stem = names.tv_episode(rng)
    else:
        stem = f"{'.'.join(rng.sample(w.TITLE_WORDS, 3))}.{rng.randint(1990, 2024)}"
    size = min(int(math.exp(rng.uniform(math.log(lo), math.log(hi))) * 1000), cap)
    return ReleaseSpec("single", category, stem, [(f"{stem}.{ext}", size)])


def build_release(rng: random.Random, tokens: Tokens, kind: str, cap: int) -> ReleaseSpec:
    if kind == "single":
        return single_release(rng, cap)
    if kind == "video":
        return video_release(rng, cap)
    if kind == "music":
        return music_release(rng, cap)
    if kind == "ebook":
        return ebook_release(rng, cap)
    if kind == "obfuscated":
        return obfuscated_release(rng, tokens, cap)
    if kind == "software":
        return archive_release(rng, kind, cap, names.software(rng), "software")
    name, category = _video_name(rng)
    if kind == "sevenzip" and rng.random() < 0.3:
        name, category = names.software(rng), "software"
    return archive_release(rng, kind, cap, name, category)
