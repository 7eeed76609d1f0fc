"""What one probed article showed: the row of the probe cache (`PROBE_RESULTS`).

`pipelines.probe.inspect.inspect_body` makes one from an article body; the fetcher makes
the ones for articles it could not read (430, a dropped connection is not a result).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# status: what the fetch and the decode gave
OK = "ok"
MISSING = "missing"  # 430: the server no longer has it (a result too: never asked again)
BAD_YENC = "bad_yenc"  # no =ybegin/=yend, or a body cut short
BAD_CRC = "bad_crc"  # the part's CRC-32 does not match its bytes
ERROR = "error"  # decoded, but the bytes are no format we read as one (garbage)

# kind: the format the decoded bytes are
PAR2 = "par2"
RAR = "rar"
SEVEN_ZIP = "7z"
ZIP = "zip"
NFO = "nfo"
MEDIA = "media"  # a container or picture, by its first bytes (mkv, mp4, avi, jpg, ...)
PROGRAM = "program"  # an executable (MZ, ELF), by its first bytes
NZB = "nzb"  # an NZB (or a gzipped one) posted in an upload or as one
OTHER = "other"


@dataclass(frozen=True)
class Inspection:
    status: str
    kind: str = OTHER
    yenc_name: str | None = None
    yenc_size: int | None = None  # =ybegin size: the whole file
    names: list[str] = field(default_factory=list)  # set or listing file names
    sizes: list[int | None] = field(default_factory=list)  # parallel to names
    hashes: list[bytes] = field(default_factory=list)  # par2's 16 KiB MD5s, parallel to names
    encrypted: bool | None = None  # passworded: yes, no, unknown
    inner_archive: bool = False  # the listing holds an archive (Newznab password 2)
    nfo_title: str | None = None
    password_text: str | None = None  # a password the article states
    par2_set: bytes | None = None  # the recovery set id
    detail: str = ""  # why a body could not be read
    # MD5 of the file's first 16 KiB (of the whole file when shorter), as a par2 set
    # describes it: only a file's first part holds those bytes; None otherwise
    head_md5: bytes | None = None
    # the bytes of a part of an NZB file and where they begin in it (the whole NZB when
    # `nzb_at` is 0 and they are `yenc_size` long): the article pass imports them, never
    # keeping them in the probe cache (`pipelines.probe.nzbs`)
    nzb: bytes | None = None
    nzb_at: int = 0
