"""Where the article pass's outputs for a span of a group live, and their removal.

The header pass's partitions for a span (a range, a compact span, a tail part) have two
derived files once probed: `release_probes/<group>/<first>-<last>.parquet` (what each
probed release showed) and `releases/<group>/probe-<first>-<last>.parquet` (the pending
releases it named, as catalog versions). Both are replaced whole when the span is probed
again; a probe of a span that covers others (a compact span over probed ranges) carries
their rows over and removes their files. When the header pass writes a range again, its
candidates may have changed: the outputs within it are removed, and the article pass
probes it again (its cache answers what was read before).
"""

from __future__ import annotations

from pipelines.catalog.layout import partition_path
from pipelines.catalog.partitions import Partition, list_group
from pipelines.corpus.fs import open_fs

PROBES_TABLE = "release_probes"


def output_paths(catalog: str, group: str, first: int, last: int) -> tuple[str, str]:
    """The span's (release_probes, named releases) files."""
    return (
        partition_path(catalog, PROBES_TABLE, group, first, last),
        partition_path(catalog, "releases", group, first, last, probe=True),
    )


def outputs_within(
    catalog: str, group: str, first: int, last: int, overlapping: bool = False
) -> list[Partition]:
    """Every article-pass file of the group whose span lies within first..last (or, with
    `overlapping`, shares any article with it)."""
    fs, root = open_fs(catalog)
    found = list_group(fs, root, PROBES_TABLE, group, stat=False)
    found += [p for p in list_group(fs, root, "releases", group, stat=False) if p.probe]
    if overlapping:
        return [p for p in found if p.first <= last and first <= p.last]
    return [p for p in found if first <= p.first and p.last <= last]


def drop_probe_outputs(catalog: str, group: str, first: int, last: int) -> int:
    """Remove the article pass's files that hold any of first..last (the range was
    indexed again: a compact span's files over it go too)."""
    fs, _ = open_fs(catalog)
    gone = outputs_within(catalog, group, first, last, overlapping=True)
    for p in gone:
        fs.rm(p.path)
    return len(gone)
