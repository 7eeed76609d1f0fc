"""What a release's files hold decides its category when its name does not
(`pipelines.naming.content`): picture sets and nameless albums posted to a TV group are
not TV."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from kernels import names as nk
from pipelines.naming import category_of, content_of, content_of_block
from pipelines.naming.content import BOOKS, IMAGES, LOSSLESS, MUSIC, VIDEO

TV = ["alt.binaries.teevee"]


def test_a_picture_set_in_a_tv_group_is_no_tv() -> None:
    content = content_of([nk.IMAGE] * 3, [900_000] * 3, [b"P1009359.JPG"] * 3)
    assert content == IMAGES
    assert category_of("P1009359", TV, content) == 8010
    assert category_of("P1009359", ["alt.binaries.erotica"], content) == 6060
    assert category_of("P1009359", TV) == 5000  # what the groups said before


def test_music_lossless_or_not() -> None:
    names = [b"01 - Dream.flac", b"02 - Home.flac", b"folder.jpg", b"album.par2"]
    classes = [nk.AUDIO, nk.AUDIO, nk.IMAGE, nk.PAR2_INDEX]
    sizes = [30 << 20, 28 << 20, 200_000, 40_000]
    assert content_of(classes, sizes, names) == LOSSLESS
    assert category_of("01 - Dream", TV, LOSSLESS) == 3040
    mp3 = [b"01 - Dream.mp3", b"02 - Home.flac", b"folder.jpg", b"album.par2"]
    assert content_of(classes, sizes, mp3) == MUSIC
    assert category_of("01 - Dream", TV, MUSIC) == 3010


def test_books_and_a_film_by_its_files() -> None:
    assert content_of([nk.EBOOK], [800_000], [b"0865779767.epub"]) == BOOKS
    assert category_of("Anatomic Basis of Neurologic Diagnosis", TV, BOOKS) == 7020
    assert content_of([nk.VIDEO], [700 << 20], [b"Sky.Cruel.2008.avi"]) == VIDEO
    assert category_of("Sky.Cruel.2008", TV, VIDEO) == 2030
    # a video with no year stays what the groups say
    assert category_of("Sky.Cruel", TV, VIDEO) == 5000


def test_the_name_still_decides_first() -> None:
    assert category_of("Show.S01E02.720p.WEB.x264-GRP", TV, IMAGES) == 5040
    assert category_of("Artist - Album (2013) [MP3 320]", TV, IMAGES) == 3010


def test_archives_with_a_cover_decide_nothing() -> None:
    classes = [nk.RAR_FIRST, nk.ARCHIVE_VOL, nk.ARCHIVE_VOL, nk.IMAGE, nk.PAR2_INDEX]
    sizes = [50 << 20, 50 << 20, 50 << 20, 300_000, 40_000]
    names = [b"x.part1.rar", b"x.part2.rar", b"x.part3.rar", b"cover.jpg", b"x.par2"]
    assert content_of(classes, sizes, names) == ""
    assert content_of([], [], []) == ""
    # half the bytes is not most of them
    assert content_of([nk.IMAGE, nk.RAR_FIRST], [10, 10], [b"a.jpg", b"a.rar"]) == ""


CLASSES = [nk.IMAGE, nk.AUDIO, nk.EBOOK, nk.VIDEO, nk.RAR_FIRST, nk.PAR2_VOL, nk.NFO]
NAMES = [b"a.jpg", b"b.mp3", b"c.flac", b"d.epub", b"e.mkv", b"f.rar", b"g.par2"]


@given(
    st.lists(
        st.lists(
            st.tuples(
                st.sampled_from(CLASSES),
                st.integers(0, 1 << 30),
                st.sampled_from(NAMES),
            ),
            min_size=1,
            max_size=6,
        ),
        max_size=8,
    )
)
def test_a_block_of_releases_reads_as_each_release(releases) -> None:
    files = [f for rel in releases for f in rel]
    offsets = np.cumsum([0] + [len(rel) for rel in releases])
    ext_class = np.array([f[0] for f in files], np.uint8)
    nbytes = np.array([f[1] for f in files], np.int64)
    names = [f[2] for f in files]
    expected = [
        content_of([f[0] for f in rel], [f[1] for f in rel], [f[2] for f in rel])
        for rel in releases
    ]
    assert content_of_block(ext_class, nbytes, offsets, names) == expected
