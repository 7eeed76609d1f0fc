"""`head_md5`: the article pass stores, per file's first part, the hash a par2 set
describes the file by; the probe cache keeps it, and reads files written before it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.catalog.schema import PROBE_RESULTS
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.generate.contents.par2 import index_file, set_file
from pipelines.merge.frame import probe_facts
from pipelines.probe.cache import ProbeCache, results_folder
from pipelines.probe.inspect import inspect_body
from pipelines.probe.yenc import encode_part
from tests.probe_bodies import first_part


def test_a_first_part_gives_the_hash_par2_describes_its_file_by() -> None:
    data = os.urandom(100_000)
    index = index_file([set_file("film.mkv", data, 4096)], 4096)
    par2 = inspect_body(first_part(index, "x.par2"))
    found = inspect_body(first_part(data, "q8f2.bin"))
    assert found.head_md5 == hashlib.md5(data[:16384]).digest()
    assert par2.hashes == [found.head_md5]  # the set's hash of the file is the probed one


def test_a_file_shorter_than_16_kib_is_hashed_whole() -> None:
    data = b"a small nfo\r\n" * 100
    assert inspect_body(first_part(data, "x.nfo")).head_md5 == hashlib.md5(data).digest()


def test_only_a_first_part_has_a_head() -> None:
    data = os.urandom(60_000)
    later = encode_part(data[30_000:], "x.bin", begin=30_000, file_size=60_000, part=2, total=2)
    assert inspect_body(later).head_md5 is None
    short_first = encode_part(data[:8_000], "x.bin", file_size=60_000, part=1, total=8)
    assert inspect_body(short_first).head_md5 is None  # too little of the file to hash


def test_the_cache_keeps_heads_and_reads_files_written_before_them(tmp_path: Path) -> None:
    catalog = str(tmp_path)
    old = PROBE_RESULTS.remove(PROBE_RESULTS.get_field_index("head_md5"))
    row = {n: None for n in old.names} | {
        "message_id": "old@x", "probed_at": 1, "status": "ok", "kind": "other",
        "names": [], "sizes": [], "hashes": [], "inner_archive": False, "detail": "",
        "yenc_size": 5,
    }  # fmt: skip
    fs, root = open_fs(catalog)
    fs.makedirs(results_folder(root), exist_ok=True)
    sink = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist([row], schema=old), sink)
    atomic_put(fs, f"{results_folder(root)}/0000-old.parquet", sink.getvalue().to_pybytes())

    cache = ProbeCache(catalog)
    old_result = cache.get("old@x")
    assert old_result is not None and old_result.head_md5 is None
    data = os.urandom(20_000)
    cache.add("new@x", inspect_body(first_part(data, "n.bin")))
    cache.flush()
    again = ProbeCache(catalog)
    head = hashlib.md5(data[:16384]).digest()
    new_result = again.get("new@x")
    assert new_result is not None and new_result.head_md5 == head
    facts = probe_facts(catalog)
    assert facts.heads == {"new@x": (head, 20_000)} and not facts.damaged
