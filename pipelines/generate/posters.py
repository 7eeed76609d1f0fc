"""More real posters' shapes for the real mix (issue 26): bare counters, albums named only
by their sidecars, text around random file names that is no name, uploader prefixes.

Each shape is derived from a real subject (../shared/data/subjects/collection_examples.tsv
or the issue's list, quoted as its `example`); the generator fills it with fresh names.
`shapes.py` appends `poster_shapes(...)` to its SHAPES and `real.py` takes `FILE_SETS`
below into its own, so these families are drawn, posted once in the real deck and scored
like the others (`usenet-indexer score --by-family`).

Families:
- `bare_counter`: the file counter without brackets, or with one (`DivX - 28 of 48 -`,
  `[01 of 84 - 64 kb]`, `File 001 of 409 - yEnc` without a file name, a leading
  `04/63  Name.mobi`, `-'- Tag -'- 01/16 - Name.par2`, `German 01/43] - "Name.par2"`);
- `album_sidecars`: `[i/N] - "01 - Track.flac"` whose par2 set, sfv, nfo and m3u carry
  the album's name, which a person expects as the release's name;
- `no_name`: `(????)`, `Description`, `4y (PW) [ site.info - powered by ... ]`, a lone
  format tag or `..:[Tag]:..` before the file name: over random file names the upload
  is pending (obfuscated in all but form), over readable ones it takes their name;
- `prefix_left`: uploader and site text the names kept (`nEwZ[NZB]_wz_cz - `,
  `Name uppt `, `(www.Site.org) )Name(`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pipelines.generate import names
from pipelines.generate.files import ReleaseSpec, _ordered, draw_size, obfuscated_release, par2_set
from pipelines.generate.rand import Tokens

if TYPE_CHECKING:
    from pipelines.generate.shapes import Shape

FAMILIES = ("bare_counter", "album_sidecars", "no_name", "prefix_left")
# the shapes whose subjects carry no file name at all (only the counter tells files apart)
NO_FILE_NAME = frozenset({"file_of_no_file"})

Memo = dict[str, Any]
Built = tuple[ReleaseSpec, dict[str, str]]
# the key `real.py` reads: the release name a person expects is the spec's name even though
# the subject does not carry it (the sidecars do)
NAMED_BY_SIDECARS = "named_by_sidecars"


def track_files(
    rng: random.Random, band: str, ext: str, n: int, total: int
) -> list[tuple[str, int]]:
    """An album's n tracks (`01 - Title.flac`), its `total` bytes shared among them."""
    return [
        (names.track_file(rng, i, band, False, ext), max(total // n, 200_000))
        for i in range(1, n + 1)
    ]


def _sidecar_album(rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo) -> Built:
    """An album of `01 - Title.flac` tracks whose par2 set, sfv, nfo or m3u carry its name."""
    band, album = names.artist(rng), names.album_title(rng)
    name = f"{band} - {album} ({rng.randint(1965, 2024)})"
    if rng.random() < 0.4:
        name += rng.choice((" FLAC", " [MP3 320]", " WEB"))
    ext = "flac" if rng.random() < 0.4 else "mp3"
    n = rng.randint(5, 16)
    total = draw_size(rng, "music", cap)
    tracks = track_files(rng, band, ext, n, total)
    sidecars = [(f"{name}.{x}", rng.randint(300, 4_000)) for x in ("sfv", "nfo", "m3u", "cue")]
    kept = [f for f in sidecars if rng.random() < 0.5]
    par2 = par2_set(rng, name, total) if not kept or rng.random() < 0.7 else []
    files = _ordered(rng, [kept, tracks, par2[:1], par2[1:]])
    spec = ReleaseSpec("music", "music", name, files, shared_stem=False)
    return spec, {NAMED_BY_SIDECARS: "1"}


def _docs(rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo) -> Built:
    """A documentary or classic episode in RAR volumes with its par2 set, one stem."""
    title = " ".join(names._title(rng, 2, 3))
    name = rng.choice(
        (
            f"{title} - {rng.randint(1990, 2024)} - {rng.randint(1, 12):02d} - "
            f"{' '.join(names._title(rng, 1, 2))}",
            f"{title} S{rng.randint(1, 9)}E{rng.randint(1, 24):02d}",
            names.tv_episode(rng),
        )
    )
    total = draw_size(rng, "video", cap)
    n = rng.randint(4, 12)
    volumes = [(f"{name}.part{i:02d}.rar", max(total // n, 100_000)) for i in range(1, n + 1)]
    par2 = par2_set(rng, name, total)
    files = _ordered(rng, [par2[:1], volumes, par2[1:]])
    return ReleaseSpec("video", "tv", name, files), {}


def _book_flood(rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo) -> Built:
    """A day's book flood under one subject (`New eBooks 20 Aug 2012`): its files have no
    name in the subject at all."""
    day = f"{rng.randint(1, 28)} {rng.choice(('Jan', 'Mar', 'Jun', 'Aug', 'Nov'))}"
    name = f"New eBooks {day} {rng.randint(2008, 2016)}"
    files = [
        (f"{names.book(rng)}.{rng.choice(('epub', 'mobi'))}", draw_size(rng, "ebook", cap))
        for _ in range(rng.randint(3, 25))
    ]
    return ReleaseSpec("ebook", "book", name, list(dict.fromkeys(files)), shared_stem=False), {}


def _book(rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo) -> Built:
    """A book (`Author - Title`) in one or two formats and a par2 set, one stem."""
    name = names.book(rng)
    size = draw_size(rng, "ebook", cap)
    files = [(f"{name}.{x}", size) for x in ("epub", "mobi")[: rng.randint(1, 2)]]
    return ReleaseSpec("ebook", "book", name, files + par2_set(rng, name, size)), {}


def _obfuscated(rng: random.Random, tokens: Tokens, cap: int, _memo: Memo) -> Built:
    """Random file names: the subject's text around them is all the headers show."""
    return obfuscated_release(rng, tokens, cap), {}


def _readable_movie(rng: random.Random, _tokens: Tokens, cap: int, _memo: Memo) -> Built:
    """A movie's RAR volumes and par2 set under its scene name, one stem."""
    name = names.movie(rng)
    total = draw_size(rng, "video", cap)
    n = rng.randint(4, 14)
    volumes = [(f"{name}.part{i:02d}.rar", max(total // n, 100_000)) for i in range(1, n + 1)]
    par2 = par2_set(rng, name, total)
    return ReleaseSpec("video", "movie", name, _ordered(rng, [par2[:1], volumes, par2[1:]])), {}


FILE_SETS: dict[str, Callable[[random.Random, Tokens, int, Memo], Built]] = {
    "sidecar_album": _sidecar_album,
    "docs": _docs,
    "book_flood": _book_flood,
    "book": _book,
    "obfuscated": _obfuscated,
    "readable_movie": _readable_movie,
}


def poster_shapes(shape: Callable[..., Shape]) -> tuple[Shape, ...]:
    """The shapes, made by `shapes._shape` (passed in: this module is imported by it)."""
    return (
        # --- bare_counter -------------------------------------------------------------------
        shape(
            "bare_counter", "tv", 4, "bare_of_dash",
            '{name} - {i} of {n} - "{file}" yEnc ({k}/{K})', "docs",
            "'Mission: Impossible' - 1x09 - NTSC - DivX - 28 of 48 - \"MI-S01E09.r23\" yEnc",
        ),
        shape(
            "bare_counter", "tv", 3, "bare_of_sized_bracket",
            '"{file}" -  [{i} of {n} - {size}] yEnc ({k}/{K})', "docs",
            '"Universe S4E08.part40.rar" - [41 of 76 - 10013 kb] yEnc', has_name=False,
        ),
        shape(
            "bare_counter", "sounds", 3, "bare_of_track",
            "{name} - {i} of {n} - {file} yEnc ({k}/{K})", "sidecar_album",
            "Sonny Landreth - 2010 - Mississippi Blues - 04 of 29 - 00 - Mississippi Blues.sfv "
            "yEnc",
        ),
        shape(
            "bare_counter", "ebooks", 3, "file_of_no_file",
            "{name} - File {i} of {n} - yEnc ({k}/{K})", "book_flood",
            "New eBooks 20 Aug 2012 - File 001 of 409 - yEnc (the issue)",
        ),
        shape(
            "bare_counter", "ebooks", 3, "leading_bare_counter",
            "{i}/{n}  {file}  yEnc ({k}/{K})", "book",
            "04/63  Brave New World Revisited - Aldous Huxley.mobi  yEnc", has_name=False,
        ),
        shape(
            "bare_counter", "tv", 3, "tagged_bare_counter",
            "-'- {tag} -'- {i}/{n} - {file} yEnc ({k}/{K})", "docs",
            "-'- Doc2011 -'- 01/16 - Glorious.Accidents.2011.par2 (the issue)", has_name=False,
        ),
        shape(
            "bare_counter", "movies", 3, "lone_bracket",
            '{name} {i}/{n}] - "{file}" yEnc ({k}/{K})', "readable_movie",
            'Old Dad uppt Scary Movie5 WEB RiP Line XviD German 01/24] - "Scary Movie 5.par2" yEnc',
        ),
        # --- album_sidecars ----------------------------------------------------------------
        shape(
            "album_sidecars", "sounds", 8, "tracks_named_by_sidecars",
            '[{i}/{n}] - "{file}" yEnc ({k}/{K})', "sidecar_album",
            '[1/19] - "01 - River.flac" beside "Dark Golden - Lost Quest (1995) FLAC.vol00+01.par2"'
            " (the issue)", has_name=False,
        ),
        # --- no_name ------------------------------------------------------------------------
        shape(
            "no_name", "movies", 3, "question_marks",
            '(????) [{i}/{n}] - "{file}" yEnc ({k}/{K})', "obfuscated",
            '(????) [001/107] - "260713thbldnstnsclw.par2" yEnc', has_name=False,
        ),
        shape(
            "no_name", "movies", 3, "description",
            '({i}/{n}) - Description - "{file}" - {size} - yEnc ({k}/{K})', "obfuscated",
            '(001/105) - Description - "oH291TB0bPxf3lqm1P7QQ.par2" - 4,56 GB - yEnc',
            has_name=False,
        ),
        shape(
            "no_name", "movies", 3, "powered_by",
            '4y (PW)   [@ {site}.info - powered by ssl.news -] [{size}] [{i}/{n}] "{file}" yEnc'
            " ({k}/{K})", "obfuscated",
            '4y (PW)   [@ usenet-4all.info - powered by ssl.news -] [27,35 GB] [001/118] '
            '"1f8867bb6f89491793d3.part001.rar" yEnc', has_name=False,
        ),
        shape(
            "no_name", "movies", 2, "lone_format",
            '1080p [{i}/{n}] - "{file}" yEnc ({k}/{K})', "obfuscated",
            "a lone format tag before random names (the issue: `1080p`)", has_name=False,
        ),
        shape(
            "no_name", "games", 2, "decorated_tag_readable",
            '..:[{tag}]:..    {size}    "{file}"    {fsize} B yEnc ({k}/{K})', "readable_movie",
            '..:[DoAsYouLike]:..    9,64 MB    "Snooper 1.39.5.par2"    468 B yEnc',
            has_name=False, has_counter=False,
        ),
        shape(
            "no_name", "movies", 2, "question_marks_readable",
            '(????) [{i}/{n}] - "{file}" yEnc ({k}/{K})', "readable_movie",
            '(????) [02/71] - "Lasting Weep (1969-1971).part.par2" yEnc', has_name=False,
        ),
        # --- prefix_left --------------------------------------------------------------------
        shape(
            "prefix_left", "tv", 3, "nzb_tag",
            'nEwZ[NZB]_{j}_{m} - {name} - [{i}/{n}] - "{file}" yEnc ({k}/{K})', "docs",
            "nEwZ[NZB]_wz_cz - u.s.drug.wars.s02e06... (the issue)",
        ),
        shape(
            "prefix_left", "sounds", 2, "nzb_info_file",
            'nEwZ[NZB].iNFO - {name} - File [{i}/{n}]: "{file}" yEnc ({k}/{K})', "sidecar_album",
            "nEwZ[NZB].iNFO - VA-Universal_Music_Sampler_07_February-PROMO-CDR-FLAC-2013-WRE - "
            'File [6/9]: "01-alesso-years_(hard_rock_sofa_remix).flac"',
        ),
        shape(
            "prefix_left", "movies", 3, "uppt",
            '{user} uppt {name} [{i}/{n}] - "{file}" yEnc ({k}/{K})', "readable_movie",
            'Old Dad uppt In ihrem Haus DVD Ripp AC3 German Xvid [01/31] - "In ihrem Haus.par2"',
        ),
        shape(
            "prefix_left", "tv", 2, "outward_parens",
            '(www.{site}.org) ){name}( - [{i}/{n}] - "{file}" yEnc ({k}/{K})', "docs",
            "(www.Thunder-News.org) )Panamericana.2012.German.DOKU.720p.HDTV.x264-TVP( (the issue)",
        ),
    )  # fmt: skip
