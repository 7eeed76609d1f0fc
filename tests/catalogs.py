"""Synthetic catalogs for the serving tests, and what serves them.

`synthetic_catalog` writes one (bench.synthetic_catalog) and returns its folder,
`module_catalog` into a new folder of the session;
`land_new_partitions` copies in the partitions a larger catalog of the same seed has and
this one lacks, as a newly indexed range lands; `app_settings` / `app_client` are the web
app over a catalog (API key "k1", the search index built in-process) and a test client of
it, signed in to the pages with that key (`sign_in`), `synthetic_client` the same over a
new synthetic catalog; `refreshed_index` is an in-process search index refreshed once,
closed afterwards.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient

from bench.synthetic_catalog import write_synthetic_catalog
from pipelines.catalog.layout import partition_path
from pipelines.catalog.schema import RELEASE_PROBES, RELEASES
from pipelines.catalog.views import CatalogViews
from pipelines.catalog.writer import parquet_bytes, write_partition
from pipelines.corpus.fs import atomic_put, is_temporary, open_fs
from serving.app import create_app
from serving.index.manager import IndexManager
from serving.settings import Settings

LANDED_TABLES = ("releases", "release_files", "ranges")


def synthetic_catalog(root: Path | str, releases: int, **options: Any) -> str:
    """A synthetic catalog of about `releases` releases written into `root` (the options
    are write_synthetic_catalog's); returns `root`."""
    write_synthetic_catalog(str(root), releases, **options)
    return str(root)


def module_catalog(tmp_path_factory: pytest.TempPathFactory, releases: int, **options: Any) -> str:
    """A synthetic catalog in a new folder of the session, for a module-scoped fixture."""
    return synthetic_catalog(tmp_path_factory.mktemp("catalog"), releases, **options)


def land_new_partitions(
    root: str, larger: Path | str, tables: tuple[str, ...] = LANDED_TABLES
) -> None:
    """Copy into `root` each partition file of `larger` (the same catalog with more ranges)
    that `root` does not have yet."""
    for table in tables:
        for path in sorted(Path(larger, table).rglob("*-*.parquet")):
            target = Path(root) / path.relative_to(larger)
            if not target.exists():
                shutil.copy(path, target)


def probe_row(key: bytes, group: str, **fields: Any) -> dict[str, Any]:
    """One `release_probes` row for release `key` (`fields`: the columns to set; the rest
    null, a catalog release probed now)."""
    row: dict[str, Any] = dict.fromkeys(RELEASE_PROBES.names)
    row.update(release_key=key, group=group, pending=False, outcome="probed", probed_at=1,
               probes=1, fetched=1, missing=0, failed=0)  # fmt: skip
    row.update(fields)
    return row


def write_release_probes(
    catalog: str, group: str, first: int, last: int, rows: list[dict[str, Any]]
) -> None:
    """Write (or replace) the `release_probes` partition of a range, as the article pass
    does (`probe_row` makes the rows)."""
    write_partition(catalog, "release_probes", group, first, last,
                    pa.Table.from_pylist(rows, schema=RELEASE_PROBES))  # fmt: skip


def write_named_releases(
    catalog: str, group: str, first: int, last: int, rows: list[dict[str, Any]]
) -> None:
    """Write the article pass's `releases/<group>/probe-<first>-<last>.parquet`: pending
    releases it named, as new catalog versions (RELEASES rows)."""
    fs, root = open_fs(catalog)
    path = partition_path(root, "releases", group, first, last, probe=True)
    atomic_put(fs, path, parquet_bytes(pa.Table.from_pylist(rows, schema=RELEASES), "releases"))


def app_settings(catalog: str, **settings: Any) -> Settings:
    return Settings(catalog=catalog, api_keys=["k1"], build_in_process=True, **settings)


def form_token(client: TestClient, page: str = "/signin") -> str:
    """The form token a page of ours gives this client (its cookie kept by the client)."""
    r = client.get(page)
    assert r.status_code == 200, r.text[:300]
    found = re.search(r'name="csrf" value="([^"]+)"', r.text)
    assert found, "the page's form carries no token"
    return found.group(1)


def sign_in(client: TestClient, key: str = "k1") -> TestClient:
    """Sign the client in to the web pages, as a person does (the form; then the cookie)."""
    r = client.post("/signin", data={"apikey": key, "csrf": form_token(client)},
                    follow_redirects=False)  # fmt: skip
    assert r.status_code == 303, r.text[:300]
    return client


@contextmanager
def app_client(catalog: str, **settings: Any) -> Iterator[TestClient]:
    """A test client of the web app over `catalog` (`settings`: more Settings fields),
    signed in with the key "k1"."""
    with TestClient(create_app(app_settings(catalog, **settings), background=False)) as client:
        yield sign_in(client)


@contextmanager
def synthetic_client(
    folder: Path, releases: int, settings: dict[str, Any], **options: Any
) -> Iterator[TestClient]:
    """A test client of the web app (more Settings fields in `settings`) over a synthetic
    catalog written into `folder` (`options`: write_synthetic_catalog's)."""
    with app_client(synthetic_catalog(folder, releases, **options), **settings) as client:
        yield client


@contextmanager
def refreshed_index(catalog: str, **options: Any) -> Iterator[IndexManager]:
    """An in-process search index over `catalog` (`options`: IndexManager's), refreshed
    once; closed when the block ends."""
    manager = IndexManager(catalog, in_process=True, **options)
    try:
        manager.refresh()
        yield manager
    finally:
        manager.close()


def catalog_files(catalog: Path) -> dict[str, bytes]:
    """Every catalog file but the range log's timing columns, by path (not the rule sets
    recorded, nor the stages' memos of what they saw, `_changes`, nor the live loop's last
    cycle kept for monitors, `_live`, nor a write's temporary
    file a SIGKILL left unrenamed: no reader takes one)."""
    out = {}
    for path in sorted(catalog.rglob("*")):
        if not path.is_file() or {"_rules", "_changes", "_live"} & set(path.parts):
            continue
        if is_temporary(path.name):
            continue
        rel = str(path.relative_to(catalog))
        if rel.startswith("ranges/"):
            rows = pq.read_table(path).drop_columns(["seconds", "indexed_at"]).to_pylist()
            out[rel] = json.dumps(rows, sort_keys=True).encode()
        else:
            out[rel] = path.read_bytes()
    return out


def shown_releases(catalog: Path) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The newest version of every release (but the part that wrote it) and every
    release's segments, once each."""
    views = CatalogViews(str(catalog))
    views.refresh()
    try:
        releases = views.query(
            "SELECT * EXCLUDE (written_range) FROM releases ORDER BY release_key"
        ).to_pylist()
        segments = views.query(
            "SELECT DISTINCT release_key, name, unnest(seg_numbers) AS n FROM release_files "
            "ORDER BY ALL"
        ).to_pylist()
    finally:
        views.close()
    return releases, segments
