"""The judge's rules, in their order: the first that matches a release is its verdict.

- dead: health's current verdict is dead, or (no newer health verdict) every probed
  article answered 430;
- fake: a film, episode or music name whose content is programs: its files are
  executables by name, an archive listing holds only executables, or a probed file's
  first bytes are a program;
- repeated: files whose 16 KiB hash and size appear in `REPEAT_RELEASES` or more live
  releases hold at least half of its bytes;
- locked: passworded (an archive read was encrypted), with no known password;
- unusable: random names (pending, unnamed), no usable inner name, nothing merged into
  it, settled for a day.

The rule set's version (`RULES_VERSION`) is the fingerprint of `RULES_DOC`, as the header
pass stamps its own: change a threshold (or a rule, bumping `version`) and every release
is judged again, each verdict stamped with the new version.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kernels import names as nk
from kernels import subject as sk
from pipelines import naming
from pipelines.index.rules import fingerprint_of
from pipelines.probe import inspection as ins
from pipelines.probe.learned import PACKAGING, _usable
from pipelines.subjects.file_names import classify

DEAD, FAKE, REPEATED, LOCKED, UNUSABLE = "dead", "fake", "repeated", "locked", "unusable"
ORDER = (DEAD, FAKE, REPEATED, LOCKED, UNUSABLE)

DAY = 86400
REPEAT_RELEASES = 20  # a file in this many releases is repeated junk (19 is not)
REPEAT_SHARE = 0.5  # of a release's bytes the repeated files must hold
# Newznab category thousands a film, an episode or music is filed under
MEDIA_CATEGORIES = (2, 3, 5)

RULES_DOC = {
    "version": "2",  # 2: a media-named file whose first bytes are a program is fake
    "order": list(ORDER),
    "settle_seconds": DAY,
    "repeat_releases": REPEAT_RELEASES,
    "repeat_share": REPEAT_SHARE,
    "media_categories": list(MEDIA_CATEGORIES),
}


def rules_version(doc: dict[str, object] | None = None) -> str:
    return fingerprint_of(dict(doc if doc is not None else RULES_DOC))


RULES_VERSION = rules_version()

HEALTH_DEAD = "dead"
ARCHIVE_KINDS = frozenset((ins.RAR, ins.SEVEN_ZIP, ins.ZIP))


@dataclass
class Probed:
    """One probed article of the release (a `probe_results` row, the columns used)."""

    status: str | None
    kind: str | None
    yenc_name: str | None = None
    names: list[str] | None = None


@dataclass
class Facts:
    """What the catalog knows of one live release."""

    key: bytes
    group: str
    name: str
    posted_last: int
    size: int  # its bytes (yEnc's)
    pending: bool = False  # in pending_releases and not named since
    readable: bool = True
    health: str | None = None  # the current health verdict (null: none or a stamp)
    health_at: int = 0
    probes: int = 0  # the newest release_probes row's counts
    missing: int = 0
    probed_at: int = 0
    password: int | None = None
    password_text: str | None = None
    inner: list[str] = field(default_factory=list)  # inner names, NFO title, probed name
    merged_into_it: bool = False
    files: list[str] = field(default_factory=list)  # its file names (release_files)
    probed: list[Probed] = field(default_factory=list)
    # (16 KiB hash, size, how many live releases hold it) of its content files
    copies: list[tuple[bytes, int, int]] = field(default_factory=list)


# an executable's name ends so (`classify` says it exactly; this spares it the others)
EXE_SUFFIXES = tuple(f".{e}" for e, c in nk.EXTENSIONS.items() if c == nk.EXECUTABLE)


def ext_class(file_name: str) -> int:
    return classify(file_name.encode("utf-8", "surrogateescape"))[0]


def executable(file_name: str) -> bool:
    return ext_class(file_name) == sk.EXECUTABLE


def content_names(names: Iterable[str]) -> list[str]:
    """The names that are no packaging (par2, sfv, nzb, nfo, text)."""
    out = []
    for n in names:
        base = n.replace("\\", "/").rsplit("/", 1)[-1]
        if ext_class(base) not in PACKAGING:
            out.append(base)
    return out


def media_name(name: str) -> bool:
    """A film, episode or music name, by the name alone (not the groups: a program posted
    to a film group is no film by name)."""
    return naming.category_of(name, []) // 1000 in MEDIA_CATEGORIES


def dead(f: Facts) -> str | None:
    if f.health == HEALTH_DEAD:
        return "health: dead"
    if f.probes > 0 and f.missing >= f.probes and f.probed_at >= f.health_at:
        return f"probes: {f.missing} of {f.probes} articles gone (430)"
    gone = all(p.status == ins.MISSING for p in f.probed)
    if f.health is None and f.probes == 0 and f.probed and gone:
        return f"probes: {len(f.probed)} of {len(f.probed)} articles gone (430)"
    return None


def _programs(f: Facts) -> str | None:
    """What shows the content is programs, or None."""
    files = f.files if any(n.lower().endswith(EXE_SUFFIXES) for n in f.files) else []
    files = content_names(files)
    if files and all(executable(n) for n in files):
        return f"files are executables: {files[0]}"
    for p in f.probed:
        if p.kind in ARCHIVE_KINDS and p.names:
            entries = content_names(p.names)
            if entries and all(executable(n) for n in entries):
                return f"archive holds only executables: {entries[0]}"
        if p.kind == ins.PROGRAM:
            return f"first bytes are a program: {p.yenc_name or '?'}"
    return None


def _media_file_of_programs(f: Facts) -> bool:
    """A file named as a video or a track whose first bytes are a program: a media name
    by itself, whatever the release's name says (`Artist-Album-2CD-2003-GRP` names no
    category, its `.mp3` does)."""
    return any(
        p.kind == ins.PROGRAM
        and p.yenc_name
        and classify(p.yenc_name.encode("utf-8", "surrogateescape"))[0] in (nk.VIDEO, nk.AUDIO)
        for p in f.probed
    )


def fake(f: Facts) -> str | None:
    shown = _programs(f)  # cheaper than the name's category, and rarely true
    if shown is None or not (media_name(f.name) or _media_file_of_programs(f)):
        return None
    return f"media name over programs; {shown}"


def repeated(f: Facts) -> str | None:
    if not f.copies:
        return None
    hit = [(h, size, n) for h, size, n in f.copies if n >= REPEAT_RELEASES]
    if not hit:
        return None
    known = sum(size for _, size, _ in f.copies)
    share = sum(size for _, size, _ in hit)
    # `size` is yEnc's (a little more than the files'), par2 volumes included
    if share < REPEAT_SHARE * max(known, f.size) * 0.97:
        return None
    h, size, n = max(hit, key=lambda c: c[1])
    return f"16 KiB hash {h.hex()} of {size:,} bytes in {n} releases"


def locked(f: Facts) -> str | None:
    if f.password == 1 and not f.password_text:
        return "passworded, no known password"
    return None


def unusable(f: Facts, settled_line: int) -> str | None:
    if not (f.pending or not f.readable):
        return None
    if f.merged_into_it or any(_usable(n) for n in f.inner if n):
        return None
    if f.posted_last > settled_line:
        return None  # young: the article pass or a merge may still name it
    return "random names, no inner name, no merge, a day settled"


def judge(f: Facts, settled_line: int) -> tuple[str, str] | None:
    """The first rule that matches, with what it saw; None: none does."""
    for rule, test in (
        (DEAD, dead),
        (FAKE, fake),
        (REPEATED, repeated),
        (LOCKED, locked),
    ):
        detail = test(f)
        if detail is not None:
            return rule, detail
    detail = unusable(f, settled_line)
    return (UNUSABLE, detail) if detail is not None else None
