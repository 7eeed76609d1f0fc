"""The admin pages over a generated corpus replayed into a catalog.

- Try with the corpus is `rules try` itself: a draft rule that drops one late upload is
  tried from the page, which names exactly the ranges and releases `try_rules` names
  (and so what applying it changes: tests/test_rules_apply.py); nothing is written.
- The poster watch and build outcomes pages show what the store counts, every outcome.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from fastapi.testclient import TestClient
from lxml import html

from pipelines.generate import GenerateConfig
from pipelines.index.replay import replay
from pipelines.rules import store
from pipelines.rules.model import Rule
from pipelines.rules.trial import try_rules
from serving.app import create_app
from serving.settings import Settings
from tests.catalogs import catalog_files, form_token
from tests.corpora import Generated, replayed

ADMIN = "admin-try"


@pytest.fixture(scope="module")
def replayed_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Generated, str]:
    """A generated corpus of two groups, and the catalog its replay made."""
    root = tmp_path_factory.mktemp("admin-corpus")
    config = GenerateConfig(groups=2, articles=2_500, seed=11, range_size=1_000, chunk=500)
    gen, _ = replayed(root / "demo", root / "catalog", config)
    return gen, str(root / "catalog")


def _late_upload(gen: Generated, catalog: str) -> dict[str, Any]:
    names = {r["name"] for r in pq.read_table(f"{catalog}/releases").to_pylist()}
    uploads = pq.read_table(f"{gen.out}/truth/uploads.parquet").to_pylist()
    plain = [u for u in uploads if u["complete"] and len(u["groups"]) == 1
             and u["name"] in names and re.fullmatch(r"[\w.-]+", u["name"])]  # fmt: skip
    return max(plain, key=lambda u: u["posted_first"])


def _texts(doc: html.HtmlElement, xpath: str) -> list[str]:
    return [e.text_content().strip() for e in doc.xpath(xpath)]


def _sign_in(client: TestClient) -> None:
    token = form_token(client, "/admin/signin")
    r = client.post("/admin/signin", data={"adminkey": ADMIN, "csrf": token},
                    follow_redirects=False)  # fmt: skip
    assert r.status_code == 303


def test_the_page_tries_a_draft_as_rules_try_does(replayed_corpus, tmp_path):
    gen, catalog = replayed_corpus
    rules_file = tmp_path / "rules.json"
    rules_file.write_text(json.dumps(gen.rules.to_json()))
    settings = Settings(catalog=catalog, corpus=gen.corpus, rules_file=str(rules_file),
                        try_ranges=2, admin_keys=[ADMIN], build_in_process=True,
                        admin_log=str(tmp_path / "admin.jsonl"))  # fmt: skip
    late = _late_upload(gen, catalog)
    pattern, scope = re.escape(late["name"]), f"^{re.escape(late['owner_group'])}$"
    expected = try_rules(gen.corpus, catalog, gen.rules,
                         [Rule(id="draft", pattern=pattern, group=scope)], 2)  # fmt: skip
    assert expected.removed  # the draft does remove something: the page must show it
    before = catalog_files(Path(catalog))
    with TestClient(create_app(settings, background=False)) as client:
        _sign_in(client)
        r = client.post("/admin/try", data={"pattern": pattern, "group": scope, "field":
                        "subject", "action": "drop", "state": "on",
                        "csrf": form_token(client, "/admin")})  # fmt: skip
    assert r.status_code == 200
    doc = html.fromstring(r.text)
    table = doc.xpath("//table[@id='trial-ranges']/tbody/tr")
    assert [tuple(tr.xpath("td/text()")[:2]) for tr in table] == [
        (g, f"{a}–{z}") for g, a, z, _ in expected.ranges]  # fmt: skip
    assert int(doc.get_element_by_id("trial-removed").text_content()) == len(expected.removed)
    shown = _texts(doc, "//ul[@id='trial-removed-list']/li")
    assert [s.split(" (")[0] for s in shown] == [
        f"{x['group']}: {x['name']}" for x in expected.removed]  # fmt: skip
    assert late["name"] in " ".join(shown)
    assert catalog_files(Path(catalog)) == before  # tried, nothing written


@pytest.fixture(scope="module")
def watched(replayed_corpus, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A catalog replayed with a watch rule on the busiest poster; (catalog, poster)."""
    gen = replayed_corpus[0]
    uploads = pq.read_table(f"{gen.out}/truth/uploads.parquet").to_pylist()
    posters = [u["poster"] for u in uploads]
    poster = max(set(posters), key=posters.count)
    catalog = str(tmp_path_factory.mktemp("admin-watch") / "catalog")
    store.add_rule(catalog, re.escape(poster), "test", field="poster", action="watch")
    replay(gen.corpus, catalog, gen.rules, progress=False)
    return catalog, poster


def test_the_poster_watch_and_build_outcomes_pages_show_the_stores_counts(watched, tmp_path):
    catalog, poster = watched
    settings = Settings(catalog=catalog, admin_keys=[ADMIN], build_in_process=True,
                        admin_log=str(tmp_path / "admin.jsonl"))  # fmt: skip
    with TestClient(create_app(settings, background=False)) as client:
        _sign_in(client)
        posters = html.fromstring(client.get("/admin/posters").text)
        builds = html.fromstring(client.get("/admin/builds").text)
    (watch,) = store.poster_watch(catalog)
    assert watch["outcomes"] and any(o["stage"] == "releases" for o in watch["outcomes"])
    section = posters.get_element_by_id(f"watch-{watch['id']}")
    assert section.xpath(".//h2/code")[0].text_content() == re.escape(poster)
    rows = [[td.text_content() for td in tr.xpath("td")] for tr in section.xpath(".//tr")[1:]]
    assert rows == [[o["stage"], o["reason"], str(o["headers"]), str(o["releases"])]
                    for o in watch["outcomes"]]  # fmt: skip
    outcomes = store.build_outcomes(catalog, 14)
    assert outcomes
    kinds = [th.text_content() for th in builds.xpath("//table[@id='builds']/thead/tr/th")][1:]
    shown: dict[tuple[str, str], int] = {}
    for tr in builds.xpath("//table[@id='builds']/tbody/tr[@class='build-day']"):
        cells = [td.text_content() for td in tr.xpath("td")]
        shown |= {(cells[0], k): int(v) for k, v in zip(kinds, cells[1:], strict=True) if v != "0"}
    assert shown == {(o["day"], o["outcome"]): o["count"] for o in outcomes if o["count"]}
