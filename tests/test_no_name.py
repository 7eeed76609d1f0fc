"""Names that are no names (`pipelines.naming.no_name`): the text real posters write
around random file names is not listed as a release name; the upload is pending, or takes
its readable files' name."""

from __future__ import annotations

import gzip
import re

import pytest

from bench import naming_reference as reference
from pipelines.naming import display_name, usable_name
from pipelines.naming.no_name import lone_word, no_name
from tests import shared_data

needs_data = shared_data.needs_data("names")

# real subjects (collection_examples.tsv, the issue) whose text around the file is no name
NO_NAME = [
    b'(001/105) - Description - "oH291TB0bPxf3lqm1P7QQ.par2" - 4,56 GB - yEnc (1/1)',
    b'(????) [001/107] - "260713thbldnstnsclw.par2" yEnc (1/1)',
    b"4y (PW)   [@ usenet-4all.info - powered by ssl.news -] [27,35 GB] [001/118] "
    b'"1f8867bb6f89491793d3.part001.rar" yEnc (1/1)',
    b"-4y (PW)   [ usenet-4all.info - powered by ssl.news -] [12,40 GB] [49/57] "
    b'"43842168c542ed3.vol000+01.par2" yEnc (1/1)',
    b"NEUES 4y (PW)  [@ usenet-4all.info - powered by ssl.news -] [7,05 GB] [014/152] "
    b'"EngelsGleich.part014.rar" yEnc (1/1)',
    b"209a212675ba31ca24a8 [usenet-4all.info] [powered by ssl-news] [21,59 GB] [002/223] "
    b'"209a212675ba31ca24a8.part001.rar" yEnc (1/1)',
    b'http:// [01/20] - "a8f7d6e5c4b3a2f1e0d9.part01.rar" yEnc (1/1)',
    b'1080p [01/20] - "a8f7d6e5c4b3a2f1e0d9.part01.rar" yEnc (1/1)',
]
# and whose text is a name (or one word that may be)
NAMED = [
    (b'Avatar 1080p [01/20] - "a8f7d6e5c4b3a2f1e0d9.part01.rar" yEnc (1/1)', True),
    (b'Avatar 2009 1080p [01/20] - "a8f7d6e5c4b3a2f1e0d9.part01.rar" yEnc (1/1)', False),
    (b'..:[DoAsYouLike]:..    9,64 MB    "Snooper 1.39.5.par2"    468 B yEnc (1/1)', True),
    (b'[MagNeum 3.14 S1 D.V.D + par2][1148/1167] - "ZDFRIKK8470DO776.D7P" yEnc (1/1)', True),
    (b'(Zelazny works) [36/39] - "Roger Zelazny - The Furies.mobi" yEnc (1/1)', False),
    (b'\xe6\x9d\xb1\xe4\xba\xac\xe7\x89\xa9\xe8\xaa\x9e 1953 [1/9] - "a.mkv" yEnc (1/1)', False),
]


@pytest.mark.parametrize("subject", NO_NAME, ids=[s[:30].decode() for s in NO_NAME])
def test_boilerplate_is_no_name(subject):
    assert no_name(display_name(subject)), display_name(subject)


@pytest.mark.parametrize("row", NAMED, ids=[r[0][:30].decode("latin-1") for r in NAMED])
def test_titles_are_names(row):
    subject, lone = row
    name = display_name(subject)
    assert not no_name(name)
    assert lone_word(name) == lone


def test_no_name_over_random_files_is_pending():
    files = [b"oH291TB0bPxf3lqm1P7QQ.par2", b"oH291TB0bPxf3lqm1P7QQ.part01.rar"]
    for name in ("Description", "????", "http://", "1080p", "4y (PW) [ usenet-4all.info ]"):
        assert usable_name(name, files, [True, True]) == (name.strip(" []()-"), False)
        assert reference.usable_name(name, files, [True, True]) == usable_name(
            name, files, [True, True]
        )
    # one word alone over random files: a tag as often as a title, pending too
    assert usable_name("DoAsYouLike", files, [True, True]) == ("DoAsYouLike", False)


def test_no_name_over_readable_files_takes_their_name():
    files = [b"Lasting Weep (1969-1971).part.par2", b"Lasting Weep (1969-1971).part01.rar"]
    assert usable_name("????", files, [False, False]) == ("Lasting Weep (1969-1971).part", True)
    # one word alone over readable files stays when a file name holds it (a collection's
    # name), else it is a poster's tag
    assert usable_name("Weep", files, [False, False]) == ("Weep", True)
    assert usable_name("'- Doc2011 -'", files, [False, False]) == (
        "Lasting Weep (1969-1971).part",
        True,
    )
    assert usable_name("Avatar 2009", files, [True, True]) == ("Avatar 2009", True)


@needs_data
def test_real_release_titles_are_names():
    """Of the real titles (Sonarr's parser cases, the PreDB dumps), what is no name is a
    hash, a bare number or a language code: never a title of two words."""
    titles = []
    with open(shared_data.DATA / "names" / "sonarr_parser_testcases.tsv", encoding="utf-8") as fh:
        titles += [line.split("\t")[3].strip() for line in fh if not line.startswith("#")]
    for path in sorted((shared_data.DATA / "predb").glob("*.csv.gz")):
        with gzip.open(path, "rt", encoding="utf-8", errors="surrogateescape") as fh:
            titles += [line.split("\t", 1)[0].strip("'") for line in fh]
    assert len(titles) > 10_000
    flagged = [t for t in titles if no_name(t)]
    assert len(flagged) < len(titles) / 100
    two_words = re.compile(r"[A-Za-z]{3,}[ ._-]+[A-Za-z]{3,}")  # what a title holds
    extension = re.compile(r"\.[a-z0-9]{2,4}$")
    assert not [t for t in flagged if two_words.search(extension.sub("", t.strip()))]


def test_an_album_template_is_a_name():
    """`P#.JPG` holds no word, yet it is an album's name: the template names the album."""
    files = [b"P1006193.JPG", b"P1006194.JPG"]
    assert usable_name("P#.JPG", files, [False, False]) == ("P1006193", True)
    assert usable_name("P#.JPG", files, [False, False], template=True) == ("P#.JPG", True)
    assert reference.usable_name("P#.JPG", files, [False, False], template=True) == (
        "P#.JPG",
        True,
    )
