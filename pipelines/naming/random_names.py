"""Whether a name is random: one token of hash or noise, as obfuscated uploads are named.

A random name says nothing about what a release holds (its category is 8020) and cannot
be searched for, so such releases wait for the article pass to read their real names.
The test is the parser's file test (`pipelines.subjects.file_names.random_token`) in C-level
counts, since the name and the file stems of every obfuscated release pass here, plus a
test for long hashes whose letters happen to look like words.
"""

from __future__ import annotations

import functools
import re

from pipelines.naming.text import stem
from pipelines.subjects import file_names as names_ref

# the file test's token is where the name starts (see _random_name)
_RANDOM_HEAD = re.compile(r"\s*([A-Za-z0-9_-]{12,})")
_LAST_EXT = re.compile(r"\.[A-Za-z0-9]{2,4}$")


def _random_name(name: str) -> bool:
    """Whether the name's stem, its last extension off, is one random token."""
    # The token starts the name (stripped) and the file test holds only a run of 12 or
    # more of [A-Za-z0-9_-]: it is the name's leading run, since what ends the token (a
    # space, the `.` of a suffix or extension, the end) is none of those. Most names fail
    # the test on that run, and need no stem.
    head = _RANDOM_HEAD.match(name)
    if head is None or not _random_file_token(head.group(1).encode()):
        return False
    token = _LAST_EXT.sub("", stem(name).strip()).encode("utf-8", "surrogateescape")
    return bool(token) and b" " not in token and _random_file_token(token)


_DIGIT_RUN = re.compile(r"\d+")
_CAPITAL_RUN = re.compile(r"[A-Z]{2,}")


@functools.lru_cache(maxsize=4096)  # a release's volumes share one stem
def random_token(token: str) -> bool:
    """The file test, plus one for names: a long single token with digits strewn through
    it (`fpwbi4qjigiwgk52dvsvh28kh5586e`) is a hash, however pronounceable its letters."""
    if _random_file_token(token.encode("utf-8", "replace")):
        return True
    if len(token) < 20 or not token.isalnum():
        return False
    # digits strewn through it, or capitals in runs amid lower case (not CamelCase words)
    capital_runs = len(_CAPITAL_RUN.findall(token))
    if len(_DIGIT_RUN.findall(token)) >= 3 or (capital_runs >= 2 and token != token.upper()):
        return True
    # one case, 24 or more, a digit in it (`hdabbrbhkiwwq9yuzfcahpo58bpedj`): a name that
    # long has words and separators
    one_case = token.islower() or token.isupper()
    return len(token) >= 24 and one_case and any(c.isdigit() for c in token)


def _random_file_token(t: bytes) -> bool:
    """`pipelines.subjects.file_names.random_token` (the file test), with C-level counts in place
    of its loops over bytes: names and file stems of every obfuscated release pass here."""
    n = len(t)
    if not t.isascii():
        return False  # UTF-8 letters: a title in another script, not noise
    if n >= 16 and not t.translate(None, _HEX_DIGITS):
        return True
    if n == 36 and names_ref.UUID_RE.fullmatch(t):
        return True
    if not t.isalnum():
        if not names_ref.JOINED_RE.fullmatch(t):
            return False
        longest = max(_JOINERS.split(t), key=len)  # the first of the longest parts
        return len(longest) >= 16 and _random_file_token(longest)
    if n < 12:
        return False
    letters = len(t.translate(None, _DIGITS))
    runs = len(_CLASS_RUNS.findall(t))  # runs of digits, of capitals, of small letters
    strewn = runs >= 6 and runs * 3 >= n
    if not strewn and letters < 8:
        return False
    wordlike = 0
    for word in _LETTER_WORDS.findall(t):
        m = len(word)
        vowels = m - len(word.translate(None, _VOWELS))
        if m >= 3 and vowels * 5 >= m and not _CONSONANTS_5.search(word):
            wordlike += m
    if strewn and wordlike * 4 < letters * 3:
        return True
    return letters >= 8 and wordlike * 5 < letters * 2


_HEX_DIGITS = b"0123456789abcdefABCDEF"
_DIGITS = b"0123456789"
_VOWELS = b"aeiouyAEIOUY"
_JOINERS = re.compile(rb"[-_]")
_CLASS_RUNS = re.compile(rb"[0-9]+|[A-Z]+|[a-z]+")
_LETTER_WORDS = re.compile(rb"[A-Z]*[a-z]+|[A-Z]+")  # CamelCase split into its words
_CONSONANTS_5 = re.compile(rb"[^aeiouyAEIOUY]{5}")  # a word has no longer cluster
