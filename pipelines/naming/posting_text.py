"""Uploader and site text around a release name: the data list `display_name` cuts by.

Posters put text before and after a name that says who posted it, for whom or where:
requests and fills, replies, an uploader's `Presents`, a site in brackets or bangs, a
sponsor, an uploader's tag, a flood's label, a second counter left by the parser. A
name for people is the title without it. Each entry below is one regex (case ignored,
Python `re` syntax) with a comment saying what it is and a real example; `PREFIXES` are
matched at the start of a name and take the separator after them, `SUFFIXES` at its end
and take the separator before them. To cut one more kind of text, add a line.

Be careful not to cut title words: a rule names the posting text by words that are not
a title's (`REQ:`, `.Presents-`, `postet by`, a web address), a year in brackets
(`(1994)`) is never cut, and a trailing `[Tag]` is cut only when it is one word of
letters that the category rules do not read and `KEPT_TAGS` does not list (`[XviD]`,
`[eBook]`, `[GOG]` stay).

`trim_posting_text` applies them until none matches: the prefixes as one regex, the
suffixes as one (leftmost match first), then quotes or a bracket pair around the whole
name. `bench.naming_reference` applies the same lists one regex at a time. Most names
hold no posting text, so the regexes run only on a name holding a word each match holds
(`_plain`, then `_may_start_with_one` or `_suffix_from`): a new rule matching without any
of those words adds its word to `_plain` and to the one of its kind
(tests/test_posting_text.py compares the two ways on every real subject of
../shared/data).
"""

from __future__ import annotations

import re

from pipelines.naming.keywords import _KEYWORDS

_SITE = r"(?:https?://)?(?:www\.)?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,6}"  # a web address
_TLD = r"(?:net|com|org|info|eu|nl|de|me|pw|to|cc|ag|biz|us|ws|be|ch|at|co\.uk|org\.ua)"

PREFIXES: tuple[str, ...] = (
    # a reply: `Re: REQ: Jay Lake's Mainspring series`, `Fwd: ...`, `AW: ...`
    r"(?:re|fwd?|aw)\s*:\s*",
    # a request: `REQ: All In The Family`, `REQ : VSL Stuff`, `Request - Title`
    r"req(?:uest)?\s*(?::|-(?=\s))\s*",
    # a fill of a request: `Per REQ - Title`, `Per Request: Title`
    r"per\s+req(?:uest)?\s*[:-]\s*",
    # `Filling Request - Maria Upton - Black Canyon`, `Filled REQ: Title`
    r"fill(?:ing|ed|s)?\s+(?:a\s+)?req(?:uest)?s?\s*[:-]?\s+",
    # addressed to someone: `Attn: wulf109 - Jim Reeves - There's Someone Who Loves You`
    # (or alone: `Attn: Brownian - "del Rey, Maria - Paradise Bay.rar"`, the stem shows)
    r"attn\s*:\s*[^\s-][^-]{0,40}?(?:\s+-\s+|\Z)",
    # addressed to someone, then a reply: `ATTN: falsifies RE: REQ:-Pathfinder RPG`
    r"attn\s*:\s*\S+\s+(?=(?:re|fwd?|req)\s*:)",
    # an uploader presents: `Uploader.Presents-Need.For.Speed.Rivals.XBOX360-PROTOCOL`
    r"[\w-]+(?:\.[\w-]+)*\.presents\s*-\s*",
    # a bracketed uploader presents: `[Lords-of-Usenet] presents Sins.of.a.Solar.Empire`
    r"\[[^\]]{1,40}\]\s*presents\s+",
    # an uploader's tag pointing at the name: `[EnJoY] =>A Blast from Usenet Past (1/3)<=`
    r"\[[^\[\]]{1,30}\]\s*=+>\s*",
    # a frame size alone is no name: `Per REQ - "Show.S03E11.par2" 512x384` (the stem shows)
    r"\d{3,4}x\d{3,4}\Z",
    # a site in bangs: `!!www.usenet4all.eu!! - Title`
    r"!+\s*" + _SITE + r"\s*!+\s*(?:-\s*)?",
    # a site in brackets: `(www.Thunder-News.org) >Title<`, `[www.allyourbase.pw]-[Title]`
    r"[\[(<{]\s*(?:https?://)?www\.[^\])>}]*[\])>}]\s*(?:-\s*)?",
    # a site and a dash: `place2home.net - Call.of.Duty.Ghosts.XBOX360-iMARS`,
    # `http://nzbroyalty.com - House.of.The.Rising.sun.2011.BluRay.720p.DTS.x264-CHD`
    r"(?:https?://)?(?:www\.)?[\w-]+(?:\.[\w-]+)*\." + _TLD + r"/?\s+-\s+",
    # a site's tag with `[NZB]` in it: `nEwZ[NZB].iNFO - VA-Universal_Music_Sampler`,
    # `nEwZ[NZB]_wz_cz - u.s.drug.wars.s02e06`, `[ nEwZ[NZB].iNFO - [ Zed--The_Invitation ]`
    r"\[?\s*[\w-]*\[nzbs?\][\w.-]*\s*-\s*",
    # an uploader uploads (German `uppt`): `Old Dad uppt Scary Movie5 WEB RiP Line XviD`
    r"[\w.-]+(?:\s+[\w.-]+)?\s+uppt\s+",
    # a site recommends a provider: `http://dream-of-usenet.org empfehlen newsconnection.eu`
    r"\S+\s+empfehlen\s+\S+\s*(?:-\s*)?",
    # a sponsor pointing at the name: `sponsored by ssl-news.info<<<[HorribleSubs]_AIURA_-_01`
    r"sponsored\s+by\s+[^<>\s]+\s*<+\s*",
    # a site's tag pointing at the name: `>GOU<< ZDF.History.Das.Geiseldrama` (`>` trimmed)
    r"[\w.-]{2,30}<+\s+",
    # a flood's label: `Flac Flood - Modern Talking - China In Her Eyes (CDM)`
    r"(?:flac|mp3|mobi|epub|e-?book|pdf)\s+flood\s*(?:-\s*)?",
    # a post for the readers of a site: `Egbert47 post voor u op www.nzbworld.me`,
    # `(Slaapkop post voor http://the-ultimate-force.org.ua/)`
    r"\S+\s+post\s+voor\s+(?:u\s+op\s+)?\S+\s*(?:-\s*)?",
    # a site's advert: `download all our files with>>> www.ssl-news.info`
    r"download\s+all\s+our\s+files\s+with\s*>*\s*",
    # a counter the parser left (not the file's): `[04/05] - "Lights.2016.480p.DVDRip"`
    r"[\[(]\s*\d{1,5}\s*(?:/|of)\s*\d{1,5}\s*[\])]\s*(?:-\s*)?",
)

SUFFIXES: tuple[str, ...] = (
    # a sponsor: `Broken_Rusty-City_Ghost_Running-2CD-1995-SO< <Sponsored by Olivia39`
    r"[\s<>-]*sponsored\s+by\s+[^<>]*",
    # who posted it: `Iron.Crimson.S02E18.1080p.WEB.h264-CAKES - postet by Yusuf8`
    r"[\s-]*(?:postet|posted|uploaded)\s+by\s+\S+",
    # a flood's label: `Tides Golden - Light Running Falling (2004) - Flac Flood`
    r"[\s-]*(?:flac|mp3|mobi|epub|e-?book|pdf)\s+flood",
    # a site in brackets: `[A_New_Found_Glory-2003-JLM] [www.usenet4ever.info by Name]`
    r"[\s-]*[\[(<{]\s*(?:https?://)?www\.[^\])>}]*[\])>}]",
    # a site pointed at: `ZDF.History.720p.HDTV.x264-TVP >>www.SSL-News.info<`
    r"\s*>+\s*" + _SITE + r"\s*<*",
    # a site after the name, maybe a repost's and a size before it:
    # `Name - www.deep-upload.info`, `Superman.Boxset REPOST---WWW.UNITED-FORUMS.CO.UK---`
    r"(?:\s+\d{4,})?[\s-]*(?:repost\b[\s-]*)?www\.[\w-]+(?:\.[\w-]+)+[\s-]*",
    # an uploader's tag: `Copper (1980) [EnJoY]`, `Name [RexTyler]` (one word of letters
    # that the category rules do not read and KEPT_TAGS does not list: `[XviD]` stays)
    r"\s+\[(?P<tag>[a-z][a-z-]{1,24})\]",
    # a size the parser left: `Jay Lake's Mainspring series - 405.6 kBytes`
    r"[\s-]*\d+(?:[.,]\d+)?\s*[kmg]?bytes",
    # a counter the parser left (not the file's): `Name [02/15]`, `[Name]-[02/09]`
    r"[\s-]*[\[(]\s*\d{1,5}\s*(?:/|of)\s*\d{1,5}\s*[\])]",
    # a counter's word the parser left: `VA-Sampler-2013-WRE - File [6/9]: "01-a.flac"`
    r"\s+-\s+file",
    # a lone format after a dash: `"0865779767.epub" - 88,93 MB - "Anatomic Basis - epub"`,
    # `[01/46] - Crashtime 5 Undercover RELOADED - "rld-ct5u.nfo" - PC - yEnc`
    r"\s+-\s+(?:epub|mobi|pdf|azw3|cbr|cbz|pc)",
)

# bracketed words after a name that are the release's, not an uploader's (lower case):
# besides the words the category rules read (`pipelines.naming.keywords`)
# (one line more to keep a word)
_KEPT_WORDS = """
    xvid divx ebook ebooks gog eur usa jpn pal ntsc region-free multi german french dutch
    english spanish italian japanese nordic swedish subbed dubbed retail proper repack
    internal limited unrated uncut extended remastered deluxe complete batch dual audio
    lossless mono stereo live bootleg demo single ep lp cdm cds vinyl web scene rip
"""
KEPT_TAGS = frozenset(_KEPT_WORDS.split()) | frozenset(w.decode() for w in _KEYWORDS)

_FLAGS = re.IGNORECASE
_PREFIX = re.compile("(?:" + "|".join(PREFIXES) + ")", _FLAGS)
_SUFFIX = re.compile("(?:" + "|".join(f"(?:{s})" for s in SUFFIXES) + r")\Z", _FLAGS)
# the suffixes that end in a closing bracket (an uploader's tag, a left counter, a site)
_BRACKET_SUFFIX = re.compile(
    "(?:" + "|".join(f"(?:{s})" for s in SUFFIXES if s.endswith(("]", r"\]"))) + r")\Z", _FLAGS
)
_EDGE = " \t-_.:|<>~*=+,;"
_OPENING = {"(": ")", "[": "]", "{": "}", '"': '"'}
_YEAR = re.compile(r"(?:19|20)\d\d")
_COUNTER_START = re.compile(r"[\[(]\s*\d{1,5}\s*(?:/|of)")
_BRACKETS = {")": re.compile(r"[()]"), "]": re.compile(r"[\[\]]"), "}": re.compile(r"[{}]")}


def trim_posting_text(text: str) -> str:
    """`text` (a release name, its runs of white space single) without the uploader and
    site text of `PREFIXES` and `SUFFIXES` and the quotes or brackets around it; "" when
    that is all it is."""
    if _plain(text):  # most names: no rule can match, nothing wraps them
        return text
    while text:
        lowered = text.lower()
        m = _PREFIX.match(text) if _may_start_with_one(lowered) else None
        start, suffixes = _suffix_from(text, lowered) if m is None else (-1, _SUFFIX)
        if start >= 0:
            m = suffixes.search(text, start)
            if m is not None and kept_tag(m.group("tag")):
                m = None
        if m is not None:
            text = (text[: m.start()] + text[m.end() :]).strip(_EDGE)
            continue
        unwrapped = unwrap(text)
        if unwrapped == text:
            return text
        text = unwrapped
    return text


# Most names hold no posting text: the regexes run only on a name that holds a text each
# of their matches holds (the rules' words, or where they stand). The runs of white space
# are single spaces here. tests/test_posting_text.py holds this to the reference.


def _plain(text: str) -> bool:
    """True when no rule can match `text` and no quotes or brackets can wrap it (False:
    maybe one can): no hint word of either kind, no bracket or quote at either end, not
    short, no site and dash first."""
    if len(text) <= 9 or text[0] in '[({")' or text[-1] in '])}"(':
        return False
    lowered = text.lower()
    if (
        ":" in lowered or "!" in lowered or "<" in lowered or ">" in lowered
        or "req" in lowered or "attn" in lowered or "presents" in lowered or "www" in lowered
        or "flood" in lowered or "voor" in lowered or "download" in lowered
        or "sponsored" in lowered or " by " in lowered or "bytes" in lowered
        or "[nzb" in lowered or "uppt" in lowered or "empfehlen" in lowered
        or lowered.endswith((" file", " epub", " mobi", " pdf", " azw3", " cbr", " cbz", " pc"))
    ):  # fmt: skip
        return False
    space = lowered.find(" ")
    return not (space > 0 and lowered.startswith("- ", space + 1) and "." in lowered[:space])


def _may_start_with_one(lowered: str) -> bool:
    """Whether a rule of PREFIXES can match at the start of `lowered` (False: none can)."""
    if len(lowered) <= 9:  # a frame size alone
        return True
    if lowered[:1] in "[(" and _COUNTER_START.match(lowered):
        return True  # a counter
    # (`in` tests, faster than a regex of them)
    if (
        ":" in lowered or "!" in lowered or "<" in lowered or "=>" in lowered
        or "req" in lowered or "attn" in lowered or "presents" in lowered or "www" in lowered
        or "flood" in lowered or "voor" in lowered or "download" in lowered
        or "sponsored" in lowered or "[nzb" in lowered or "uppt" in lowered
        or "empfehlen" in lowered
    ):  # fmt: skip
        return True
    space = lowered.find(" ")  # a site and a dash: `place2home.net - `, the first space
    return space > 0 and lowered.startswith("- ", space + 1) and "." in lowered[:space]


def _suffix_from(text: str, lowered: str) -> tuple[int, re.Pattern[str]]:
    """Where the leftmost match of SUFFIXES can start at the earliest (-1 when none can),
    and the regex to search with from there. Without a hint word only an uploader's tag or
    a left counter can end the name: each starts at its opening bracket (the last `[` or
    `(`: they hold none) or at the spaces and `-` before it; the suffixes that end in a
    bracket are searched from there."""
    if (
        ">" in lowered or "sponsored" in lowered or " by " in lowered or "flood" in lowered
        or "www" in lowered or "bytes" in lowered
        or lowered.endswith((" file", " epub", " mobi", " pdf", " azw3", " cbr", " cbz", " pc"))
    ):  # fmt: skip
        return 0, _SUFFIX
    if text[-1:] not in "])":
        return -1, _SUFFIX
    at = max(text.rfind("["), text.rfind("("))
    while at > 0 and text[at - 1] in " -":
        at -= 1
    return at, _BRACKET_SUFFIX


def kept_tag(tag: str | None) -> bool:
    """Whether a trailing `[tag]` the uploader-tag rule matched is the release's word."""
    return tag is not None and tag.lower() in KEPT_TAGS


def unwrap(text: str) -> str:
    """`text` without quotes or one bracket pair around the whole of it (the pair's
    closing one its last character), or a pair turned outwards (`)Name(`), or a closing
    bracket left alone at its end (a counter's: `German 01/43]`); a year alone, `(1994)`,
    and short text stay."""
    if text[-1:] == "]" and "[" not in text:
        return text[:-1].strip(_EDGE) or text
    if text[:1] == ")" and text[-1:] == "(" and len(text) >= 6:
        inner = text[1:-1]
        return text if "(" in inner or ")" in inner else inner.strip(_EDGE)
    close = _OPENING.get(text[:1])
    if close is None or text[-1:] != close or len(text) < 6:
        return text
    inner = text[1:-1].strip()
    if _YEAR.fullmatch(inner):
        return text
    if close != '"':
        depth = 0
        for c in _BRACKETS[close].findall(text, 0, len(text) - 1):
            depth += 1 if c != close else -1
            if depth == 0:  # the first bracket closes before the end: not one pair
                return text
    elif '"' in inner:
        return text
    return inner.strip(_EDGE)
