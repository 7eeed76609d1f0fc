"""RSS `<item>`s from values the index prepared when it was built.

A feed is the hot path of the API (clients poll it). Per request, taking a page's
eleven columns out of the memory-mapped rows (random rows: a page touch per column per
row) and escaping, formatting and dating each value cost ~3 ms of a search's ~5. So the
index build runs `item_values` over the whole segment, column-wise: each release's item
values, escaped and formatted, joined by `SEP` into one string. A page then takes one
column, and each item is one split and one %-format of a template built once per base
URL, key and `attrs=`; only the grabs count and the release's health and verdict
attributes (`index.judgments`: few releases have any) are filled in live.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.nzb.writer import utf8_needs_escape, xml_text
from serving import categories as cat
from serving.newznab.dates import fixed_width_strings, rfc822_column

SEP = "\x1f"  # `xml_text` drops it, so no escaped value holds it
# The prepared values, in order; `grabs`, the constant "0" and the live attributes
# (`extra`: health and verdict) are appended per request.
FIELDS = ("name", "guid", "pubdate", "category", "category_attrs", "size", "files", "poster",
          "group", "complete", "finished", "password", "ids", "grabs", "zero",
          "extra")  # fmt: skip
_AT = {name: i for i, name in enumerate(FIELDS)}
# The attributes after the category ones, in the order clients print them, and the
# value each shows. `finished` is ours: 0 while the release is still being posted (a
# provisional version: a later range adds to it under the same guid), else 1.
ATTRS = {"size": "size", "files": "files", "poster": "poster", "group": "group",
         "usenetdate": "pubdate", "guid": "guid", "grabs": "grabs", "password": "password",
         "complete": "complete", "finished": "finished", "comments": "zero"}  # fmt: skip
_CONTROLS = "[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x{fffe}\\x{ffff}]"  # what xml_text drops
_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"))  # & first
_HEX = np.array([f"{b:02x}".encode() for b in range(256)]).view(np.uint8).reshape(256, 2)


def escaped(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    """`xml_text` over a string column (nulls become ''); untouched when nothing needs it."""
    arr = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if arr.null_count:
        arr = pc.fill_null(arr, "")
    if not utf8_needs_escape(arr.buffers()[2]):
        return arr
    arr = pc.replace_substring_regex(arr, _CONTROLS, "")
    for plain, entity in _ESCAPES:
        arr = pc.replace_substring(arr, plain, entity)
    return arr


def _ints(column: pa.Array | pa.ChunkedArray, fill: int = 0) -> np.ndarray:
    if column.null_count:
        column = pc.fill_null(column, fill)
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.int64)


def _hex(keys: pa.Array | pa.ChunkedArray) -> pa.Array:
    """fixed_size_binary(20) keys as 40 lower-case hex digits."""
    arr = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
    n = len(arr)
    buf = arr.buffers()[1]
    raw = np.frombuffer(buf, np.uint8, count=n * 20, offset=arr.offset * 20) if n else None
    if raw is None:
        return pa.array([], pa.string())
    return fixed_width_strings(_HEX[raw.reshape(n, 20)].reshape(n, 40))


def _category(category: int) -> tuple[str, str]:
    """(`<category>` element, the category attributes: parent, then sub when not a parent)."""
    parent = cat.parent(category)
    attrs = f'<newznab:attr name="category" value="{parent}"/>'
    if category != parent:
        attrs += f'<newznab:attr name="category" value="{category}"/>'
    return f"<category>{xml_text(cat.name(category))}</category>", attrs


def _categories(column: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, pa.Array]:
    codes = _ints(column)
    distinct, at = np.unique(codes, return_inverse=True)
    parts = [_category(int(c)) for c in distinct.tolist()]
    where = pa.array(at.astype(np.int32))
    return (pa.array([p[0] for p in parts], pa.string()).take(where),
            pa.array([p[1] for p in parts], pa.string()).take(where))  # fmt: skip


def password_attr(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Newznab's `password` attribute per release: "1" passworded, "2" holds an inner
    archive, "0" otherwise, *unknown included*. The specification has no value for
    unknown, and clients read any value but "0" as passworded (NZBHydra took nzb.su's
    "-1" so, Sonarr and Prowlarr test `!= 0`): "-1" or an omitted attribute on every
    release not yet probed would hide or mislead; "0" is what every indexer without an
    article pass says, and the one value a client never acts on."""
    values = _ints(column)
    return np.where((values == 1) | (values == 2), values, 0)


def item_values(rows: pa.Table) -> pa.Array:
    """Each row's item values (`FIELDS` up to `finished`), escaped and joined by `SEP`;
    `rows` has the columns of `searcher.LISTED_COLUMNS`."""
    if rows.num_rows == 0:
        return pa.array([], pa.string())
    files = _ints(rows.column("files"))
    total = np.maximum(_ints(rows.column("file_total")), 1)
    done = pc.fill_null(rows.column("complete"), False).to_numpy(zero_copy_only=False)
    complete = np.where(done, 100, np.minimum(99, files * 100 // total))
    category, category_attrs = _categories(rows.column("category"))
    finished = pc.fill_null(rows.column("finished"), False).to_numpy(zero_copy_only=False)
    columns = {
        "name": escaped(rows.column("name")),
        "guid": _hex(rows.column("release_key")),
        "pubdate": rfc822_column(_ints(rows.column("posted_first"))),
        "category": category,
        "category_attrs": category_attrs,
        "size": pc.cast(pa.array(_ints(rows.column("bytes"))), pa.string()),
        "files": pc.cast(pa.array(files), pa.string()),
        "poster": escaped(rows.column("poster")),
        "group": escaped(rows.column("group")),
        "complete": pc.cast(pa.array(complete), pa.string()),
        "finished": pc.cast(pa.array(finished.astype(np.int8)), pa.string()),
        "password": pc.cast(pa.array(password_attr(rows.column("password"))), pa.string()),
        "ids": ids_attrs(rows),
    }
    return pc.binary_join_element_wise(*(columns[f] for f in FIELDS[:-3]), SEP)


@lru_cache(maxsize=256)  # keyed by the caller's key and attrs: bounded
def item_template(
    details: str, nzb: str, nzb_key: str, wanted: frozenset[str] | None
) -> tuple[str, Callable[[list[str]], tuple[str, ...]]]:
    """One item as a %-format string (~2.5x faster than `str.format` with this many
    fields) and the getter of its values, in order, from a split item plus grabs."""
    d, n, k = (part.replace("%", "%%") for part in (details, nzb, nzb_key))
    shown = [a for a in ATTRS if wanted is None or a in wanted or a == "size"]
    attrs = "".join(f'<newznab:attr name="{a}" value="%s"/>' for a in shown)
    template = (
        f'<item><title>%s</title><guid isPermaLink="true">{d}%s</guid>'
        f"<link>{n}%s{k}</link><comments>{d}%s#comments</comments>"
        f"<pubDate>%s</pubDate>%s<description>%s</description>"
        f'<enclosure url="{n}%s{k}" length="%s" type="application/x-nzb"/>'
        f"%s{attrs}%s%s</item>\n"
    )
    fields = ("name", "guid", "guid", "guid", "pubdate", "category", "name", "guid", "size",
              "category_attrs", *(ATTRS[a] for a in shown), "ids", "extra")  # fmt: skip
    return template, operator.itemgetter(*(_AT[f] for f in fields))


def items_xml(
    values: Sequence[str],
    details: str,
    nzb: str,
    nzb_key: str,
    grabs: Mapping[bytes, int],
    wanted: Sequence[str] | None = None,
    extra: Callable[[bytes], list[tuple[str, str]]] | None = None,
) -> str:
    """The `<item>`s of prepared item values (`item_values`). `details` and `nzb` are
    the escaped URL prefixes a guid completes, `nzb_key` the escaped `&apikey=...` that
    follows it ('' when none); `extra(key)`: the release's live attributes."""
    template, pick = item_template(
        details, nzb, nzb_key, None if wanted is None else frozenset(wanted)
    )
    out = []
    for value in values:
        parts = value.split(SEP)
        key = bytes.fromhex(parts[1])
        parts.append(str(grabs.get(key, 0)) if grabs else "0")
        parts.append("0")
        parts.append(extra_xml(extra(key), wanted) if extra is not None else "")
        if wanted is not None and parts[_AT["ids"]]:
            parts[_AT["ids"]] = _wanted_ids(parts[_AT["ids"]], wanted)
        out.append(template % pick(parts))
    return "".join(out)


def extra_xml(attrs: list[tuple[str, str]], wanted: Sequence[str] | None) -> str:
    """`newznab:attr` elements of live attributes (those `attrs=` asks for, if given)."""
    return "".join(
        f'<newznab:attr name="{name}" value="{xml_text(value)}"/>'
        for name, value in attrs
        if wanted is None or name in wanted
    )


# The ids' attributes as Newznab names them (its spec's table; Sonarr reads `tvdbid`,
# `imdb` and `rageid`, Radarr `imdb`, `tmdbid`, `imdbtitle` and `imdbyear`)
_ID_ATTR = re.compile(r'<newznab:attr name="([a-z]+)" value="[^"]*"/>')


def ids_attrs(rows: pa.Table) -> pa.Array:
    """Per row, the `newznab:attr` elements of its ids (`serving/index/ids.py`), '' if none:
    a Python step only for the rows with ids (a segment's build: most have none)."""
    n = rows.num_rows
    if "ids_kind" not in rows.column_names or rows.column("ids_kind").null_count == n:
        return pa.array(np.full(n, "", dtype=object), pa.string())
    at = np.nonzero(pc.is_valid(rows.column("ids_kind")).to_numpy(zero_copy_only=False))[0]
    picked = rows.take(pa.array(at)).select(
        ["imdb", "tvdb", "tvmaze", "tvrage", "tmdb", "ids_title", "ids_year", "ids_season",
         "ids_episode", "ids_kind"]
    ).to_pylist()  # fmt: skip
    out = np.full(n, "", dtype=object)
    for i, row in zip(at.tolist(), picked, strict=True):
        out[i] = "".join(
            f'<newznab:attr name="{name}" value="{xml_text(str(value))}"/>'
            for name, value in _attrs_of(row) if value
        )  # fmt: skip
    return pa.array(out, pa.string())


def _attrs_of(row: dict[str, object]) -> list[tuple[str, object]]:
    imdb = row["imdb"]
    series = row["ids_kind"] == "series"
    out: list[tuple[str, object]] = [
        ("imdb", f"{imdb:07d}" if imdb else None),
        ("imdbid", f"tt{imdb:07d}" if imdb else None),
        ("tvdbid", row["tvdb"]),
        ("tvmazeid", row["tvmaze"]),
        ("rageid", row["tvrage"]),
        ("tmdbid", row["tmdb"]),
    ]
    if series:
        out += [("showtitle", row["ids_title"]), ("season", row["ids_season"]),
                ("episode", row["ids_episode"])]  # fmt: skip
    else:
        out += [("imdbtitle", row["ids_title"]), ("imdbyear", row["ids_year"])]
    return out


def id_attr_pairs(row: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The ids' attributes of one listed row (the JSON feed's), none if it has no ids."""
    if row.get("ids_kind") is None:
        return []
    return [(name, str(value)) for name, value in _attrs_of(dict(row)) if value]


def _wanted_ids(attrs: str, wanted: Sequence[str]) -> str:
    return "".join(m.group(0) for m in _ID_ATTR.finditer(attrs) if m.group(1) in wanted)
