"""Whether the text a subject holds around its file name is a name at all.

Posters of obfuscated uploads write something before the random file name that only
looks like a name: a placeholder (`Description`, `????`), a web address (`http://`), a
site's or an uploader's tag with its sponsor (`4y (PW) [ usenet-4all.info - powered by
ssl.news -]`), a format tag alone (`1080p`), punctuation. Such a release is obfuscated in
all but form: `pipelines.naming.usable` sends it to the article pass (pending) instead of
listing it under that text, and a readable upload under it takes its files' name.

A word is a run of letters and digits (Unicode: CJK and Cyrillic titles are titles). A
text is *no name* when no word is left once web addresses, the words below (posting
boilerplate and format tags, one line each with a real example), words of one or two
characters (`4y`, `PW`) and random tokens (`209a212675ba31ca24a8`) are taken out. A
release title keeps a word: `1080p` alone is no name, `Avatar 1080p` is. `lone_word` says
when one word alone is left (`DoAsYouLike`, `Doc2011`): a name only when the files are
readable too. Checked on the 14,516 real titles of ../shared/data (Sonarr's test cases,
the PreDB dumps): the 79 that are no name are hashes, bare numbers and language codes.
"""

from __future__ import annotations

import re

from pipelines.naming.random_names import random_token

# web addresses: `http://`, `https://nzbroyalty.com`, `www.x.y`, `usenet-4all.info`, `ssl.news`
# (a dotted release name ending in `.RU` or `.US` is none: an address stands alone)
_ADDRESS = re.compile(
    r"(?:https?:/*|www\.)[A-Za-z0-9.-]*(?:/[!-~]*)?|(?<![\w.-])(?:[\w-]+\.){1,2}(?:info|org|com|net|news|eu|nl|de|"
    r"me|pw|to|cc|ag|biz|us|ws|be|ch|at|co\.uk|ua|ru)(?![\w.])",
    re.IGNORECASE,
)
_TLD_END = re.compile(  # (on the lower-cased text)
    r"\.(?:info|org|com|net|news|eu|nl|de|me|pw|to|cc|ag|biz|us|ws|be|ch|at|uk|ua|ru)(?![\w.])"
)
_LONG_WORD = re.compile(r"[^\W_]{3,}")  # the words of three characters or more

_BOILERPLATE = """
    description descr nfo info sample proof                      (001/105) - Description -
    powered sponsored by for empfehlen presents ssl news         [ x.info - powered by ssl.news ]
    neues new pw password passworded                             NEUES 4y (PW)
    repost reupload full private req request fill filled         [PRiVATE] [FULL] [REPOST]
    upload uploaded upp uppt post posted postet                  Old Dad uppt
    nzb nzbs par par2 sfv yenc usenet binaries newsgroup         [NZB] + par2
    file files part parts vol volume                             File [12/13]
    http https www                                               http://
"""
# a format alone says what a file is, not which: `1080p`, `x264 AAC`, `FLAC`, `epub`
_FORMATS = """
    480p 576p 720p 1080p 1080i 2160p 4k uhd hd sd x264 x265 h264 h265 hevc avc xvid divx
    bluray bdrip brrip dvdrip dvdr dvd dvd5 dvd9 web webdl webrip dl hdtv hdrip remux mkv
    mp4 avi mp3 flac aac ac3 dts wav ogg epub mobi pdf azw3 cbr cbz jpg jpeg png iso rar
    zip 7z multi subs subbed dubbed ntsc pal
"""
NO_NAME_WORDS = frozenset(
    w for line in _BOILERPLATE.splitlines() for w in line.strip().split("  ")[0].split()
) | frozenset(_FORMATS.split())


def name_words(text: str, enough: int = 1 << 30) -> list[str]:
    """The words of `text` that can name a release (lower case): not an address, a word
    of NO_NAME_WORDS, one of one or two characters nor a random token; the first `enough`
    of them (a caller asking whether there are two stops at two)."""
    # most names hold no address: the address regex runs only where one may be
    if "." in text or "/" in text:
        lowered = text.lower()
        if "http" in lowered or "www." in lowered or _TLD_END.search(lowered):
            text = _ADDRESS.sub(" ", text)
    found = []
    for w in _LONG_WORD.findall(text):
        w = w.lower()
        # (random_token holds no word under 8 characters random)
        if w not in NO_NAME_WORDS and (len(w) < 8 or not random_token(w)):
            found.append(w)
            if len(found) >= enough:
                break
    return found


def no_name(text: str) -> bool:
    """Whether `text` holds no word that can name a release (placeholders, addresses,
    tags, formats, punctuation)."""
    return not name_words(text, 1)


def lone_word(text: str) -> bool:
    """Whether one word alone can name a release in `text` (`..:[DoAsYouLike]:..`,
    `-'- Doc2011 -'-`, `MagNeum 3.14 S1 D.V.D + par2`): a tag as often as a title."""
    return len(name_words(text, 2)) == 1
