"""The standard Newznab categories today's clients expect (Prowlarr's table).

Books is 7000 (the original spec used it for Other); Other is 8000, with 0000 kept
because some indexers still file unclassified releases there.
"""

from __future__ import annotations

CATEGORIES: dict[int, str] = {
    0: "Other",
    10: "Other/Misc",
    20: "Other/Hashed",
    1000: "Console",
    1010: "Console/NDS",
    1020: "Console/PSP",
    1030: "Console/Wii",
    1040: "Console/XBox",
    1050: "Console/XBox 360",
    1060: "Console/Wiiware",
    1070: "Console/XBox 360 DLC",
    1080: "Console/PS3",
    1090: "Console/Other",
    1110: "Console/3DS",
    1120: "Console/PS Vita",
    1130: "Console/WiiU",
    1140: "Console/XBox One",
    1180: "Console/PS4",
    2000: "Movies",
    2010: "Movies/Foreign",
    2020: "Movies/Other",
    2030: "Movies/SD",
    2040: "Movies/HD",
    2045: "Movies/UHD",
    2050: "Movies/BluRay",
    2060: "Movies/3D",
    2070: "Movies/DVD",
    2080: "Movies/WEB-DL",
    2090: "Movies/x265",
    3000: "Audio",
    3010: "Audio/MP3",
    3020: "Audio/Video",
    3030: "Audio/Audiobook",
    3040: "Audio/Lossless",
    3050: "Audio/Other",
    3060: "Audio/Foreign",
    4000: "PC",
    4010: "PC/0day",
    4020: "PC/ISO",
    4030: "PC/Mac",
    4040: "PC/Mobile-Other",
    4050: "PC/Games",
    4060: "PC/Mobile-iOS",
    4070: "PC/Mobile-Android",
    5000: "TV",
    5010: "TV/WEB-DL",
    5020: "TV/Foreign",
    5030: "TV/SD",
    5040: "TV/HD",
    5045: "TV/UHD",
    5050: "TV/Other",
    5060: "TV/Sport",
    5070: "TV/Anime",
    5080: "TV/Documentary",
    5090: "TV/x265",
    6000: "XXX",
    6010: "XXX/DVD",
    6020: "XXX/WMV",
    6030: "XXX/XviD",
    6040: "XXX/x264",
    6045: "XXX/UHD",
    6050: "XXX/Pack",
    6060: "XXX/ImageSet",
    6070: "XXX/Other",
    6080: "XXX/SD",
    6090: "XXX/WEB-DL",
    7000: "Books",
    7010: "Books/Mags",
    7020: "Books/EBook",
    7030: "Books/Comics",
    7040: "Books/Technical",
    7050: "Books/Other",
    7060: "Books/Foreign",
    8000: "Other",
    8010: "Other/Misc",
    8020: "Other/Hashed",
}


def parent(category: int) -> int:
    return category // 1000 * 1000


def name(category: int) -> str:
    """`"TV > HD"` as feeds show it; unknown ids keep their number."""
    label = CATEGORIES.get(category)
    if label is None:
        return str(category)
    return label.replace("/", " > ")


def short_name(category: int) -> str:
    """The subcategory's own name (`"HD"`), as caps lists it."""
    return CATEGORIES.get(category, str(category)).rsplit("/", 1)[-1]


def tree(used: set[int]) -> dict[int, list[int]]:
    """Parents and their subcategories among the categories the catalog uses."""
    out: dict[int, list[int]] = {}
    for c in sorted(used):
        subs = out.setdefault(parent(c), [])
        if c != parent(c):
            subs.append(c)
    return out
