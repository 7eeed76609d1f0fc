"""A synthetic catalog that follows `pipelines.catalog.schema` exactly, for tests and benches.

It stands in for the header pass's output until a real catalog exists, and it is the
only way to get a catalog of tens of millions of releases on one machine: every table
is built with numpy and Arrow column operations, one (group, range) partition at a time,
so memory stays bounded by one range and no Python runs per release or per segment.

The shape follows the reference notes: most releases are one file (~77 %) and many one
segment; a few are 100-file archive sets; ~3 % span a range boundary and so have a
provisional version in one range and a finished version in the next, with each file's
segments split between the two ranges' `release_files` rows. The last range of a group
leaves its spanning releases provisional. Albums carry their member names. The module is
long because it builds both tables the server reads, column by column (releases, and
release_files with their packed segments), vectorised so millions of rows stay cheap.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipelines.catalog import schema
from pipelines.catalog.layout import partition_path, snapshot_path
from pipelines.corpus.fs import atomic_put, open_fs
from pipelines.health.store import batch_name, health_folder
from pipelines.index.rules import Rules
from pipelines.index.snapshot import snapshot_bytes
from pipelines.index.window import Window
from pipelines.probe.cache import results_folder

RULES_VERSION = "synthetic-1"


def _split(text: str) -> list[str]:
    return text.split()


GROUPS = [
    "alt.binaries.teevee",
    "alt.binaries.movies.divx",
    "alt.binaries.hdtv.x264",
    "alt.binaries.multimedia",
    "alt.binaries.sounds.mp3",
    "alt.binaries.sounds.flac",
    "alt.binaries.e-book",
    "alt.binaries.comics.dcp",
    "alt.binaries.cores",
    "alt.binaries.warez",
    "alt.binaries.pictures",
    "alt.binaries.boneless",
    "alt.binaries.misc",
    "alt.binaries.x264",
    "alt.binaries.mom",
    "alt.binaries.anime",
]

_WORDS = _split(
    "the of and a love night house city dark world man woman girl boy last first black "
    "white blue red green golden silver secret lost hidden wild family life death star "
    "moon sun king queen prince princess war peace dragon ghost shadow fire ice water "
    "stone iron blood heart mind soul dream road river mountain ocean island garden "
    "forest valley north south east west winter summer spring autumn time day morning "
    "evening midnight street station bridge tower castle empire kingdom republic nation "
    "people friends brothers sisters sons daughters doctor detective agent soldier hunter "
    "killer thief lawyer teacher chef pilot captain mystery story legend journey return "
    "rise fall edge end beginning game rules truth lies justice revenge honor glory power "
    "money gold diamond crown sword arrow storm thunder lightning rain snow wind sky "
    "earth space planet galaxy future past present machine robot code signal network "
    "planet alien monster zombie vampire witch wizard magic curse "
)
_SYLLABLES = _split("ka lo mi ne ra tu vo shi zen bel cor dan el fa gri hol ix jun kel mar nor ")
_TV_TAGS = [
    "720p.HDTV.x264",
    "1080p.WEB.h264",
    "1080p.WEB-DL.DD5.1.H.264",
    "HDTV.XviD",
    "2160p.WEB.x265",
]
_TV_CATS = [5040, 5040, 5010, 5030, 5045]
_MOVIE_TAGS = [
    "1080p.BluRay.x264",
    "720p.BluRay.x264",
    "DVDRip.XviD",
    "2160p.UHD.BluRay.x265",
    "1080p.WEB-DL",
]
_MOVIE_CATS = [2040, 2040, 2030, 2045, 2080]
_TEAMS = _split("DIMENSION LOL KILLERS SPARKS GECKOS NTb FLEET AMIABLE RARBG CiNEFiLE TBS SiNNERS ")
_POSTER_NAMES = _split(
    "Yenc-PP-GA sloppy teevee4u NewsUp ngPost anon Uploader boneless jbinup Nyuu "
)
_POSTER_HOSTS = _split("power-post.org gmail.com nospam.net ngPost.com example.com yenc.org ")
_MSGID_HOSTS = ["@powerpost2000AA.local", "@ngPost", "@nyuu", "@JBinUp.local", "@news.example.com"]
# (kind, share): the release kinds and how often each is posted.
_KINDS = ["tv", "movie", "music", "book", "software", "album", "other"]
_KIND_SHARE = np.array([0.40, 0.18, 0.14, 0.10, 0.08, 0.02, 0.08])


@dataclass
class SyntheticStats:
    """What `write_synthetic_catalog` wrote: counts per table and the files."""

    releases: int = 0  # distinct release keys in the catalog
    versions: int = 0  # rows of `releases` (provisional + finished versions)
    files: int = 0  # rows of `release_files`
    segments: int = 0
    paths: list[str] = field(default_factory=list)


def _vocabulary(size: int, rng: np.random.Generator) -> np.ndarray:
    """Title words: common English words first, then invented ones, Zipf-like in use."""
    made = {
        "".join(rng.choice(_SYLLABLES, size=int(rng.integers(2, 4))))
        for _ in range(size - len(_WORDS))
    }
    common = [w.capitalize() for w in rng.permutation(_WORDS)]
    words = common + sorted(w.capitalize() for w in made)
    return np.array(words[:size], dtype=object)


def _zipf_pick(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """Indices in [0, size) with a heavy head, like title words and posters are."""
    # u**3 puts ~4 % of picks on the top word and ~17 % on the top 100: a long tail.
    return (size * rng.random(n) ** 3).astype(np.int64)


def _join(*parts: pa.Array | str, sep: str = ".") -> pa.Array:
    return pc.binary_join_element_wise(*parts, sep)


def _pad(values: np.ndarray, width: int) -> pa.Array:
    return pc.utf8_lpad(pa.array(values.astype(np.int64)).cast(pa.string()), width, "0")


def _title(rng: np.random.Generator, vocab: np.ndarray, n: int, words: int) -> pa.Array:
    cols = [pa.array(vocab[_zipf_pick(rng, n, len(vocab))]) for _ in range(words)]
    return _join(*cols)


def _names(
    kind: str, rng: np.random.Generator, vocab: np.ndarray, n: int
) -> tuple[pa.Array, np.ndarray, str]:
    """Release names, categories and the extension of a single file, for one kind."""
    team = pa.array(np.array(_TEAMS, dtype=object)[rng.integers(0, len(_TEAMS), n)])
    if kind == "tv":
        tag = rng.integers(0, len(_TV_TAGS), n)
        ep = pc.binary_join_element_wise(
            "S", _pad(rng.integers(1, 12, n), 2), "E", _pad(rng.integers(1, 24, n), 2), ""
        )
        body = _join(_title(rng, vocab, n, 2), ep, pa.array(np.array(_TV_TAGS)[tag]))
        return _join(body, team, sep="-"), np.array(_TV_CATS)[tag], ".mkv"
    if kind == "movie":
        tag = rng.integers(0, len(_MOVIE_TAGS), n)
        year = pa.array(rng.integers(1960, 2026, n)).cast(pa.string())
        body = _join(_title(rng, vocab, n, 3), year, pa.array(np.array(_MOVIE_TAGS)[tag]))
        return _join(body, team, sep="-"), np.array(_MOVIE_CATS)[tag], ".mkv"
    if kind == "music":
        flac = rng.random(n) < 0.4
        fmt = pa.array(np.where(flac, "FLAC", "MP3-320"))
        year = pa.array(rng.integers(1970, 2026, n)).cast(pa.string())
        name = _join(_title(rng, vocab, n, 2), _title(rng, vocab, n, 2), fmt, year, team, sep="-")
        return name, np.where(flac, 3040, 3010), ".mp3"
    if kind == "book":
        fmt = pa.array(np.array(["EPUB", "PDF", "MOBI"])[rng.integers(0, 3, n)])
        year = pa.array(rng.integers(1990, 2026, n)).cast(pa.string())
        name = _join(_title(rng, vocab, n, 2), "-", _title(rng, vocab, n, 3), year, fmt)
        return name, np.where(rng.random(n) < 0.8, 7020, 7010), ".epub"
    if kind == "software":
        ver = _join(
            pc.binary_join_element_wise(
                "v", pa.array(rng.integers(1, 30, n)).cast(pa.string()), ""
            ),
            pa.array(rng.integers(0, 10, n)).cast(pa.string()),
        )
        name = _join(_title(rng, vocab, n, 2), ver, "x64", sep=".")
        return _join(name, team, sep="-"), np.where(rng.random(n) < 0.7, 4010, 4050), ".iso"
    if kind == "album":
        return _join(_title(rng, vocab, n, 2), "IMG_####.jpg", sep=" "), np.full(n, 8010), ".jpg"
    return _join(_title(rng, vocab, n, 3), "Misc"), np.full(n, 8010), ".zip"


@dataclass
class _Range:
    """One (group, range) partition's tables, plus the releases carried to the next range."""

    releases: list[pa.Table]
    files: list[pa.Table]
    carried_releases: pa.Table | None = None
    carried_files: pa.Table | None = None


def _message_ids(rng: np.random.Generator, n: int) -> pa.Array:
    """n message-ids `<24 hex>@<host>`, built as one byte buffer (no per-id Python)."""
    pairs = np.array([f"{i:02x}".encode() for i in range(256)], dtype="S2").view(np.uint16)
    host_idx = rng.integers(0, len(_MSGID_HOSTS), n)
    hosts = [np.frombuffer(h.encode(), dtype=np.uint8) for h in _MSGID_HOSTS]
    host_len = np.array([len(h) for h in hosts])[host_idx]
    width = 24 + int(host_len.max(initial=0))
    buf = np.zeros((n, width), dtype=np.uint8)
    random = np.frombuffer(rng.bytes(n * 12), dtype=np.uint8).reshape(n, 12)
    buf[:, :24] = pairs[random].view(np.uint8).reshape(n, 24)
    for i, h in enumerate(hosts):
        rows = host_idx == i
        buf[rows, 24 : 24 + len(h)] = h
    lengths = 24 + host_len
    # Compact the fixed-width rows into one packed UTF-8 buffer with offsets.
    keep = np.arange(width)[None, :] < lengths[:, None]
    data = buf[keep]
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data.tobytes()))


def _keys(group: str, first_articles: np.ndarray, salt: bytes) -> np.ndarray:
    """Deterministic 20-byte keys from (group, first article): SHA-1 as the real ones are.

    hashlib runs per release here; it is the one per-row step and costs ~0.3 s per million.
    """
    prefix = group.encode() + b"\0" + salt
    sha1 = hashlib.sha1
    digests = b"".join(
        sha1(prefix + a.to_bytes(8, "little")).digest() for a in first_articles.tolist()
    )
    return np.frombuffer(digests, dtype=np.uint8).reshape(len(first_articles), 20)


def _fixed(keys: np.ndarray) -> pa.Array:
    return pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(20), len(keys), [None, pa.py_buffer(np.ascontiguousarray(keys).tobytes())]
    )


def _list(offsets: np.ndarray, values: pa.Array) -> pa.Array:
    return pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), values)


class _RangeBuilder:
    """Builds one (group, range) partition with numpy and Arrow column operations."""

    def __init__(
        self,
        rng: np.random.Generator,
        vocab: np.ndarray,
        posters: np.ndarray,
        rules_version: str = RULES_VERSION,
        light: bool = False,
    ) -> None:
        self.rng = rng
        self.vocab = vocab
        self.posters = posters
        self.rules_version = rules_version
        # one file of one segment a release: the chunk store small enough for a catalog of
        # tens of millions of releases on one machine (for benches that never read it whole)
        self.light = light

    def releases(self, n: int) -> dict[str, object]:
        rng = self.rng
        kind = rng.choice(len(_KINDS), size=n, p=_KIND_SHARE / _KIND_SHARE.sum())
        name_parts: list[pa.Array] = []
        cats = np.zeros(n, dtype=np.int32)
        ext = np.empty(n, dtype=object)
        order = np.argsort(kind, kind="stable")
        counts = np.bincount(kind, minlength=len(_KINDS))
        start = 0
        for k, count in enumerate(counts.tolist()):
            if count == 0:
                continue
            idx = order[start : start + count]
            start += count
            part, cat, extension = _names(_KINDS[k], rng, self.vocab, count)
            name_parts.append(part)
            cats[idx] = cat
            ext[idx] = extension
        names = pa.concat_arrays(name_parts).take(pa.array(np.argsort(order)))
        # Files: most releases are one file; a few are big archive sets of ~100 files.
        roll = rng.random(n)
        files = np.where(
            roll < 0.77,
            1,
            np.where(
                roll < 0.95,
                rng.integers(2, 12, n),
                np.where(roll < 0.9995, rng.integers(12, 40, n), rng.integers(95, 110, n)),
            ),
        ).astype(np.int64)
        album = kind == _KINDS.index("album")
        files[album] = 1
        if self.light:
            files[:] = 1
        return {"kind": kind, "names": names, "cats": cats, "ext": ext, "files": files}

    def segments_per_file(self, files: np.ndarray, file_rel: np.ndarray) -> np.ndarray:
        rng = self.rng
        if self.light:
            return np.ones(len(file_rel), dtype=np.int64)
        single = files[file_rel] == 1
        one_seg = rng.random(len(file_rel)) < 0.6
        small = rng.integers(1, 8, len(file_rel))
        big = rng.integers(20, 60, len(file_rel))
        return np.where(
            single, np.where(one_seg, 1, small), np.where(files[file_rel] > 50, big, small)
        )


def _build_range(
    b: _RangeBuilder,
    group: str,
    group_set: list[str],
    first: int,
    last: int,
    n: int,
    t0: int,
    t1: int,
    spanning_share: float,
) -> _Range:
    rng = b.rng
    rel = b.releases(n)
    files: np.ndarray = rel["files"]  # type: ignore[assignment]
    n_files = int(files.sum())
    file_rel = np.repeat(np.arange(n), files)
    file_start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(files, out=file_start[1:])
    file_index = np.arange(n_files) - file_start[file_rel] + 1
    seg_per_file = b.segments_per_file(files, file_rel)
    n_segs = int(seg_per_file.sum())
    seg_file = np.repeat(np.arange(n_files), seg_per_file)
    seg_start = np.zeros(n_files + 1, dtype=np.int64)
    np.cumsum(seg_per_file, out=seg_start[1:])
    seg_number = (np.arange(n_segs) - seg_start[seg_file] + 1).astype(np.int32)
    seg_bytes = rng.integers(700_000, 760_000, n_segs).astype(np.int32)
    last_seg = seg_number == seg_per_file[seg_file]
    seg_bytes[last_seg] = rng.integers(1_000, 700_000, int(last_seg.sum()))
    # Article numbers in posting order, with the odd gap (other posts, cancelled articles).
    gaps = rng.integers(1, 3, n_segs)
    articles = first + np.cumsum(gaps) - gaps[0]
    span = last - first + 1
    if n_segs and articles[-1] > last:
        articles = first + (articles - first) * (span - 1) // max(int(articles[-1] - first), 1)
    rel_first_seg = seg_start[file_start[:-1]]
    rel_last_seg = seg_start[file_start[1:]] - 1
    first_article = articles[rel_first_seg]
    last_article = articles[rel_last_seg]
    seconds = (t1 - t0) / max(span, 1)
    posted_first = (t0 + (first_article - first) * seconds).astype(np.int64)
    posted_last = (t0 + (last_article - first) * seconds).astype(np.int64) + 5
    # Spanning releases: the last few of the range, still open when the range ended.
    spanning = np.zeros(n, dtype=bool)
    n_span = int(n * spanning_share)
    if n_span:
        spanning[n - n_span :] = True
    # Keyed by position in the range, not by first article: squeezing the articles into
    # the range's span (below) can give two releases the same first article.
    keys = _keys(group, np.arange(n, dtype=np.int64) + first, b"synthetic")
    ident = _keys(group, np.arange(n, dtype=np.int64) + first, b"identity")
    seg_rel = file_rel[seg_file]
    cut = (seg_per_file + 1) // 2  # a spanning file's segments up to here are in this range
    carried_seg = spanning[seg_rel] & (seg_number > cut[seg_file])
    msgids = _message_ids(rng, n_segs)
    names: pa.Array = rel["names"]
    ext: np.ndarray = rel["ext"]  # type: ignore[assignment]
    poster = b.posters[_zipf_pick(rng, n, len(b.posters))]
    file_name = _file_names(names, ext, files, file_rel, file_index)
    subject = pc.binary_join_element_wise(
        "[",
        pa.array(file_index).cast(pa.string()),
        "/",
        pa.array(files[file_rel]).cast(pa.string()),
        '] - "',
        file_name,
        '" yEnc (1/',
        pa.array(seg_per_file).cast(pa.string()),
        ")",
        "",
    )
    file_cols = {
        "keys": keys,
        "file_rel": file_rel,
        "name": file_name,
        "subject": subject,
        "poster": poster[file_rel],
        "date": posted_first[file_rel] + file_index,
        "file_index": file_index,
        "part_total": seg_per_file,
        "groups": group_set,
    }
    seg_cols = {"file": seg_file, "number": seg_number, "bytes": seg_bytes, "ids": msgids}
    here = ~carried_seg
    files_now = _files_table(file_cols, seg_cols, here, first)
    seg_count_now = np.bincount(seg_rel[here], minlength=n)
    bytes_now = np.bincount(seg_rel[here], weights=seg_bytes[here], minlength=n).astype(np.int64)
    seg_count = np.bincount(seg_rel, minlength=n)
    total_bytes = np.bincount(seg_rel, weights=seg_bytes, minlength=n).astype(np.int64)
    kind: np.ndarray = rel["kind"]  # type: ignore[assignment]
    complete = rng.random(n) < 0.93
    file_total = np.where(complete, files, files + 1).astype(np.int32)
    members = _members(kind == _KINDS.index("album"), names, rng)
    common = {
        "release_key": _fixed(keys),
        "identity_key": _fixed(ident),
        "name": names,
        "poster": pa.array(poster, pa.string()),
        "group": pa.array([group] * n, pa.string()),
        "groups": pa.array([group_set] * n, pa.list_(pa.string())),
        "posted_first": posted_first,
        "first_article": first_article,
        "readable": np.ones(n, dtype=bool),
        "has_par2": files > 2,
        "source": pa.array(
            np.where(kind == _KINDS.index("album"), "album", np.where(files > 1, "stem", "subject"))
        ),
        "category": rel["cats"],
        "members": members,
        # No counter on ~10 % of posts: the header pass leaves file_total null then.
        "file_total": pa.array(file_total, pa.int32(), mask=rng.random(n) < 0.1),
        "rules_version": pa.array([b.rules_version] * n),
    }
    finished_now = ~spanning
    version_now = {
        **common,
        "posted_last": np.where(spanning, posted_first + 1, posted_last),
        "last_article": np.where(spanning, articles[rel_first_seg], last_article),
        "files": files.astype(np.int32),
        "segments": seg_count_now,
        "bytes": bytes_now,
        "complete": complete & finished_now,
        "finished": finished_now,
        "written_range": np.full(n, first, dtype=np.int64),
    }
    releases_now = _table(schema.RELEASES, version_now)
    # The finished versions of the spanning releases, written by the next range.
    version_next = {
        **common,
        "posted_last": posted_last,
        "last_article": last_article,
        "files": files.astype(np.int32),
        "segments": seg_count,
        "bytes": total_bytes,
        "complete": complete,
        "finished": np.ones(n, dtype=bool),
        "written_range": np.zeros(n, dtype=np.int64),  # set by the next range
    }
    carried = _table(schema.RELEASES, version_next).filter(pa.array(spanning))
    carried_files = _files_table(file_cols, seg_cols, carried_seg, 0)
    return _Range([releases_now], [files_now], carried, carried_files)


def _file_names(
    names: pa.Array,
    ext: np.ndarray,
    files: np.ndarray,
    file_rel: np.ndarray,
    file_index: np.ndarray,
) -> pa.Array:
    base = names.take(pa.array(file_rel))
    multi = files[file_rel] > 1
    last = file_index == files[file_rel]
    part = pc.binary_join_element_wise(".part", _pad(file_index, 3), ".rar", "")
    suffix = pa.array(np.where(multi, None, ext[file_rel]), pa.string())
    suffix = pc.if_else(pa.array(multi & last), ".par2", pc.coalesce(suffix, part))
    return pc.binary_join_element_wise(base, suffix, "")


def _members(album: np.ndarray, names: pa.Array, rng: np.random.Generator) -> pa.Array:
    """Album member names (`IMG_0001.jpg`...), first 20, null for other releases."""
    n = len(album)
    count = np.where(album, rng.integers(3, 21, n), 0)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(count, out=offsets[1:])
    owner = np.repeat(np.arange(n), count)
    number = np.arange(int(offsets[-1])) - offsets[owner] + 1
    values = pc.binary_join_element_wise("IMG_", _pad(number, 4), ".jpg", "")
    lists = _list(offsets, values)
    return pc.if_else(pa.array(album), lists, pa.nulls(n, lists.type))


def _files_table(f: dict, s: dict, mask: np.ndarray, written_range: int) -> pa.Table:
    """`release_files` rows for the segments under mask, one row per file with any."""
    seg_file = s["file"][mask]
    n_files = len(f["file_rel"])
    counts = np.bincount(seg_file, minlength=n_files)
    keep = np.nonzero(counts)[0]
    offsets = np.zeros(len(keep) + 1, dtype=np.int64)
    np.cumsum(counts[keep], out=offsets[1:])
    seg_idx = np.nonzero(mask)[0]  # already grouped by file, ascending number
    take = pa.array(keep)
    keys = f["keys"][f["file_rel"][keep]]
    cols = {
        "release_key": _fixed(keys),
        "written_range": np.full(len(keep), written_range, dtype=np.int64),
        "name": f["name"].take(take),
        "subject": f["subject"].take(take),
        "poster": pa.array(f["poster"][keep], pa.string()),
        "date": f["date"][keep],
        "groups": pa.array([f["groups"]] * len(keep), pa.list_(pa.string())),
        "file_index": f["file_index"][keep].astype(np.int32),
        "part_total": f["part_total"][keep].astype(np.int32),
        "bytes": np.bincount(seg_file, weights=s["bytes"][mask], minlength=n_files)[keep].astype(
            np.int64
        ),
        "seg_numbers": _list(offsets, pa.array(s["number"][seg_idx])),
        "seg_bytes": _list(offsets, pa.array(s["bytes"][seg_idx])),
        "seg_ids": _list(offsets, s["ids"].take(pa.array(seg_idx))),
    }
    return _table(schema.RELEASE_FILES, cols)


def _table(target: pa.Schema, cols: dict) -> pa.Table:
    arrays = []
    for fld in target:
        if fld.name not in cols:  # a column this generator has nothing for: null
            arrays.append(pa.nulls(len(next(iter(cols.values()))), fld.type))
            continue
        value = cols[fld.name]
        arr = value if isinstance(value, pa.Array | pa.ChunkedArray) else pa.array(value)
        arrays.append(arr.cast(fld.type) if arr.type != fld.type else arr)
    return pa.Table.from_arrays(arrays, schema=target)


def _write(
    fs,
    catalog: str,
    table: str,
    group: str,
    first: int,
    last: int,
    data: pa.Table,
    sort_by_key: bool,
    stats: SyntheticStats,
) -> None:
    if sort_by_key and data.num_rows:
        # Sorted by key, a file's row-group statistics let a key lookup read one row group.
        data = data.sort_by([("release_key", "ascending")])
    sink = pa.BufferOutputStream()
    # Dictionaries only where values repeat: random message-ids would waste the attempt.
    low_card = [
        c
        for c in ("poster", "group", "groups", "source", "rules_version")
        if c in data.column_names
    ]
    pq.write_table(
        data,
        sink,
        compression="zstd",
        compression_level=1,
        # Small row groups in the chunk store: a download decodes the one group holding its
        # key, ~2 k files' segment lists, not a whole partition's.
        row_group_size=2_048 if sort_by_key else 65_536,
        use_dictionary=low_card,
    )
    path = partition_path(catalog, table, group, first, last)
    atomic_put(fs, path, sink.getvalue().to_pybytes())
    stats.paths.append(path)


def write_synthetic_catalog(
    catalog: str,
    releases: int,
    seed: int = 0,
    groups: int = 6,
    per_range: int = 100_000,
    range_size: int = 2_000_000,
    now: int = 1_764_460_800,
    days: int = 3_000,
    spanning_share: float = 0.03,
    progress: Callable[[int], None] | None = None,
    first_group: int = 0,
    first_range: int = 0,
    group_names: list[str] | None = None,
    rules: Rules | None = None,
    light: bool = False,
    phase_two: bool = False,
) -> SyntheticStats:
    """Write about `releases` releases into `catalog` (a folder or fsspec URL).

    Releases are spread over `groups` groups and ranges of `per_range` releases, posted
    over the `days` before `now`; `progress` is called with releases written so far.
    `first_group` and `first_range` place the partitions elsewhere in the group list and
    the article numbers, so a second call can land new ranges in an existing catalog.
    `group_names`: the groups (default `GROUPS`); `rules`: the rule set the ranges ran
    with (their logs and windows name its fingerprint, so the scheduler finds them done);
    `light`: one file of one segment per release; `phase_two`: what the later passes
    leave too (`PhaseTwo`), as if each range had been probed, merged and checked.
    """
    names = group_names or GROUPS
    if releases < 1 or groups < 1 or per_range < 1:
        raise ValueError("releases, groups and per_range must be positive")
    if first_group + groups > len(names):
        raise ValueError(f"at most {len(names)} groups")
    if range_size < per_range:
        # keys come from (group, a release's place in its range's articles): ranges
        # narrower than their releases would give two releases one key
        raise ValueError(f"range_size ({range_size}) below per_range ({per_range})")
    rng = np.random.default_rng(seed)
    vocab = _vocabulary(20_000, rng)
    posters = np.array(
        [
            f"{n}{i}@{h} ({n})"
            for i in range(400)
            for n, h in [(rng.choice(_POSTER_NAMES), rng.choice(_POSTER_HOSTS))]
        ],
        dtype=object,
    )
    version = rules.fingerprint if rules is not None else RULES_VERSION
    builder = _RangeBuilder(rng, vocab, posters, version, light)
    fs, root = open_fs(catalog)
    later = PhaseTwo(fs, root, now, rules, np.random.default_rng([seed, 2])) if phase_two else None
    stats = SyntheticStats()
    n_ranges = max(1, -(-releases // per_range))
    plan = _plan(n_ranges, groups)
    t_start = now - days * 86_400
    left = releases
    for g, n_group_ranges in enumerate(plan):
        group = names[first_group + g]
        cross = [group, names[(g + 1) % len(names)]] if g % 3 == 2 else [group]
        carried: _Range | None = None
        for r in range(n_group_ranges):
            n = min(per_range, left)
            if n <= 0:
                break
            left -= n
            first, last = 1 + (first_range + r) * range_size, (first_range + r + 1) * range_size
            t0 = t_start + int((now - t_start) * r / n_group_ranges)
            t1 = t_start + int((now - t_start) * (r + 1) / n_group_ranges)
            share = spanning_share  # the last range leaves its spanning releases provisional
            part = _build_range(builder, group, cross, first, last, n, t0, t1, share)
            rel_tables, file_tables = part.releases, part.files
            if carried is not None and carried.carried_releases is not None:
                done = carried.carried_releases
                done = done.set_column(
                    done.schema.get_field_index("written_range"),
                    "written_range",
                    pa.array(np.full(done.num_rows, first, dtype=np.int64)),
                )
                # The finished version's last segment lies in this range.
                ends = first + np.arange(done.num_rows, dtype=np.int64) * 7 + 3
                col = done.schema.get_field_index("last_article")
                done = done.set_column(col, "last_article", pa.array(ends))
                rel_tables = [*rel_tables, done]
                cf = carried.carried_files
                assert cf is not None
                cf = cf.set_column(
                    cf.schema.get_field_index("written_range"),
                    "written_range",
                    pa.array(np.full(cf.num_rows, first, dtype=np.int64)),
                )
                file_tables = [*file_tables, cf]
            rel_table = pa.concat_tables(rel_tables)
            files_table = pa.concat_tables(file_tables)
            _write(fs, root, "releases", group, first, last, rel_table, False, stats)
            _write(fs, root, "release_files", group, first, last, files_table, True, stats)
            _write(
                fs,
                root,
                "ranges",
                group,
                first,
                last,
                _range_row(group, first, last, part, files_table, now, version),
                False,
                stats,
            )
            if later is not None:
                later.write(group, first, last, rel_table, stats)
            stats.releases += n
            stats.versions += rel_table.num_rows
            stats.files += files_table.num_rows
            stats.segments += int(pc.sum(pc.list_value_length(files_table["seg_ids"])).as_py() or 0)
            carried = part
            if progress:
                progress(releases - left)
    return stats


def _plan(n_ranges: int, groups: int) -> list[int]:
    """Ranges per group: bigger groups first, every group at least one range."""
    weights = 1.0 / np.arange(1, groups + 1)
    per = np.maximum(1, np.floor(n_ranges * weights / weights.sum())).astype(int)
    while per.sum() < n_ranges:
        per[int(np.argmin(per / weights))] += 1
    return per.tolist()


def _range_row(
    group: str,
    first: int,
    last: int,
    part: _Range,
    files: pa.Table,
    now: int,
    rules_version: str = RULES_VERSION,
) -> pa.Table:
    rel = part.releases[0]
    finished = int(pc.sum(rel["finished"]).as_py() or 0)
    segments = int(pc.sum(pc.list_value_length(files["seg_ids"])).as_py() or 0)
    row = {
        "group": [group],
        "range_first": [first],
        "range_last": [last],
        "rules_version": [rules_version],
        "headers": [int(segments * 1.6)],
        "bad_lines": [segments // 5000],
        "segments_kept": [segments],
        "releases_finished": [finished],
        "releases_provisional": [rel.num_rows - finished],
        "files": [files.num_rows],
        "pending": [rel.num_rows // 9],
        "seconds": [round(segments / 600_000, 3)],
        "indexed_at": [now - 3600 + first // 1000],
    }
    return pa.Table.from_pydict(row, schema=schema.RANGES)


class PhaseTwo:
    """What the passes after the header pass leave of each range, as if every range had
    been probed, merged, checked and judged: the stages that read them find every span
    done, so a run over the catalog does their real work on whatever is added to it.

    Per range: the window snapshot the range left (an empty window under `rules`: the
    range is done for the scheduler); pending releases (1 in 50, keys of their own); probe
    candidates (1 in 20 releases, and every pending one) with finished `release_probes`
    rows and their articles' results in the probe cache; an empty merge record (the span
    is merged: nothing joined); a health check of every release (checked at `now`: none
    is due for a day); a standing verdict for 1 in 500.
    """

    def __init__(
        self, fs: Any, root: str, now: int, rules: Rules | None, rng: np.random.Generator
    ) -> None:
        self.fs, self.root, self.now, self.rng = fs, root, now, rng
        self.rules = rules
        self.version = rules.fingerprint if rules is not None else RULES_VERSION
        self._window = snapshot_bytes(Window(rules), self.version) if rules is not None else b""
        self._runs = 0  # judge runs stamped so far: each verdict file's own judged_at

    def _put(self, path: str, table: pa.Table, stats: SyntheticStats) -> None:
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, compression="zstd", compression_level=1)
        atomic_put(self.fs, path, sink.getvalue().to_pybytes())
        stats.paths.append(path)

    def write(
        self, group: str, first: int, last: int, rel: pa.Table, stats: SyntheticStats
    ) -> None:
        fs, root, now = self.fs, self.root, self.now
        n = rel.num_rows
        if self._window:
            atomic_put(fs, snapshot_path(root, group, first, last), self._window)
        # pending releases: a copy of 1 in 50 rows under keys of their own
        picked = rel.take(pa.array(np.arange(0, n, 50)))
        m = picked.num_rows
        pkeys = _keys(group, np.arange(m, dtype=np.int64) + first, b"pending")
        pending_cols = {
            c: picked[c] for c in schema.PENDING_RELEASES.names if c in picked.column_names
        }
        pending_cols["release_key"] = _fixed(pkeys)
        pending_cols["tool"] = pa.array(["ngPost"] * m)
        pending = _table(schema.PENDING_RELEASES, pending_cols)
        self._put(partition_path(root, "pending_releases", group, first, last), pending, stats)
        # probe candidates: 1 in 20 releases (a par2 index) and every pending release
        some = rel.take(pa.array(np.arange(0, n, 20)))
        keys = pa.concat_arrays([some["release_key"].combine_chunks(), _fixed(pkeys)])
        k = len(keys)
        mids = _message_ids(self.rng, k)
        pend = np.arange(k) >= some.num_rows
        cand = _table(schema.PROBE_CANDIDATES, {
            "release_key": keys,
            "kind": pa.array(np.where(pend, "lone_random", "par2_index")),
            "file_name": pa.array(np.where(pend, "a1b2c3d4e5f6.bin", "index.par2")),
            "message_id": mids,
            "segment": np.ones(k, dtype=np.int32),
            "written_range": np.full(k, first, dtype=np.int64),
        })  # fmt: skip
        self._put(partition_path(root, "probe_candidates", group, first, last), cand, stats)
        probes = _table(schema.RELEASE_PROBES, {
            "release_key": keys,
            "group": pa.array([group] * k),
            "pending": pend,
            "outcome": pa.array(np.where(pend, "exhausted", "probed")),
            "step": np.ones(k, dtype=np.int8),
            "probes": np.ones(k, dtype=np.int32),
            "fetched": np.ones(k, dtype=np.int32),
            "missing": np.zeros(k, dtype=np.int32),
            "failed": np.zeros(k, dtype=np.int32),
            "probed_at": np.full(k, now - 7200, dtype=np.int64),
            "written_range": np.full(k, first, dtype=np.int64),
        })  # fmt: skip
        self._put(partition_path(root, "release_probes", group, first, last), probes, stats)
        results = _table(schema.PROBE_RESULTS, {
            "message_id": mids,
            "probed_at": np.full(k, now - 7200, dtype=np.int64),
            "status": pa.array(["ok"] * k),
            "kind": pa.array(np.where(pend, "other", "par2")),
        })  # fmt: skip
        name = f"{first:020d}-{zlib.crc32(group.encode()):010d}-bench.parquet"
        self._put(f"{results_folder(root)}/{name}", results, stats)
        merged = schema.RELEASE_MERGES.empty_table()
        self._put(partition_path(root, "release_merges", group, first, last), merged, stats)
        health = _table(schema.RELEASE_HEALTH, {
            "release_key": rel["release_key"],
            "group": pa.array([group] * n),
            "checked_at": np.full(n, now, dtype=np.int64),
            "verdict": pa.array(["ok"] * n),
            "segments": np.full(n, 3, dtype=np.int32),
            "missing": np.zeros(n, dtype=np.int32),
            "posted_last": rel["posted_last"],
        })  # fmt: skip
        self._put(f"{health_folder(root, group)}/{batch_name(first, 0)}", health, stats)
        judged = rel.take(pa.array(np.arange(0, n, 500)))
        j = judged.num_rows
        self._runs += 1
        at = now - 86_400 + self._runs
        verdicts = _table(schema.RELEASE_VERDICTS, {
            "release_key": judged["release_key"],
            "group": pa.array([group] * j),
            "rule": pa.array(["dead"] * j),
            "detail": pa.array(["synthetic"] * j),
            "rules_version": pa.array([self.version] * j),
            "judged_at": np.full(j, at, dtype=np.int64),
        })  # fmt: skip
        self._put(partition_path(root, "release_verdicts", group, at, at), verdicts, stats)
