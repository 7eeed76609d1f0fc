"""The title key in DuckDB's SQL (the import) agrees with Python's (a release's)."""

from __future__ import annotations

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ids.keys import key_hash, title_key_sql
from pipelines.names import title_key

SAMPLES = [
    "Game of Thrones", "The Office (US)", "Marvel's The Avengers", "Amélie", "Les Misérables",
    "The", "A", "The & The", "Star Trek: The Next Generation", "Don't Look Up", "  spaced  out ",
    "Æon Flux", "Ça", "Señor Ávila", "The A-Team", "Mission: Impossible – Fallout", "9-1-1",
    "Love, Death & Robots", "Who's Afraid of Virginia Woolf?", "of the and", "Ｆｕｌｌｗｉｄｔｈ",
    "北京", "The.Movie.Title", "It`s", "And Then There Were None", "A Man Called Otto",
]  # fmt: skip


def sql_keys(titles: list[str]) -> list[tuple[str, int]]:
    con = duckdb.connect()
    con.execute("CREATE TABLE t (i INTEGER, s VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(titles)))
    key = title_key_sql("s")
    rows = con.execute(f"SELECT {key}, md5_number_lower({key}) FROM t ORDER BY i").fetchall()
    return [(str(k), int(h)) for k, h in rows]


# full-width letters: Python's NFKD folds them to ASCII letters, DuckDB's
# strip_accents does not (they are dropped): such titles are not found by these forms
APART = ("Ｆｕｌｌｗｉｄｔｈ",)


def test_sql_and_python_keys_agree_on_titles() -> None:
    for title, (key, h) in zip(SAMPLES, sql_keys(SAMPLES), strict=True):
        if title in APART:
            assert key != title_key(title)
            continue
        assert key == title_key(title), title
        assert h == key_hash(key), title


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=30), min_size=1, max_size=20
    )
)
def test_sql_and_python_keys_agree_on_any_ascii(titles: list[str]) -> None:
    for title, (key, h) in zip(titles, sql_keys(titles), strict=True):
        assert key == title_key(title), title
        assert h == key_hash(key)
