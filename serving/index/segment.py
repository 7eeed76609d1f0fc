"""One index segment mapped into memory: files written by `build.write_segment`.

Everything is memory-mapped: the server's own memory holds only the per-segment
`dead` mask (versions superseded by a newer segment) and small dictionaries; pages
are read from the page cache as queries touch them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa

from serving.index.build import FORMAT
from serving.index.pages import (
    Asked,
    ask_strings,
    ask_value,
    asked_of,
    map_ipc,
    map_npy,
    populate_head,
    populate_offsets,
)

TERM_CACHE = 65_536  # term lookups kept per segment
HEAD_SHARE = 16  # the newest 1/HEAD_SHARE of a segment's feed items are kept resident
_DOWNLOAD_COLUMNS = ["name", "first_article", "last_article", "written_range", "password_text"]


class Segment:
    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        # segment.json is written last: a folder without it is a build cut short.
        self.summary = json.loads((self.folder / "segment.json").read_text())
        if self.summary.get("format") != FORMAT:  # an older build's files: rebuilt
            raise ValueError(f"{self.folder}: segment format {self.summary.get('format')}")
        self.rows = map_ipc(str(self.folder / "rows.arrow"), random=True)
        self.n = self.rows.num_rows
        # Take from record batches, never the table: Arrow's take on a chunked column
        # concatenates every chunk first (gigabytes of a mapped file per request).
        self.batches = self.rows.to_batches()
        self.batch_starts = np.cumsum([0] + [b.num_rows for b in self.batches])
        if "name" in self.rows.schema.names:  # a download then reads its row in one round
            for batch in self.batches:
                populate_offsets(batch.column("name"))
        # Each release's feed item values, prepared at build (`newznab.items`): a page
        # reads one column here instead of eleven from `rows`.
        items = map_ipc(str(self.folder / "items.arrow"), random=True).column(0)
        self._item_chunks = items.chunks
        self._item_starts = np.cumsum([0] + [len(c) for c in items.chunks])
        for chunk in self._item_chunks:  # where each item is: 4 bytes a release, resident
            populate_offsets(chunk)
        self._item_asked = [asked_of(chunk) for chunk in self._item_chunks]
        # The newest releases' items resident too: ordinals are newest first and a page of
        # results starts at the newest matches, so the first 1/16 of a segment held 65-70 %
        # of the items the bench's searches read (~40 MB per 2 M releases).
        head = -(-self.n // HEAD_SHARE)
        starts = self._item_starts[:-1]
        for chunk, start, asked in zip(self._item_chunks, starts, self._item_asked, strict=True):
            populate_head(chunk, head - int(start), asked)
        # Resident: a few bytes a release that searches read all over (`pages`).
        load = lambda name, random=False: map_npy(str(self.folder / f"{name}.npy"), random)  # noqa: E731
        self.posted = load("posted")
        self.bytes = load("bytes")
        self.category = load("category")
        self.file = load("file", True)  # read by nothing per request
        self.rank = load("rank")
        self.keys = load("keys")
        self.key_order = load("key_order")
        self.group = load("group")
        self.hidden = np.load(self.folder / "hidden.npy")
        # Passworded releases (`password` 1) as bits, for `password=0`; how many (most
        # segments have none, and then nothing is read).
        self.passworded = np.load(self.folder / "passworded.npy")
        self.passworded_count: int = self.summary.get("passworded", 0)
        self.offsets = load("offsets")
        self.postings = load("postings", True)
        # The common terms' bitsets, resident: most queries hold a common word (~9 B a
        # release: one bit per release for each of ~70 terms).
        self.bitsets = load("bitsets")
        # What of them was asked for already (`pages.Asked`), and where they are mapped.
        self._postings_at = self.postings.ctypes.data
        self._postings_asked = Asked(self._postings_at, self.postings.nbytes)
        self.terms = (
            map_ipc(str(self.folder / "terms.arrow")).column(0).chunk(0) if self.n else None
        )
        # The dictionary's raw UTF-8 (byte order is code point order, which sorted it), so
        # a lookup compares bytes instead of making an Arrow scalar per step.
        self._term_offsets: np.ndarray | None = None
        self._term_bytes: memoryview | None = None
        if self.terms is not None and len(self.terms):
            offsets, data = self.terms.buffers()[1:3]
            assert offsets is not None and data is not None
            first, count = self.terms.offset, len(self.terms)
            self._term_offsets = np.frombuffer(offsets, np.int32)[first : first + count + 1]
            self._term_bytes = memoryview(data)
        self._term_ids: dict[str, int | None] = {}
        self._selected: dict[tuple[str, ...], list[pa.RecordBatch]] = {}
        bitset_terms = np.load(self.folder / "bitset_terms.npy")
        self._bitset_row = {int(t): i for i, t in enumerate(bitset_terms.tolist())}
        self.groups: list[str] = self.summary["groups"]
        self.sources: list[dict] = self.summary["sources"]

    def _select(self, columns: list[str]) -> list[pa.RecordBatch]:
        # Selecting costs ~60 us a batch (more than the take): done once per column list.
        key = tuple(columns)
        found = self._selected.get(key)
        if found is None:
            found = self._selected[key] = [b.select(columns) for b in self.batches]
        return found

    def _by_batch(self, ords: np.ndarray) -> list[tuple[np.ndarray, int, np.ndarray]]:
        """(positions in ords, batch number, row numbers in that batch) per batch touched."""
        ords = np.asarray(ords, dtype=np.int64)
        which = np.searchsorted(self.batch_starts, ords, side="right") - 1
        out = []
        for b in sorted(set(which.tolist())):
            where = np.nonzero(which == b)[0]
            out.append((where, b, ords[where] - self.batch_starts[b]))
        return out

    def take(self, ords: np.ndarray, columns: list[str] | None = None) -> pa.Table:
        """The rows at these ordinals (only `columns`, if given), in the order given."""
        pieces = []
        positions = []
        batches = self.batches if columns is None else self._select(columns)
        for where, b, local in self._by_batch(ords):
            pieces.append(batches[b].take(pa.array(local)))
            positions.append(where)
        if not pieces:
            empty = self.rows.schema.empty_table()
            return empty if columns is None else empty.select(columns)
        table = pa.Table.from_batches(pieces)
        if len(pieces) == 1:
            return table
        # Batches come in ordinal order; put the rows back in the order asked for.
        return table.take(pa.array(np.argsort(np.concatenate(positions), kind="stable")))

    def download_row(self, ord_: int) -> dict:
        """What an NZB download needs of a release: group and category from the small
        arrays searches keep resident, four columns of `rows` (a page or two each of the
        mapped file, perhaps cold: asked for together, then read)."""
        b = int(np.searchsorted(self.batch_starts, ord_, side="right")) - 1
        local = ord_ - int(self.batch_starts[b])
        batch = self._select(_DOWNLOAD_COLUMNS)[b]
        ask_value(batch.columns, local)
        row = {name: batch.column(i)[local].as_py() for i, name in enumerate(batch.schema.names)}
        row["group"] = self.groups[int(self.group[ord_])]
        row["category"] = int(self.category[ord_])
        return row

    def items_at(self, ords: np.ndarray) -> list[str]:
        """The prepared feed item values at these ordinals, in the order given."""
        ords = np.asarray(ords, dtype=np.int64)
        out: list[str] = [""] * len(ords)
        which = np.searchsorted(self._item_starts, ords, side="right") - 1
        for b in sorted(set(which.tolist())):
            where = np.nonzero(which == b)[0]
            rows = ords[where] - self._item_starts[b]
            ask_strings(
                self._item_chunks[b], rows, self._item_asked[b]
            )  # cold pages read together, not one by one
            local = pa.array(rows)
            for pos, value in zip(where.tolist(), self._item_chunks[b].take(local).to_pylist(),
                                  strict=True):  # fmt: skip
                out[pos] = value
        return out

    def keys_at(self, ords: np.ndarray) -> np.ndarray:
        """The release keys at these ordinals as 'S20' (for ordering ties)."""
        out = np.empty(len(ords), dtype="S20")
        col = self.rows.schema.get_field_index("release_key")
        for where, b, local in self._by_batch(ords):
            taken = self.batches[b].column(col).take(pa.array(local))
            buf = taken.buffers()[1]
            out[where] = np.frombuffer(buf, dtype="S20", count=len(taken), offset=taken.offset * 20)
        return out

    def term_id(self, term: str) -> int | None:
        """The term's index in the sorted dictionary (binary search), None when absent."""
        found = self._term_ids.get(term, -1)
        if found != -1:
            return found
        found = self._search_term(term.encode())
        if len(self._term_ids) >= TERM_CACHE:
            self._term_ids.clear()  # queries repeat their words: a bounded cache suffices
        self._term_ids[term] = found
        return found

    def _search_term(self, term: bytes) -> int | None:
        offsets, data = self._term_offsets, self._term_bytes
        if offsets is None or data is None:
            return None
        at = lambda i: bytes(data[int(offsets[i]) : int(offsets[i + 1])])  # noqa: E731
        lo, hi = 0, len(offsets) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if at(mid) < term:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < len(offsets) - 1 and at(lo) == term else None

    def frequency(self, term_id: int) -> int:
        return int(self.offsets[term_id + 1] - self.offsets[term_id])

    def postings_of(self, term_id: int) -> np.ndarray:
        start, end = int(self.offsets[term_id]), int(self.offsets[term_id + 1])
        width = self.postings.itemsize
        self._postings_asked.ask_span(
            self._postings_at + start * width, self._postings_at + end * width
        )
        return self.postings[start:end]

    def bitset_of(self, term_id: int) -> np.ndarray | None:
        row = self._bitset_row.get(term_id)
        if row is None:
            return None
        bits = self.bitsets[row]
        return bits

    def find(self, key: bytes) -> int | None:
        """The ordinal of a release key in this segment, None when absent."""
        if self.n == 0 or len(key) != 20:
            return None
        # Compare raw bytes: an 'S20' item as a scalar drops its trailing zero bytes.
        i = int(np.searchsorted(self.keys, np.bytes_(key)))
        if i < self.n and self.keys[i : i + 1].tobytes() == key:
            return int(self.key_order[i])
        return None

    def count_newer(self, cutoff: int) -> int:
        """How many releases were posted at or after cutoff (ordinals are newest first)."""
        posted = self.posted
        lo, hi = 0, self.n
        while lo < hi:
            mid = (lo + hi) // 2
            if posted[mid] >= cutoff:
                lo = mid + 1
            else:
                hi = mid
        return lo
