"""The admin pages: open only to an admin key; the rule set in evaluation order with its
counters; add, edit, reorder, toggle, shadow, delete through forms of ours, each logged
with who and when; a draft tried first; status.json for monitors."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from fastapi.testclient import TestClient
from lxml import html

from pipelines.catalog.partitions import list_table
from pipelines.catalog.reader import read_parquet
from pipelines.catalog.schema import RULE_COUNTS, RULE_HITS
from pipelines.catalog.writer import write_partition
from pipelines.corpus.fs import open_fs
from pipelines.rules import store
from pipelines.rules.model import BUILTINS, OPERATOR_AFTER
from serving.admin_access import COOKIE as ADMIN_COOKIE
from serving.admin_log import AdminLog
from serving.app import create_app
from serving.settings import Settings
from tests.catalogs import form_token, module_catalog, sign_in

ADMIN = "admin-s3cret"


@pytest.fixture
def catalog_dir(tmp_path_factory) -> str:
    # a fresh catalog each test: the tests change its rule set
    return module_catalog(tmp_path_factory, 300, groups=2, per_range=300, seed=12)


def _settings(catalog: str, tmp_path: Path, **fields: Any) -> Settings:
    return Settings(catalog=catalog, api_keys=["k1"], admin_keys=[ADMIN], build_in_process=True,
                    admin_log=str(tmp_path / "admin.jsonl"), **fields)  # fmt: skip


@pytest.fixture
def client(catalog_dir, tmp_path) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(catalog_dir, tmp_path), background=False)) as c:
        yield c


def _admin(client: TestClient, key: str = ADMIN) -> Any:
    token = form_token(client, "/admin/signin")
    return client.post("/admin/signin", data={"adminkey": key, "csrf": token},
                       follow_redirects=False)  # fmt: skip


def _post(client: TestClient, path: str, **data: str) -> Any:
    """A form of an admin page, posted with the page's token."""
    return client.post(path, data={**data, "csrf": form_token(client, "/admin")},
                       follow_redirects=False)  # fmt: skip


def _rule_ids(client: TestClient) -> list[str]:
    doc = html.fromstring(client.get("/admin").text)
    return [str(i).removeprefix("rule-") for i in doc.xpath("//table[@id='rules']/tbody/tr/@id")]


def _log(tmp_path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tmp_path / "admin.jsonl").read_text().splitlines()]


def test_the_admin_pages_are_open_only_to_an_admin_key(client):
    for page in ("/admin", "/admin/posters", "/admin/builds", "/admin/rules/r1"):
        r = client.get(page, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/admin/signin", page
    assert client.get("/admin/status.json").status_code == 401
    sign_in(client)  # a reader's API key opens the reader's pages, not these
    assert client.get("/admin", follow_redirects=False).status_code == 303
    assert client.get("/admin/status.json", headers={"Authorization": "Bearer k1"}
                      ).status_code == 401  # fmt: skip
    r = _admin(client, "k1")
    assert r.status_code == 403 and ADMIN_COOKIE not in r.headers.get("set-cookie", "")
    # a changing form without an admin key changes nothing
    assert _post(client, "/admin/rules", pattern="x").status_code == 303
    r = _admin(client)
    assert r.status_code == 303 and r.headers["location"] == "/admin"
    cookie = {p.strip().lower() for p in r.headers["set-cookie"].split(";")}
    assert {"httponly", "samesite=strict", "path=/admin"} <= cookie
    assert client.get("/admin").status_code == 200
    # the admin key is never one of the links' keys: the reader's pages still carry k1
    assert ADMIN not in client.get("/").text


def test_an_admin_key_cannot_be_an_api_key(catalog_dir):
    with pytest.raises(ValueError, match="admin key must not also be an API key"):
        Settings(catalog=catalog_dir, api_keys=["k1", "a"], admin_keys=["a"])


def test_the_rule_list_is_in_evaluation_order(client):
    _admin(client)
    store.add_rule(client.app.state.settings.catalog, r"\.exe\b", "test",  # type: ignore[attr-defined]
                   force=True)  # fmt: skip
    ids = _rule_ids(client)
    cut = [r.id for r in BUILTINS].index(OPERATOR_AFTER) + 1
    assert ids == [*(r.id for r in BUILTINS[:cut]), "r1", *(r.id for r in BUILTINS[cut:])]


def test_add_edit_reorder_toggle_shadow_delete_each_logged(client, tmp_path):
    _admin(client)
    where = client.app.state.settings.catalog  # type: ignore[attr-defined]
    for pattern in ("sample-one", "sample-two", "sample-three"):
        r = _post(client, "/admin/rules", pattern=pattern, field="subject", action="drop",
                  state="on", group="", note="test")  # fmt: skip
        assert r.status_code == 303, r.text[:400]
    assert [r.pattern for r in store.load_rules(where).operator] == [
        "sample-one", "sample-two", "sample-three"]  # fmt: skip
    assert _post(client, "/admin/rules/r3", op="up").status_code == 303
    assert _post(client, "/admin/rules/r1", op="down").status_code == 303
    assert [r.id for r in store.load_rules(where).operator] == ["r3", "r1", "r2"]
    assert _post(client, "/admin/rules/r2", op="shadow").status_code == 303
    assert _post(client, "/admin/rules/r3", op="off").status_code == 303
    states = {r.id: r.state for r in store.load_rules(where).operator}
    assert states == {"r1": "on", "r2": "shadow", "r3": "off"}
    r = _post(client, "/admin/rules/r1", op="update", pattern="sample-1", field="poster",
              action="watch", state="on", group="alt\\.binaries\\..*", note="edited")  # fmt: skip
    assert r.status_code == 303
    r1 = store.load_rules(where).get("r1")
    assert (r1.pattern, r1.field, r1.action, r1.group, r1.note) == (
        "sample-1", "poster", "watch", "alt\\.binaries\\..*", "edited")  # fmt: skip
    assert _post(client, "/admin/rules/r2", op="delete").status_code == 303
    assert [r.id for r in store.load_rules(where).operator] == ["r3", "r1"]
    assert _post(client, "/admin/rules/r1", op="move", position="1").status_code == 303
    assert _post(client, "/admin/rules/r1", op="move", position="x").status_code == 400
    assert _post(client, "/admin/rules/r1", op="move", position="9").status_code == 400
    assert [r.id for r in store.load_rules(where).operator] == ["r1", "r3"]
    doc = html.fromstring(client.get("/admin").text)
    assert doc.xpath("//tr[@id='rule-r3']/td[@class='state']")[0].text_content() == "off"
    shown = [str(i) for i in doc.xpath("//table[@id='rules']/tbody/tr/@id")]
    assert shown.index("rule-r1") < shown.index("rule-r3")
    # who and when: every change in the admin log, the rule set's own log names the admin
    log = [e for e in _log(tmp_path) if e["action"] != "sign in"]
    assert [e["outcome"].split(":")[0] for e in log[-2:]] == ["refused", "refused"]
    assert [(e["action"], e["target"]) for e in log] == [
        ("add rule", "r1"), ("add rule", "r2"), ("add rule", "r3"), ("up rule", "r3"),
        ("down rule", "r1"), ("shadow rule", "r2"), ("off rule", "r3"), ("update rule", "r1"),
        ("delete rule", "r2"), ("move rule", "r1"), ("move", "r1"), ("move", "r1")]  # fmt: skip
    assert all(re.fullmatch(r"admin:[0-9a-f]{10}@testclient", e["who"]) for e in log)
    assert all(abs(e["at"] - log[0]["at"]) < 600 for e in log)
    assert {e["who"] for e in store.load_rules(where).log} == {log[0]["who"]}
    assert len(doc.xpath("//table[@id='admin-actions']//tr[@class='admin-action']")) >= 9


def test_a_cross_site_post_changes_no_rule(client, tmp_path):
    _admin(client)
    where = client.app.state.settings.catalog  # type: ignore[attr-defined]
    r = client.post("/admin/rules", data={"pattern": "evil", "force": "1"},
                    follow_redirects=False)  # fmt: skip
    assert r.status_code == 403
    token = form_token(client, "/admin")
    r = client.post("/admin/rules", data={"pattern": "evil", "force": "1", "csrf": token},
                    headers={"Origin": "https://evil.example"}, follow_redirects=False)  # fmt: skip
    assert r.status_code == 403 and store.load_rules(where).operator == []


@pytest.mark.parametrize(
    ("pattern", "why"),
    [("", "empty"), ("[", ""), (".", "force")],
)
def test_a_hostile_rule_is_refused_with_its_reason(client, pattern, why):
    _admin(client)
    where = client.app.state.settings.catalog  # type: ignore[attr-defined]
    r = _post(client, "/admin/rules", pattern=pattern, field="subject", action="drop")
    assert r.status_code == 400
    message = html.fromstring(r.text).get_element_by_id("admin-message").text_content()
    assert message.startswith("Refused:") and why in message
    assert store.load_rules(where).operator == []
    # the draft stays in the form, to be mended
    assert html.fromstring(r.text).xpath("//form[@id='add-rule']//input[@name='pattern']/@value"
                                         ) == [pattern]  # fmt: skip


def _kept_subjects(catalog: str) -> list[tuple[str, str, bytes]]:
    """(group, subject, release key) of every kept file in the newest partitions."""
    fs, root = open_fs(catalog)
    rows = []
    for part in list_table(fs, root, "release_files", stat=False):
        group = part.path.rsplit("/", 2)[-2]
        t = read_parquet(fs, part.path, ["subject", "release_key"])
        rows += [(group, s, k) for s, k in zip(t.column(0).to_pylist(), t.column(1).to_pylist(),
                                               strict=True)]  # fmt: skip
    return rows


def test_a_draft_is_tried_on_what_is_stored_and_nothing_changes(client, catalog_dir):
    _admin(client)
    rows = _kept_subjects(catalog_dir)
    word = re.findall(r"[A-Za-z]{5,}", rows[0][1])[0]
    matched = [r for r in rows if word.lower() in r[1].lower()]
    before = sorted(p.name for p in Path(catalog_dir).rglob("*"))
    r = _post(client, "/admin/try", pattern=word, literal="1", field="subject", action="drop")
    assert r.status_code == 200
    doc = html.fromstring(r.text)
    assert int(doc.get_element_by_id("trial-matched").text_content()) == len(matched)
    assert int(doc.get_element_by_id("trial-releases").text_content()) == len(
        {m[2] for m in matched}
    )
    groups = {tr.xpath("td")[0].text_content(): int(tr.xpath("td")[1].text_content())
              for tr in doc.xpath("//table[@id='trial-groups']/tbody/tr")}  # fmt: skip
    assert sum(groups.values()) == len(matched)
    assert sorted(p.name for p in Path(catalog_dir).rglob("*")) == before  # nothing written
    bad = _post(client, "/admin/try", pattern="[", field="subject", action="drop")
    assert html.fromstring(bad.text).get_element_by_id("trial-error") is not None


def test_counters_share_drift_and_sparkline_shown(client, catalog_dir):
    _admin(client)
    rule = store.add_rule(catalog_dir, "sample-x", "test", force=True)
    rows = [{"group": "g", "range_first": 1, "range_last": 9, "rule": rule.id, "day": 20_000 + d,
             "headers": h, "bytes": 100 * h, "releases": 1, "dropped": h, "rules_version": "v"}
            for d, h in enumerate([10, 10, 10, 10, 10, 10, 10, 30])]  # fmt: skip
    write_partition(catalog_dir, "rule_hits", "g", 1, 9, pa.Table.from_pylist(rows, RULE_HITS))
    # every drop once, the operator's beside a built-in's: the rule dropped 100 of 400
    counts = [
        {
            "group": "g",
            "range_first": 1,
            "range_last": 9,
            "rule": r,
            "detail": None,
            "count": n,
            "rules_version": "v",
        }
        for r, n in ((rule.id, 100), ("bad_line", 300))
    ]
    write_partition(
        catalog_dir, "rule_counts", "g", 1, 9, pa.Table.from_pylist(counts, RULE_COUNTS)
    )
    doc = html.fromstring(client.get("/admin").text)
    row = doc.get_element_by_id(f"rule-{rule.id}")
    assert row.xpath("td[@class='headers']")[0].text_content() == "100"
    assert row.xpath("td[@class='share']")[0].text_content() == "25.0 %"
    assert row.xpath("td[@class='drift']")[0].text_content() == "3.00×"
    points = row.xpath(".//svg[@class='spark']/polyline/@points")[0].split()
    assert len(points) == 8 and float(points[-1].split(",")[1]) < float(points[0].split(",")[1])


def test_status_json_for_monitors(client, catalog_dir):
    assert client.get("/admin/status.json").status_code == 401
    client.get("/api", params={"t": "search", "apikey": "wrong"})
    r = client.get("/admin/status.json", headers={"Authorization": f"Bearer {ADMIN}"})
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    body = r.json()
    assert set(body) >= {"stages", "rules", "errors", "keys", "at"}
    assert body["stages"]["header_pass"]["ranges"] >= 1
    assert body["stages"]["index"]["releases"] > 0
    assert body["rules"][0]["id"] == BUILTINS[0].id
    assert body["keys"]["wrong_keys"] == 1
    assert body["keys"]["recent_wrong"][0]["where"] == "/api"
    assert "wrong" not in json.dumps(body["keys"]["recent_wrong"][0]["client"])
    # a wrong bearer token counts as a wrong key of its address
    assert client.get("/admin/status.json", headers={"Authorization": "Bearer nope"}
                      ).status_code == 401  # fmt: skip
    assert client.app.state.catalog.limits.wrong_keys.wrong_total == 2  # type: ignore[attr-defined]


def test_signing_out_of_admin_needs_a_form_of_ours_and_forgets_the_key(client, tmp_path):
    _admin(client)
    assert client.post("/admin/signout", data={}, follow_redirects=False).status_code == 403
    assert client.get("/admin", follow_redirects=False).status_code == 200
    r = _post(client, "/admin/signout")
    assert r.status_code == 303 and r.headers["location"] == "/admin/signin"
    assert f'{ADMIN_COOKIE}=""' in r.headers["set-cookie"]
    assert client.get("/admin", follow_redirects=False).status_code == 303
    assert [e["action"] for e in _log(tmp_path)] == ["sign in", "sign out"]


def test_the_admin_log_keeps_whole_lines_only(tmp_path):
    log = AdminLog(tmp_path / "a.jsonl")
    log.record("admin:1@x", "add rule", "r1")
    log.record("admin:1@x", "delete rule", "r1", "refused: no rule")
    with (tmp_path / "a.jsonl").open("ab") as fh:
        fh.write(b'{"at": 1, "who": "cut sh')  # a process killed mid-write
    got = log.recent()
    assert [(e["action"], e["outcome"]) for e in got] == [
        ("delete rule", "refused: no rule"), ("add rule", "done")]  # fmt: skip
    assert AdminLog(tmp_path / "none.jsonl").recent() == []
