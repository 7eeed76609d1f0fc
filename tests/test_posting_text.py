"""Release names without uploader and site text (`pipelines.naming.posting_text`), on real
subjects: what is cut, what stays (title words, years, format tags), the fast names and
the reference's the same, and the generator's expected names met."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.naming_reference import display_name as reference_name
from pipelines.naming import display_name
from pipelines.naming.posting_text import PREFIXES, SUFFIXES, trim_posting_text
from pipelines.score import normalise_name
from tests import shared_data

SUBJECTS = shared_data.DATA / "subjects"
needs_data = shared_data.needs_data("subjects")

# real subjects (collection_examples.tsv, the issue) and the name a person expects
CUT = [
    ('REQ: All In The Family [1/4] - "aitf.par2" yEnc (1/1)', "All In The Family"),
    ('Re: REQ: Jay Lake series - "Lake, Jay - Pinion [epub].rar"  405.6 kBytes yEnc (1/1)',
     "Jay Lake series"),
    ('Filling Request - Maria Upton - Black Canyon [1/3] - "mu-bc.epub" yEnc (1/1)',
     "Maria Upton - Black Canyon"),
    ('Per REQ - "The.Wild.Wild.West.S03E11.DVDRip.XVID-tz.par2" 512x384 [01/40] yEnc (1/1)',
     "The.Wild.Wild.West.S03E11.DVDRip.XVID-tz"),
    ("Attn: wulf109 - Jim Reeves - There's Someone Who Loves You [1/9] - \"a.mp3\" yEnc (1/2)",
     "Jim Reeves - There's Someone Who Loves You"),
    ('Uploader.Presents-Need.For.Speed.Rivals.XBOX360-PROTOCOL[10/94]"nfs.r-ptc.r07" yEnc (1/9)',
     "Need.For.Speed.Rivals.XBOX360-PROTOCOL"),
    ('(01/59) - [Lords-of-Usenet] presents Sins.of.a.Solar.Empire-RELOADED - "rld-s.nfo" - yEnc'
     " (1/1)", "Sins.of.a.Solar.Empire-RELOADED"),
    ("(www.Thunder-News.org) >Dee_And_Crane-Let_The_Music_Play-WEB-2012-UKHx< <Sponsored by "
     'Secretusenet> - "05-dee_and_crane.mp3" yEnc (1/3)',
     "Dee_And_Crane-Let_The_Music_Play-WEB-2012-UKHx"),
    ('!!www.usenet4all.eu!! - Sharp.Cold.1997.720p.BluRay.x264-FGT - [01/50] - "s.par2" yEnc (1/1)',
     "Sharp.Cold.1997.720p.BluRay.x264-FGT"),
    ('place2home.net - Call.of.Duty.Ghosts.XBOX360-iMARS - [095/101] - "imars.vol049+33.par2" '
     "yEnc (1/4)", "Call.of.Duty.Ghosts.XBOX360-iMARS"),
    ("[www.allyourbasearebelongtous.pw]-[The Place Beyond the Pines 2012 1080p US Blu-ray AVC "
     'DTS-HD MA 5.1-HDWinG]-[03/97] "tt1817273-us-hdwing-bd.r00" - 46.51 GB - yEnc (1/9)',
     "The Place Beyond the Pines 2012 1080p US Blu-ray AVC DTS-HD MA 5.1-HDWinG"),
    (">GOU<< ZDF.History.720p.HDTV.x264-TVP >>www.SSL-News.info< - (02/35) - \"tvp.nfo\" yEnc"
     " (1/1)", "ZDF.History.720p.HDTV.x264-TVP"),
    ('Egbert47 post voor u op www.nzbworld.me - [01/21] - "100 Hits - Lady Sings The Blues 2006 '
     "(5cd's).par2\" yEnc (1/1)", "100 Hits - Lady Sings The Blues 2006 (5cd's)"),
    ("[A_New_Found_Glory-Reissue-CDEP-FLAC-2003-JLM] [www.usenet4ever.info by Secretusenet] -  "
     '"00-a_new_found_glory.jpg" yEnc (1/1)', "A_New_Found_Glory-Reissue-CDEP-FLAC-2003-JLM"),
    ('Flac Flood - Modern Talking - China In Her Eyes (CDM) - "01.flac" (01/04) yEnc (1/9)',
     "Modern Talking - China In Her Eyes (CDM)"),
    ('Iron.Crimson.S02E18.1080p.WEB.h264-CAKES - [01/22] - "ic.par2" yEnc (1/1) postet by Yusuf8',
     "Iron.Crimson.S02E18.1080p.WEB.h264-CAKES"),
    ('Copper (1980) [EnJoY] - [01/10] - "Copper 001 (1980) (digital).cbr" yEnc (1/9)',
     "Copper (1980)"),
    ('(Zelazny works) [36/39] - "Roger Zelazny - The Furies.mobi" yEnc (1/1)', "Zelazny works"),
    # issue 26: a site tag with [NZB] in it, an uploader's `uppt`, a pair turned outwards
    ('nEwZ[NZB].iNFO - VA-Universal_Music_Sampler_07_February-PROMO-CDR-FLAC-2013-WRE - File '
     '[6/9]: "01-alesso-years_(hard_rock_sofa_remix).flac" yEnc (1/2)',
     "VA-Universal_Music_Sampler_07_February-PROMO-CDR-FLAC-2013-WRE"),
    ('[ nEwZ[NZB].iNFO - [ Zed--The_Invitation-WEB-2010-WUS ] - File [12/13]: '
     '"08-zed--the_river.mp3" yEnc (1/2)', "Zed - The_Invitation-WEB-2010-WUS"),
    ('nEwZ[NZB]_wz_cz - u.s.drug.wars.s02e06.hdtv.x264-w4f - [01/20] - "usdw.par2" yEnc (1/1)',
     "u.s.drug.wars.s02e06.hdtv.x264-w4f"),
    ('Old Dad uppt Scary Movie5 WEB RiP Line XviD German 01/24] - "Scary Movie 5.par2" yEnc (1/1)',
     "Scary Movie5 WEB RiP Line XviD German"),
    ('Old Dad uppt In ihrem Haus DVD Ripp AC3 German Xvid [01/31] - "In ihrem Haus.par2" yEnc'
     " (1/1)", "In ihrem Haus DVD Ripp AC3 German Xvid"),
    ("(www.Thunder-News.org) )Panamericana.2012.German.DOKU.720p.HDTV.x264-TVP( - [01/30] - "
     '"tvp-panamericana-720p.nfo" yEnc (1/1)', "Panamericana.2012.German.DOKU.720p.HDTV.x264-TVP"),
    ('http://nzbroyalty.com - House.of.The.Rising.sun.2011.BluRay.720p.DTS.x264-CHD - [00/48] - '
     '"House.nzb" yEnc (1/1)', "House.of.The.Rising.sun.2011.BluRay.720p.DTS.x264-CHD"),
    ('(1/7) "0865779767.epub" - 88,93 MB - "Anatomic Basis of Neurologic Diagnosis - epub" yEnc'
     " (1/1)", "Anatomic Basis of Neurologic Diagnosis"),
    ('[01/46] - Crashtime 5 Undercover RELOADED - "rld-ct5u.nfo" - PC - yEnc (1/1)',
     "Crashtime 5 Undercover RELOADED"),
    ('http://dream-of-usenet.org empfehlen newsconnection.eu - [02/32] - '
     '"Adam_Ant-Manners_and_Physique-CD-FLAC-1989-2Eleven.par2" yEnc (1/1)',
     "Adam_Ant-Manners_and_Physique-CD-FLAC-1989-2Eleven"),
    ('"The Absence - Riders Of The Plague" [00/14] - "the_absence.nzb" yEnc (1/1)',
     "The Absence - Riders Of The Plague"),
    ('[EnJoY] =>A Blast from Usenet Past (1/3)<= [00/14] - "Name.part.nzb" yEnc (1/1)',
     "A Blast from Usenet Past"),
]  # fmt: skip

# real subjects whose names hold words like the posting text's: they stay whole
KEPT = [
    ('Show Name (1994) [01/20] - "show.name.1994.par2" yEnc (1/1)', "Show Name (1994)"),
    ('Coronation Street 03.05.2012 [XviD] [1/9] - "cs.avi" yEnc (1/9)',
     "Coronation Street 03.05.2012 [XviD]"),
    ('365 Sex Positions [eBook] [1/2] - "365.pdf" yEnc (1/1)', "365 Sex Positions [eBook]"),
    ('GOGDump Wing Commander - Privateer (1993) [GOG] [1/3] - "wc.rar" yEnc (1/1)',
     "GOGDump Wing Commander - Privateer (1993) [GOG]"),
    ('Liam Morgan - Free (1986) [FLAC] [1/12] - "01 - Free.flac" yEnc (1/9)',
     "Liam Morgan - Free (1986) [FLAC]"),
    ('Assassins Creed - Bloodlines [EUR] [1/50] - "acb.r00" yEnc (1/9)',
     "Assassins Creed - Bloodlines [EUR]"),
    ('Disney Presents Goofy (1998) [1/5] - "goofy.par2" yEnc (1/1)',
     "Disney Presents Goofy (1998)"),
    ('The Request (2014) 1080p [1/5] - "the.request.par2" yEnc (1/1)', "The Request (2014) 1080p"),
    ('Blood Flood 2012 DVDRip [1/5] - "bf.par2" yEnc (1/1)', "Blood Flood 2012 DVDRip"),
    ('(1994) [1/5] - "x.par2" yEnc (1/1)', "(1994)"),
    ('[HorribleSubs] Aku no Hana - 01 [480p] [1/5] - "a.mkv" yEnc (1/9)',
     "[HorribleSubs] Aku no Hana - 01 [480p]"),
]  # fmt: skip


@pytest.mark.parametrize("subject, expected", CUT + KEPT)
def test_names_on_real_subjects(subject: str, expected: str) -> None:
    assert display_name(subject.encode()) == expected
    assert reference_name(subject.encode()) == expected


def test_every_rule_has_a_comment_and_an_example() -> None:
    source = Path(__file__).resolve().parents[1] / "pipelines" / "naming" / "posting_text.py"
    lines = source.read_text().splitlines()
    rules = [i for i, line in enumerate(lines) if line.lstrip().startswith(('r"', "r'"))]
    assert len(rules) >= len(PREFIXES) + len(SUFFIXES) - 2  # some are two lines of text
    for i in rules:
        before = lines[i - 1].strip()
        assert before.startswith("#") or before.startswith('r"') or before.endswith("+"), i
    for pattern in (*PREFIXES, *SUFFIXES):
        re.compile(pattern)


def test_trim_is_stable_and_never_empties_a_title() -> None:
    for _, expected in CUT + KEPT:
        assert trim_posting_text(expected) == expected
    assert trim_posting_text("REQ: ") == ""


def _real_subjects() -> list[str]:
    rows = []
    with open(SUBJECTS / "collection_examples.tsv", encoding="utf-8") as fh:
        rows += [line.rstrip("\n").split("\t", 1)[1] for line in list(fh)[1:] if "\t" in line]
    with open(SUBJECTS / "binsearch_subjects.tsv", encoding="utf-8") as fh:
        rows += [line.split("\t")[2] for line in fh if not line.startswith("#")]
    return rows


_YEAR_IN_BRACKETS = re.compile(r"[(\[](?:19|20)\d\d[)\]]")
_POSTING = re.compile(
    r"^(?:re|req|attn)\s*:|presents-|postet by|sponsored by|^filling request|^per req", re.I
)


@needs_data
def test_real_subjects_both_ways() -> None:
    """On every real subject: the fast name is the reference's; no year in brackets is lost;
    no posting text of the list is left at either end; every word shown was the
    subject's."""
    from bench.naming_reference import display_text

    subjects = _real_subjects()
    assert len(subjects) > 700
    for s in subjects:
        raw = s.encode()
        name = display_name(raw)
        assert name == reference_name(raw), s
        identity = display_text(raw).decode("utf-8", "replace")
        for year in _YEAR_IN_BRACKETS.findall(identity):
            assert year in name or year in identity.replace(name, ""), (s, name)
        assert not _POSTING.search(name), (s, name)
        assert all(w in s for w in name.split()), (s, name)


def test_generator_real_mix_expected_names(real_mix) -> None:
    """The generator's real mix, replayed: the name-carrying families whose names are only
    uploader and site text away from the truth's expected_name come out right."""
    from pipelines.score import score_catalog

    out, catalog = real_mix
    score = score_catalog(out, catalog)
    carrying = [score.families[f] for f in ("site_prefix", "site_suffix", "collection")
                if f in score.families]  # fmt: skip
    assert sum(f.named for f in carrying) >= 5
    for f in carrying:
        assert f.names_share >= 0.9, (f.family, f.wrong_names)
    wrong = [(e, g) for e, g in score.families["overall"].wrong_names]
    for expected, got in wrong:
        assert normalise_name(got) != normalise_name(expected)
        assert not _POSTING.search(got), (expected, got)
