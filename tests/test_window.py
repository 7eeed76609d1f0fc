"""The carried window on hand-made overview lines: one behaviour a test."""

from __future__ import annotations

import email.utils
from pathlib import Path

from pipelines.corpus.layout import RangeRef, plan_chunks
from pipelines.corpus.writer import CorpusWriter
from pipelines.index.replay import replay
from pipelines.index.rules import Rules
from pipelines.score.catalog import CatalogView, load_catalog

GROUP = "alt.binaries.test"
T0 = 1_700_000_000
HOUR = 3600


class Posts:
    """Overview lines in article order, with filler noise that moves the frontier."""

    def __init__(self) -> None:
        self.lines: list[tuple[int, bytes]] = []
        self.number = 1000

    def post(self, subject: str, poster: str, date: int, mid: str, date_text: str = "") -> None:
        self.number += 1
        text = date_text or email.utils.formatdate(date, usegmt=True)
        line = "\t".join(
            [
                str(self.number),
                subject,
                poster,
                text,
                f"<{mid}>",
                "",
                "750000",
                "5800",
                f"Xref: h {GROUP}:{self.number}",
            ]
        )
        self.lines.append((self.number, line.encode("utf-8") + b"\r\n"))

    def upload(
        self, name: str, files: int, parts: int, poster: str, start: int, tag: str = ""
    ) -> list[str]:
        mids = []
        for i in range(1, files + 1):
            for k in range(1, parts + 1):
                mid = f"{tag or name}.{i}.{k}@up"
                self.post(
                    f'{name} [{i}/{files}] - "{name}.part{i:02d}.rar" yEnc ({k}/{parts})',
                    poster,
                    start + i * 60 + k,
                    mid,
                )
                mids.append(mid)
        return mids

    def filler(self, start: int, hours: int, every: int = 60) -> None:
        for t in range(start, start + hours * HOUR, every):
            self.post(f"{t:032x}", "noise <n@x>", t, f"noise.{t}@x")

    def index(self, tmp: Path, range_size: int = 1000, rules: Rules | None = None) -> CatalogView:
        writer = CorpusWriter(str(tmp / "corpus"))
        first, last = 1000, self.number + 10
        for a in range(first - first % range_size, last + 1, range_size):
            ref = RangeRef(GROUP, a, a + range_size - 1)
            entries = []
            for ca, cb in plan_chunks(ref.first, ref.last, 100):
                body = b"".join(text for n, text in self.lines if ca <= n <= cb)
                entries.append(writer.write_chunk(ref, ca, cb, body))
            writer.write_manifest(ref, entries, complete=True)
        replay(str(tmp / "corpus"), str(tmp / "catalog"), rules or Rules(), progress=False)
        return load_catalog(tmp / "catalog")


def releases_of(view: CatalogView, mids: list[str]) -> set[bytes]:
    return {k for m in mids for k in view.release_of.get(m, ())}


def one_release(view: CatalogView, mids: list[str]) -> dict:
    """The catalog row of the one release that holds these articles (there must be one)."""
    (key,) = releases_of(view, mids)
    return view.releases[key]


def test_an_upload_is_one_finished_release(tmp_path):
    p = Posts()
    mids = p.upload("Some.Show.S01E01.720p-GRP", 3, 4, "a <a@x>", T0)
    p.filler(T0, 40)
    row = one_release(p.index(tmp_path), mids)
    assert row["finished"] and row["complete"] and row["files"] == 3 and row["segments"] == 12
    assert row["name"] == "Some.Show.S01E01.720p-GRP" and row["file_total"] == 3


def test_a_skewed_clock_or_a_bogus_year_does_not_tear_a_file(tmp_path):
    p = Posts()
    name, mids = "Skewed.Thing.2020-GRP", []
    for k in range(1, 9):
        mid = f"s.{k}@up"
        date_text = "Tue, 14 Mar 2099 17:01:17 GMT" if k == 4 else ""
        date = T0 + k * 60 + (5 * HOUR if k == 6 else 0)  # one article 5 h ahead
        p.post(f'{name} [1/1] - "{name}.mkv" yEnc ({k}/8)', "b <b@x>", date, mid, date_text)
        mids.append(mid)
    p.filler(T0, 40)
    row = one_release(p.index(tmp_path), mids)
    assert row["segments"] == 8 and row["complete"]


def test_a_bogus_date_after_another_posters_skewed_clock_keeps_the_upload_whole(tmp_path):
    """A file's first part dated 2099 right after another poster's line 7 h ahead: the
    part takes its own poster's last date, not the neighbour's (which split the upload)."""
    p = Posts()
    name, mids = "Whole.Upload.2019-GRP", []
    for i in range(1, 4):
        for k in range(1, 5):
            date = T0 + i * 60 + k
            if i == 3 and k == 1:
                p.post(f"{date:032x}", "skewed <s@x>", date + 7 * HOUR, f"skew.{date}@x")
            bogus = "Mon, 17 Jun 2099 00:44:19 GMT" if (i, k) == (3, 1) else ""
            mid = f"w.{i}.{k}@up"
            p.post(
                f'{name} [{i}/3] - "{name}.part{i}.rar" yEnc ({k}/4)', "w <w@x>", date, mid, bogus
            )
            mids.append(mid)
    p.filler(T0, 40)
    row = one_release(p.index(tmp_path), mids)
    assert row["files"] == 3 and row["complete"]


def test_an_old_style_rar_set_past_r99_is_one_release(tmp_path):
    """.rar, .r00-.r99, then .s00 on: the .s volumes belong to the set."""
    p = Posts()
    name = "Old.Style.Set.2004-GRP"
    names = [f"{name}.rar"] + [f"{name}.r{i:02d}" for i in range(100)]
    names += [f"{name}.s{i:02d}" for i in range(3)]
    mids = []
    for i, file_name in enumerate(names):
        mid = f"o.{i}@up"
        p.post(f'"{file_name}" yEnc (1/1)', "o <o@x>", T0 + i * 20, mid)
        mids.append(mid)
    p.filler(T0, 40)
    assert one_release(p.index(tmp_path), mids)["files"] == len(names)


def test_files_named_apart_find_the_release_their_first_files_made(tmp_path):
    """`[00/04] - Album.nzb` and `[01/04] - Album.nfo` share an identity; `[02/04] - 01 -
    Song.mp3` has another (its unquoted name leaks into it): the sibling key (poster,
    total, the subject before the counter) must find the release the first two made."""
    p = Posts()
    head = "Felix Upton - Over Road (2023) [MP3 320]"
    files = [f"{head}.nzb", f"{head}.nfo", "01 - City Again River Alone.mp3", "02 - City.mp3"]
    files.append("folder.jpg")
    mids = []
    for i, file_name in enumerate(files):
        for k in (1, 2):
            mid = f"m.{i}.{k}@up"
            p.post(
                f"{head} - [{i:02d}/04] - {file_name} yEnc ({k}/2)", "y <y@x>", T0 + i * 60 + k, mid
            )
            mids.append(mid)
    p.filler(T0, 40)
    assert one_release(p.index(tmp_path), mids)["files"] == len(files)


def test_a_repost_hours_later_is_a_release_of_its_own(tmp_path):
    p = Posts()
    first = p.upload("Repost.Me.2019-GRP", 2, 3, "c <c@x>", T0, tag="one")
    p.filler(T0 + 600, 5)
    again = p.upload("Repost.Me.2019-GRP", 2, 3, "c <c@x>", T0 + 6 * HOUR, tag="two")
    p.filler(T0 + 6 * HOUR + 600, 40)
    view = p.index(tmp_path)
    a, b = releases_of(view, first), releases_of(view, again)
    assert len(a) == len(b) == 1 and a != b


def test_an_upload_across_ranges_is_one_release(tmp_path):
    p = Posts()
    p.filler(T0 - 2 * HOUR, 2, every=30)  # pushes the upload across a range boundary
    mids = p.upload("Long.Upload.2021-GRP", 6, 40, "d <d@x>", T0)
    p.filler(T0 + HOUR, 40)
    view = p.index(tmp_path, range_size=100)
    (key,) = releases_of(view, mids)
    assert view.ids_of[key] == set(mids) and view.releases[key]["finished"]


def test_images_of_one_poster_become_one_album(tmp_path):
    p = Posts()
    mids = []
    for i in range(1, 8):
        mid = f"img.{i}@up"
        p.post(f'"IMG_{i:04d}.jpg" yEnc (1/1)', "e <e@x>", T0 + i * 30, mid)
        mids.append(mid)
    p.filler(T0 + 600, 60)
    view = p.index(tmp_path, range_size=200)  # members open at range ends go out provisional
    (key,) = releases_of(view, mids)
    row = view.releases[key]
    assert row["source"] == "album" and row["files"] == 7 and row["finished"]
    assert row["name"] == "IMG_#.jpg" and len(row["members"]) == 7
    # the members went out provisional at a range's end: tombstones hide them now
    assert view.ids_of[key] == set(mids)


def test_boilerplate_subjects_are_told_apart_by_stem(tmp_path):
    p = Posts()
    mids = {}
    for n, stem in enumerate(["First.Film.2001-A", "Second.Film.2002-B"]):
        mids[stem] = []
        for i, ext in enumerate(["nfo", "par2", "part1.rar"], 1):
            mid = f"{stem}.{i}@up"
            p.post(
                f"<TOWN> www.town.ag > sponsored by www.ssl-news.info > ({i}/3) "
                f'"{stem}.{ext}" - 1,00 MB - yEnc (1/1)',
                "f <f@x>",
                T0 + n * 200 + i,
                mid,
            )
            mids[stem].append(mid)
    p.filler(T0 + 600, 40)
    view = p.index(tmp_path)
    a, b = (releases_of(view, m) for m in mids.values())
    assert len(a) == len(b) == 1 and a != b
    assert {view.releases[k]["name"] for k in a | b} == set(mids)


def test_a_batch_counter_gives_no_file_total(tmp_path):
    p = Posts()
    mids = []
    for n in range(1, 6):
        mid = f"batch.{n}@up"
        p.post(
            f'[{n}/68067] "Thing.Number.{n:03d}.Alpha.mkv" yEnc (1/1)', "g <g@x>", T0 + n * 90, mid
        )
        mids.append(mid)
    p.filler(T0 + 600, 40)
    view = p.index(tmp_path)
    keys = releases_of(view, mids)
    assert keys and all(view.releases[k]["file_total"] is None for k in keys)


def _nameless(p: Posts, files: list[str], poster: str, start: int, tag: str) -> list[str]:
    """An upload whose subjects hold only the file part: `[01/06] - "01 - Song.mp3"`."""
    mids = []
    for i, file_name in enumerate(files, 1):
        for k in (1, 2):
            mid = f"{tag}.{i}.{k}@up"
            p.post(
                f'[{i:02d}/{len(files):02d}] - "{file_name}" yEnc ({k}/2)',
                poster,
                start + i * 60 + k,
                mid,
            )
            mids.append(mid)
    return mids


def _album(band: str, tracks: int) -> list[str]:
    songs = [f"{n:02d} - {band} Song {chr(64 + n)}.mp3" for n in range(1, tracks + 1)]
    return [*songs, "folder.jpg", f"{band}.par2", f"{band}.vol00+01.par2"]


def test_a_nameless_album_is_one_release(tmp_path):
    """Tracks, cover and par2 files of many stems under one counter, no album name: the
    poster, the total and the counter's indexes posted together make one release."""
    p = Posts()
    mids = _nameless(p, _album("Lunar", 5), "h <h@x>", T0, "a")
    p.filler(T0 + 600, 40)
    row = one_release(p.index(tmp_path), mids)
    assert row["files"] == 8 and row["file_total"] == 8 and row["complete"]


def test_nameless_albums_of_one_poster_back_to_back_are_two_releases(tmp_path):
    """Two albums of one total, then one of another, all within the upload gap, each
    with its folder.jpg (one stem, one identity: the next album's finds the last one's
    release by it): file 1 again begins an upload, and a file of another total belongs
    to none of the releases before. (At one place of one total, folder.jpg would be the
    same file posted again: the same subject and poster.)"""
    p = Posts()
    first = _nameless(p, _album("Lunar", 5), "h <h@x>", T0, "a")
    solar = _album("Solar", 5)
    second = _nameless(p, [solar[5], *solar[:5], *solar[6:]], "h <h@x>", T0 + 900, "b")
    stellar = _album("Stellar", 7)
    # folder.jpg as file 9 of 10: a place the first album has none of
    third = _nameless(p, [*stellar[:7], stellar[8], stellar[7], stellar[9]], "h <h@x>",
                      T0 + 1800, "c")  # fmt: skip
    p.filler(T0 + 2400, 40)
    view = p.index(tmp_path)
    keys = [releases_of(view, m) for m in (first, second, third)]
    assert all(len(k) == 1 for k in keys) and len(set.union(*keys)) == 3
    for k, m in zip(keys, (first, second, third), strict=True):
        assert view.ids_of[next(iter(k))] == set(m)


def test_batch_counter_items_of_one_poster_are_not_glued(tmp_path):
    """`[n/68067] "Item.mkv"`: one-file uploads numbered against one big total have no
    sibling key, however close they are posted."""
    p = Posts()
    mids = []
    for n in range(1, 6):
        mid = f"batch.{n}@up"
        p.post(f'[{n + 300}/68067] "Item.{chr(64 + n)}.mkv" yEnc (1/1)', "g <g@x>", T0 + n * 9, mid)
        mids.append(mid)
    p.filler(T0 + 600, 40)
    assert len(releases_of(p.index(tmp_path), mids)) == 5


def test_uploads_under_one_weak_identity_split_by_their_counters(tmp_path):
    """`Per REQ - "Name.par2" 512x384 [01/03]`: the subject's name (`Per REQ`) is every
    upload's of the poster; the second upload's file 1 and its other total split it off."""
    p = Posts()
    uploads = []
    for n, (show, files) in enumerate([("Show.A.S01E01-GRP", 3), ("Show.B.S02E02-GRP", 2)]):
        mids = []
        for i in range(1, files + 1):
            mid = f"{show}.{i}@up"
            p.post(
                f'Per REQ - "{show}.part{i}.rar" 512x384 [{i:02d}/{files:02d}] yEnc (1/1)',
                "q <q@x>",
                T0 + n * 600 + i * 60,
                mid,
            )
            mids.append(mid)
        uploads.append(mids)
    p.filler(T0 + 1800, 40)
    view = p.index(tmp_path)
    a, b = (releases_of(view, m) for m in uploads)
    assert len(a) == len(b) == 1 and a != b
    assert view.ids_of[next(iter(a))] == set(uploads[0])


def test_files_each_numbered_1_of_1_under_one_name_stay_one_release(tmp_path):
    """Some posters number every file `[1/1]`: such a counter tells no files apart."""
    p = Posts()
    name, mids = "All.Ones.2020-GRP", []
    for i in range(1, 5):
        mid = f"one.{i}@up"
        p.post(f'{name} [1/1] - "{name}.part{i}.rar" yEnc (1/1)', "r <r@x>", T0 + i * 60, mid)
        mids.append(mid)
    p.filler(T0 + 600, 40)
    assert one_release(p.index(tmp_path), mids)["files"] == 4
