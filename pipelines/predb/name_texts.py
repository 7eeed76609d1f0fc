"""A group's new names as columns: the texts a pre can be found by, their keys, and the
facts of the releases they belong to (`pipelines.predb.names.read_groups` reads the
partitions; this makes the tables).

Column-wise from end to end: a header pass of a million lines hands the scan ~2,000
releases and ~20,000 files, and a Python object a release with a list of names cost the
scan more than the matching (a fifth of its cycle). A set's 40 volumes are one stem
(`kernels.file_stems`), every text is keyed by a kernel (`kernels.name_keys`), and only
the few names that hit a pre become Python objects (`match`).

- *texts*: `release_key`, `text`, `where` (`WHERE`): release names, file stems, request
  ids (`group:id`) and the article pass's inner names and NFO titles;
- *facts*: per release `release_key`, `bytes`, `first_article`, `last_article`,
  `pending`: its files' bytes without the par2 volumes when its files came in the same
  cycle (a PreDB counts the release, not the recovery set), else its own row's bytes;
- *keyed*: `key`, `release_key`, `where`, `text`: one row per distinct key of a
  release, from its best place (`release` before `file` before `inner`).
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.predb import keys as K

WHERE = {"release": 0, "file": 1, "inner": 2, "request": 3}
WHERE_NAMES = {v: k for k, v in WHERE.items()}
# a request post's subject opens with its id: `[123456]-[FULL]-[#a.b.teevee@EFNet]-[ Title ]`
REQUEST_ID = re.compile(r"^\s*\[(?P<id>\d{1,9})\]\s*-?\s*\[")
KEY = pa.binary(20)
TEXTS = pa.schema([("release_key", KEY), ("text", pa.string()), ("where", pa.uint8())])
FACTS = pa.schema(
    [
        ("release_key", KEY),
        ("bytes", pa.int64()),
        ("first_article", pa.int64()),
        ("last_article", pa.int64()),
        ("pending", pa.bool_()),
    ]
)
CONTENT = pa.schema([("release_key", KEY), ("content", pa.int64())])
KEYED = pa.schema(
    [("key", pa.uint64()), ("release_key", KEY), ("where", pa.uint8()), ("text", pa.string())]
)


def texts(
    keys: pa.ChunkedArray | pa.Array, text: pa.ChunkedArray | pa.Array, where: str
) -> pa.Table:
    """Texts of one place, the empty and null ones left out."""
    t = pa.table({"release_key": keys, "text": pc.cast(text, pa.string())})
    t = t.filter(pc.fill_null(pc.not_equal(t["text"], ""), False))
    code = pa.array(np.full(t.num_rows, WHERE[where], np.uint8))
    return pa.table({"release_key": t["release_key"], "text": t["text"], "where": code}, TEXTS)


def stems(names: pa.ChunkedArray | pa.Array) -> pa.Array:
    """Names without their blanks and file endings (`keys.file_stem` of each, stripped)."""
    return K.file_stems(pc.utf8_trim(pc.fill_null(names, ""), K.BLANKS))


def file_facts(t: pa.Table, group: str) -> tuple[pa.Table, pa.Table]:
    """A `release_files` partition's texts (each release's distinct file stems, and the
    request ids its subjects open with, `group:id`) and each release's content bytes."""
    names = pc.fill_null(t["name"], "")
    par2 = pc.ends_with(pc.ascii_lower(names), ".par2")  # a seventh of ignore_case's cost
    content_bytes = pc.if_else(par2, 0, pc.fill_null(t["bytes"], 0))
    # Acero on this thread: a pool's hand-offs cost more CPU than these rows do
    pairs = pa.table({"k": t["release_key"], "s": stems(names), "b": content_bytes})
    pairs = pairs.group_by(["k", "s"], use_threads=False).aggregate([("b", "sum")])
    content = pa.table({"release_key": pairs["k"], "content": pairs["b_sum"]}, CONTENT)
    found = [texts(pairs["k"], pairs["s"], "file")]
    subjects = pc.fill_null(t["subject"], "")
    maybe = _may_ask(subjects)
    if pc.any(maybe).as_py():
        ids = pc.extract_regex(subjects.filter(maybe), REQUEST_ID.pattern)
        valid = pc.is_valid(ids)
        rid = pc.cast(pc.cast(pc.struct_field(ids.filter(valid), "id"), pa.int64()), pa.string())
        asked = pc.binary_join_element_wise(group, rid, ":")
        req = pa.table({"k": t["release_key"].filter(maybe).filter(valid), "r": asked})
        req = req.group_by(["k", "r"], use_threads=False).aggregate([])
        found.append(texts(req["k"], req["r"], "request"))
    return pa.concat_tables(found), content


def _may_ask(subjects: pa.ChunkedArray) -> pa.ChunkedArray:
    """The subjects `REQUEST_ID` could match: those opening with `[` or RE2's `\\s` (a
    test of the first byte costs a sixth of the regex over every subject)."""
    maybe = pc.starts_with(subjects, "[")
    for blank in " \t\n\f\r":
        maybe = pc.or_(maybe, pc.starts_with(subjects, blank))
    return maybe


def first_facts(parts: list[pa.Table], content: list[pa.Table]) -> pa.Table:
    """One facts row per release (the first read of it wins: a release before its
    pending row), its bytes its files' content where they were read."""
    if not parts:
        return FACTS.empty_table()
    facts = pa.concat_tables(parts)
    order = pa.table({"k": facts["release_key"], "i": np.arange(facts.num_rows)})
    order = order.group_by("k", use_threads=False).aggregate([("i", "min")])
    facts = facts.take(np.sort(order["i_min"].to_numpy()))
    if not content:
        return facts
    sums = pa.concat_tables(content).group_by("release_key", use_threads=False)
    sums = sums.aggregate([("content", "sum")])
    at = pc.index_in(facts["release_key"], sums["release_key"])
    nbytes = pc.coalesce(pc.take(sums["content_sum"], at), facts["bytes"])
    return facts.set_column(FACTS.get_field_index("bytes"), "bytes", nbytes)


def keyed(all_texts: pa.Table) -> pa.Table:
    """Every key of the texts (`keys.column_keys`), one row per distinct key of a release
    (its best place), sorted by key."""
    if not all_texts.num_rows:
        return KEYED.empty_table()
    asks = pc.equal(all_texts["where"], WHERE["request"])
    out = [_keyed(all_texts.filter(pc.invert(asks)), False)]
    if pc.any(asks).as_py():
        out.append(_keyed(all_texts.filter(asks), True))
    t = pa.concat_tables(out).combine_chunks()
    # sorted by key, release and place: the first row of each (key, release) is its best
    key = t["key"].to_numpy()
    release = pc.index_in(t["release_key"], pc.unique(t["release_key"])).to_numpy()
    where = t["where"].to_numpy()
    order = np.lexsort((where, release, key))
    key, release = key[order], release[order]
    first = np.ones(len(order), np.bool_)
    first[1:] = (key[1:] != key[:-1]) | (release[1:] != release[:-1])
    return t.take(order[first])


def _keyed(t: pa.Table, request: bool) -> pa.Table:
    """Each row's keys (one or two: a name that spells a digest has its digest's too)."""
    if not t.num_rows:
        return KEYED.empty_table()
    first, second, more = K.column_keys(t["text"], request)
    rows = [pa.table({"key": first, **_rest(t)}, KEYED)]
    if more.any():
        sel = pa.array(more)
        rows.append(pa.table({"key": second[more], **_rest(t.filter(sel))}, KEYED))
    return pa.concat_tables(rows)


def _rest(t: pa.Table) -> dict[str, pa.ChunkedArray]:
    return {"release_key": t["release_key"], "where": t["where"], "text": t["text"]}
