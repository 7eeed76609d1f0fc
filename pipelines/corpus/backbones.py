"""Several backbones in one corpus: each backbone's ranges apart, in its own numbering.

Article numbers belong to a backbone: the same article has other numbers on another
backbone, and each backbone lacks articles the others have (retention, take-downs). So
each backbone keeps a whole corpus of CORPUS.md's layout of its own:

    <root>/<group>/<first>-<last>/...            the unnamed backbone (every corpus before)
    <root>/@<name>/<group>/<first>-<last>/...    the backbone `name`
    <root>/backbones.json                        the backbones in priority order

`@` never starts a newsgroup's name (RFC 3977: letters, digits, `+ - _` and dots), so a
backbone's folder is never taken for a group, and a corpus of one unnamed backbone (every
corpus written so far) reads as before. Each range's `range.json` names its backbone
(`"backbone": "name"`; absent for the unnamed one), and a reader refuses a manifest
that names another backbone than its folder's.
"""

from __future__ import annotations

import json
import re

from fsspec import AbstractFileSystem

from pipelines.corpus.fs import atomic_put, open_fs

PREFIX = "@"
ORDER_NAME = "backbones.json"
UNNAMED = ""  # the backbone whose corpus is the root itself
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_name(name: str) -> str:
    """A backbone name fit for a folder; ValueError naming it otherwise."""
    if name != UNNAMED and not _NAME.match(name):
        raise ValueError(
            f"backbone name {name!r}: letters, digits, '.', '_' and '-' only, "
            "starting with a letter or digit, at most 64"
        )
    return name


def backbone_root(root: str, name: str) -> str:
    """The corpus root of one backbone: the root itself for the unnamed one."""
    check_name(name)
    return root if name == UNNAMED else f"{root.rstrip('/')}/{PREFIX}{name}"


def is_backbone_folder(name: str) -> bool:
    return name.startswith(PREFIX)


def backbone_of(root: str) -> str:
    """The backbone a corpus root holds, by its folder's name (what readers check and
    writers record in each `range.json`)."""
    last = root.rstrip("/").rsplit("/", 1)[-1]
    return last[len(PREFIX) :] if is_backbone_folder(last) else UNNAMED


def read_order(fs: AbstractFileSystem, root: str) -> list[str]:
    """The backbones in priority order: `backbones.json`'s list, then any other stored
    backbone folder (by name); a corpus without the file is its unnamed backbone."""
    listed = _listed(fs, root)
    stored = [UNNAMED] if UNNAMED not in listed else []
    if fs.isdir(root):
        stored += sorted(
            p.rsplit("/", 1)[-1][len(PREFIX) :]
            for p in fs.ls(root, detail=False)
            if is_backbone_folder(p.rsplit("/", 1)[-1])
        )
    return listed + [n for n in stored if n not in listed]


def _listed(fs: AbstractFileSystem, root: str) -> list[str]:
    try:
        doc = json.loads(fs.cat_file(f"{root.rstrip('/')}/{ORDER_NAME}"))
    except (OSError, ValueError):
        return []
    if not isinstance(doc, dict) or not isinstance(doc.get("backbones"), list):
        return []
    return [check_name(n) for n in doc["backbones"] if isinstance(n, str)]


def corpus_backbones(root: str, storage_options: dict[str, object] | None = None) -> list[str]:
    """The corpus's backbones in priority order (the unnamed one where it was not listed)."""
    fs, path = open_fs(root, storage_options)
    return read_order(fs, path)


def write_order(fs: AbstractFileSystem, root: str, names: list[str]) -> None:
    """Record the backbones' priority order (the capture's providers' order): the header
    pass takes a group's primary from it. Names already recorded keep their place."""
    known = _listed(fs, root)
    order = known + [check_name(n) for n in names if n not in known]
    if order == known:
        return
    doc = {"backbones": order}
    atomic_put(fs, f"{root.rstrip('/')}/{ORDER_NAME}", json.dumps(doc).encode() + b"\n")
