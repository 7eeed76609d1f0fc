"""The rule store: checked rules only (RE2, bounded, not everything), kept in order with a
log, versioned; nZEDb's real blacklist imported as it is."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from pipelines.index.rules import Rules
from pipelines.rules import store
from pipelines.rules.current import catalog_rules
from pipelines.rules.matcher import RuleMatcher
from pipelines.rules.model import BUILTIN_IDS, Rule
from pipelines.rules.nzedb import import_blacklist
from pipelines.rules.validate import RuleRefused, compile_pattern

SHARED_DATA = Path(
    os.environ.get("USENET_INDEXER_SHARED_DATA")
    or Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
)
NZEDB = SHARED_DATA / "subjects" / "nzedb_binaryblacklist.tsv"


def test_hostile_patterns_are_refused_or_bounded() -> None:
    for empty in ("", "a*", "(|x)", "^"):
        with pytest.raises(RuleRefused, match="empty"):
            compile_pattern(empty)
    with pytest.raises(RuleRefused, match="does not compile"):
        compile_pattern("(unclosed")
    with pytest.raises(RuleRefused, match="characters"):
        compile_pattern("x" * 1001)
    # a backreference that backtracks without end is refused; RE2 cannot run one at all
    with pytest.raises(RuleRefused, match="exponential"):
        compile_pattern(r"((a+)+)\1")
    # the catastrophic regex of backtracking engines is one linear pass in RE2
    rule = Rule(id="r1", pattern="(a+)+$")
    hostile = "a" * 200_000 + "!"
    started = time.process_time()
    assert RuleMatcher([rule], "g").match("subject", hostile) == []
    assert RuleMatcher([rule], "g").match("subject", "aaa") == [0]
    # not a timed test: a backtracking engine would take longer than the universe
    assert time.process_time() - started < 60


def test_a_literal_is_text_not_a_class(tmp_path: Path) -> None:
    # the unescaped `[MP4SUX]` of a shared list is five letters; as literal, a tag
    rules = [Rule(id="r1", pattern="[MP4SUX]", literal=True)]
    matcher = RuleMatcher(rules, "g")
    assert matcher.match("subject", "Movie [mp4sux] yEnc") == [0]
    assert matcher.match("subject", "Some.Show.S01E01 yEnc (1/5)") == []


def test_edits_keep_order_log_and_version(tmp_path: Path) -> None:
    cat = str(tmp_path)
    a = store.add_rule(cat, "alpha", "ann", note="first")
    b = store.add_rule(cat, "beta", "bob", field="poster")
    c = store.add_rule(cat, "gamma", "ann", position=0)
    loaded = store.load_rules(cat)
    assert [r.id for r in loaded.operator] == [c.id, a.id, b.id]
    # the built-ins keep their places around the operator's rules
    ids = [r.id for r in loaded.rules]
    assert ids.index("bad_part_counter") < ids.index(c.id) < ids.index("duplicate_segment")
    version = loaded.fingerprint
    store.update_rule(cat, a.id, "ann", note="only a note")
    assert store.load_rules(cat).fingerprint == version  # bookkeeping is no new version
    store.move_rule(cat, c.id, 2, "bob")
    assert [r.id for r in store.load_rules(cat).operator] == [a.id, b.id, c.id]
    assert store.load_rules(cat).fingerprint != version
    store.update_rule(cat, b.id, "bob", state="shadow")
    store.delete_rule(cat, a.id, "ann")
    loaded = store.load_rules(cat)
    assert [(r.id, r.state) for r in loaded.operator] == [(b.id, "shadow"), (c.id, "on")]
    assert [(e["who"], e["id"]) for e in loaded.log][-2:] == [("bob", b.id), ("ann", a.id)]
    for builtin in BUILTIN_IDS:
        with pytest.raises(RuleRefused, match="built-in"):
            store.update_rule(cat, builtin, "ann", state="off")
    with pytest.raises(RuleRefused, match="cannot be changed"):
        store.update_rule(cat, b.id, "ann", id="r99")
    with pytest.raises(RuleRefused, match="position"):
        store.move_rule(cat, b.id, 7, "ann")
    with pytest.raises(RuleRefused, match="empty"):
        store.update_rule(cat, b.id, "ann", pattern="")
    # the pass's rule set carries what the rules match and do; its fingerprint moves
    merged = catalog_rules(cat, Rules())
    assert [r.id for r in merged.filters] == [b.id, c.id]
    assert merged.fingerprint != Rules().fingerprint
    assert catalog_rules(str(tmp_path / "none"), Rules()).fingerprint == Rules().fingerprint


@pytest.mark.skipif(not NZEDB.exists(), reason=f"{NZEDB} is absent")
def test_nzedb_blacklist_imports_as_it_is(tmp_path: Path) -> None:
    cat = str(tmp_path)
    done = import_blacklist(cat, NZEDB, "ops")
    assert len(done.added) == 18 and done.refused == []
    rules = store.load_rules(cat).operator
    # its own order, fields, actions and on/off: 1-13 shipped off, 14-18 on
    assert [r.note.split()[0] for r in rules] == [f"nzedb:{i}" for i in range(1, 19)]
    assert [r.state for r in rules] == ["off"] * 13 + ["on"] * 5
    assert [r.field for r in rules][9] == "poster" and rules[13].field == "poster"
    assert rules[12].group == r"^alt\.binaries\.(kenpsx|frogs)$"
    # rule 13's backreference: a hash subject naming its own hash, in its groups only
    flood = rules[12].with_changes(state="on")
    matcher = RuleMatcher([flood], "alt.binaries.kenpsx")
    same = '0123456789abcdef [1/5] - "0123456789abcdef" yEnc'
    other = '0123456789abcdef [1/5] - "0123456789abcdee" yEnc'
    assert matcher.match("subject", same) == [0]
    assert matcher.match("subject", other) == []
    assert RuleMatcher([flood], "alt.binaries.teevee").rules == []
    # rule 1 (non-English releases), case-insensitive as nZEDb matches
    lang = RuleMatcher([rules[0].with_changes(state="on")], "alt.binaries.moovee")
    assert lang.match("subject", "Film.2019.GERMAN.1080p.BluRay.x264-GRP yEnc (1/50)") == [0]
    assert lang.match("subject", "Film.2019.1080p.BluRay.x264-GRP yEnc (1/50)") == []


def test_a_bad_nzedb_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.tsv"
    bad.write_text("name\tpattern\nfoo\tbar\n")
    with pytest.raises(ValueError, match="not an nZEDb"):
        import_blacklist(str(tmp_path), bad, "ops")
