"""Plain-Python reference of kernels.segment_rows: the same rows, one index at a time.

The bundles (`Lines`, `Live`, `Classes`) as mappings of a list per column name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pipelines.subjects.hashing import mix

Columns = Mapping[str, Sequence[int]]
KEPT_FROM_CLASS = ("source", "file_index", "file_total", "ext_class", "volume", "random_name")


def in_play(
    pos: list[int], live: Columns, lines: Columns, classes: Columns
) -> list[dict[str, int]]:
    rows = []
    for p in pos:
        line, cls = live["line"][p], live["cls"][p]
        poster = lines["poster"][line]
        rows.append(
            {
                "line": line,
                "cls": cls,
                "poster": poster,
                "file_key": mix(poster, classes["file_key"][cls]),
                "ident": mix(poster, classes["ident"][cls]),
                "nbytes": max(lines["nbytes"][line], 0),
                "date": lines["date"][line],
                "part": live["part"][p],
                "part_total": live["part_total"][p],
                "article": lines["number"][line],
            }
        )
    return rows


def kept(
    keep: list[int], play: list[dict[str, int]], lines: Columns, classes: Columns
) -> list[dict[str, int]]:
    rows = []
    for k in keep:
        row = play[k]
        cls = row["cls"]
        rows.append(
            {
                "line": row["line"],
                "cls": cls,
                "file_key": row["file_key"],
                "ident": row["ident"],
                "poster": row["poster"],
                "number": row["part"],
                "part_total": row["part_total"],
                "nbytes": row["nbytes"],
                "article": row["article"],
                "date": row["date"],
                **{name: classes[name][cls] for name in KEPT_FROM_CLASS},
                "mid_start": lines["mid_start"][row["line"]],
                "mid_end": lines["mid_end"][row["line"]],
            }
        )
    return rows
