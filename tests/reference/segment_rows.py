"""Plain-Python reference of kernels.segment_rows: the same rows, one index at a time."""

from __future__ import annotations

from pipelines.subjects.hashing import mix


def in_play(
    pos: list[int],
    live_line: list[int],
    live_cls: list[int],
    live_part: list[int],
    live_part_total: list[int],
    line_poster: list[int],
    line_nbytes: list[int],
    line_date: list[int],
    line_number: list[int],
    cls_file_key: list[int],
    cls_ident: list[int],
) -> list[dict[str, int]]:
    rows = []
    for p in pos:
        line, cls = live_line[p], live_cls[p]
        poster = line_poster[line]
        rows.append(
            {
                "line": line,
                "cls": cls,
                "poster": poster,
                "file_key": mix(poster, cls_file_key[cls]),
                "ident": mix(poster, cls_ident[cls]),
                "nbytes": max(line_nbytes[line], 0),
                "date": line_date[line],
                "part": live_part[p],
                "part_total": live_part_total[p],
                "article": line_number[line],
            }
        )
    return rows


def kept(
    keep: list[int],
    play: list[dict[str, int]],
    per_cls: dict[str, list[int]],
    mid_start_of_line: list[int],
    mid_end_of_line: list[int],
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
                **{name: column[cls] for name, column in per_cls.items()},
                "mid_start": mid_start_of_line[row["line"]],
                "mid_end": mid_end_of_line[row["line"]],
            }
        )
    return rows
