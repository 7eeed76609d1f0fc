"""Ground truth: what a header pass should rebuild, as Arrow tables and Parquet files.

`uploads.parquet` has one row an upload (its files, their posted message-ids in part
order, the owner group by the owner rule); `noise.parquet` one row per noise article
and group. Together they account for every generated article exactly once.
"""

from __future__ import annotations

import re
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.generate.contents.story import Story
from pipelines.generate.uploads import Upload

FILE_TYPE = pa.struct(
    [
        pa.field("name", pa.string()),
        pa.field("part_total", pa.int32()),
        pa.field("message_ids", pa.list_(pa.string())),
    ]
)
UPLOADS_SCHEMA = pa.schema(
    [
        pa.field("upload_id", pa.int64(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("name", pa.string(), nullable=False),
        pa.field("poster", pa.string(), nullable=False),
        pa.field("groups", pa.list_(pa.string()), nullable=False),
        pa.field("owner_group", pa.string(), nullable=False),
        pa.field("posted_first", pa.int64(), nullable=False),
        pa.field("posted_last", pa.int64(), nullable=False),
        pa.field("files", pa.list_(FILE_TYPE), nullable=False),
        pa.field("file_total", pa.int32()),
        pa.field("complete", pa.bool_(), nullable=False),
        pa.field("readable", pa.bool_(), nullable=False),
        pa.field("repost_of", pa.int64()),
        pa.field("pending", pa.bool_(), nullable=False),
        # beyond the contract: for per-shape scoring of a parser
        pa.field("category", pa.string(), nullable=False),
        pa.field("style", pa.string(), nullable=False),
        pa.field("encoding", pa.string(), nullable=False),
        pa.field("articles", pa.int64(), nullable=False),
    ]
)
# the real mix's truth has these columns too (a classic truth stays as it was)
SHAPE_FIELDS = [
    pa.field("family", pa.string(), nullable=False),  # pipelines.generate.shapes.FAMILIES
    pa.field("group_kind", pa.string(), nullable=False),  # sounds, ebooks, ...; "" for classic
    pa.field("expected_name", pa.string()),  # the name a person expects; null: none shown
]
# what the article pass should find in the probed articles (pipelines.generate.contents)
CONTENT_FIELDS = [
    pa.field("inner_name", pa.string()),  # the release stem a probed article carries; null: none
    pa.field("passworded", pa.bool_(), nullable=False),  # archive data or listing encrypted
    pa.field("name_carrier", pa.string(), nullable=False),  # par2 archive 7z yenc nfo none
]
# split and junk uploads (GenerateConfig.split_and_junk, pipelines.generate.junk)
JUNK_FIELDS = [
    pa.field("split_by", pa.string()),  # per_file tracks sidecar: how the header pass splits it
    pa.field("par2_describes", pa.bool_(), nullable=False),  # an index body lists its files
    pa.field("taken_down", pa.string()),  # all some: its articles gone (truth/gone.parquet)
    pa.field("expected_verdict", pa.string()),  # the judge's first rule that applies
    pa.field("repeat_of", pa.int64()),  # the first upload of its repeated family
    pa.field("fake", pa.string()),  # exe archive media: how a media name covers a program
]
# obfuscating tools' uploads (GenerateConfig.tool_obfuscation, pipelines.generate.obfuscation)
TOOL_FIELDS = [
    pa.field("obfuscation", pa.string()),  # the family; null: not a tool-obfuscation upload
]
SHAPED_SCHEMA = pa.schema([*UPLOADS_SCHEMA, *SHAPE_FIELDS, *CONTENT_FIELDS])
UPLOADS_SCHEMA = pa.schema([*UPLOADS_SCHEMA, *CONTENT_FIELDS])
GONE_SCHEMA = pa.schema([pa.field("message_id", pa.string(), nullable=False)])
# the judge's rules in order (issue 20): the first that applies is the verdict
VERDICTS = ("dead", "fake", "repeated", "locked", "unusable")
NOISE_SCHEMA = pa.schema(
    [
        pa.field("message_id", pa.string(), nullable=False),
        pa.field("group", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
    ]
)


def uploads_table(
    uploads: list[Upload],
    names: list[str],
    stories: list[Story],
    shapes: bool = False,
    junk: bool = False,
    tools: bool = False,
) -> pa.Table:
    """One row an upload; with `shapes` (the real mix) its family, group kind and
    expected name as well; `stories` (one an upload) say what its articles hold; with
    `junk` (split_and_junk) how it is split, taken down and judged; with `tools`
    (tool_obfuscation) the obfuscating tool's family."""
    schema = SHAPED_SCHEMA if shapes else UPLOADS_SCHEMA
    if junk:
        schema = pa.schema([*schema, *JUNK_FIELDS])
    if tools:
        schema = pa.schema([*schema, *TOOL_FIELDS])
    cols: dict[str, list[Any]] = {f.name: [] for f in schema}
    for u in uploads:
        cols["upload_id"].append(u.upload_id)
        cols["kind"].append(u.kind)
        cols["name"].append(u.name)
        cols["poster"].append(u.poster)
        cols["groups"].append([names[g] for g in u.groups])
        # owner rule: the lowest priority number (group index) among its groups
        cols["owner_group"].append(names[min(u.groups)])
        cols["posted_first"].append(u.posted_first)
        cols["posted_last"].append(u.posted_last)
        cols["file_total"].append(u.file_total)
        cols["complete"].append(u.complete)
        cols["readable"].append(u.readable)
        cols["repost_of"].append(u.repost_of)
        cols["pending"].append(u.pending)
        cols["category"].append(u.category)
        cols["style"].append(u.style)
        cols["encoding"].append(u.encoding)
        cols["articles"].append(u.articles)
        if shapes:
            cols["family"].append(u.family)
            cols["group_kind"].append(u.group_kind)
            cols["expected_name"].append(expected_name(u))
    for story in stories:
        cols["inner_name"].append(story.inner_name)
        cols["passworded"].append(story.passworded)
        cols["name_carrier"].append(story.name_carrier)
    if junk:
        for u, story in zip(uploads, stories, strict=True):
            cols["split_by"].append(u.split_by)
            cols["par2_describes"].append(par2_describes(u))
            cols["taken_down"].append(u.taken_down)
            cols["expected_verdict"].append(expected_verdict(u, story))
            cols["repeat_of"].append(u.repeat_of)
            cols["fake"].append(u.fake)
    if tools:
        cols["obfuscation"] = [u.obfuscation for u in uploads]
    cols["files"] = _files_column(uploads)
    return pa.table(cols, schema=schema)


def expected_name(u: Upload) -> str | None:
    """The release name a person expects: a shaped upload's own; for today's shapes the
    truth's name of a readable upload (none for albums, named by their template)."""
    if u.family != "classic":
        return u.expected_name
    return u.name if u.readable and u.kind != "album" else None


def par2_describes(u: Upload) -> bool:
    """Its par2 index has a stored body (posted from part 1, not taken down): that body
    lists every file of the set but those posted apart, by name, size and 16 KiB hash
    (pipelines.generate.contents.build)."""
    gone = set(u.gone)
    return any(
        f.name.lower().endswith(".par2")
        and ".vol" not in f.name.lower()
        and f.first_part == 1
        and f.message_ids[0] not in gone
        for f in u.files
    )


def expected_verdict(u: Upload, story: Story) -> str | None:
    """The judge's verdict by its rule order, the first that applies:
    - dead: every article taken down, or some and no par2 recovery volume posted;
    - fake: a media name over a program;
    - repeated: one media file in a family of 21-30 releases;
    - locked: passworded (the generator never tells a password);
    - unusable: obfuscated and nothing names it (no inner name, no par2 set that names
      its files);
    None: none applies."""
    if u.taken_down == "all" or (u.taken_down == "some" and not _recovery_volumes(u)):
        return "dead"  # articles gone and no par2 volume to rebuild them: dead, not broken
    if u.fake is not None:
        return "fake"
    if u.repeat_of is not None:
        return "repeated"
    if story.passworded:
        return "locked"
    if u.kind == "obfuscated" and story.inner_name is None:
        return "unusable"
    return None


_RECOVERY_VOLUME = re.compile(r"\.vol\d+[+-]\d+\.par2$", re.IGNORECASE)


def _recovery_volumes(u: Upload) -> bool:
    return any(_RECOVERY_VOLUME.search(f.name) for f in u.files)


def gone_table(uploads: list[Upload]) -> pa.Table:
    """Every taken-down article's message-id, upload by upload."""
    return pa.table({"message_id": [m for u in uploads for m in u.gone]}, schema=GONE_SCHEMA)


def _files_column(uploads: list[Upload]) -> pa.Array:
    """Every upload's files as one list-of-struct array, built from flat columns and
    offsets: Arrow converting a dict a file and a list a file's ids costs far more."""
    names: list[str] = []
    totals: list[int] = []
    ids: list[str] = []
    id_offsets = [0]
    file_offsets = [0]
    for u in uploads:
        for f in u.files:
            names.append(f.name)
            totals.append(f.part_total)
            ids.extend(f.message_ids)
            id_offsets.append(len(ids))
        file_offsets.append(len(names))
    id_lists = pa.ListArray.from_arrays(
        pa.array(id_offsets, pa.int32()), pa.array(ids, pa.string())
    )
    files = pa.StructArray.from_arrays(
        [pa.array(names, pa.string()), pa.array(totals, pa.int32()), id_lists],
        fields=list(FILE_TYPE),
    )
    return pa.ListArray.from_arrays(
        pa.array(file_offsets, pa.int32()), files, type=pa.list_(FILE_TYPE)
    )


def noise_table(blocks: list[tuple[list[str], int, str]], names: list[str]) -> pa.Table:
    """One row per noise article; blocks are (message-ids, group index, kind)."""
    return pa.table(
        {
            "message_id": [mid for ids, _, _ in blocks for mid in ids],
            "group": [names[g] for ids, g, _ in blocks for _ in ids],
            "kind": [kind for ids, _, kind in blocks for _ in ids],
        },
        schema=NOISE_SCHEMA,
    )


def write_parquet(table: pa.Table, url: str) -> int:
    """Write a table through fsspec, atomically; returns the bytes written."""
    sink = pa.BufferOutputStream()
    # no dictionary pages: most columns are message-ids, all distinct, where Arrow would
    # try a dictionary, give up and fall back (slower, and no smaller)
    pq.write_table(table, sink, compression="zstd", use_dictionary=False)
    payload = sink.getvalue().to_pybytes()
    fs, path = open_fs(url)
    atomic_put(fs, path, payload)
    return len(payload)
