"""The fill on small hand-made backbones: what is filled, what is counted, and no article
indexed twice when the backbones order articles differently."""

from __future__ import annotations

from pathlib import Path

from kernels import scan as sc
from pipelines.corpus.backbones import backbone_root
from pipelines.corpus.layout import RangeRef, plan_chunks
from pipelines.corpus.reader import CorpusReader, RangeReport
from pipelines.corpus.writer import CorpusWriter
from pipelines.index.fill import Fill
from pipelines.index.fill_state import FillState

GROUP = "alt.binaries.fill"
RANGE = RangeRef(GROUP, 1000, 1099)


def _line(number: int, article: str) -> bytes:
    return (
        f"{number}\tpart {article} yEnc (1/1)\tp <p@x>\tMon, 01 Jan 2024 12:00:00 +0000\t"
        f"<{article}@x>\t\t1000\t10\tXref: h {GROUP}:{number}\r\n"
    ).encode()


def _store(root: str, numbered: dict[int, str], ref: RangeRef) -> None:
    writer = CorpusWriter(root)
    entries = []
    for a, b in plan_chunks(ref.first, ref.last, 10):
        lines = b"".join(_line(n, numbered[n]) for n in sorted(numbered) if a <= n <= b)
        entries.append(writer.write_chunk(ref, a, b, lines))
    writer.write_manifest(ref, entries, complete=True)


def _indexed(corpus: str, others: list[str]) -> tuple[list[str], dict[str, int]]:
    """The message-ids of the primary's range as the fill hands its chunks on, in order,
    and the fill's counts."""
    primary = CorpusReader(backbone_root(corpus, "a"))
    (info,) = primary.ranges(GROUP)
    sources = [(n, CorpusReader(backbone_root(corpus, n))) for n in others]
    fill = Fill(info.ref, sources, FillState())
    report = RangeReport(GROUP, RANGE.first, RANGE.last)
    seen = []
    for chunk in fill.chunks(primary.read_range(info, report), report):
        idx = chunk.lines
        for i in range(len(idx)):
            assert idx.status[i] == sc.OK
            s, e = idx.field_start[i, sc.F_MESSAGE_ID], idx.field_end[i, sc.F_MESSAGE_ID]
            seen.append(chunk.data[s:e].decode())
    assert report.lines == len(seen)  # the range's counts follow the merged chunks
    return seen, dict(fill.counts)


def test_reordered_and_extra_articles_are_counted_and_none_is_indexed_twice(
    tmp_path: Path,
) -> None:
    corpus = str(tmp_path)
    articles = [str(k) for k in range(60)]
    lacking_a = {"5", "17", "18", "33", "38"}
    a = {1000 + k: art for k, art in enumerate(articles) if art not in lacking_a}
    _store(backbone_root(corpus, "a"), a, RANGE)
    # b: numbered 4000 higher; 9 and 10 swapped (10 first, across the primary's chunk
    # edge); an article the primary never numbered after 25 (b's numbers one higher from
    # there); 38 and 41 swapped (41 lands on the number the primary left free for 38)
    order = [*articles[:9], "10", "9", *articles[11:26], "extra", *articles[26:38]]
    order += ["41", "39", "40", "38", *articles[42:]]
    b = {5000 + i: art for i, art in enumerate(order)}
    _store(backbone_root(corpus, "b"), b, RangeRef(GROUP, 5000, 5099))
    seen, counts = _indexed(corpus, ["b"])
    assert len(seen) == len(set(seen))  # no article twice
    got = {m.strip("<>").split("@")[0] for m in seen}
    # 5, 17, 18 and 33 filled; 41 filled at 38's number (the primary's 41 then dropped);
    # 38 lands on 41's number and 'extra' on 26's: counted, not placed
    assert got == set(articles) - {"38"}
    assert counts["filled"] == 5 and counts["filled_earlier"] == 1
    assert counts["unplaced"] == 3  # 10 (the primary's, next chunk), 'extra', 38


def test_two_other_backbones_fill_what_each_has_once(tmp_path: Path) -> None:
    corpus = str(tmp_path)
    articles = [str(k) for k in range(60)]
    a = {1000 + k: art for k, art in enumerate(articles) if k % 7}
    _store(backbone_root(corpus, "a"), a, RANGE)
    for name, shift, keep in (("b", 3000, lambda k: k % 2), ("c", 7000, lambda k: True)):
        kept = {shift + k: art for k, art in enumerate(articles) if keep(k)}
        _store(backbone_root(corpus, name), kept, RangeRef(GROUP, shift, shift + 99))
    seen, counts = _indexed(corpus, ["b", "c"])
    assert sorted(seen) == sorted(f"<{a}@x>" for a in articles)
    assert counts["filled"] == sum(1 for k in range(60) if not k % 7)
