"""Probe candidates: the few articles of a release the article pass should read.

A release's RAR first volume, its smallest PAR2 index and its last 7z volume (or, for a
lone file with an unusable name, its first segment; for a readable release with no archive,
its largest video or audio file's first segment), and the NZB files it posts: `choose`
picks them from the release's files, given as `Target`s, whether the files are objects or
a block's rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kernels import subject as sk
from pipelines import naming
from pipelines.index.handout import FileBlock, pick
from pipelines.index.release import OpenFile


class Target(NamedTuple):
    """What `choose` reads of a file that a probe could target."""

    name: bytes
    ext_class: int
    nbytes: int
    volume: int
    seven_zip: bool
    first_part_id: bytes  # b"" where unseen
    last_part_id: bytes
    last_part: int


_MEDIA = (sk.VIDEO, sk.AUDIO)  # the files a bare release's `media_first` may read
MAX_NZBS = 4  # NZB files of one release read (a post of NZBs is split file by file)

# (kind, the file's name, message-id, segment number): a probe candidate's row
Probe = tuple[str, bytes, str, int]


def targets_of(files: list[OpenFile]) -> list[Target]:
    return [
        Target(f.name, f.ext_class, f.nbytes, f.volume, seven_zip(f.name), f.first_part_id,
               f.last_part_id, f.last_part)
        for f in files
    ]  # fmt: skip


def block_targets(block: FileBlock, rows: np.ndarray, seven_zip: np.ndarray) -> list[Target]:
    """These file rows of a block as targets (no OpenFile made: most are not chosen)."""
    first_ids, last_ids = block.part_ids(rows)
    files = block.files
    columns = (files[name][rows].tolist() for name in ("ext_class", "nbytes", "volume"))
    return list(
        map(
            Target, pick(block.name, rows.tolist()), *columns, seven_zip.tolist(), first_ids,
            last_ids, files["last_part"][rows].tolist(),
        )
    )  # fmt: skip


def choose(files: list[Target], n_files: int, readable: bool) -> list[Probe]:
    """The few articles the article pass should read for a release: `files` are its files
    (or those of them that can be probed, all of them for a single file) in file order."""
    out: list[Probe] = []
    firsts = [f for f in files if f.ext_class == sk.RAR_FIRST and f.first_part_id]
    for f in sorted(firsts, key=lambda f: f.name)[:1]:
        out.append(("archive_first", f.name, naming.to_text(f.first_part_id), 1))
    par2 = [f for f in files if f.ext_class == sk.PAR2_INDEX and f.first_part_id]
    for f in sorted(par2, key=lambda f: (f.nbytes, f.name))[:1]:
        out.append(("par2_index", f.name, naming.to_text(f.first_part_id), 1))
    sevenz = [f for f in files if f.seven_zip and f.last_part_id]
    if sevenz:
        last = max(sevenz, key=lambda f: (f.volume, f.name))
        out.append(("sevenzip_last", last.name, naming.to_text(last.last_part_id), last.last_part))
    # a lone random-named file's first part, unless a candidate reads it already: a later
    # 7z volume's tail says nothing of the file's head, which a par2 set's hash describes
    lone = not readable and n_files == 1 and files[0].first_part_id
    if lone and all(kind == "sevenzip_last" for kind, *_ in out):
        f = files[0]
        out.append(("lone_random", f.name, naming.to_text(f.first_part_id), 1))
    elif readable and not firsts and not sevenz:
        # a film, an episode or an album posted bare: only its first bytes tell media from
        # a program under its name (the judge's fake rule), and nothing else reads them
        media = [f for f in files if f.ext_class in _MEDIA and f.first_part_id]
        for f in sorted(media, key=lambda f: (-f.nbytes, f.name))[:1]:
            out.append(("media_first", f.name, naming.to_text(f.first_part_id), 1))
    # an NZB posted in the upload (`[00/27] - "Name.nzb"`) or as one: the article pass
    # imports what it lists (pipelines.probe.nzbs)
    nzbs = [f for f in files if f.ext_class == sk.NZB and f.first_part_id]
    for f in sorted(nzbs, key=lambda f: f.name)[:MAX_NZBS]:
        out.append(("nzb_file", f.name, naming.to_text(f.first_part_id), 1))
    return out


def seven_zip(name: bytes) -> bool:
    return b".7z" in name.lower()


def candidates(block: FileBlock) -> tuple[np.ndarray, np.ndarray]:
    """Per file row of a block: could the file be a probe target (`choose`) whatever
    its release's name? And is it a 7z volume?"""
    ext = block.files["ext_class"]
    out = (ext == sk.RAR_FIRST) | (ext == sk.PAR2_INDEX) | np.isin(ext, (*_MEDIA, sk.NZB))
    seven = np.zeros(len(ext), np.bool_)
    seven[seven_zip_rows(block.name)] = True
    return out | seven, seven


def seven_zip_rows(names: list[bytes]) -> np.ndarray:
    """The names `seven_zip` holds for, by one search of them all (joined by NUL, which
    no name holds; a hit's row is the name it starts in)."""
    joined = b"\0".join(names).lower()
    if joined.count(b"\0") != max(len(names) - 1, 0):
        return np.flatnonzero([seven_zip(name) for name in names])
    hits = []
    at = joined.find(b".7z")
    while at >= 0:
        hits.append(at)
        at = joined.find(b".7z", at + 3)
    if not hits:
        return np.zeros(0, np.int64)
    lengths = np.fromiter(map(len, names), np.int64, len(names)) + 1
    starts = np.concatenate(([0], np.cumsum(lengths)))
    return np.unique(np.searchsorted(starts, hits, side="right") - 1)
