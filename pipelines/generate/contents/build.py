"""The stored bodies of one upload: for each probe target, what its segment holds.

A `Body` is one article: its file's name, part, sizes, and the file's real head (and
tail) with the seed of the filler between; `pipelines.articles.store` renders it as the
yEnc body a server sends. Bodies are made for every file's first segment (but the
volumes after an archive's first and par2 recovery volumes: their first bytes are the
middle of a stream) and for the last segment of a 7z set's last volume. With `every`
(`--split-and-junk`, whose split uploads make each file a release of its own, a lone file
the article pass reads) those volumes' first segments too, and every 7z volume's last.
"""

from __future__ import annotations

import hashlib
import re
import struct
from dataclasses import dataclass

from pipelines.articles.filler import file_head, filler
from pipelines.generate.contents import media, par2
from pipelines.generate.contents.names import (
    first_volume,
    packaging,
    rar_volume,
    rar_volume_number,
    seven_zip_volume,
)
from pipelines.generate.contents.nzb import upload_nzb
from pipelines.generate.contents.rar import Entry, rar4_head, rar5_head
from pipelines.generate.contents.sevenzip import seven_zip_ends
from pipelines.generate.contents.story import Story, par2_names, spec_files
from pipelines.generate.contents.zips import epub_head, zip_head
from pipelines.generate.uploads import Upload

SLICES = 1000  # a par2 set of this many source slices, about
RECOVERY = b"PAR 2.0\0RecvSlic"


@dataclass(frozen=True)
class Body:
    message_id: str  # without angle brackets
    name: str  # the posted file name (the yEnc name)
    part: int
    total: int
    part_size: int
    file_size: int
    head: bytes  # the file's first bytes
    tail: bytes  # the file's last bytes (a 7z set's header), b"" if none
    seed: bytes  # of the filler between


@dataclass
class Content:
    head: bytes = b""
    tail: bytes = b""


def file_seed(seed: int, key: int, name: str) -> bytes:
    return hashlib.sha1(f"{seed}/{key}/{name}".encode()).digest()[:16]


def story_seed(seed: int, story: Story, name: str) -> bytes:
    """The filler seed of a file of the story's set: its own, or that of the file whose
    bytes it shares (a repeated family's media file)."""
    key, label = story.shared.get(name, (story.key, name))
    return file_seed(seed, key, label)


def contents(
    u: Upload, story: Story, seed: int, every: bool = False, groups: list[str] | None = None
) -> dict[str, Content]:
    """Each file of the set's head and tail, by posted name; `every`: a RAR set's later
    volumes too (their archive header and the continued file's), else filler. `groups`:
    the upload's group names, which the NZB it posts beside its files lists."""
    files = spec_files(u)
    out: dict[str, Content] = {name: Content() for name, _ in files}
    for f in u.files:
        out.setdefault(f.name, Content())
    entry_name = story.inner[0][0]
    entry_ext = entry_name.rsplit(".", 1)[-1]
    salt = file_seed(seed, story.key, "salt") + file_seed(seed, story.key, "iv")
    salt += file_seed(seed, story.key, "check")
    sevens = sorted((seven_zip_volume(n), n, s) for n, s in files if seven_zip_volume(n))
    rars = [rar_volume_number(n) for n, _ in files if rar_volume(n)]
    if sevens:
        total = sum(s for _, _, s in sevens)
        ends = seven_zip_ends(
            story.inner, total, story.password, story.hide_names, file_seed(seed, story.key, "7z")
        )
        out[sevens[0][1]].head = ends.head
        out[sevens[-1][1]].tail = ends.tail
    for name, size in files:
        low = story.real_name(name).lower()  # a random posted name: the real file's bytes
        ext = low.rsplit(".", 1)[-1] if "." in low else ""
        if seven_zip_volume(name) is not None:
            continue  # its ends are set above
        if rar_volume(name) and (first_volume(name) or every):
            volume = 0 if first_volume(name) else rar_volume_number(name)
            last = volume > 0 and volume == max(rars)
            entry = Entry(
                entry_name,
                story.inner[0][1],
                story.compressed,
                story.passworded and not story.hide_names,
                story.passworded and story.hide_names,
            )
            if story.rar5:
                head = rar5_head(entry, 0, salt, volume, last)
                head = rar5_head(entry, max(size - len(head), 0), salt, volume, last)
            else:
                head = rar4_head(entry, 0, ".part" in low, salt, volume, last)
                head = rar4_head(
                    entry, max(size - len(head), 0), ".part" in low, salt, volume, last
                )
            if not (story.compressed or story.passworded or volume):  # stored: the file follows
                head += media.media_head(entry_ext)
            out[name].head = head
        elif ext == "epub" and story.real_files:  # an obfuscating tool's: a real epub
            out[name].head = epub_head(file_seed(seed, story.key, name))
        elif ext == "zip" or ext == "epub":
            members = [m for m, _ in story.inner] if ext == "zip" else ["mimetype", "content.opf"]
            password = story.password if ext == "zip" else None
            out[name].head = zip_head(members, password, file_seed(seed, story.key, name))
        elif ext == "nfo":
            group = story.real_stem.rsplit("-", 1)[-1]
            out[name].head = media.nfo_text(story.real_stem, group, sum(s for _, s in files))
        elif ext == "sfv":
            listed = [n for n, _ in files if not n.lower().endswith((".sfv", ".par2", ".nfo"))]
            crcs = [int.from_bytes(file_seed(seed, story.key, n)[:4], "little") for n in listed]
            out[name].head = media.sfv_text(list(zip(listed, crcs, strict=True)))
        elif story.exe_head and not packaging(name):  # a media name over a program
            out[name].head = media.media_head("exe")
        elif ext in media.HEADS:
            out[name].head = media.media_head(ext)
        else:
            out[name].head = media.text_head(ext, story.real_stem)
    _par2_heads(u, story, seed, files, out)
    in_set = {name for name, _ in files}
    for f in u.files:  # an NZB posted as file 0 (`nzb_first`), outside the set's files
        if groups is not None and f.name not in in_set and f.name.lower().endswith(".nzb"):
            out[f.name].head = _posted_nzb(u, f.name, groups, f.size)
    return out


def _par2_heads(
    u: Upload, story: Story, seed: int, files: list[tuple[str, int]], out: dict[str, Content]
) -> None:
    """The par2 index files: the set's files with their 16 KiB hashes (of the heads and
    filler above: what a reader hashing the first 16 KiB of a downloaded file gets)."""
    indexes = [n for n, _ in files if n.lower().endswith(".par2") and ".vol" not in n.lower()]
    if not indexes:
        return
    # files posted apart (sidecars) were made after the set
    in_set = [(n, s) for n, s in files if n not in u.apart]
    protected = [(n, s) for n, s in in_set if not n.lower().endswith(".par2")]
    shown = par2_names(story, in_set)
    data = sum(s for _, s in protected)
    slice_size = max(4096, -(-data // SLICES // 4) * 4)
    set_files = []
    for (posted, size), (name, _) in zip(protected, shown, strict=True):
        first = file_head(out[posted].head, story_seed(seed, story, posted), min(size, 16384))
        whole = hashlib.md5(story_seed(seed, story, posted) + b"whole").digest()
        set_files.append(par2.SetFile(name, size, whole, hashlib.md5(first).digest()))
    index = par2.index_file(set_files, slice_size, "ParPar v0.4.2")
    for name in indexes:
        out[name].head = index
    set_id = par2.recovery_set_id(index)
    for name, _ in files:
        if name.lower().endswith(".par2") and ".vol" in name.lower():
            out[name].head = _recovery_head(set_id, name, slice_size, story_seed(seed, story, name))


def _recovery_head(set_id: bytes, name: str, slice_size: int, seed: bytes) -> bytes:
    """A recovery volume's first bytes: its first recovery slice packet's header (the
    set id, the exponent its name starts at), the slice itself the file's filler. The
    packet's MD5 is that of the slice the body store renders after it."""
    found = re.search(r"\.vol(\d+)[+-]", name.lower())
    exponent = struct.pack("<I", int(found.group(1)) if found else 0)
    rest = set_id + RECOVERY + exponent
    digest = hashlib.md5(rest + filler(seed, slice_size)).digest()
    return par2.MAGIC + struct.pack("<Q", 32 + len(rest) + slice_size) + digest + rest


def _posted_nzb(u: Upload, name: str, groups: list[str], size: int) -> bytes:
    """The NZB an upload posts as its file 0: its other files', then blank lines to the
    size its headers announce (XML allows them after the document; filler would not)."""
    nzb = upload_nzb(u, groups, skip=name)
    return nzb + b"\n" * (size - len(nzb))


def bodies(
    u: Upload, story: Story, seed: int, every: bool = False, groups: list[str] | None = None
) -> list[Body]:
    """The stored articles of an upload: first segments, and a 7z set's last one;
    `every`: every file's first segment and every 7z volume's last (what the header pass
    names as probe candidates when each file is a release of its own)."""
    held = contents(u, story, seed, every, groups)
    sevens = [(seven_zip_volume(f.name), f) for f in u.files if seven_zip_volume(f.name)]
    last_seven = max(sevens, key=lambda v: v[0] or 0)[1] if sevens else None
    out = []
    for f in u.files:
        low = f.name.lower()
        size = f.size
        part_size = f.part_size or size
        content = held[f.name]
        skipped = ".vol" in low and low.endswith(".par2")
        skipped |= (rar_volume(f.name) or seven_zip_volume(f.name) is not None) and not (
            first_volume(f.name)
        )
        skipped &= not every
        seed_bytes = story_seed(seed, story, f.name)
        if len(content.head) > size and f.part_total == 1:
            size = part_size = len(content.head)  # a par2 index naming 150 volumes
        if f.first_part == 1 and not skipped:
            tail = content.tail if f.part_total == 1 else b""
            out.append(
                Body(f.message_ids[0], story.yenc_name(f.name), 1, f.part_total, part_size,
                     size, content.head, tail, seed_bytes)
            )  # fmt: skip
        last = f is last_seven or (every and seven_zip_volume(f.name) is not None)
        # (`every`: the last posted, the header pass's candidate, though the end is lost)
        if last and (f.last_part == f.part_total or every) and (f.last_part > 1 or skipped):
            out.append(
                Body(f.message_ids[-1], story.yenc_name(f.name), f.last_part, f.part_total,
                     part_size, size, b"", content.tail, seed_bytes)
            )  # fmt: skip
    return out
