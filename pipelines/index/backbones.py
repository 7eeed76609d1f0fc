"""Which backbone the header pass reads a group from, and which fill it in.

A corpus holds one corpus per backbone (`pipelines/corpus/backbones.py`). A group is read
from one of them, its primary: the first backbone in the corpus's priority order that
holds the group, pinned in the catalog once a second one holds it (its numbers are the
catalog's; a group indexed before from one backbone keeps that one). The others, in
priority order, fill in what the primary lacks (`pipelines/index/fill.py`). A corpus of
one backbone has no other: nothing changes.
"""

from __future__ import annotations

from pipelines.catalog.partitions import list_group
from pipelines.corpus.backbones import backbone_root, corpus_backbones
from pipelines.corpus.fs import open_fs
from pipelines.corpus.layout import RangeRef
from pipelines.corpus.reader import CorpusReader
from pipelines.index.fill import Fill
from pipelines.index.fill_state import read_pin, write_pin


class CorpusBackbones:
    def __init__(self, corpus: str) -> None:
        self.order = corpus_backbones(corpus)
        self.readers = {name: CorpusReader(backbone_root(corpus, name)) for name in self.order}
        self._groups: dict[str, list[str]] = {}
        self._primary: dict[str, str] = {}
        for name, reader in self.readers.items():
            if not reader.fs.isdir(reader.root):
                continue  # listed, nothing captured yet
            for group in reader.groups():
                self._groups.setdefault(group, []).append(name)
        if not self._groups and not any(r.fs.isdir(r.root) for r in self.readers.values()):
            raise FileNotFoundError(f"no corpus at {corpus}")

    def groups(self) -> list[str]:
        return sorted(self._groups)

    def holders(self, group: str) -> list[str]:
        """The backbones holding the group, in priority order."""
        return self._groups.get(group, [])

    def primary(self, catalog: str, group: str) -> str:
        if group not in self._primary:
            self._primary[group] = self._pin(catalog, group)
        return self._primary[group]

    def _pin(self, catalog: str, group: str) -> str:
        """The pinned primary while it holds the group; else the first holder, pinned once
        a second backbone holds the group. A group indexed before from one backbone keeps
        it: the holder whose ranges the catalog's range logs name comes first."""
        holders = self.holders(group)
        if len(holders) == 1:
            return holders[0]
        pinned = read_pin(catalog, group)
        if pinned in holders:
            return str(pinned)
        fs, root = open_fs(catalog)
        logged = {(p.first, p.last) for p in list_group(fs, root, "ranges", group, stat=False)}
        if logged:

            def spans(name: str) -> set[tuple[int, int]]:
                return {(r.first, r.last) for r in self.readers[name].range_refs(group)}

            holders = sorted(holders, key=lambda name: -len(spans(name) & logged))
        write_pin(catalog, group, holders[0])
        return holders[0]

    def reader(self, catalog: str, group: str) -> CorpusReader:
        if not self.holders(group):  # no backbone holds it: the first one's reader says so
            return self.readers[self.order[0]]
        return self.readers[self.primary(catalog, group)]

    def others(self, catalog: str, group: str) -> list[tuple[str, CorpusReader]]:
        primary = self.primary(catalog, group)
        return [(n, self.readers[n]) for n in self.holders(group) if n != primary]


def start_fill(
    catalog: str,
    ref: RangeRef,
    before: RangeRef | None,
    others: list[tuple[str, CorpusReader]],
) -> Fill | None:
    """The fill of one range of a group; None when no other backbone holds the group."""
    return Fill.start(catalog, ref, before, others) if others else None
