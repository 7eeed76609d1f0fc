"""Word lists the release names are built from (invented titles, real naming conventions)."""

from __future__ import annotations


def _split(text: str, sep: str | None = None) -> tuple[str, ...]:
    return tuple(text.split(sep))


TITLE_WORDS = _split(
    "Silent Harbor Broken Compass Northern Lights Iron Valley Hidden Garden Crimson Tide "
    "Last Frontier Paper Moon Glass House Wild River Midnight Express Golden Hour Cold Case "
    "Secret Island Lost Signal Dark Matter Summer Storm Winter Road Empty Streets Burning Sky "
    "Falling Water Stone Bridge Open Sea Long Night Bright Star Black Forest Green Mile "
    "Red Planet Blue Moon White Noise Second Chance First Light Final Hour Quiet Place "
    "Little Fires Big Sky Deep Cover High Castle Low Tide Hard Target Soft Landing Fast Lane "
    "Ghost Town Neon Dreams Velvet Rope Copper Canyon Silver Lining Shadow Line Open Range "
    "Lucky Seven Rogue Wave Cruel Summer Twin Peaks Sharp Objects Eagle Eye Night Shift"
)

TV_SUFFIXES = ("", "", "", "US", "UK", "2019", "2021")
GROUPS_TV = (
    "NTb",
    "KiNGS",
    "LOL",
    "DIMENSION",
    "FLEET",
    "TEPES",
    "MZABI",
    "CAKES",
    "GGEZ",
    "SYNCOPY",
)
GROUPS_MOVIE = (
    "SPARKS",
    "AMIABLE",
    "GECKOS",
    "FGT",
    "EVO",
    "CiNEFiLE",
    "DRONES",
    "ROVERS",
    "TERMiNAL",
)
GROUPS_MUSIC = ("FATHEAD", "ENRAGED", "JUST", "DDS", "SO", "WUS", "FMC", "EOS", "DALI", "BPM")
GROUPS_SOFT = ("TBE", "XFORCE", "CRD", "LAXiTY", "AMPED", "SHooTERS", "F4CG", "Lz0", "iNViSiBLE")
TV_SOURCES = (
    ("1080p", "WEB", "h264"),
    ("720p", "HDTV", "x264"),
    ("1080p", "AMZN.WEB-DL.DDP5.1", "H.264"),
    ("2160p", "NF.WEB-DL.DDP5.1.HDR", "HEVC"),
    ("720p", "WEB", "x264"),
    ("1080p", "HULU.WEB-DL.AAC2.0", "H.264"),
)
MOVIE_SOURCES = (
    ("1080p", "BluRay", "x264"),
    ("720p", "BluRay", "x264"),
    ("2160p", "UHD.BluRay", "x265-10bit-HDR"),
    ("1080p", "WEB-DL.DD5.1", "H264"),
    ("1080p", "BluRay.REMUX", "AVC.DTS-HD.MA.5.1"),
    ("480p", "DVDRip", "XviD"),
)
LANGUAGES = ("", "", "", "", "GERMAN.DL.", "FRENCH.", "DUTCH.", "iTALiAN.", "MULTi.")

FIRST_NAMES = _split(
    "Anna Ben Clara David Emma Felix Grace Henry Iris Jack Karen Liam Maria Noah Olivia "
    "Peter Quinn Rosa Sam Tina Ulrich Vera Walter Xenia Yusuf Zoe"
)
LAST_NAMES = _split(
    "Adler Becker Carter Dawson Ellis Fischer Garner Hughes Ingram Jensen Keller Lambert "
    "Morgan Novak Owens Porter Quincy Reyes Sutton Turner Upton Vance Walsh Young Zimmer"
)
BAND_WORDS = _split(
    "Velvet Echo Static Wolves Paper Kites Neon Tigers Hollow Bones Silver Arrows Crystal "
    "Method Lunar Tides Glass Animals Rusty Nails Golden Ravens Broken Radios Electric Owls"
)
TRACK_WORDS = _split(
    "love night fire heart dance river light rain home dream city ghost road gold wild "
    "young free alone tonight forever again higher under over falling running"
)
SOFTWARE = _split(
    "PhotoPaint Studio|VideoForge Pro|AudioMill|CodeCanvas IDE|DiskWarden|PDF Architect|"
    "NetScope Analyzer|ScreenCapture Plus|Backup Sentinel|Font Manager Deluxe|"
    "3D Modeler Suite|Driver Booster|Office Tools|Media Converter Ultimate",
    "|",
)

# Titles a poster writes in its own script; subjects carry them raw or as RFC 2047 words.
JAPANESE_TITLES = (
    "進撃の巨人",
    "千と千尋の神隠し",
    "君の名は",
    "鬼滅の刃",
    "となりのトトロ",
    "東京物語",
)
CYRILLIC_TITLES = (
    "Мастер и Маргарита",
    "Война и мир",
    "Брат",
    "Ирония судьбы",
    "Тихий Дон",
    "Солярис",
)
# Titles with Latin-1 letters: some posters send them as raw ISO-8859-1 bytes.
LATIN1_TITLES = (
    "Taffe Mädels",
    "Die Brücke am Fluß",
    "Amélie aus Montmartre",
    "Être et avoir",
    "Señora Acero",
    "Der Schatz im Silbersee – Teil Zwei",
    "Fräulein Smillas Gespür für Schnee",
    "Mañana será otro día",
)
# An en dash is not Latin-1: keep that title for the RFC 2047 path only.
LATIN1_SAFE = tuple(t for t in LATIN1_TITLES if all(ord(c) < 256 for c in t))

TEXT_SUBJECTS = (
    "Re: REQ: {title} complete season",
    "Anyone have {title}?",
    "Thanks for the {title} upload",
    "Posting schedule for this week",
    "Re: {title} - missing parts, please repost",
    "Fill request: {title} (1998)",
    "How do I join par2 files?",
    "Re: Re: server retention question",
)

GROUP_WORDS = _split(
    "teevee moovee multimedia boneless misc hdtv.x264 mp3 sounds.flac ebook "
    "e-book.flood apps.stuffz pictures.misc anime cd.image dvd "
    "documentaries frogs mom town ath cores highspeed u-4all warez x264 nl"
)
