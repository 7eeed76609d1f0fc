"""Small hand-made catalogs and pres for the PreDB tests: releases, pending releases and
their files written as the header pass writes them (`write_partition`), and pres as a
JSON-lines file to import."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pyarrow as pa

from pipelines.catalog.schema import PENDING_RELEASES, RELEASE_FILES, RELEASES
from pipelines.catalog.writer import write_partition

MIB = 1 << 20
GROUP = "alt.binaries.teevee"


def key_of(label: str) -> bytes:
    return hashlib.sha1(label.encode()).digest()


def release(label: str, name: str, nbytes: int, first: int, **fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "release_key": key_of(label), "identity_key": key_of("id" + label), "name": name,
        "poster": "poster <p@example.com>", "group": GROUP, "groups": [GROUP],
        "posted_first": 1_700_000_000, "posted_last": 1_700_000_100, "first_article": first,
        "last_article": first + 9, "files": 3, "file_total": 3, "segments": 30, "bytes": nbytes,
        "complete": True, "readable": True, "has_par2": True, "source": "subject",
        "category": 5000, "finished": True, "members": None, "written_range": 0,
        "rules_version": "t", "merged_into": None,
    }  # fmt: skip
    row.update(fields)
    return row


def pending(label: str, name: str, nbytes: int, first: int) -> dict[str, Any]:
    rel = release(label, name, nbytes, first)
    row = {k: rel.get(k) for k in PENDING_RELEASES.names}
    row.update(tool="nyuu", probe_ids=[])
    return row


def files(label: str, names: list[str], each: int) -> list[dict[str, Any]]:
    return [
        {"release_key": key_of(label), "written_range": 0, "name": n,
         "subject": f'"{n}" yEnc (1/1)', "poster": "poster <p@example.com>",
         "date": 1_700_000_000, "groups": [GROUP],
         "file_index": i + 1, "part_total": 1, "bytes": each, "seg_numbers": [1],
         "seg_bytes": [each], "seg_ids": [f"{label}-{i}@x"]}
        for i, n in enumerate(names)
    ]  # fmt: skip


def write_range(
    catalog: str, first: int, last: int, releases: list[dict[str, Any]],
    pend: list[dict[str, Any]] = (), file_rows: list[dict[str, Any]] = (),  # type: ignore[assignment]
) -> None:  # fmt: skip
    write_partition(
        catalog, "releases", GROUP, first, last, pa.Table.from_pylist(releases, schema=RELEASES)
    )
    write_partition(catalog, "pending_releases", GROUP, first, last,
                    pa.Table.from_pylist(list(pend), schema=PENDING_RELEASES))  # fmt: skip
    rows = sorted(file_rows, key=lambda r: (r["release_key"], r["name"]))
    write_partition(
        catalog,
        "release_files",
        GROUP,
        first,
        last,
        pa.Table.from_pylist(rows, schema=RELEASE_FILES),
    )


def pres_file(path: Path, pres: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(p) + "\n" for p in pres))
    return str(path)
