"""`pipelines.score`: the exact counts of a hand-made catalog against a hand-made truth."""

from __future__ import annotations

import argparse

import pytest

from pipelines.score import CatalogView, normalise_name, score_view
from pipelines.score.score import Score

G, OTHER = "alt.binaries.a", "alt.binaries.b"


def upload(uid: int, family: str, ids: list[str], complete: bool = True, **kw) -> dict:
    row = {
        "upload_id": uid,
        "kind": "rar_parts",
        "name": f"Name{uid}",
        "readable": True,
        "complete": complete,
        "owner_group": G,
        "files": [{"name": f"f{uid}", "part_total": len(ids), "message_ids": ids}],
        "family": family,
        "expected_name": None,
    }
    return {**row, **kw}


def release(name: str, group: str = G, complete: bool = True) -> dict:
    return {"name": name, "group": group, "complete": complete, "source": "subject"}


def view(holding: dict[bytes, tuple[dict, set[str]]]) -> CatalogView:
    release_of: dict[str, set[bytes]] = {}
    for key, (_, ids) in holding.items():
        for m in ids:
            release_of.setdefault(m, set()).add(key)
    return CatalogView(
        {k: row for k, (row, _) in holding.items()},
        {},
        {k: ids for k, (_, ids) in holding.items()},
        release_of,
    )


@pytest.fixture
def score() -> Score:
    uploads = [
        upload(0, "A", ["a1", "a2"], expected_name="Show.Name.S01E01-GRP"),
        upload(1, "A", ["b1", "b2", "b3"]),  # split in two
        upload(2, "B", ["c1", "c2"]),  # shares a release with 3
        upload(3, "B", ["d1", "d2"]),  # split, one half with 2
        upload(4, "B", ["e1"]),  # with a noise article
        upload(5, "A", ["f1"], complete=False),  # incomplete, one incomplete release
        upload(6, "A", ["g1"], expected_name="Title"),  # exact, name with REQ: left in
        upload(7, "A", ["h1"]),  # whole, but in the wrong group
        upload(8, "A", ["i1"]),  # in no release
        upload(9, "A", ["j1"], readable=False, kind="obfuscated"),  # not scored
    ]
    catalog = view(
        {
            b"R0": (release("Show Name S01E01-GRP"), {"a1", "a2"}),
            b"R1": (release("Name1"), {"b1"}),
            b"R2": (release("Name1"), {"b2", "b3"}),
            b"R3": (release("Name2"), {"c1", "c2", "d1"}),
            b"R4": (release("Name3"), {"d2"}),
            b"R5": (release("Name4"), {"e1", "n1"}),
            b"R6": (release("Name5", complete=False), {"f1"}),
            b"R7": (release("REQ: Title"), {"g1"}),
            b"R8": (release("Name7", group=OTHER), {"h1"}),
        }
    )
    return score_view(uploads, {"n1"}, catalog)


def counts(s: Score, family: str) -> tuple[int, ...]:
    f = s.families[family]
    return (
        f.uploads, f.wanted, f.exact, f.split, f.missing, f.contaminated,
        f.incomplete, f.incomplete_one, f.named, f.names_right,
    )  # fmt: skip


def test_exact_counts_per_family_and_overall(score: Score) -> None:
    assert list(score.families) == ["A", "B", "overall"]
    assert counts(score, "A") == (6, 5, 2, 1, 1, 0, 1, 1, 2, 1)
    assert counts(score, "B") == (3, 3, 0, 1, 0, 3, 0, 0, 0, 0)
    assert counts(score, "overall") == (9, 8, 2, 2, 1, 3, 1, 1, 2, 1)
    assert score.contaminated_releases == 1 and score.noisy_releases == 1
    a = score.families["A"]
    assert a.exact_share == pytest.approx(2 / 5) and a.names_share == pytest.approx(0.5)
    assert a.wrong_names == [("Title", "REQ: Title")]
    assert score.families["B"].exact_share == 0.0


def test_format_and_json(score: Score) -> None:
    text = score.format()
    assert "overall" in text and "40.0%" in text
    doc = score.to_json()
    assert doc["families"]["A"]["exact"] == 2 and doc["contaminated_releases"] == 1


def test_by_style_splits_families_by_shape() -> None:
    uploads = [
        upload(0, "A", ["a1"], style="s1"),
        upload(1, "A", ["b1"], style="s2"),
        upload(2, "classic", ["c1"], style="bracket"),
    ]
    catalog = view({b"R0": (release("x"), {"a1"}), b"R2": (release("y"), {"c1"})})
    s = score_view(uploads, set(), catalog, by_style=True)
    assert list(s.families) == ["classic", "A:s1", "A:s2", "overall"]
    assert s.families["A:s1"].exact == 1 and s.families["A:s2"].missing == 1
    assert "A:s1" in s.format()


def test_scores_of_several_seeds_add_up(score: Score) -> None:
    from pipelines.score.score import combine

    both = combine([score, score])
    assert counts(both, "A") == tuple(2 * c for c in counts(score, "A"))
    assert both.contaminated_releases == 2
    assert both.families["A"].exact_share == score.families["A"].exact_share


def test_an_album_release_of_single_posts_is_not_a_contamination() -> None:
    uploads = [
        upload(0, "classic", ["p1"], kind="album"),
        upload(1, "classic", ["p2"], kind="album"),
    ]
    row = {**release("IMG_####.jpg"), "source": "album"}
    s = score_view(uploads, set(), view({b"A": (row, {"p1", "p2"})}))
    assert s.contaminated_releases == 0 and s.families["classic"].contaminated == 0
    assert s.families["classic"].wanted == 0  # albums are not whole-upload releases


def test_normalise_name() -> None:
    assert normalise_name("Show.Name_S01E01  GRP") == normalise_name("show name s01e01 grp")
    assert normalise_name("REQ: Title") != normalise_name("Title")
    assert normalise_name(None) == ""


def test_command_registered_and_thin() -> None:
    from cli.commands import COMMANDS
    from cli.commands import score as command

    assert "cli.commands.score" in COMMANDS
    parser = argparse.ArgumentParser()
    command.add_parser(parser.add_subparsers())
    args = parser.parse_args(["score", "OUT", "CAT", "--json"])
    assert args.corpus_out == "OUT" and args.catalog == "CAT" and args.json
    assert command.run(parser.parse_args(["score", "OUT", "CAT", "OUT2"])) == 2


def test_a_replayed_real_corpus_scores_every_family(real_mix) -> None:
    """End to end: generate (real mix), replay with the generator's priorities, score."""
    import pyarrow.parquet as pq

    from pipelines.score import score_catalog

    out, catalog = real_mix
    score = score_catalog(out, catalog)
    truth = pq.read_table(out / "truth" / "uploads.parquet").to_pylist()
    readable = [u for u in truth if u["readable"]]
    assert set(score.families) == {u["family"] for u in readable} | {"overall"}
    overall = score.families["overall"]
    assert overall.uploads == len(readable) and 0 < overall.exact <= overall.wanted
    assert score.families["classic"].exact_share > 0.9  # today's shapes, as the pass knows them


def test_obfuscated_uploads_scored_by_their_inner_names() -> None:
    """Right (one release, exactly its articles, the inner name), wrong (another name, or a
    name where the truth knows none), split, still pending; readable uploads not counted."""

    def hidden(uid: int, ids: list[str], inner: str | None) -> dict:
        return upload(uid, "classic", ids, readable=False, kind="obfuscated", pending=True,
                      inner_name=inner)  # fmt: skip

    uploads = [
        hidden(0, ["a1", "a2"], "Real.Name.2019.1080p-GRP"),  # right
        hidden(1, ["b1"], "Other.Name-GRP"),  # wrong name
        hidden(2, ["c1"], None),  # nothing names it, yet named: wrong
        hidden(3, ["d1", "d2"], "Split.Name-GRP"),  # in two releases
        hidden(4, ["e1"], "Waiting.Name-GRP"),  # still pending
        hidden(5, ["f1"], None),  # rightly left pending
        upload(6, "A", ["g1"]),  # readable: not in the naming score
        hidden(7, ["h1"], "Still.Posting-GRP"),  # its pending release still open
    ]
    catalog = view(
        {
            b"N0": (release("Real Name 2019 1080p-GRP"), {"a1", "a2"}),
            b"N1": (release("a1b2c3d4e5f6"), {"b1"}),
            b"N2": (release("Named.Anyway"), {"c1"}),
            b"N3": (release("Split.Name-GRP"), {"d1"}),
            b"N4": (release("Split.Name-GRP"), {"d2"}),
            b"R6": (release("Name6"), {"g1"}),
        }
    )
    catalog.pending[b"P7"] = {"name": "9f8e7d6c5b4a", "finished": False}
    catalog.ids_of[b"P7"] = {"h1"}
    catalog.release_of["h1"] = {b"P7"}
    naming = score_view(uploads, set(), catalog).naming
    got = (naming.obfuscated, naming.nameable, naming.named_right, naming.named_wrong,
           naming.split, naming.still_open, naming.still_pending)  # fmt: skip
    assert got == (7, 5, 1, 2, 1, 1, 1)
    assert naming.share == 0.25  # the open one is not in it
    assert naming.wrong == [("Other.Name-GRP", "a1b2c3d4e5f6")]
    assert "named right 1 (25.0%)" in score_view(uploads, set(), catalog).format()


def test_split_uploads_joined_and_verdicts_against_the_truth() -> None:
    """A --split-and-junk truth: split uploads joined (one release, exactly their
    articles), verdicts right per expected rule, false verdicts on real uploads."""

    def row(uid: int, ids: list[str], verdict: str | None = None, **kw) -> dict:
        base = {"split_by": None, "par2_describes": False, "expected_verdict": verdict}
        return upload(uid, "classic", ids, **{**base, **kw})

    uploads = [
        row(0, ["a1", "a2"], split_by="per_file", par2_describes=True),  # joined
        row(1, ["b1", "b2"], split_by="tracks", par2_describes=True),  # still two releases
        row(2, ["c1"], split_by="sidecar"),  # joined (one release)
        row(3, ["d1"], split_by="per_file"),  # no par2 describes it: not counted
        row(4, ["e1"], "dead"),  # right
        row(5, ["f1"], "fake"),  # judged repeated: wrong
        row(6, ["g1"], "locked"),  # no verdict: wrong
        row(7, ["h1"]),  # real, no verdict: right
        row(8, ["i1"]),  # real with a verdict: false
        row(9, ["j1"], "unusable"),  # in no release: not judged, not counted
        row(10, ["k1"], "dead"),  # its release still open: not counted
    ]
    catalog = view(
        {
            b"A": (release("A"), {"a1", "a2"}),
            b"B1": (release("B"), {"b1"}),
            b"B2": (release("B"), {"b2"}),
            b"C": (release("C"), {"c1"}),
            b"D": (release("D"), {"d1"}),
            b"E": (release("E"), {"e1"}),
            b"F": (release("F"), {"f1"}),
            b"G": (release("G"), {"g1"}),
            b"H": (release("H"), {"h1"}),
            b"I": (release("I"), {"i1"}),
            b"K": ({**release("K"), "finished": False}, {"k1"}),
        }
    )
    catalog.verdicts.update({b"E": "dead", b"F": "repeated", b"I": "unusable"})
    s = score_view(uploads, set(), catalog).split_junk
    assert s is not None
    assert {k: (t.right, t.uploads) for k, t in s.joined.items()} == {
        "per_file": (1, 1), "tracks": (0, 1), "sidecar": (1, 1)
    }  # fmt: skip
    assert {k: (t.right, t.uploads) for k, t in s.verdicts.items() if t.uploads} == {
        "dead": (1, 1), "fake": (0, 1), "locked": (0, 1)
    }  # fmt: skip
    assert (s.real.uploads, s.false_verdicts, s.open) == (6, 1, 1)  # uploads 0-3, 7, 8
    assert ("Name5", "fake", "repeated") in s.misjudged
    assert "split uploads joined: per_file 1/1" in score_view(uploads, set(), catalog).format()
    # a truth from before the option has no such score
    assert score_view([upload(0, "A", ["a1", "a2"])], set(), catalog).split_junk is None
