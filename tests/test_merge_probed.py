"""The article pass's own reads feed the par2 merge: an obfuscated upload whose files each
became a pending release, its par2 index and its files real yEnc bodies, probed by
`probe_catalog` (the ladder names the index's release from its set and stores each file's
16 KiB hash), then merged into one release named by the set."""

from __future__ import annotations

import os
from pathlib import Path

from pipelines.generate.contents.par2 import index_file, set_file
from pipelines.merge.run import merge_catalog
from pipelines.merge.store import merges
from pipelines.probe.fetch import StoreSource
from pipelines.probe.run import probe_catalog
from tests.merge_catalog import T0, MergeCatalog
from tests.probe_bodies import first_part
from tests.test_merge_rules import shown


class Bodies:
    def __init__(self) -> None:
        self.bodies: dict[str, bytes] = {}

    def body(self, message_id: str) -> bytes | None:
        return self.bodies.get(message_id)


def test_probed_heads_and_sets_merge_an_obfuscated_upload(tmp_path: Path) -> None:
    cat = MergeCatalog(str(tmp_path), probed=False)
    store = Bodies()
    data = [os.urandom(120_000 + i) for i in range(3)]
    names = [f"Some.Film.2021.1080p.part{i + 1:02d}.rar" for i in range(3)]
    index = index_file([set_file(n, d, 4096) for n, d in zip(names, data, strict=True)], 4096)
    holder = cat.release("idx", "b8c1e0f7a9d2", [("b8c1e0f7a9d2.par2", len(index))],
                         posted=T0, pending=True)  # fmt: skip
    store.bodies[cat.candidate(holder, "b8c1e0f7a9d2.par2", "par2_index")] = first_part(
        index, "b8c1e0f7a9d2.par2"
    )
    parts = []
    for i, d in enumerate(data):
        name = f"{os.urandom(8).hex()}"
        key = cat.release(f"f{i}", name, [(name, len(d) + 4000)], posted=T0 + 60 * (i + 1),
                          pending=True)  # fmt: skip
        store.bodies[cat.candidate(key, name, "lone_random")] = first_part(d, name)
        parts.append(key)
    catalog = cat.write()

    before = merge_catalog(catalog)
    assert before.spans == 0 and before.waiting  # not probed yet: the merge waits
    probed = probe_catalog(catalog, StoreSource(store))
    assert probed.outcomes.get("named") == 1
    summary = merge_catalog(catalog)
    assert summary.absorbed == {"par2": 3}
    whole = shown(catalog)
    assert set(whole) == {holder}
    assert whole[holder]["name"] == "Some.Film.2021.1080p" and whole[holder]["files"] == 4
    assert whole[holder]["complete"] is True
    assert {r["from_key"] for r in merges(catalog).to_pylist()} == set(parts)
