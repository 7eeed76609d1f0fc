"""Newznab responses as RSS 2.0 XML (the default) or JSON (`o=json`).

Strings are escaped by hand with `xml_text` (a page of 100 items is ~2,000 attributes:
string building is several times faster than an element tree here), and the tests
parse every response with lxml to hold the shape.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pyarrow as pa

from pipelines.nzb.writer import xml_text
from serving import categories as cat
from serving.newznab.dates import rfc822
from serving.newznab.items import id_attr_pairs, items_xml, password_attr
from serving.settings import Settings

NEWZNAB_NS = "http://www.newznab.com/DTD/2010/feeds/attributes/"
XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
SEARCH_PARAMS = {
    "search": "q,cat,group,limit,offset,maxage,minsize,maxsize,poster,password,attrs,extended",
    "tv-search": "q,season,ep,cat,limit,offset,maxage",
    "movie-search": "q,cat,limit,offset,maxage",
    "audio-search": "q,artist,album,cat,limit,offset,maxage",
    "book-search": "q,author,title,cat,limit,offset,maxage",
}


@dataclass(frozen=True)
class Links:
    """Where an item's NZB and details live, with the caller's key carried along."""

    base: str
    apikey: str | None

    def details(self, guid: str) -> str:
        return f"{self.base}/release/{guid}"

    @property
    def key_param(self) -> str:
        """`&apikey=<key>` with the key URL-encoded ('' without one): a key holding `&`,
        `#`, `+` or a space would otherwise end the link's query or change the key."""
        return f"&apikey={quote(self.apikey, safe='')}" if self.apikey else ""

    def nzb(self, guid: str) -> str:
        return f"{self.base}/api?t=get&id={guid}{self.key_param}"


def error_xml(code: int, description: str) -> str:
    return f'{XML_HEAD}<error code="{code}" description="{xml_text(description)}"/>\n'


def error_json(code: int, description: str) -> str:
    return json.dumps({"error": {"@attributes": {"code": str(code), "description": description}}})


def item_attrs(
    row: dict[str, Any], grabs: int, extra: Sequence[tuple[str, str]] = ()
) -> list[tuple[str, str]]:
    """The newznab:attr pairs of one release, in the order clients print them; `extra`:
    its health and verdict (`JudgedState.attrs`), last."""
    c = int(row["category"])
    out = [("category", str(cat.parent(c)))]
    if c != cat.parent(c):
        out.append(("category", str(c)))
    total = row["file_total"]
    complete = (
        100 if row["complete"] else min(99, int(row["files"]) * 100 // max(int(total or 1), 1))
    )
    out += [
        ("size", str(row["bytes"])),
        ("files", str(row["files"])),
        ("poster", row["poster"] or ""),
        ("group", row["group"]),
        ("usenetdate", rfc822(row["posted_first"])),
        ("guid", row["release_key"].hex()),
        ("grabs", str(grabs)),
        ("password", _password(row.get("password"))),  # `items.password_attr`'s rule
        ("complete", str(complete)),
        ("finished", "1" if row["finished"] else "0"),  # 0: still being posted
        ("comments", "0"),
        *id_attr_pairs(row),
        *extra,
    ]
    return out


def _password(value: int | None) -> str:
    return str(int(password_attr(pa.array([value], pa.int8()))[0]))


def _pick(attrs: list[tuple[str, str]], wanted: set[str] | None) -> list[tuple[str, str]]:
    if wanted is None:
        return attrs
    return [(k, v) for k, v in attrs if k in wanted or k in ("category", "size")]


def feed_xml(
    settings: Settings, links: Links, items: Sequence[str], offset: int, total: int,
    grabs: Mapping[bytes, int], wanted: set[str] | None = None,
    extra: Callable[[bytes], list[tuple[str, str]]] | None = None,
) -> bytes:  # fmt: skip
    """The feed of a page's prepared item values (`items.item_values`); `extra(key)`:
    a release's live attributes."""
    title = xml_text(settings.site_title)
    base = xml_text(links.base)
    key = xml_text(links.key_param)
    body = items_xml(items, f"{base}/release/", f"{base}/api?t=get&amp;id=", key, grabs,
                     None if wanted is None else sorted(wanted), extra)  # fmt: skip
    return (
        f'{XML_HEAD}<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" '
        f'xmlns:newznab="{NEWZNAB_NS}">\n<channel>\n'
        f'<atom:link href="{base}/api" rel="self" type="application/rss+xml"/>\n'
        f"<title>{title}</title>\n<description>{title} API results</description>\n"
        f"<link>{base}/</link>\n<language>en-gb</language>\n"
        f'<newznab:response offset="{offset}" total="{total}"/>\n'
        f"{body}</channel>\n</rss>\n"
    ).encode()


def feed_json(
    settings: Settings, links: Links, rows: list[dict], offset: int, total: int, grabs: Any,
    wanted: set[str] | None = None,
    extra: Callable[[bytes], list[tuple[str, str]]] | None = None,
) -> str:  # fmt: skip
    items = []
    for row in rows:
        guid = row["release_key"].hex()
        live = extra(row["release_key"]) if extra is not None else []
        attrs = _pick(item_attrs(row, grabs[row["release_key"]], live), wanted)
        items.append(
            {
                "title": row["name"],
                "guid": links.details(guid),
                "link": links.nzb(guid),
                "comments": links.details(guid) + "#comments",
                "pubDate": rfc822(row["posted_first"]),
                "category": cat.name(int(row["category"])),
                "description": row["name"],
                "enclosure": {
                    "@attributes": {
                        "url": links.nzb(guid),
                        "length": str(row["bytes"]),
                        "type": "application/x-nzb",
                    }
                },
                "attr": [{"@attributes": {"name": k, "value": v}} for k, v in attrs],
            }
        )
    channel = {
        "title": settings.site_title,
        "description": f"{settings.site_title} API results",
        "link": links.base + "/",
        "response": {"@attributes": {"offset": str(offset), "total": str(total)}},
        "item": items,
    }
    return json.dumps({"@attributes": {"version": "2.0"}, "channel": channel})


def caps(
    settings: Settings, links: Links, used: set[int], groups: list[str], ids: Sequence[str] = ()
) -> dict[str, Any]:
    """The caps content as plain data; `caps_xml` and JSON both render it. `ids`: the id
    kinds some release carries, the only ones a search can find (`pipelines/ids`)."""
    return {
        "server": {
            "version": "1.0",
            "title": settings.site_title,
            "strapline": "A header-first Usenet indexer",
            "url": links.base + "/",
        },
        "limits": {"max": str(settings.max_limit), "default": str(settings.default_limit)},
        "retention": {"days": str(settings.retention_days)},
        "registration": {"available": "no", "open": "no"},
        "searching": {
            name: {"available": "yes", "supportedParams": _with_ids(name, params, ids)}
            for name, params in SEARCH_PARAMS.items()
        },
        "categories": cat.tree(used),
        "groups": groups,
    }


# the id parameters of each search, and the id kind each needs a release to carry
_ID_PARAMS = {
    "tv-search": (("tvdbid", "tvdb"), ("tvmazeid", "tvmaze"), ("rid", "tvrage"),
                  ("imdbid", "imdb"), ("tmdbid", "tmdb")),
    "movie-search": (("imdbid", "imdb"), ("tmdbid", "tmdb")),
}  # fmt: skip


def _with_ids(search: str, params: str, ids: Sequence[str]) -> str:
    """The search's parameters with the ids it can resolve after `q`."""
    found = [name for name, kind in _ID_PARAMS.get(search, ()) if kind in ids]
    if not found:
        return params
    head, _, rest = params.partition(",")
    return ",".join([head, *found, rest])


def caps_xml(data: dict[str, Any]) -> str:
    def attrs(d: dict[str, str]) -> str:
        return " ".join(f'{k}="{xml_text(v)}"' for k, v in d.items())

    out = [XML_HEAD, "<caps>\n"]
    for tag in ("server", "limits", "retention", "registration"):
        out.append(f"<{tag} {attrs(data[tag])}/>\n")
    out.append("<searching>\n")
    out += [f"<{name} {attrs(v)}/>\n" for name, v in data["searching"].items()]
    out.append("</searching>\n<categories>\n")
    for parent, subs in data["categories"].items():
        out.append(f'<category id="{parent}" name="{xml_text(cat.short_name(parent))}">')
        out += [f'<subcat id="{s}" name="{xml_text(cat.short_name(s))}"/>' for s in subs]
        out.append("</category>\n")
    out.append("</categories>\n<groups>\n")
    out += [f'<group name="{xml_text(g)}" description=""/>\n' for g in data["groups"]]
    out.append("</groups>\n</caps>\n")
    return "".join(out)


def caps_json(data: dict[str, Any]) -> str:
    def wrap(d: dict[str, str]) -> dict[str, Any]:
        return {"@attributes": d}

    cats = [
        {
            "@attributes": {"id": str(p), "name": cat.short_name(p)},
            "subcat": [{"@attributes": {"id": str(s), "name": cat.short_name(s)}} for s in subs],
        }
        for p, subs in data["categories"].items()
    ]
    out = {
        **{k: wrap(data[k]) for k in ("server", "limits", "retention", "registration")},
        "searching": {k: wrap(v) for k, v in data["searching"].items()},
        "categories": {"category": cats},
        "groups": {"group": [wrap({"name": g}) for g in data["groups"]]},
    }
    return json.dumps(out)
