"""The window's kernel (`pipelines.index.window`) against its reference
(`tests.reference.window`): the same parsed chunks in, the same releases out, handed out at
the same moments, on hypothesis-made run streams and on generated ranges."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernels import subject as sk
from pipelines.corpus.reader import CorpusReader, RangeReport
from pipelines.index import window as window_module
from pipelines.index.handout import HandOut
from pipelines.index.parse import Drops, parse_chunk
from pipelines.index.parsed_chunk import SOURCE_STEM, SOURCE_SUBJECT, ParsedChunk
from pipelines.index.release import OpenFile, OpenRelease
from pipelines.index.rules import Rules
from pipelines.index.snapshot import read_snapshot, snapshot_bytes
from pipelines.index.window import Window
from tests.corpora import generate
from tests.reference.window import ReferenceWindow

HOUR = 3600
RULES = Rules(batch_total_min=6, batch_uploads_min=2, album_max_files=4)


def _file(f: OpenFile, seqs: dict[int, int]) -> tuple[Any, ...]:
    return (
        f.key, f.subject, f.poster, f.name, f.xref, f.file_index, f.file_total, f.part_total,
        f.ext_class, f.volume, f.random_name, f.first_date, f.last_date, f.first_article,
        f.last_article, f.nbytes, f.count, f.first_part_id, f.last_part, f.last_part_id,
        # segment by segment: how they are cut into pieces is the window's own business
        [(seqs[id(p.chunk)], row) for p in f.pieces for row in p.indices().tolist()],
        [(p.chunk.number[row], p.chunk.message_id[row].as_py())
         for p in f.carried for row in p.indices().tolist()],
    )  # fmt: skip


def _release(rel: OpenRelease, seqs: dict[int, int], window: Any, final: bool) -> Any:
    first = rel.first_member
    return (
        rel.ident, rel.poster_key, rel.source, rel.first_date, rel.last_date,
        rel.first_article, rel.last_article, rel.file_total, rel.written, rel.members,
        rel.album_template, None if first is None else (first.ident, first.first_article),
        [(m.ident, m.first_article) for m in rel.absorbed],
        [_file(f, seqs) for f in rel.files], window.is_batch_total(rel, final),
    )  # fmt: skip


def _hand_out(
    handed: HandOut | list[OpenRelease], seqs: dict[int, int], window: Any, final: bool
) -> list:
    """What the output would read, then as the output leaves it (pieces written). In no
    order: the output sorts its rows, and the window hands its block out before albums."""
    rels = handed.open_releases() if isinstance(handed, HandOut) else handed
    out = sorted((_release(rel, seqs, window, final) for rel in rels), key=repr)
    for rel in rels:
        for f in rel.files:
            album = rel.source == 3
            f.pieces = []
            if album or final:
                f.carried = []
        rel.written = True
        if final and isinstance(window, ReferenceWindow):
            window.retire(rel)
    return out


def _run(windows: list[Any], ranges: list[list[ParsedChunk]], frontiers: list[list[int]]) -> list:
    """Feed both windows range by range (stored and loaded between ranges, the window
    through its snapshot), recording every hand-out."""
    logs: list[list] = [[] for _ in windows]
    for chunks, moves in zip(ranges, frontiers, strict=True):
        seqs = {id(b): i for i, b in enumerate(chunks)}
        for i, w in enumerate(windows):
            for chunk, frontier in zip(chunks, moves, strict=True):
                w.frontier.frontier = frontier
                w.add(chunk)
                logs[i].append(("finished", _hand_out(w.finish_due(), seqs, w, True)))
            logs[i].append(("carried", _hand_out(w.carry(), seqs, w, False)))
            if isinstance(w, Window):  # through the snapshot's bytes, as replay does
                payload = snapshot_bytes(w, "v")
                windows[i] = read_snapshot(payload)["window"]
                assert snapshot_bytes(windows[i], "v") == payload  # save, load, save
            else:
                windows[i] = pickle.loads(pickle.dumps(w))
            windows[i].rules = w.rules
    return logs


def _chunk(runs: list[dict]) -> ParsedChunk:
    """A parsed chunk of these runs (rows of part numbers each)."""
    lengths = [len(r["numbers"]) for r in runs]
    bounds = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)

    def per_row(name: str, dtype: Any) -> np.ndarray:
        return np.repeat(np.array([r[name] for r in runs], dtype), lengths)

    numbers = np.concatenate([np.array(r["numbers"], np.int32) for r in runs] or [[]])
    rows = int(bounds[-1])
    return ParsedChunk(
        bounds=bounds,
        file_key=per_row("key", np.uint64),
        ident=per_row("ident", np.uint64),
        poster_key=per_row("poster", np.uint64),
        source=per_row("source", np.uint8),
        number=numbers.astype(np.int32),
        part_total=per_row("part_total", np.int32),
        file_index=per_row("file_index", np.int32),
        file_total=per_row("file_total", np.int32),
        ext_class=per_row("ext_class", np.uint8),
        volume=per_row("volume", np.int32),
        random_name=per_row("random", np.bool_),
        nbytes=(numbers.astype(np.int64) * 7 + 1000),
        article=np.concatenate([np.array(r["articles"], np.int64) for r in runs] or [[]]),
        date=np.zeros(rows, np.int64),
        message_id=pa.array(
            [f"{r['key']}.{n}.{r['first_date']}@x".encode() for r in runs for n in r["numbers"]],
            pa.binary(),
        ),
        run_first_date=np.array([r["first_date"] for r in runs], np.int64),
        run_last_date=np.array([r["last_date"] for r in runs], np.int64),
        run_first_article=np.array([r["articles"][0] for r in runs], np.int64),
        run_last_article=np.array([r["articles"][-1] for r in runs], np.int64),
        run_subject=[r["subject"] for r in runs],
        run_poster=[b"poster %d" % r["poster"] for r in runs],
        run_name=[r["name"] for r in runs],
        run_xref=[b"Xref: h a.b.c:1" for _ in runs],
    )


_run_spec = st.fixed_dictionaries(
    {
        "upload": st.integers(0, 5),  # key, identity and poster pools: repeats on purpose
        "file": st.integers(0, 3),
        "ident_shift": st.integers(0, 1),
        "poster": st.integers(0, 1),
        "source": st.sampled_from([SOURCE_SUBJECT, SOURCE_STEM]),
        "parts": st.lists(st.integers(1, 12), min_size=1, max_size=6, unique=True),
        "part_total": st.sampled_from([0, 4, 8, 12]),
        "file_total": st.sampled_from([-1, 2, 4, 6, 8]),
        "ext_class": st.sampled_from([sk.IMAGE, sk.AUDIO, sk.RAR_FIRST, sk.PAR2_INDEX]),
        "random": st.booleans(),
        "step": st.sampled_from([0, 60, 1800, 4 * HOUR, 30 * HOUR]),  # time since the last run
        "counter": st.sampled_from(["[{i}/{n}]", "({i}/{n})", "File {i} of {n}", "x"]),
        # nameless: nothing before the counter (`[01/19] - "01 - Song.mp3"`), so a
        # poster's uploads of one total share a sibling key
        "named": st.booleans(),
        "base": st.integers(0, 1),  # counters from 0 (`[00/09]`) or from 1
        "upload_total": st.booleans(),  # the total the upload's every file announces
    }
)


def _runs_of(
    specs: list[dict], start_article: int, start_date: int, shuffle: int = 0
) -> tuple[list[dict], int, int]:
    """Runs of these specs; with `shuffle`, the chunk's article numbers are dealt out at
    random (files posted at the same time interleave), runs then in first-article order."""
    total = sum(len(s["parts"]) for s in specs)
    numbers_of = np.arange(start_article, start_article + total)
    if shuffle:
        numbers_of = np.random.default_rng(shuffle).permutation(numbers_of)
    runs = []
    date, dealt = start_date, 0
    for s in specs:
        date += s["step"]
        numbers = sorted(s["parts"])
        articles = sorted(numbers_of[dealt : dealt + len(numbers)].tolist())
        dealt += len(numbers)
        index = s["file"] + s.get("base", 1)
        total = (2, 4, 6, 8)[s["upload"] % 4] if s.get("upload_total") else s["file_total"]
        counter = s["counter"].format(i=index, n=total)
        if s.get("named", True):
            subject = f"Upload number {s['upload']} - {counter} yEnc"
        else:
            subject = f'{counter} - "photo{s["upload"]}_{s["file"]}.jpg" yEnc'

        runs.append(
            {
                "key": 1000 * s["upload"] + s["file"] + 1,
                "ident": 77 * s["upload"] + s["ident_shift"] + 1,
                "poster": s["poster"] + 1,
                "source": s["source"],
                "numbers": numbers,
                "articles": articles,
                "part_total": s["part_total"],
                "file_index": index if s["counter"] != "x" else -1,
                "file_total": total,
                "ext_class": s["ext_class"],
                "volume": s["file"],
                "random": s["random"],
                "first_date": date,
                "last_date": date + 30 * len(numbers),
                "subject": subject.encode(),
                "name": f"photo{s['upload']}_{s['file']}.jpg".encode(),
            }
        )
    runs.sort(key=lambda r: r["articles"][0])
    return runs, start_article + total + 1, date


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(st.lists(_run_spec, max_size=8), min_size=1, max_size=4), min_size=1,
             max_size=3),
    st.integers(0, 3),
)  # fmt: skip
def test_the_kernel_window_hands_out_what_the_reference_does(ranges_spec, shuffle):
    ranges, frontiers = [], []
    article, date = 1, 1_700_000_000
    for range_spec in ranges_spec:
        chunks, moves = [], []
        for specs in range_spec:
            runs, article, date = _runs_of(specs, article, date, shuffle)
            chunks.append(_chunk(runs))
            moves.append(date)
        ranges.append(chunks)
        frontiers.append(moves)
    got, want = _run([Window(RULES), ReferenceWindow(RULES)], ranges, frontiers)
    assert got == want


def _spec(upload: int, file: int, **over: Any) -> dict:
    """One run of a hand-made stream: file `file` of upload `upload`, one part, a minute
    after the run before; `over` changes any field."""
    spec = {
        "upload": upload, "file": file, "ident_shift": 0, "poster": 0, "source": SOURCE_STEM,
        "parts": [1], "part_total": 1, "file_total": 4, "ext_class": sk.AUDIO,
        "random": False, "step": 60, "counter": "[{i}/{n}]", "named": False, "base": 1,
        "upload_total": False,
    }  # fmt: skip
    spec.update(over)
    return spec


def _album(upload: int, files: int, **over: Any) -> list[dict]:
    return [_spec(upload, f, file_total=files, **over) for f in range(files)]


# hand-made streams for what counters decide; each compared with the reference, at each
# of the interleavings `_runs_of` deals out
_STREAMS = {
    # nameless albums of one poster back to back: one total, then another
    "albums_in_a_row": [*_album(0, 4), *_album(1, 4), *_album(2, 3), *_album(3, 4)],
    # counters from 0, a file of the album posted twice (the same key), a fill
    "from_zero_and_again": [*_album(0, 4, base=0), _spec(0, 2, parts=[1, 2]), *_album(1, 4)],
    # one identity (named, a weak one) for every upload of the poster
    "weak_identity": [
        {**r, "source": SOURCE_SUBJECT, "named": True, "ident_shift": 0}
        for r in _album(0, 3) + _album(1, 2) + _album(2, 3)
    ],
    # totals a batch counter may have: no sibling key (RULES.batch_total_min is 6)
    "batch_totals": [_spec(u, u % 4, file_total=8) for u in range(8)],
    # [1/1] every file, under stems and a named identity
    "all_ones": [_spec(u, 0, file_total=1) for u in range(4)]
    + [_spec(9, f, file_total=1, source=SOURCE_SUBJECT, named=True) for f in range(4)],
    # counted singles of pictures through albums: two sets of a total no sibling takes
    "counted_singles": [
        _spec(u, f, file_total=6, ext_class=sk.IMAGE) for u in (0, 1) for f in range(3)
    ],
    # two posters, one total, interleaved file by file
    "two_posters": [
        r for pair in zip(_album(0, 4), _album(1, 4, poster=1), strict=True) for r in pair
    ],
}


@pytest.mark.parametrize("name", sorted(_STREAMS))
@pytest.mark.parametrize("shuffle", [0, 1, 2])
def test_counters_decide_as_the_reference_does(name, shuffle):
    specs = _STREAMS[name]
    runs, _, date = _runs_of(specs, 1, 1_700_000_000, shuffle)
    later, _, end = _runs_of(specs, 10_000, date + 40 * HOUR, shuffle)  # again, much later
    ranges = [[_chunk(runs)], [_chunk(later)]]
    frontiers = [[date], [end + 30 * HOUR]]
    got, want = _run([Window(RULES), ReferenceWindow(RULES)], ranges, frontiers)
    assert got == want
    assert any(x for _, x in got)


def test_nameless_albums_in_a_row_are_a_release_each():
    """What the hand-made stream above must come to: each album its own release."""
    runs, _, date = _runs_of(_STREAMS["albums_in_a_row"], 1, 1_700_000_000)
    w = Window(RULES)
    w.frontier.frontier = date + 30 * HOUR
    w.add(_chunk(runs))
    rels = w.finish_due().open_releases()
    assert sorted(sorted(f.key for f in r.files) for r in rels) == [
        [1000 * u + f + 1 for f in range(n)] for u, n in enumerate((4, 4, 3, 4))
    ]


@pytest.mark.parametrize("compact_at", [1 << 16, 64])
def test_tables_grow_and_compact_without_losing_a_file(monkeypatch, compact_at):
    """Thousands of files over three ranges: the tables grow (maps rebuilt, the pool
    regrown mid-chunk) and are compacted between ranges (and, at 64, within them), and
    still match."""
    monkeypatch.setattr(window_module, "COMPACT_FILES", compact_at)
    rng = np.random.default_rng(5)
    ranges, frontiers = [], []
    article, date = 1, 1_700_000_000
    for _ in range(3):
        chunks, moves = [], []
        for _ in range(6):
            specs = []
            for _ in range(300):
                specs.append(
                    {
                        "upload": int(rng.integers(0, 400)),
                        "file": int(rng.integers(0, 30)),
                        "ident_shift": int(rng.integers(0, 2)),
                        "poster": int(rng.integers(0, 3)),
                        "source": SOURCE_SUBJECT,
                        "parts": sorted(set(rng.integers(1, 2000, 5).tolist())),
                        "part_total": int(rng.choice([0, 500, 2000])),
                        "file_total": int(rng.choice([-1, 10, 30])),
                        "ext_class": int(rng.choice([sk.IMAGE, sk.RAR_FIRST])),
                        "random": False,
                        "step": int(rng.choice([0, 5, 600, 4 * HOUR])),
                        "counter": "[{i}/{n}]",
                    }
                )
            runs, article, date = _runs_of(specs, article, date, 7)
            chunks.append(_chunk(runs))
            moves.append(date - 20 * HOUR)
        ranges.append(chunks)
        frontiers.append(moves)
    got, want = _run([Window(RULES), ReferenceWindow(RULES)], ranges, frontiers)
    assert got == want
    assert sum(len(x) for _, x in got) > 500


@pytest.mark.slow
@pytest.mark.parametrize("seed", [4, 9])
def test_on_generated_ranges(tmp_path: Path, seed: int):
    """Real parsed chunks of a generated group, range after range."""
    demo = generate(tmp_path, groups=2, articles=30_000, seed=seed, range_size=10_000, chunk=2_500)
    reader = CorpusReader(demo.corpus)
    for group, ctx in demo.groups():
        windows: list[Any] = [Window(demo.rules), ReferenceWindow(demo.rules)]
        ranges, frontiers = [], []
        for info in reader.complete_ranges(group):
            chunks, moves = [], []
            report = RangeReport(group, info.ref.first, info.ref.last)
            for chunk in reader.read_range(info, report):
                chunks.append(parse_chunk(chunk, ctx, demo.rules, windows[0].frontier, Drops()))
                moves.append(windows[0].frontier.frontier)
            ranges.append(chunks)
            frontiers.append(moves)
        windows[0].frontier.frontier = 0
        got, want = _run(windows, ranges, frontiers)
        assert got == want
        assert sum(len(x) for _, x in got) > 20
