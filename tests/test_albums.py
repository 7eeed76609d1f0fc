"""Albums (`pipelines.index.albums`) on hand-made singles: what gathers and what not."""

from __future__ import annotations

import pytest

from kernels import subject as sk
from pipelines.generate.config import GenerateConfig
from pipelines.index.albums import Album, Albums, album_key, sidecar_name
from pipelines.index.parsed_chunk import SOURCE_ALBUM, SOURCE_STEM, SOURCE_SUBJECT
from pipelines.index.release import OpenFile, OpenRelease
from pipelines.index.rules import Rules
from pipelines.score.score import score_catalog
from tests.corpora import replayed

RULES = Rules()
T0 = 1_700_000_000


def single(
    name: str, at: int, index: int = -1, total: int = -1, subject: str = "", poster: int = 7,
    source: int = SOURCE_STEM,
) -> OpenRelease:  # fmt: skip
    """A finished one-file release, posted `at` seconds after T0 (article `at` too)."""
    date = T0 + at
    f = OpenFile(
        key=hash((name, at)), subject=(subject or f'"{name}" yEnc (1/1)').encode(),
        poster=b"p <p@x>", name=name.encode(), xref=b"", file_index=index, file_total=total,
        part_total=1, ext_class=sk.IMAGE, volume=-1, random_name=False, first_date=date,
        last_date=date, first_article=at, last_article=at, count=1,
    )  # fmt: skip
    return OpenRelease(
        ident=hash(name), poster_key=poster, source=source, first_date=date, last_date=date,
        first_article=at, last_article=at, files=[f], keys={f.key},
    )  # fmt: skip


def gather(singles: list[OpenRelease]) -> list[list[str]]:
    """The singles through one open album set, then all closed: each release's file names."""
    albums = Albums()
    out = albums.file(singles, T0, RULES)
    out += albums.close(T0 + 10**9, RULES)
    return sorted(sorted(f.name.decode() for f in rel.files) for rel in out)


def test_images_of_a_poster_gather_into_one_album():
    got = gather([single(f"IMG_{i:04d}.jpg", i * 30) for i in range(1, 6)])
    assert got == [[f"IMG_{i:04d}.jpg" for i in range(1, 6)]]


def test_two_counted_sets_of_one_camera_are_two_albums():
    """`[i/120] - "DSC_0001.JPG"`: a total no sibling key takes (a batch counter's size),
    two sets of one poster back to back. File 1 again, the second set begins."""
    first = [single(f"DSC_{i:04d}.JPG", i, i, 120) for i in range(1, 121)]
    second = [single(f"DSC_{i + 500:04d}.JPG", 200 + i, i, 120) for i in range(1, 121)]
    got = gather(first + second)
    assert got == [sorted(f"DSC_{i:04d}.JPG" for i in range(1, 121)),
                   sorted(f"DSC_{i + 500:04d}.JPG" for i in range(1, 121))]  # fmt: skip


def test_a_counter_of_another_total_begins_another_album():
    first = [single(f"DSC_{i:04d}.JPG", i, i, 3) for i in range(1, 3)]  # file 3 missing
    second = [single(f"DSC_{i + 10:04d}.JPG", 10 + i, i + 2, 9) for i in range(1, 3)]
    assert len(gather(first + second)) == 2


def test_singles_numbered_1_of_1_still_gather():
    got = gather([single(f"IMG_{i:04d}.jpg", i, 1, 1) for i in range(1, 5)])
    assert len(got) == 1 and len(got[0]) == 4


def test_named_singles_of_two_uploads_join_no_album():
    """Subjects that name their release (the identity leaked a track's title, so each file
    was a release): members whose subjects differ but for digits are not one set."""
    tracks = []
    for i, (who, title) in enumerate([("Grace", "Forever Rain"), ("Yusuf", "Night Light")] * 2):
        subject = f"Attn: {who} - {title} - 0{i} - Free.mp3 yEnc (1/5)"
        tracks.append(single(f"Free{i}.mp3", i * 60, subject=subject, source=SOURCE_SUBJECT))
    assert all(len(files) == 1 for files in gather(tracks))
    # the same subject but for digits: one set
    same = [single(f"Set {i}.jpg", i, subject=f"My Set - Set {i}.jpg yEnc (1/1)",
                   source=SOURCE_SUBJECT) for i in range(1, 4)]  # fmt: skip
    assert len(gather(same)) == 1


def test_a_loaded_album_knows_its_counter():
    """A snapshot's album is made from its release's files: its indexes and total too."""
    members = [single(f"DSC_{i:04d}.JPG", i, i, 120) for i in range(1, 4)]
    shell = OpenRelease(ident=1, poster_key=7, source=SOURCE_ALBUM, first_date=T0,
                        last_date=T0, first_article=1, last_article=3,
                        files=[r.files[0] for r in members])  # fmt: skip
    album = Album(shell, members[0], 3)
    assert album.indexes == {1, 2, 3} and album.total == 120
    assert not album.same_set(single("DSC_0009.JPG", 9, 2, 120))
    assert album.same_set(single("DSC_0009.JPG", 9, 4, 120))
    assert album_key(members[0]) == (7, b"DSC_#.JPG")


# --- albums of track titles named by their sidecars (issue 26) ---------------------------


def test_tracks_of_several_stems_take_their_sidecars_name():
    names = [
        b"01 - River.flac", b"02 - Sea Of Glass.flac", b"folder.jpg",
        b"Dark Golden - Lost Quest (1995) FLAC.par2",
        b"Dark Golden - Lost Quest (1995) FLAC.vol00+01.par2",
        b"Dark Golden - Lost Quest (1995) FLAC.m3u",
    ]  # fmt: skip
    classes = [sk.AUDIO, sk.AUDIO, sk.IMAGE, sk.PAR2_INDEX, sk.PAR2_VOL, sk.TEXT]
    assert sidecar_name(names, classes) == "Dark Golden - Lost Quest (1995) FLAC"


def test_files_of_one_stem_or_without_sidecars_keep_their_name():
    one = [b"Show.S01E01.mkv", b"Show.S01E01.par2", b"Show.S01E01.vol00+01.par2"]
    assert sidecar_name(one, [sk.VIDEO, sk.PAR2_INDEX, sk.PAR2_VOL]) is None
    bare = [b"01 - River.flac", b"02 - Sea.flac", b"03 - Sky.flac"]
    assert sidecar_name(bare, [sk.AUDIO] * 3) is None
    # a random par2 stem names nothing
    hashed = [b"01 - River.flac", b"02 - Sea.flac", b"8b33bf5960714efbe6cfcf13dd0f618f.par2"]
    assert sidecar_name(hashed, [sk.AUDIO, sk.AUDIO, sk.PAR2_INDEX]) is None


@pytest.mark.slow
def test_generated_albums_are_named_by_their_sidecars(tmp_path):
    """The real mix's `album_sidecars` uploads come out as one release each, named as
    their par2 set, sfv, nfo or m3u name them (the block and object paths alike)."""
    config = GenerateConfig(groups=2, articles=30_000, seed=4, mix="real")
    gen, _ = replayed(tmp_path / "out", tmp_path / "cat", config)
    result = score_catalog(gen.out, tmp_path / "cat")
    family = result.families["album_sidecars"]
    assert family.named >= 1
    assert family.names_right == family.named, family.wrong_names
