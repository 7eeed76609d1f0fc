"""Releases handed out by the window -> rows of the catalog's tables.

Called once per release (not per segment): the segment lists are concatenated as numpy
arrays and Arrow list columns, the texts (names, posters, groups) are made here. The
window hands releases out two ways, as a block of columns (`FileBlock`, most of them)
and as objects (`OpenRelease`, albums and the releases still open); each is read into a
`Version` here and made rows of by `ReleaseRows.add`, the files by `FileRows`.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Iterator
from itertools import chain

import numpy as np
import pyarrow as pa

from kernels import subject as sk
from pipelines import naming
from pipelines.index import albums, probes
from pipelines.index.file_rows import FileRows
from pipelines.index.handout import FileBlock, HandOut
from pipelines.index.parsed_chunk import SOURCE_ALBUM, SOURCE_STEM
from pipelines.index.release import OpenRelease
from pipelines.index.release_rows import (
    MAX_MEMBERS,
    ReleaseRows,
    Version,
    all_counted,
    announced_total,
    groups_of_each,
    keys_of,
    name_of,
    one_list_each,
    release_key,
    release_name,
    representative,
    tool_of,
)


class CatalogRows:
    """The catalog rows of one range, table by table: releases, pending_releases and
    probe_candidates (`releases`), release_files (`files`)."""

    def __init__(self, group: str, written_range: int, rules_version: str) -> None:
        self.group = group
        self.releases = ReleaseRows(group, written_range, rules_version)
        self.files = FileRows(written_range)
        self.finished = 0  # versions of releases written, finished and provisional
        self.provisional = 0

    def take(
        self, handout: HandOut, finished: bool, batch_total: Callable[[OpenRelease, bool], bool]
    ) -> None:
        """Record a hand-out of the window: its block column-wise, its objects one by one."""
        self.hand_out_block(handout.block, finished)
        for rel in handout.releases:
            self.hand_out(rel, finished, batch_total(rel, finished))

    def hand_out(self, rel: OpenRelease, finished: bool, batch_total: bool) -> None:
        """Record one version of a release and the segments not written before."""
        files = rel.files
        first = representative(files)
        file_groups = groups_of_each([f.xref for f in files], self.group)
        groups = list(dict.fromkeys(g for names in file_groups for g in names))
        key, identity_key = keys_of(rel, self.group)
        file_total = announced_total(rel.file_total, batch_total)
        name, readable = naming.usable_name(
            release_name(rel, first),
            [f.name for f in files],
            [f.random_name for f in files],
            rel.source == SOURCE_ALBUM,  # (positional: bench.naming records the calls' args)
        )
        probed = probes.choose(probes.targets_of(files), len(files), readable) if finished else []
        # what only a readable row states, and what only a pending one does
        if readable:
            has_par2 = any(f.ext_class in (sk.PAR2_INDEX, sk.PAR2_VOL) for f in files)
            members = [naming.to_text(m) for m in rel.members[:MAX_MEMBERS]] or None
            content = naming.content_of(
                [f.ext_class for f in files], [f.nbytes for f in files], [f.name for f in files]
            )
            tool = ""
        else:
            has_par2, members, content = False, None, ""
            tool = tool_of(first.first_part_id or first.last_part_id, first.poster)
        self.releases.add(
            Version(
                key=key,
                identity_key=identity_key,
                name=name,
                readable=readable,
                poster=naming.to_text(first.poster),
                groups=groups,
                first_date=rel.first_date,
                last_date=rel.last_date,
                first_article=rel.first_article,
                last_article=rel.last_article,
                files=len(files),
                file_total=file_total,
                segments=sum(f.segments for f in files),
                nbytes=sum(f.nbytes for f in files),
                complete=all(f.complete for f in files)
                and all_counted([f.file_index for f in files], file_total),
                finished=finished,
                source=rel.source,
                has_par2=has_par2,
                content=content,
                members=members,
                tool=tool,
                probes=probed,
            )
        )
        album = rel.source == SOURCE_ALBUM
        for f, names in zip(files, file_groups, strict=True):
            self.files.add(key, f, names, album, finished)
        if finished and album:
            for member in rel.absorbed:
                self.releases.tombstone(member, key)
        rel.written = True
        if finished:
            self.finished += 1
        else:
            self.provisional += 1

    def hand_out_block(self, block: FileBlock, finished: bool) -> None:
        """Record one version of each release of a block, and the segments not written
        before: the rows `hand_out` makes of each, with no object made per file."""
        n = len(block)
        if not n:
            return
        files = block.files
        bounds = block.offsets.tolist()
        starts = block.offsets[:-1]
        file_groups = groups_of_each(block.xref, self.group)
        # a release whose files all share one Xref's groups (one list: groups_of_each
        # makes a list per distinct Xref) takes that list's groups, with no pass a file
        shared = one_list_each(file_groups, starts).tolist()
        complete = (files["part_total"] > 0) & (files["count"] >= files["part_total"])
        all_complete = np.logical_and.reduceat(complete, starts).tolist()
        segments = np.add.reduceat(files["count"], starts).tolist()
        nbytes = np.add.reduceat(files["nbytes"], starts).tolist()
        par2 = np.isin(files["ext_class"], (sk.PAR2_INDEX, sk.PAR2_VOL))
        has_par2 = np.logical_or.reduceat(par2, starts).tolist()
        content = naming.content_of_block(
            files["ext_class"], files["nbytes"], block.offsets, block.name
        )
        firsts = block.representatives().tolist()
        index = files["file_index"].tolist()
        random_name = files["random_name"].tolist()
        # the releases an album's sidecars may name: two media files and a sidecar, or more
        ext = files["ext_class"]
        media = np.add.reduceat(np.isin(ext, albums.MEDIA_CLASSES), starts) >= 2
        sidecar = np.logical_or.reduceat(np.isin(ext, albums.SIDECAR_HINTS), starts)
        by_sidecars = (media & sidecar).tolist()
        # the files a probe could target, as tuples of what `probes.choose` reads (a
        # single file that is none of these is one only when its name is unusable)
        if finished:
            maybe, seven_zip = probes.candidates(block)
            probed = np.flatnonzero(maybe)
            targets = probes.block_targets(block, probed, seven_zip[probed])
        else:
            probed, targets = starts[:0], []
        target_bounds = np.searchsorted(probed, block.offsets).tolist()
        rel = block.releases
        r = {
            name: rel[name].tolist()
            for name in (
                "ident", "source", "first_date", "last_date", "first_article", "last_article",
                "file_total",
            )
        }  # fmt: skip
        batch_total = block.batch_total.tolist()
        keys = []
        pending: list[tuple[dict[str, object], int]] = []  # rows without their tool yet
        for j in range(n):
            a, b = bounds[j], bounds[j + 1]
            first = firsts[j]
            if shared[j]:
                groups = list(file_groups[a])
            else:
                groups = list(dict.fromkeys(chain.from_iterable(file_groups[a:b])))
            identity = struct.pack(">Q", r["ident"][j])
            key = release_key(identity, self.group, r["first_article"][j])
            keys.append(key)
            file_total = announced_total(r["file_total"][j], batch_total[j])
            name = name_of(r["source"][j], block.name[first], block.subject[first])
            if by_sidecars[j] and r["source"][j] == SOURCE_STEM:  # tracks named by sidecars
                name = albums.sidecar_name(block.name[a:b], ext[a:b].tolist()) or name
            name, readable = naming.usable_name(name, block.name[a:b], random_name[a:b])
            chosen = []
            if finished:
                candidates = targets[target_bounds[j] : target_bounds[j + 1]]
                if not candidates and b - a == 1 and not readable:
                    lone = np.array([a])
                    candidates = probes.block_targets(block, lone, np.zeros(1, np.bool_))
                if candidates:
                    chosen = probes.choose(candidates, b - a, readable)
            row = self.releases.add(
                Version(
                    key=key,
                    identity_key=hashlib.sha1(identity).digest(),
                    name=name,
                    readable=readable,
                    poster=naming.to_text(block.poster[first]),
                    groups=groups,
                    first_date=r["first_date"][j],
                    last_date=r["last_date"][j],
                    first_article=r["first_article"][j],
                    last_article=r["last_article"][j],
                    files=b - a,
                    file_total=file_total,
                    segments=segments[j],
                    nbytes=nbytes[j],
                    complete=all_complete[j] and all_counted(index[a:b], file_total),
                    finished=finished,
                    source=r["source"][j],
                    has_par2=has_par2[j],
                    content=content[j],
                    members=None,
                    tool="",  # a pending row's: below, for all of them at once
                    probes=chosen,
                )
            )
            if not readable:
                pending.append((row, first))
        if pending:
            first_ids, last_ids = block.part_ids(np.array([first for _, first in pending]))
            for (row, first), first_id, last_id in zip(pending, first_ids, last_ids, strict=True):
                row["tool"] = tool_of(first_id or last_id, block.poster[first])
        self.files.add_block(block, keys, file_groups)
        if finished:
            self.finished += n
        else:
            self.provisional += n

    def tables(self) -> dict[str, pa.Table | Iterator[pa.Table]]:
        """Every table of the range; release_files as its row groups, built one at a time
        (the range's biggest table never sits in memory whole)."""
        return {**self.releases.tables(), "release_files": self.files.row_groups()}
