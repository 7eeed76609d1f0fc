"""Spot categories as Newznab ids: one table, every id a standard one."""

from __future__ import annotations

import csv

import pytest

from pipelines.nzb.categories import CATEGORIES
from pipelines.spots.categories import newznab_category
from tests.shared_data import DATA, needs_data


@pytest.mark.parametrize(
    ("head", "subcats", "expected"),
    [
        (0, ["a4", "z0"], 2040),  # x264 film: HD
        (0, ["a0", "z0"], 2030),  # DivX film: SD
        (0, ["a6"], 2050),  # Blu-ray
        (0, ["a14"], 2060),  # 3D
        (0, ["a4", "z1"], 5040),  # x264 series
        (0, ["a15", "z1"], 5045),  # UHD series
        (0, ["a9", "z3"], 6040),  # erotic HD
        (0, ["a5", "z0"], 7020),  # an ePub sent as a film: a book (Spotweb's 2000 complaint)
        (0, ["a0", "z2"], 7020),  # type book
        (0, ["a12", "z4"], 7010),  # pictures
        (0, ["z0"], 2000),  # no format: the type's parent
        (1, ["a0"], 3010),  # MP3
        (1, ["a8"], 3040),  # FLAC
        (1, ["a0", "z3"], 3030),  # spoken word
        (2, ["a0"], 4050),  # a Windows game
        (2, ["a17"], 1180),  # PS4 (text in Spotweb's table)
        (2, ["a18"], 1140),  # Xbox One
        (2, ["a99"], 1000),
        (3, ["a0"], 4020),
        (3, ["a7"], 4070),  # Android
        (3, ["a3"], 4000),  # OS/2: no id, the parent
    ],
)
def test_a_spot_category_maps_to_its_newznab_id(head, subcats, expected):
    assert newznab_category(head, subcats) == expected


@needs_data("newznab")
def test_every_id_the_table_gives_is_a_standard_one():
    with open(DATA / "newznab" / "categories.tsv", encoding="utf-8") as fh:
        rows = [r for r in csv.reader(fh, delimiter="\t") if r and r[0].strip().isdigit()]
    standard = {int(r[0]) for r in rows}
    for head in range(4):
        for z in [None, *range(6)]:
            for a in [None, *range(20)]:
                subcats = [f"a{a}"] * (a is not None) + [f"z{z}"] * (z is not None)
                got = newznab_category(head, subcats)
                assert got in standard and got in CATEGORIES, (head, subcats, got)
