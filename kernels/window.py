"""The carried window's hot path: a chunk's file runs into open files, new files into
open releases, in one kernel call a chunk.

The window's state is tables, not objects: a row per open file and per open release, a
part bitmap per file in one pool, and open-addressing hash tables over the 64-bit keys
parse computed (the current file of each file key, the open releases of each identity
and of each sibling key, the file keys and counter indexes each release holds). Placing
a run costs a few table probes here; as Python objects it cost ~30 us a run, the most
of any stage after inflate. `pipelines.index.window` keeps what is text or rare (names,
albums, batch counters) and turns a finished release's rows into the objects the output
reads.

The state is `Tables`: structured arrays, a row a file, release, hash slot or chain
link (the dtypes below; the window snapshot stores them as they are, docs/CATALOG.md).
A chunk's runs come in as `ChunkRuns` and the kernel's verdicts go out as `RunsPlaced`:
named tuples of the parse's own column arrays (struct of arrays, no copy; the hash maps
are arrays of structs, since a probe reads a slot's key and value together).

One module of ~600 lines on purpose: the hash maps, the placing loop, finishing and
compacting share the dtypes and counters, and the loop inlines the maps' probes.

The rules are `tests.reference.window`'s, run for run; `tests/test_window_kernel.py`
compares the two. Tables have room made by the caller before a call (`ensure`), except
the bitmap pool, whose need shows only run by run: the kernel stops before the run that
does not fit and returns its index; the caller grows the pool and calls again from it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kernels._jit import kernel

OPEN = 0
DONE = 1

EMPTY = -1  # a hash table slot never used
GONE = -2  # a file-map slot whose key's file finished (probing goes on past it)

FILE = np.dtype(
    [
        ("key", np.uint64),
        ("release", np.int64),
        ("next", np.int64),  # the release's next file, in placing order (-1: last)
        ("first_date", np.int64),
        ("last_date", np.int64),
        ("first_article", np.int64),
        ("last_article", np.int64),
        ("nbytes", np.int64),
        ("count", np.int64),  # distinct parts seen
        ("seen_off", np.int64),  # the part bitmap: pool[seen_off : seen_off + seen_cap]
        ("seen_cap", np.int64),
        ("last_part", np.int64),
        # where the message-ids of part 1 and of the highest part are: (chunk, row), or
        # chunk -1 when not seen or kept as bytes by the caller
        ("first_chunk", np.int64),
        ("first_row", np.int64),
        ("last_chunk", np.int64),
        ("last_row", np.int64),
        ("part_total", np.int32),
        ("file_index", np.int32),
        ("file_total", np.int32),
        ("volume", np.int32),
        ("ext_class", np.uint8),
        ("random_name", np.bool_),
    ]
)

RELEASE = np.dtype(
    [
        ("ident", np.uint64),
        ("poster_key", np.uint64),
        ("first_date", np.int64),
        ("last_date", np.int64),
        ("first_article", np.int64),
        ("last_article", np.int64),
        ("first_file", np.int64),
        ("last_file", np.int64),
        ("files", np.int64),
        ("file_total", np.int32),
        ("source", np.uint8),
        ("state", np.uint8),
        ("written", np.bool_),
    ]
)

# the file map's slot: a file key and the current file of that key (EMPTY, GONE)
FILE_SLOT = np.dtype([("key", np.uint64), ("file", np.int64)])
# the identity and sibling maps' slot: a key and its chain of links (EMPTY: slot unused)
CHAIN_SLOT = np.dtype([("key", np.uint64), ("head", np.int64), ("tail", np.int64)])
# a chain link: an open release, the next link
ENTRY = np.dtype([("release", np.int64), ("next", np.int64)])
# the pair set's slot: a release and a file key it holds, or the key standing for a
# counter index it holds (`_index_key`) (release EMPTY: slot unused)
PAIR = np.dtype([("release", np.int64), ("key", np.uint64)])

# the counters in `counts`
N_FILES, N_RELEASES, POOL_USED, FILE_MAP_USED, PAIRS_USED = 0, 1, 2, 3, 4
IDENT_MAP_USED, IDENT_ENTRIES, SIBLING_MAP_USED, SIBLING_ENTRIES = 5, 6, 7, 8
COUNTERS = 9
COUNTER_NAMES = (
    "n_files", "n_releases", "pool_used", "file_map_used", "pairs_used",
    "ident_map_used", "ident_entries", "sibling_map_used", "sibling_entries",
)  # fmt: skip


class Tables(NamedTuple):
    """The window's state: file and release rows, the part bitmaps' pool, the hash maps."""

    files: np.ndarray  # FILE
    releases: np.ndarray  # RELEASE
    pool: np.ndarray  # uint8: a byte per part number of each file (1: seen)
    file_map: np.ndarray  # FILE_SLOT: file key -> its current file
    ident_map: np.ndarray  # CHAIN_SLOT: identity -> its open releases, oldest first
    ident_entries: np.ndarray  # ENTRY
    sibling_map: np.ndarray  # CHAIN_SLOT: sibling key -> its open releases
    sibling_entries: np.ndarray  # ENTRY
    pairs: np.ndarray  # PAIR: (release, file key or index key) of every file a release holds
    counts: np.ndarray  # int64, COUNTERS: rows and slots used


class ChunkRuns(NamedTuple):
    """A parsed chunk's file runs as the kernel reads them: run r is rows
    bounds[r]:bounds[r + 1]; the rest per run (its first row's columns, its dates and
    articles, its sibling key)."""

    bounds: np.ndarray
    number: np.ndarray  # per row: part number
    nbytes: np.ndarray  # per row
    key: np.ndarray
    ident: np.ndarray
    poster_key: np.ndarray
    source: np.ndarray
    file_index: np.ndarray
    file_total: np.ndarray
    part_total: np.ndarray
    ext_class: np.ndarray
    volume: np.ndarray
    random_name: np.ndarray
    first_date: np.ndarray
    last_date: np.ndarray
    first_article: np.ndarray
    last_article: np.ndarray
    sibling: np.ndarray
    has_sibling: np.ndarray


class RunsPlaced(NamedTuple):
    """What placing did: per row, keep (a part the file had not seen); per run, file
    (the file it went into, -1 when it brought nothing new), all_kept (all its rows
    kept), new_file and new_release."""

    keep: np.ndarray
    file: np.ndarray
    all_kept: np.ndarray
    new_file: np.ndarray
    new_release: np.ndarray


def file_map(size: int) -> np.ndarray:
    out = np.zeros(size, FILE_SLOT)
    out["file"] = EMPTY
    return out


def chain_map(size: int) -> np.ndarray:
    out = np.zeros(size, CHAIN_SLOT)
    out["head"] = EMPTY
    out["tail"] = EMPTY
    return out


def pair_set(size: int) -> np.ndarray:
    out = np.zeros(size, PAIR)
    out["release"] = EMPTY
    return out


_MIX = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xC2B2AE3D27D4EB4F)
_INDEX_TAG = np.uint64(0x1DE7_C0DE_F11E_0000)


@kernel
def _home(k, mask):
    """A key's first probe slot (keys are hashes already; the multiply spreads their
    low bits, which the mask keeps)."""
    h = k * _MIX
    h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(mask))


# -- the file map: file key -> the current file of that key -----------------------------


@kernel
def file_map_get(slots, k):
    """The current file of key k, or -1."""
    mask = slots.shape[0] - 1
    i = _home(k, mask)
    while True:
        v = slots[i]["file"]
        if v == EMPTY:
            return -1
        if slots[i]["key"] == k:
            return v if v >= 0 else -1
        i = (i + 1) & mask


@kernel
def file_map_put(slots, k, file, counts):
    mask = slots.shape[0] - 1
    i = _home(k, mask)
    while True:
        v = slots[i]["file"]
        if v == EMPTY:
            slots[i]["key"] = k
            slots[i]["file"] = file
            counts[FILE_MAP_USED] += 1
            return
        if slots[i]["key"] == k:
            slots[i]["file"] = file
            return
        i = (i + 1) & mask


@kernel
def _file_map_forget(slots, k, file):
    """The key's current file finished: the key has none now (if that file is it)."""
    mask = slots.shape[0] - 1
    i = _home(k, mask)
    while True:
        v = slots[i]["file"]
        if v == EMPTY:
            return
        if slots[i]["key"] == k:
            if v == file:
                slots[i]["file"] = GONE
            return
        i = (i + 1) & mask


# -- the chain maps: identity (or sibling key) -> its open releases, oldest first -------


@kernel
def _chain_slot(slots, k):
    """The slot of key k, or of the empty slot where it would go."""
    mask = slots.shape[0] - 1
    i = _home(k, mask)
    while slots[i]["head"] != EMPTY and slots[i]["key"] != k:
        i = (i + 1) & mask
    return i


@kernel
def chain_append(slots, entries, k, release, counts, used):
    """Append release to key k's chain; counts[used] counts the map's keys and
    counts[used + 1] its entries."""
    i = _chain_slot(slots, k)
    e = counts[used + 1]
    counts[used + 1] += 1
    entries[e]["release"] = release
    entries[e]["next"] = -1
    if slots[i]["head"] == EMPTY:
        slots[i]["key"] = k
        slots[i]["head"] = e
        counts[used] += 1
    else:
        entries[slots[i]["tail"]]["next"] = e
    slots[i]["tail"] = e


@kernel
def _chain_holds(slots, entries, k, release):
    e = slots[_chain_slot(slots, k)]["head"]
    while e >= 0:
        if entries[e]["release"] == release:
            return True
        e = entries[e]["next"]
    return False


# -- the pair set: (release, file key) of every file a release holds, and its index ----


@kernel
def _pair_home(release, k, mask):
    return _home(k ^ (np.uint64(release) * _MIX2), mask)


@kernel
def pairs_add(pairs, release, k, counts):
    mask = pairs.shape[0] - 1
    i = _pair_home(release, k, mask)
    while pairs[i]["release"] != EMPTY:
        if pairs[i]["release"] == release and pairs[i]["key"] == k:
            return
        i = (i + 1) & mask
    pairs[i]["release"] = release
    pairs[i]["key"] = k
    counts[PAIRS_USED] += 1


@kernel
def _pairs_has(pairs, release, k):
    mask = pairs.shape[0] - 1
    i = _pair_home(release, k, mask)
    while pairs[i]["release"] != EMPTY:
        if pairs[i]["release"] == release and pairs[i]["key"] == k:
            return True
        i = (i + 1) & mask
    return False


# -- placing -----------------------------------------------------------------------------


@kernel
def _index_key(file_index):
    """The pair-set key that stands for "holds a file of counter index i" (beside the
    file keys, which are hashes: a tag keeps the two apart)."""
    return _INDEX_TAG ^ (np.uint64(file_index + 1) * _MIX2)


@kernel
def _counted(file_index, file_total):
    """Does a file's counter tell the files of an upload apart (i of N, N >= 2)? [1/1]
    does not: posters number every file of some uploads so."""
    return file_index >= 0 and file_total >= 2


@kernel
def _nearest(slots, entries, rels, pairs, k, file_key, index_key, total, counted, date,
             article, gap):  # fmt: skip
    """The latest open release of chain k the file fits: within the upload gap of it, or
    interleaved with it (starting before its last article), not holding its key yet. A
    counted file (`counted`, i of `total`) fits no release announcing another total nor
    holding a file of its index already: an upload numbers each file once against one
    total, so a second file 3, or a file of 12 beside files of 19, under a weak identity
    (a poster's nickname, a file stem like `folder`) or a sibling key is another upload's.
    Of equal last articles the first in the chain, as the reference's list order."""
    e = slots[_chain_slot(slots, k)]["head"]
    best = -1
    while e >= 0:
        c = entries[e]["release"]
        e = entries[e]["next"]
        if rels[c]["state"] != OPEN:
            continue
        near = rels[c]["first_date"] - gap <= date <= rels[c]["last_date"] + gap
        interleaved = article < rels[c]["last_article"]
        if not (near or interleaved) or _pairs_has(pairs, c, file_key):
            continue
        if counted and (
            (rels[c]["file_total"] >= 2 and rels[c]["file_total"] != total)
            or _pairs_has(pairs, c, index_key)
        ):
            continue
        if best < 0 or rels[c]["last_article"] > rels[best]["last_article"]:
            best = c
    return best


@kernel
def place_runs(t, runs, out, chunk, gap, start):
    """Place runs start.. of one parsed chunk (number `chunk`) into the tables `t`;
    returns the run it stopped before (the pool is full there) or the number of runs.
    `out` (RunsPlaced) receives what became of each row and run."""
    files = t.files
    rels = t.releases
    pool = t.pool
    counts = t.counts
    bounds = runs.bounds
    number = runs.number
    keep = out.keep
    n_runs = bounds.shape[0] - 1
    for r in range(start, n_runs):
        a = bounds[r]
        b = bounds[r + 1]
        k = runs.key[r]
        date = runs.first_date[r]
        top = np.int64(number[b - 1]) + 1  # part numbers ascend within a run
        want = max(top, np.int64(runs.part_total[r]) + 1)
        f = file_map_get(t.file_map, k)
        fresh_file = f < 0
        if not fresh_file and date > files[f]["last_date"] + gap:
            # later than the gap: posted again if it repeats parts or the file was whole
            pt = files[f]["part_total"]
            if pt > 0 and files[f]["count"] >= pt:
                fresh_file = True
            else:
                off = files[f]["seen_off"]
                cap = files[f]["seen_cap"]
                for i in range(a, b):
                    n = np.int64(number[i])
                    if n < cap and pool[off + n]:
                        fresh_file = True
                        break
        # room in the pool for this run's bitmap, before anything of the run changes
        if fresh_file:
            need = want
        elif top > files[f]["seen_cap"]:
            need = max(want, 2 * files[f]["seen_cap"])
        else:
            need = np.int64(0)
        if counts[POOL_USED] + need > pool.shape[0]:
            return r
        out.new_release[r] = False
        out.new_file[r] = fresh_file
        if fresh_file:
            f = counts[N_FILES]
            counts[N_FILES] += 1
            _new_file(files, f, r, runs)
            file_map_put(t.file_map, k, f, counts)
            article = runs.first_article[r]
            counted = _counted(runs.file_index[r], runs.file_total[r])
            index_key = _index_key(runs.file_index[r])
            rel = _nearest(
                t.ident_map, t.ident_entries, rels, t.pairs, runs.ident[r], k, index_key,
                runs.file_total[r], counted, date, article, gap,
            )  # fmt: skip
            has_sibling = runs.has_sibling[r]
            sibling = runs.sibling[r]
            if rel < 0 and has_sibling:
                # same poster, subject up to the file counter and total: one upload's
                # files whose unquoted names leaked into the identity, or whose subjects
                # name no release at all (`[01/19] - "01 - Track.mp3"`)
                rel = _nearest(
                    t.sibling_map, t.sibling_entries, rels, t.pairs, sibling, k, index_key,
                    runs.file_total[r], counted, date, article, gap,
                )  # fmt: skip
            if rel < 0:
                rel = counts[N_RELEASES]
                counts[N_RELEASES] += 1
                _new_release(rels, rel, r, runs, date, article)
                out.new_release[r] = True
            # a file with a sibling key makes its release findable by it, also when it
            # joined by identity: an upload's `[00/09] - Name.nzb`, `[01/09] - Name.nfo`
            # share an identity, and its `[03/09] - 01 - Song.mp3` finds them only so
            if has_sibling and not _chain_holds(t.sibling_map, t.sibling_entries, sibling, rel):
                chain_append(
                    t.sibling_map, t.sibling_entries, sibling, rel, counts, SIBLING_MAP_USED
                )
            ident = runs.ident[r]
            if not _chain_holds(t.ident_map, t.ident_entries, ident, rel):
                chain_append(t.ident_map, t.ident_entries, ident, rel, counts, IDENT_MAP_USED)
            if rels[rel]["last_file"] < 0:
                rels[rel]["first_file"] = f
            else:
                files[rels[rel]["last_file"]]["next"] = f
            rels[rel]["last_file"] = f
            rels[rel]["files"] += 1
            pairs_add(t.pairs, rel, k, counts)
            if counted:
                pairs_add(t.pairs, rel, index_key, counts)
            files[f]["release"] = rel
            if runs.file_total[r] > rels[rel]["file_total"]:
                rels[rel]["file_total"] = runs.file_total[r]
            # the bitmap
            off = counts[POOL_USED]
            counts[POOL_USED] += want
            pool[off : off + want] = 0
            files[f]["seen_off"] = off
            files[f]["seen_cap"] = want
        elif top > files[f]["seen_cap"]:
            off = counts[POOL_USED]
            counts[POOL_USED] += need
            old = files[f]["seen_off"]
            cap = files[f]["seen_cap"]
            pool[off : off + cap] = pool[old : old + cap]
            pool[off + cap : off + need] = 0
            files[f]["seen_off"] = off
            files[f]["seen_cap"] = need
        # the run's parts the file has not seen
        off = files[f]["seen_off"]
        kept = 0
        size = np.int64(0)
        first_row = -1
        last_row = -1
        for i in range(a, b):
            n = np.int64(number[i])
            if pool[off + n]:
                keep[i] = False
                continue
            pool[off + n] = 1
            keep[i] = True
            kept += 1
            size += runs.nbytes[i]
            if first_row < 0:
                first_row = i
            last_row = i
        if kept == 0:
            out.file[r] = -1
            out.all_kept[r] = False
            continue
        out.file[r] = f
        out.all_kept[r] = kept == b - a
        files[f]["count"] += kept
        files[f]["nbytes"] += size
        files[f]["first_date"] = min(files[f]["first_date"], runs.first_date[r])
        files[f]["last_date"] = max(files[f]["last_date"], runs.last_date[r])
        files[f]["first_article"] = min(files[f]["first_article"], runs.first_article[r])
        files[f]["last_article"] = max(files[f]["last_article"], runs.last_article[r])
        if number[first_row] == 1:
            files[f]["first_chunk"] = chunk
            files[f]["first_row"] = first_row
        if number[last_row] > files[f]["last_part"]:
            files[f]["last_part"] = number[last_row]
            files[f]["last_chunk"] = chunk
            files[f]["last_row"] = last_row
        rel = files[f]["release"]
        rels[rel]["first_date"] = min(rels[rel]["first_date"], files[f]["first_date"])
        rels[rel]["last_date"] = max(rels[rel]["last_date"], files[f]["last_date"])
        rels[rel]["first_article"] = min(rels[rel]["first_article"], files[f]["first_article"])
        rels[rel]["last_article"] = max(rels[rel]["last_article"], files[f]["last_article"])
    return n_runs


@kernel
def _new_file(files, f, r, runs):
    files[f]["key"] = runs.key[r]
    files[f]["release"] = -1
    files[f]["next"] = -1
    files[f]["first_date"] = runs.first_date[r]
    files[f]["last_date"] = runs.first_date[r]
    files[f]["first_article"] = runs.first_article[r]
    files[f]["last_article"] = runs.first_article[r]
    files[f]["nbytes"] = 0
    files[f]["count"] = 0
    files[f]["last_part"] = -1
    files[f]["first_chunk"] = -1
    files[f]["first_row"] = -1
    files[f]["last_chunk"] = -1
    files[f]["last_row"] = -1
    files[f]["part_total"] = runs.part_total[r]
    files[f]["file_index"] = runs.file_index[r]
    files[f]["file_total"] = runs.file_total[r]
    files[f]["volume"] = runs.volume[r]
    files[f]["ext_class"] = runs.ext_class[r]
    files[f]["random_name"] = runs.random_name[r]


@kernel
def _new_release(rels, rel, r, runs, date, article):
    rels[rel]["ident"] = runs.ident[r]
    rels[rel]["poster_key"] = runs.poster_key[r]
    rels[rel]["first_date"] = date
    rels[rel]["last_date"] = date
    rels[rel]["first_article"] = article
    rels[rel]["last_article"] = article
    rels[rel]["first_file"] = -1
    rels[rel]["last_file"] = -1
    rels[rel]["files"] = 0
    rels[rel]["file_total"] = -1
    rels[rel]["source"] = runs.source[r]
    rels[rel]["state"] = OPEN
    rels[rel]["written"] = False


# -- finishing ---------------------------------------------------------------------------


@kernel
def release_files(files, rels, releases):
    """The files of these releases, each release's in placing order, end to end; and
    where each release's start (offsets, one more than releases)."""
    offsets = np.empty(releases.shape[0] + 1, np.int64)
    total = 0
    for j in range(releases.shape[0]):
        offsets[j] = total
        total += rels[releases[j]]["files"]
    offsets[releases.shape[0]] = total
    out = np.empty(total, np.int64)
    p = 0
    for j in range(releases.shape[0]):
        x = rels[releases[j]]["first_file"]
        while x >= 0:
            out[p] = x
            p += 1
            x = files[x]["next"]
    return out, offsets


@kernel
def finish(files, rels, file_slots, releases):
    """These releases are done: closed, and their files no longer the current file of
    their keys (a later run of a key starts a file of its own)."""
    for j in range(releases.shape[0]):
        rel = releases[j]
        rels[rel]["state"] = DONE
        x = rels[rel]["first_file"]
        while x >= 0:
            _file_map_forget(file_slots, files[x]["key"], x)
            x = files[x]["next"]


# -- compacting (between ranges) ---------------------------------------------------------


@kernel
def copy_bitmaps(old_pool, new_pool, old_off, caps):
    """Bitmaps laid end to end in a new pool; returns their new offsets."""
    new_off = np.empty(old_off.shape[0], np.int64)
    p = 0
    for j in range(old_off.shape[0]):
        new_off[j] = p
        new_pool[p : p + caps[j]] = old_pool[old_off[j] : old_off[j] + caps[j]]
        p += caps[j]
    return new_off


@kernel
def rebuild_chains(old_slots, old_entries, release_map, slots, entries, counts, used):
    """A chain map again over the kept releases (renumbered by release_map, -1 dropped),
    each chain in its old order."""
    counts[used] = 0
    counts[used + 1] = 0
    for i in range(old_slots.shape[0]):
        e = old_slots[i]["head"]
        while e >= 0:
            rel = release_map[old_entries[e]["release"]]
            if rel >= 0:
                chain_append(slots, entries, old_slots[i]["key"], rel, counts, used)
            e = old_entries[e]["next"]


@kernel
def rebuild_file_map(old_slots, file_map, slots, counts):
    """The file map again in a new table, files renumbered by file_map (-1 dropped)."""
    counts[FILE_MAP_USED] = 0
    for i in range(old_slots.shape[0]):
        v = old_slots[i]["file"]
        if v >= 0 and file_map[v] >= 0:
            file_map_put(slots, old_slots[i]["key"], file_map[v], counts)


@kernel
def rebuild_pairs(old_pairs, release_map, pairs, counts):
    """The pair set again in a new table, releases renumbered by release_map (-1 dropped)."""
    counts[PAIRS_USED] = 0
    for i in range(old_pairs.shape[0]):
        rel = old_pairs[i]["release"]
        if rel >= 0 and release_map[rel] >= 0:
            pairs_add(pairs, release_map[rel], old_pairs[i]["key"], counts)
