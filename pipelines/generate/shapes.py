"""Subject shapes of the real mix (`--mix real`): templates derived from real subjects.

Each `Shape` is one subject template as real posters write it, tagged with its family
(what makes it hard for a header pass), the kind of group it comes from and a weight
inside that kind. The `example` is the real subject (../shared/data/subjects:
collection_examples.tsv, binsearch_subjects.tsv, ngpost/, nyuu/) the template was
derived from; the generator fills the template with fresh names, never the example's.

Template fields: `{name}` the release name (what a person expects, without any
uploader or site text), `{file}` the file name, `{i}`/`{n}` the file counter, `{k}`/`{K}`
the segment counter, `{size}`/`{fsize}` size text, and the decorations drawn per upload:
`{site}` a site address, `{user}` an uploader or requester, `{tag}` a bracket tag,
`{title}`/`{author}` a book's parts, `{j}`/`{m}` a second, unrelated counter, `{short}` a
poster's nickname for a show.

To add a shape: append a `Shape` below with its family, group kind, weight, template,
whether the subject carries the release name and a file counter, the files it posts
(`FILE_SETS` in `pipelines.generate.real`) and the real subject it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.generate.posters import FAMILIES as POSTER_FAMILIES
from pipelines.generate.posters import poster_shapes
from pipelines.generate.subjects import Style

# The kinds of group and their share of a real mix's shaped uploads. The 755 real
# subjects of collection_examples.tsv come from groups of these kinds: TV 138, sounds
# 126, games 92, ebooks 90, movies 61, pictures 20 (228 from groups of no one kind);
# comics and pictures are raised above their count there, as the issue saw image sets
# split most. Within a kind, each shape's weight follows how often its mark shows among
# that kind's real subjects, raised for the families the issue names.
GROUP_KINDS = {
    "sounds": 20,
    "ebooks": 14,
    "comics": 8,
    "games": 14,
    "movies": 12,
    "tv": 22,
    "pictures": 10,
}
# Share of a real mix's uploads that keep today's (classic) shapes and features: most
# real subjects (about three in four of collection_examples.tsv) show none of the
# families' marks.
CLASSIC_SHARE = 0.45

FAMILIES = (
    "classic",  # today's shapes (docs/GENERATOR.md, Subject styles)
    "album_tracks_only",  # [i/N] - "01 - Track.mp3": no album name, files of many stems
    "unquoted_track",  # Name [i/N] - 01 - Track.mp3 (k/K): the file name not quoted
    "mismatched_counter",  # Name(51/65]"file.r48": the counter's brackets do not match
    "several_counters",  # two counters in one subject; the file's is not the first
    "several_quoted",  # two quoted strings; the file's is not always the first
    "site_prefix",  # REQ:, Re:, Attn: x -, (www.Site.org), Uploader.Presents- before the name
    "site_suffix",  # [Tag], postet by Name, mobi flood after the name
    "collection",  # (Collection Name) [i/N] - "Author - Title.mobi": files of many stems
    "image_set",  # [i/N] - "DSC_0001.jpg": a picture set under one counter
    "shared_short_name",  # SNL [00/22] - "Full.Name...": one nickname for several releases
    "bracket_name",  # [Group] Title - 01 [720p]: a name that starts and ends in brackets
    "of_counter",  # File 15 of 20: / [20 of 27]: a counter in words, names unquoted or not
    *POSTER_FAMILIES,  # bare counters, albums named by sidecars, no names, prefixes (posters.py)
)


@dataclass(frozen=True)
class Shape:
    family: str
    group_kind: str
    weight: float
    style: Style
    files: str  # the file set it posts: a key of FILE_SETS
    example: str  # the real subject it is derived from

    @property
    def name(self) -> str:
        return self.style.name


def _shape(
    family: str,
    kind: str,
    weight: float,
    key: str,
    template: str,
    files: str,
    example: str,
    has_name: bool = True,
    has_counter: bool = True,
) -> Shape:
    return Shape(family, kind, weight, Style(key, template, has_name, has_counter), files, example)


SHAPES: tuple[Shape, ...] = (
    # --- sounds -------------------------------------------------------------------------
    _shape(
        "album_tracks_only", "sounds", 18, "tracks_bracket",
        '[{i}/{n}] - "{file}" yEnc ({k}/{K})', "tracks",
        '[01/19] - "01 - Track Name.mp3" yEnc (1/46)', has_name=False,
    ),
    _shape(
        "album_tracks_only", "sounds", 8, "tracks_no_yenc",
        '[{i}/{n}] - "{file}" ({k}/{K})', "tracks",
        '[7/14] - "07 - Name.flac" (1/58)', has_name=False,
    ),
    _shape(
        "unquoted_track", "sounds", 8, "unquoted_track",
        "{name} [{i}/{n}] - {file} ({k}/{K})", "tagged_tracks",
        "Artist - Album (2013) MP3 [1/19] - 01 - Star Empire Black.mp3 (1/59)",
    ),
    _shape(
        "unquoted_track", "sounds", 4, "attn_unquoted",
        "Attn: {user} - {name} - {file} yEnc ({k}/{K})", "tracks",
        "Attn: wulf109 - Jim Reeves - There's Someone Who Loves You - 01 - Anna Marie.mp3 yEnc",
        has_counter=False,
    ),
    _shape(
        "of_counter", "sounds", 5, "file_of_unquoted",
        "{name} - File {i} of {n}: {file} yEnc ({k}/{K})", "tracks",
        "[1977] Joan Armatrading - Show Some Emotion - File 15 of 20: 06 Joan Armatrading - "
        "Opportunity.flac yEnc",
    ),
    _shape(
        "of_counter", "sounds", 3, "of_bracket",
        '{name} [{i} of {n}] "{file}" yEnc ({k}/{K})', "scene_tracks",
        'Blok_B-Bienvenue_Dans_Mon_Blok_Vol.1-2005-BZ_INT [20 of 27] "01-gangsta.mp3" yEnc',
    ),
    _shape(
        "site_prefix", "sounds", 5, "thunder",
        '(www.{site}.org) >{name}< <Sponsored by {user}> - ({i}/{n}) - "{file}" yEnc ({k}/{K})',
        "scene_tracks",
        "(www.Thunder-News.org) >Dee_And_Crane-Let_The_Music_Play-WEB-2012-UKHx< <Sponsored by "
        'Secretusenet> - "05-dee_and_crane-let_the_music_play.mp3" yEnc',
    ),
    _shape(
        "site_suffix", "sounds", 4, "by_uploader",
        '[{name}] [www.{site}.info by {user}] -  "{file}" yEnc ({k}/{K})', "scene_tracks",
        "[A_New_Found_Glory-Its_All_About_The_Girls-Reissue-CDEP-FLAC-2003-JLM] "
        '[www.usenet4ever.info by Secretusenet] -  "00-a_new_found_glory-....jpg" yEnc',
        has_counter=False,
    ),
    _shape(
        "several_quoted", "sounds", 3, "quoted_name_first",
        '"{name}" [{i}/{n}] - "{file}" yEnc ({k}/{K})', "tracks",
        '"The Absence - Riders Of The Plague" [00/14] - "the_absence-riders_of_the_plague.nzb" '
        "yEnc",
    ),
    _shape(
        "site_suffix", "sounds", 3, "flac_flood",
        '{name} - "{file}" ({i}/{n}) ({fsize} B) {size} Flac Flood yEnc ({k}/{K})', "tracks",
        'Flac Flood Modern Talking - America - "1 - Modern Talking - Win The Race.flac" (01/18) '
        "(29,12 MB) 549,35 MB yEnc",
    ),
    _shape(
        "album_tracks_only", "sounds", 5, "nyuu_no_comment",
        ' [{i}/{n}] - "{file}" yEnc ({k}/{K}) {fsize} ', "tracks",
        'Nyuu\'s default subject with no --comment, --comment2: {comment} [{0filenum}/{files}] - '
        '"{filename}" yEnc ({part}/{parts}) {filesize} {comment2} (nyuu/nyuu-help-full.txt)',
        has_name=False,
    ),
    # --- ebooks -------------------------------------------------------------------------
    _shape(
        "several_quoted", "ebooks", 5, "obfuscated_file_quoted_title",
        '({i}/{n}) "{file}" - {size} - "{name} - epub" yEnc ({k}/{K})', "isbn_books",
        '(1/7) "0865779767.epub" - 88,93 MB - "Anatomic Basis of Neurologic Diagnosis - epub" '
        "yEnc",
    ),
    _shape(
        "several_quoted", "ebooks", 4, "req_title_by_author",
        'REQ: "{title}" by {author} "{file}" yEnc ({k}/{K})', "book_req",
        'REQ: "Title" by Author "Title - Author.epub" yEnc', has_counter=False,
    ),
    _shape(
        "site_prefix", "ebooks", 4, "re_req",
        'Re: REQ: {name} - "{file}"  {fsize} Bytes yEnc ({k}/{K})', "books",
        "Re: REQ: Jay Lake's Mainspring series/trilogy (see titles inside) - \"Lake, Jay - "
        'Clockwork Earth 03 - Pinion [epub].rar"  405.6 kBytes yEnc', has_counter=False,
    ),
    _shape(
        "site_prefix", "ebooks", 4, "attn_quoted",
        'Attn: {user} - {name} - [{i}/{n}] - "{file}" yEnc ({k}/{K})', "books",
        'Attn: Brownian - "del Rey, Maria - Paradise Bay (FBS).rar" yEnc',
    ),
    _shape(
        "site_prefix", "ebooks", 3, "filling_request",
        'Filling Request - {name} [{i}/{n}] - "{file}" yEnc ({k}/{K})', "books",
        "Filling Request - (from the issue's list of prefixes)",
    ),
    _shape(
        "site_suffix", "ebooks", 4, "mobi_flood",
        '{name} - mobi flood - {i}/{n} "{file}" yEnc ({k}/{K})', "books",
        'Patterson flood - Mobi -  15/45  "James Patterson - AC 13 - Double Cross.mobi"',
    ),
    _shape(
        "unquoted_track", "ebooks", 5, "counter_then_bare_file",
        "[{i}/{n}] {file} yEnc ({k}/{K})", "books",
        "[2/4] Graham Masterton - Descendant.mobi", has_name=False,
    ),
    _shape(
        "collection", "ebooks", 6, "paren_collection",
        '({name}) [{i}/{n}] - "{file}" yEnc ({k}/{K})', "collection_books",
        '(Zelazny works) [36/39] - "Roger Zelazny - The Furies.mobi" yEnc',
    ),
    _shape(
        "collection", "ebooks", 3, "counter_then_collection",
        '[{i}/{n}] ({name}) - "{file}" yEnc ({k}/{K})', "collection_books",
        '[001/125] (NL Epub Wierook Set 49) - "Abulhawa, Susan - Litteken van David.epub" yEnc',
    ),
    # --- comics -------------------------------------------------------------------------
    _shape(
        "collection", "comics", 8, "comic_pack",
        '({name}) [{i}/{n}] - "{file}" yEnc ({k}/{K})', "comics",
        '(American Curves - Summer 2012) [01/10] - "AMECURSUM12.par2" yEnc',
    ),
    _shape(
        "site_suffix", "comics", 4, "comic_tag",
        '{name} [{tag}] - [{i}/{n}] - "{file}" yEnc ({k}/{K})', "comics",
        "trailing [RexTyler]-style tags (the issue's list)",
    ),
    _shape(
        "several_counters", "comics", 3, "comic_blast",
        '[{tag}] =>{name} ({j}/{m})<= [{i}/{n}] - "{file}" yEnc ({k}/{K})', "comics",
        '[EnJoY] =>A Blast from Usenet Past (1/3)<= [00/14] - "Name.part.nzb" yEnc',
    ),
    # --- games --------------------------------------------------------------------------
    _shape(
        "mismatched_counter", "games", 6, "paren_bracket",
        '{name}({i}/{n}]"{file}" yEnc ({k}/{K})', "game_scene",
        'Name-GROUP(51/65]"rld-name.r48" yEnc',
    ),
    _shape(
        "mismatched_counter", "games", 3, "bracket_paren",
        '{name} [{i}/{n}) - "{file}" yEnc ({k}/{K})', "game_scene",
        'Name-GROUP(51/65]"rld-name.r48" yEnc (the other way round)',
    ),
    _shape(
        "site_prefix", "games", 5, "presents",
        '{user}.Presents-{name}[{i}/{n}]"{file}" yEnc ({k}/{K})', "game_scene",
        'Uploader.Presents-Need.For.Speed.Rivals.XBOX360-PROTOCOL[10/94]"nfs.r-ptc.r07" yEnc',
    ),
    _shape(
        "site_prefix", "games", 4, "site_dash",
        '{site}.net - {name} - [{i}/{n}] - "{file}" yEnc ({k}/{K})', "game_scene",
        'place2home.net - Call.of.Duty.Ghosts.XBOX360-iMARS - [095/101] - "imars-codghosts-'
        '360b.vol049+33.par2" yEnc',
    ),
    _shape(
        "several_counters", "games", 3, "efnet_two_counters",
        '[{post}]-[FULL]-[#a.b.{board}@EFNet]-[{name}]-[{j}/{m}]-[{i}/{n}] - "{file}" yEnc '
        "({k}/{K})",
        "game_scene",
        '[27575]-[#altbin@EFNet]-[Full]-[CD1]-[01/58] - "CD1.par2" yEnc',
    ),
    _shape(
        "several_quoted", "games", 2, "counter_then_name_then_file",
        '[{i}/{n}] - {name} - "{file}" - PC - yEnc ({k}/{K})', "game_scene",
        '[01/46] - Crashtime 5 Undercover RELOADED - "rld-ct5u.nfo" - PC - yEnc',
    ),
    # --- movies -------------------------------------------------------------------------
    _shape(
        "several_quoted", "movies", 5, "quoted_name_paren_counter",
        '"{name}"({i}/{n}) "{file}" - {size} yEnc ({k}/{K})', "movie",
        '"Release.Name"(15/56) "Release.Name.part22.rar" - 2.40 GB yEnc',
    ),
    _shape(
        "several_counters", "movies", 4, "two_counters_two_files",
        '- [{j}/{m}] - "{name}.xyz" yEnc - [{i}/{n}] - "{file}" yEnc ({k}/{K})', "movie_obfuscated",
        '- [01/10] - "file.xyz" yEnc - [001/107] - "86u1Qr8mm5.par2" yEnc',
    ),
    _shape(
        "site_prefix", "movies", 4, "usenet4all",
        '!!www.{site}.eu!! - {name} - [{i}/{n}] - "{file}" yEnc ({k}/{K})', "movie",
        '!!www.usenet4all.eu!! - (the issue\'s list of prefixes)',
    ),
    _shape(
        "site_prefix", "movies", 4, "post_voor_u",
        '{user} post voor u op www.{site}.me - [{i}/{n}] - "{file}" yEnc ({k}/{K})', "movie",
        'Egbert47 post voor u op www.nzbworld.me - [01/21] - "100 Hits - Lady Sings The Blues '
        '2006 (5cd\'s).par2" yEnc',
        has_name=False,
    ),
    _shape(
        "site_prefix", "movies", 3, "site_bracket",
        '[www.{site}.pw]-[{name}]-[{i}/{n}] "{file}" - {size} - yEnc ({k}/{K})', "movie_scene",
        "[www.allyourbasearebelongtous.pw]-[The Place Beyond the Pines 2012 1080p US Blu-ray AVC "
        'DTS-HD MA 5.1-HDWinG]-[03/97] "tt1817273-us-hdwing-bd.r00" - 46.51 GB - yEnc',
    ),
    _shape(
        "site_suffix", "movies", 3, "gou_ssl",
        '>{site}< {name} >>www.SSL-News.info< - ({i}/{n}) - "{file}" yEnc ({k}/{K})',
        "movie_scene",
        ">GOU<< ZDF.History.Das.Geiseldrama.von.Gladbeck.GERMAN.DOKU.720p.HDTV.x264-TVP "
        '>>www.SSL-News.info< - (02/35) - "tvp-gladbeck-720p.nfo" yEnc',
    ),
    # --- tv -----------------------------------------------------------------------------
    _shape(
        "site_prefix", "tv", 5, "re_efnet",
        'Re: [{post}]-[FULL]-[#a.b.{board}]-[ {name} ]-[{i}/{n}] - "{file}" yEnc ({k}/{K})',
        "tv_scene",
        "Re: [147053]-[FULL]-[#a.b.teevee]-[ Top_Gear.20x04.HDTV_x264-FoV ]-[11/59] - "
        '"top_gear.20x04.hdtv_x264-fov.r00" yEnc',
    ),
    _shape(
        "site_prefix", "tv", 4, "per_req",
        'Per REQ - "{file}" 512x384 [{i}/{n}] yEnc ({k}/{K})', "tv",
        'Per REQ - "The.Wild.Wild.West.S03E11.The.Night.of.the.Cut-Throats.DVDRip.XVID-tz.par2" '
        "512x384 [01/40] yEnc",
        has_name=False,
    ),
    _shape(
        "site_suffix", "tv", 4, "postet_by",
        '{name} - [{i}/{n}] - "{file}" yEnc ({k}/{K}) postet by {user}', "tv",
        'Eragon postet    Horror     S01 E01   german Sub    [02/22] - "kopiert neu.par2" yEnc',
    ),
    _shape(
        "several_counters", "tv", 3, "tv_two_counters",
        '{name} [{j}/{m}] - [{i}/{n}] - "{file}" yEnc ({k}/{K})', "tv",
        'Native.Instruments...DYNAMiCS.NZB.ONLY [02/13] - "dyn.vol0000+001.PAR2" yEnc',
    ),
    _shape(
        "mismatched_counter", "tv", 2, "tv_paren_bracket",
        '{name} ({i}/{n}] - "{file}" yEnc ({k}/{K})', "tv",
        '[00021]-["1999 Alphaville - Dreamscapes.part069.rar"[ yEnc',
    ),
    _shape(
        "bracket_name", "tv", 4, "fansub_named",
        '{name} [{i}/{n}] - "{file}" yEnc ({k}/{K})', "fansub",
        '[HorribleSubs] Series Title - 01 [1080p] (../shared/data/names)',
    ),
    _shape(
        "bracket_name", "tv", 3, "fansub_files_only",
        '[{i}/{n}] - "{file}" yEnc ({k}/{K})', "fansub",
        '[SubsPlease] Title de Series S2 - 03 (540p) [63501322] (../shared/data/names)',
        has_name=False,
    ),
    _shape(
        "shared_short_name", "tv", 6, "short_name",
        '{short} [{i}/{n}] - "{file}" yEnc ({k}/{K})', "short_named",
        'SNL [00/22] - "Saturday.Night.Live.S44E03.Seth.Meyers.Paul.Simon.720p.HULU.WEB-DL.AAC2.0'
        '.H.264-monkee.nzb" yEnc (1/4) (binsearch_subjects.tsv)',
        has_name=False,
    ),
    _shape(
        "site_suffix", "tv", 3, "nyuu_comment2",
        '{name} [{i}/{n}] - "{file}" yEnc ({k}/{K}) {fsize} www.{site}.info',
        "tv",
        "Nyuu's default subject with --comment2 (nyuu/nyuu-help-full.txt): text after the "
        "segment counter",
    ),
    _shape(
        "site_suffix", "movies", 2, "united_forums",
        "{name} REPOST---WWW.{site}.CO.UK---[{i}/{n}] -{file} ({k}/{K})", "movie_scene",
        "Superman.Boxset.Multi.Pal.DVDR REPOST---WWW.UNITED-FORUMS.CO.UK---[158/416] -Superman2."
        "Multi.Pal.--WWW.UNITED-FORUMS.CO.UK--.r53 (128/201) (message_id_and_from_shapes.md)",
    ),
    # --- pictures -----------------------------------------------------------------------
    _shape(
        "image_set", "pictures", 10, "images_bracket",
        '[{i}/{n}] - "{file}" yEnc ({k}/{K})', "images",
        'image albums under one counter (the issue: 11 of 38 split)', has_name=False,
    ),
    _shape(
        "image_set", "pictures", 6, "images_named",
        '{name} [{i}/{n}] - "{file}" yEnc ({k}/{K})', "images",
        '(NordicAlbino) [01/10] - "SWHQ_NA_675qe0033102suSmzSE.sfv" yEnc',
    ),
    _shape(
        "image_set", "pictures", 4, "images_paren",
        '({i}/{n}) "{file}" - {size} - yEnc ({k}/{K})', "images",
        '(28/55) "Ivan Neville - If My Ancestors Could See Me Now.par2" - 624,44 MB - yEnc',
        has_name=False,
    ),
)  # fmt: skip
SHAPES += poster_shapes(_shape)

BY_KIND: dict[str, tuple[Shape, ...]] = {
    kind: tuple(s for s in SHAPES if s.group_kind == kind) for kind in GROUP_KINDS
}
