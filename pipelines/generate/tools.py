"""Posters and their posting tools: the From and Message-ID shapes each tool writes.

Shapes follow the tools' documentation and real headers (see the generator docs):
Nyuu `<24 letters>-<ms time>@nyuu`, ngPost `<32 hex>@ngPost` with a random From per
post, PowerPost/camelsystem `partNofM.<token>@camelsystem-powerpost.local` (token fixed
per file), JBinUp `<20 alnum>@JBinUp.local`, yEncBin `PartNofM.<GUID>@<time>.local`,
NewsUP, newsmangler, GoPostStuff, and server-assigned ids when a tool sets none.
All segments of one upload share their poster's shapes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from pipelines.generate import words as w
from pipelines.generate.dates import STYLE_WEIGHTS
from pipelines.generate.rand import (
    ALNUM,
    BASE36,
    HEX,
    LETTERS,
    POWERPOST,
    UPPER_HEX,
    Tokens,
    base36,
)

TOOLS = (
    "nyuu",
    "ngpost",
    "powerpost",
    "jbinup",
    "yencbin",
    "newsup",
    "newsmangler",
    "gopoststuff",
    "server",
)
TOOL_WEIGHTS = (24, 18, 14, 8, 8, 6, 6, 4, 12)
# tools only an option's uploads use (`pipelines.generate.obfuscation`): not drawn for
# today's posters, so a corpus without the option is the same bytes. Postie (a Go
# poster) writes `<32 alnum>@<8 alnum>.<3 alnum>` ids and a random
# `<14 alnum> <<14 alnum>@<5 alnum>.<3 alnum>>` From per post when it obfuscates
OPTION_TOOLS = ("postie",)
ARTICLE_SIZES = (716_800, 716_800, 716_800, 768_000, 750_000, 700_000)
MAIL_DOMAINS = ("example.com", "example.org", "posting.example.net", "mail.example.de")
SERVER_DOMAINS = ("news.astraweb.com", "reader.easyusenet.nl", "news.newshosting.com")


@dataclass(frozen=True)
class Poster:
    sender: str  # the From field
    tool: str
    article_size: int  # raw bytes of yEnc data per segment
    date_style: int
    skew: int  # seconds this poster's clock is off
    decimal_comma: bool  # size text `3,68 GB` rather than `3.68 GB`
    domain: str  # after the @ of tool ids that name a host
    fresh_sender: bool  # ngPost GEN_FROM: a new random From for every post


def random_sender(rng: random.Random, tokens: Tokens, tool: str = "ngpost") -> str:
    """ngPost's GEN_FROM style: `Xy7aQ <k3JdPq@a9ZkQ2w.vm>` (Postie's: 14, 14, 5 and 3
    alphanumerics)."""
    if tool == "postie":
        name, user = tokens.one(ALNUM, 14), tokens.one(ALNUM, 14)
        return f"{name} <{user}@{tokens.one(ALNUM, 5)}.{tokens.one(ALNUM, 3)}>"
    name = tokens.one(ALNUM, rng.randint(6, 12))
    user = tokens.one(ALNUM, rng.randint(6, 12))
    host = tokens.one(ALNUM, rng.randint(7, 30))
    tld = tokens.one("abcdefghijklmnopqrstuvwxyz", 2)
    return f"{name} <{user}@{host}.{tld}>"


def human_sender(rng: random.Random) -> str:
    """A person's From in one of the three shapes: `user <mail>`, `mail (Name)`, `"N" <mail>`."""
    first, last = rng.choice(w.FIRST_NAMES), rng.choice(w.LAST_NAMES)
    user = f"{first.lower()}{rng.choice(('', '.', '_'))}{last.lower()}{rng.randint(1, 99)}"
    mail = f"{user}@{rng.choice(MAIL_DOMAINS)}"
    shape = rng.random()
    if shape < 0.4:
        return f"{user} <{mail}>"
    if shape < 0.7:
        return f"{mail} ({first})"
    return f'"{first} {last}" <{mail}>'


def _sender(rng: random.Random, tokens: Tokens, tool: str) -> str:
    if tool in ("ngpost", "postie"):
        return random_sender(rng, tokens, tool)
    if tool == "yencbin":
        return "yEncBin@Poster.com (yEncBin)"
    if tool == "powerpost":
        tag = tokens.one("ABCDEFGHKLMNPRSTUVWXYZ", 2)
        return f"Yenc@yenc-post.org (Yenc-PP-{tag}&{tokens.one(ALNUM, 2)})"
    return human_sender(rng)


def make_poster(
    rng: random.Random, tokens: Tokens, tool: str | None = None, date_style: int | None = None
) -> Poster:
    tool = tool or rng.choices(TOOLS, TOOL_WEIGHTS)[0]
    style = rng.choices(range(len(STYLE_WEIGHTS)), STYLE_WEIGHTS)[0]
    if date_style is not None:
        style = date_style
    skew = 0
    if rng.random() < 0.12:  # a clock hours off, either way
        skew = rng.choice((-1, 1)) * rng.randint(3600, 14 * 3600)
    domain = {
        "ngpost": "ngPost",
        "powerpost": rng.choice(("camelsystem-powerpost.local", "powerpost2000AA.local")),
        "newsmangler": rng.choice(SERVER_DOMAINS),
        "server": rng.choice((*SERVER_DOMAINS, "giganews.com")),
    }.get(tool, "")
    return Poster(
        sender=_sender(rng, tokens, tool),
        tool=tool,
        article_size=rng.choice(ARTICLE_SIZES),
        date_style=style,
        skew=skew,
        decimal_comma=rng.random() < 0.35,
        domain=domain,
        fresh_sender=tool in ("ngpost", "postie"),
    )


class MessageIds:
    """Message-ids for the segments of one file, in the poster's tool shape."""

    def __init__(self, tokens: Tokens) -> None:
        self.tokens = tokens
        self.counter = 0  # newsmangler numbers its posts

    def for_file(
        self,
        poster: Poster,
        parts: np.ndarray,
        part_total: int,
        times: np.ndarray,
        file_index: int,
        file_total: int,
    ) -> list[str]:
        n = len(parts)
        t = self.tokens
        tool = poster.tool
        ks = parts.tolist()
        if tool == "nyuu":
            ms = (times * 1000).astype(np.int64).tolist()
            return [f"{r}-{m}@nyuu" for r, m in zip(t.many(LETTERS, 24, n), ms, strict=True)]
        if tool == "ngpost":
            return [f"{h}@{poster.domain}" for h in t.many(HEX, 32, n)]
        if tool == "postie":
            hosts = zip(t.many(ALNUM, 32, n), t.many(ALNUM, 8, n), t.many(ALNUM, 3, n), strict=True)
            return [f"{a}@{b}.{c}" for a, b, c in hosts]
        if tool == "powerpost":
            token = t.one(POWERPOST, 20)  # one token per file; only partN varies
            return [f"part{k}of{part_total}.{token}@{poster.domain}" for k in ks]
        if tool == "jbinup":
            tail = f"_{file_index}o{file_total}" if poster.date_style % 2 else ""
            return [f"{r}{tail}@JBinUp.local" for r in t.many(ALNUM, 20, n)]
        if tool == "yencbin":
            guid = t.one(UPPER_HEX, 32)
            return [f"Part{k}of{part_total}.{guid}@{int(times[0])}.local" for k in ks]
        secs = times.astype(np.int64).tolist()
        usecs = ((times % 1.0) * 1e6).astype(np.int64).tolist()
        if tool == "newsup":  # the host part: the time NewsUP started posting the file
            host = base36(secs[0])
            rnd = t.many(BASE36, 8, n)
            return [
                f"{s}{u:06d}.{r}@{host}.newsup" for s, u, r in zip(secs, usecs, rnd, strict=True)
            ]
        if tool == "newsmangler":
            start = self.counter
            self.counter += n
            return [
                f"{s}.{u}.{start + j}@{poster.domain}"
                for j, (s, u) in enumerate(zip(secs, usecs, strict=True))
            ]
        if tool == "gopoststuff":
            return [f"{s}.{u}$gps@gpoststuff" for s, u in zip(secs, usecs, strict=True)]
        return self.server_ids(poster.domain, n)

    def for_upload(
        self,
        poster: Poster,
        file_of: np.ndarray,
        parts: np.ndarray,
        totals: np.ndarray,
        times: np.ndarray,
        numbers: list[int],
        announced: int,
    ) -> list[str]:
        """Message-ids for all posted segments of an upload (grouped by file, in part order).

        The same shapes as `for_file`, drawn once for the whole upload; per-file parts
        (PowerPost's token, yEncBin's GUID and time, NewsUP's host) are drawn per file.
        """
        n = len(parts)
        t = self.tokens
        tool = poster.tool
        if tool in ("nyuu", "ngpost", "postie", "newsmangler", "gopoststuff", "server"):
            return self.for_file(poster, parts, 0, times, 0, 0)
        fl = file_of.tolist()
        ks = parts.tolist()
        if tool == "powerpost":
            tokens = t.many(POWERPOST, 20, len(totals))
            tot = totals.tolist()
            return [
                f"part{k}of{tot[f]}.{tokens[f]}@{poster.domain}"
                for f, k in zip(fl, ks, strict=True)
            ]
        if tool == "jbinup":
            if poster.date_style % 2:
                tails = [f"_{i}o{announced}@JBinUp.local" for i in numbers]
            else:
                tails = ["@JBinUp.local"] * len(numbers)
            return [f"{r}{tails[f]}" for r, f in zip(t.many(ALNUM, 20, n), fl, strict=True)]
        secs = times.astype(np.int64)
        # each file's second at its first posted part (rows are grouped by file, in part order)
        first = np.zeros(len(totals), dtype=np.int64)
        present, at_row = np.unique(file_of, return_index=True)
        first[present] = secs[at_row]
        if tool == "yencbin":
            guids = t.many(UPPER_HEX, 32, len(totals))
            tot = totals.tolist()
            at = first.tolist()
            return [
                f"Part{k}of{tot[f]}.{guids[f]}@{at[f]}.local" for f, k in zip(fl, ks, strict=True)
            ]
        # newsup: the host part is the time NewsUP started posting the file
        hosts = [base36(s) for s in first.tolist()]
        usecs = ((times % 1.0) * 1e6).astype(np.int64).tolist()
        rnd = t.many(BASE36, 8, n)
        return [
            f"{s}{u:06d}.{r}@{hosts[f]}.newsup"
            for s, u, r, f in zip(secs.tolist(), usecs, rnd, fl, strict=True)
        ]

    def server_ids(self, domain: str, n: int) -> list[str]:
        """Ids a server assigns when the poster sets none."""
        t = self.tokens
        if domain == "giganews.com":
            return [f"{r}@giganews.com" for r in t.many(ALNUM, 32, n)]
        parts = zip(
            t.many(HEX, 8, n),
            t.many("0123456789", 5, n),
            t.many(HEX, 7, n),
            t.many(HEX, 8, n),
            strict=True,
        )
        return [f"{a}$0${d}${b}${c}@{domain}" for a, d, b, c in parts]
