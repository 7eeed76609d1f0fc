"""A release's quality from its name: its source, its picture's height, and the quality
name Sonarr and Radarr use for the two (`WEBDL-1080p`, `HDTV-720p`, `Bluray-2160p Remux`).

A source is named in many ways (`WEB-DL`, `AMZN`, `iTunesHD`; `BDRip`, `BD`; `PDTV`,
`DSR`); a height too (`1080p`, `1080i`, `FHD`, `1920x1080`). What a name leaves out is
read as the clients read it: an HDTV name without a height is standard definition, a
`.mkv` file without one is 720p, MPEG-2 at 720p or more from TV is the raw broadcast.
"""

from __future__ import annotations

import re

_WEBDL_RIP = re.compile(r"web[ ._-]?dl[ ._-]?rip", re.I)
_BLURAY = re.compile(
    r"blu-?ray|hd-?dvd|bdlight|\.m2ts$|(?<![a-z])(?:bd|br)(?:rip|mux|25|50|-?remux)?(?![a-z])|bdrip|brrip",
    re.I,
)
_WEBRIP = re.compile(r"(?<![a-z])web[ ._-]?(?:rip|mux)", re.I)
_WEBDL = re.compile(
    r"(?<![a-z])web[ ._-]?dl(?![a-z])|(?<![a-z])web(?:dl|hd)?(?![a-z])|dlmux"
    r"|(?:itunes|amazon|netflix|maxdome|disney|hbomax|amzn|hulu|nf)(?:u?hd|sd)|webmux"
    r"|(?<![a-z])(?:amzn|dsnp|hmax|atvp|itunes|vimeo)(?![a-z])",
    re.I,
)
_HDTV = re.compile(
    r"hdtv|pdtv|(?<![a-z])(?:dsr|sdtv|tvrip|dvb|hd[ ._]?tv|ahdtv|satrip|hr)(?![a-z])", re.I
)
_DVD = re.compile(r"dvd(?:rip|r|5|9|scr)?(?![a-z])|xvidvd|(?<![a-z])(?:ntsc|pal)(?![a-z])", re.I)
_RAW = re.compile(r"mpeg-?2|raw-?hd", re.I)
# a height written as a number first (`UHD BluRay 1080p` is 1080p), then in words
_HEIGHTS = (
    (2160, re.compile(r"2160[pi]?|3840x", re.I)),
    (1080, re.compile(r"1080[pi]|(?<![0-9])1080(?![0-9])|1920x|1440p", re.I)),
    (720, re.compile(r"720[pi]|(?<![0-9x])720(?![0-9])|1280x|960p", re.I)),
    (576, re.compile(r"576[pi]", re.I)),
    (480, re.compile(r"480[pi]|x480|360p|540p|(?<![0-9x])480(?![0-9])", re.I)),
    (2160, re.compile(r"(?<![a-z])(?:4k|uhd)(?![a-z])", re.I)),
    (1080, re.compile(r"(?<![a-z-])fhd(?![a-z])", re.I)),
    (720, re.compile(r"(?<![a-z-])hr(?![a-z])", re.I)),
)
_HEIGHT_HINTS = (("2160", "3840x"), ("1080", "1920x", "1440p"), ("720", "1280x", "960p"),
                 ("576",), ("480", "360p", "540p"), ("4k", "uhd"), ("fhd",), ("hr",))  # fmt: skip


# what each source's regex needs in the lower-cased name: a regex runs only then (the
# alternations scan every position, ~30 µs a name for _WEBDL alone)
_HINTS = {
    "webdl": ("web", "dl", "itunes", "amazon", "netflix", "maxdome", "disney", "hbomax", "amzn",
              "hulu", "nfhd", "nfsd", "nfuhd", "dsnp", "hmax", "atvp", "vimeo"),
    "bluray": ("blu", "bd", "br", "hd-dvd", "hddvd", "m2ts"),
    "hdtv": ("tv", "dsr", "dvb", "hr", "satrip"),
    "dvd": ("dvd", "ntsc", "pal"),
}  # fmt: skip


def _hinted(low: str, source: str) -> bool:
    return any(h in low for h in _HINTS[source])


def source_of(name: str) -> str:
    """remux, bluray, webrip, webdl, hdtv, dvd or '' (not named)."""
    low = name.lower()
    if "remux" in low:
        return "remux"
    if "web" in low and _WEBRIP.search(name):
        return "webrip"
    if _hinted(low, "webdl") and _WEBDL.search(name) and not _WEBDL_RIP.search(name):
        return "webdl"
    for source, pattern in (("bluray", _BLURAY), ("hdtv", _HDTV), ("dvd", _DVD)):
        if _hinted(low, source) and pattern.search(name):
            return source
    return ""


def height_of(name: str) -> int:
    """The picture's height the name gives (2160, 1080, 720, 576, 480), 0 if none."""
    low = name.lower()
    for (height, pattern), hints in zip(_HEIGHTS, _HEIGHT_HINTS, strict=True):
        if any(h in low for h in hints) and pattern.search(name):
            return height
    return 0


_NOT_QUALITY = re.compile(r"^\s*\[[^\]]*\]|[\[(][0-9A-F]{8}[\])]")  # a fansub's group, a CRC
_HD_TV = re.compile(r"\[HDTV\]|(?<![a-z])HD[ ._]TV(?![a-z])", re.I)  # Sonarr's own naming: 720p
_SD_CODEC = re.compile(r"x-?vid|divx|bdrip|brrip", re.I)  # a rip to standard definition


def quality_of(name: str) -> str:
    """The quality name for a release name, '' if the name says nothing of it."""
    name = _NOT_QUALITY.sub(" ", name.strip())
    source, height = source_of(name), height_of(name)
    if not height and _HD_TV.search(name):
        height = 720
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if re.search(r"(?<![a-z])mkv(?![a-z])", name, re.I):
        extension = "mkv"
    if _RAW.search(name) and (height >= 720 or "raw" in name.lower()) and source in ("hdtv", ""):
        return "RAWHD"
    if source == "remux":
        if height in (480, 576, 720):
            return f"Bluray-{height}p"
        return f"Bluray-{2160 if height == 2160 else 1080}p Remux"
    if source == "bluray":
        return f"Bluray-{height or (480 if _SD_CODEC.search(name) else 720)}p"
    if source in ("webdl", "webrip"):
        label = "WEBDL" if source == "webdl" else "WEBRip"
        if not height:
            height = 720 if extension == "mkv" else 480
        return f"{label}-{480 if height == 576 else height}p"
    if source == "dvd" and height < 720:
        return "DVD"
    if height >= 720:
        return f"HDTV-{height}p"
    if source in ("hdtv", "dvd") or height:
        return "SDTV"
    if extension in ("avi", "mp4", "wmv", "m4v"):
        return "SDTV"
    if extension == "mkv":
        return "HDTV-720p"
    if re.search(r"x264|h\.?264|xvid|divx", name, re.I):
        return "SDTV"
    return ""
