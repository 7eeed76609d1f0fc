"""The main job: `usenet-indexer demo` and scripts/run.sh on a small demo corpus with
bodies, split uploads and junk, served over NNTP while every asset is materialized.

The demo runs once for the module (a minute on two cores); the tests read what it left,
the last one runs it again."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from lxml import html

from cli.main import main
from pipelines.catalog.partitions import list_group
from pipelines.corpus.fs import open_fs
from pipelines.judge.store import current_verdicts
from tests.catalogs import app_client, app_settings
from tests.dagster_runs import folder_instance
from tests.servers import CHROMIUM

ROOT = Path(__file__).resolve().parent.parent
# one group of six ranges: the generator puts one of each split and junk kind first
SMALL = ["--groups", "1", "--articles", "3000", "--range-size", "1000", "--quiet"]
TINY = ["--groups", "1", "--articles", "1000", "--range-size", "5000", "--quiet"]
STAGES = ("release_probes", "release_merges", "release_health", "release_verdicts")


@dataclass(frozen=True)
class Demo:
    state: Path
    out: str  # what the first run printed

    @property
    def catalog(self) -> str:
        return str(self.state / "catalog")

    def run(self) -> str:
        """The demo run (again), its output."""
        printed = io.StringIO()
        with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(printed):
            mp.setenv("DAGSTER_HOME", str(self.state / "dagster"))  # the demo sets it
            assert main(["demo", "--state", str(self.state), *SMALL]) == 0
        return printed.getvalue()

    def ranges(self) -> int:
        """Range partitions the instance knows."""
        with folder_instance(self.state / "dagster") as instance:
            return len(instance.get_dynamic_partitions("ranges"))

    def jobs(self) -> Counter[str]:
        """Runs per job in the instance, all of them successful."""
        with folder_instance(self.state / "dagster") as instance:
            records = instance.get_run_records()
            statuses = {r.dagster_run.status for r in records}
            assert statuses == {dg.DagsterRunStatus.SUCCESS}, statuses
            for asset in STAGES:
                assert instance.get_latest_materialization_event(dg.AssetKey(asset)) is not None
            return Counter(r.dagster_run.job_name for r in records)

    def judged(self) -> dict[str, set[str]]:
        """Release keys (hex) by the verdict that hides them."""
        verdicts = current_verdicts(self.catalog)
        out: dict[str, set[str]] = {}
        for key, rule in zip(verdicts["release_key"].to_pylist(), verdicts["rule"].to_pylist(),
                             strict=True):  # fmt: skip
            out.setdefault(rule, set()).add(key.hex())
        return out

    @property
    def group(self) -> str:
        """The demo's binaries group (the spot groups beside it)."""
        meta = json.loads((self.state / "demo" / "generate.json").read_text())
        return str(meta["groups"][0]["name"])

    def truth(self) -> pa.Table:
        return pq.read_table(self.state / "demo" / "truth" / "uploads.parquet")

    def named_obfuscated(self) -> set[str]:
        """The real names the obfuscated uploads' articles carry."""
        t = self.truth()
        obfuscated = t.filter(pc.equal(t["kind"], "obfuscated"))
        return {n for n in obfuscated["inner_name"].to_pylist() if n}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    state = tmp_path_factory.mktemp("main_job") / "var"
    first = Demo(state, "")
    return Demo(state, first.run())


def _listed(doc: html.HtmlElement) -> dict[str, str]:
    """Release key (hex) -> the text of its row on a results page."""
    return {
        r.xpath("string(td[1]/a/@href)").rsplit("/", 1)[-1]: " ".join(
            r.xpath("string(td[1])").split()
        )
        for r in doc.xpath("//tr[@class='release']")
    }


@pytest.mark.slow
def test_every_stage_is_a_run_of_its_job(demo: Demo) -> None:
    out = demo.out
    assert "http://127.0.0.1:8000/" in out and "/api?t=caps" in out
    assert "dagster dev -m assets" in out and f"DAGSTER_HOME={demo.state / 'dagster'}" in out
    assert "(0 were already done)" in out and "serving the corpus over NNTP" in out
    assert (demo.state / "dagster" / "dagster.yaml").exists()
    jobs = demo.jobs()
    ranges = demo.ranges()
    assert ranges >= 5 and jobs["index_job"] == ranges and 1 <= jobs["probe_job"] <= ranges
    assert [jobs[j] for j in ("health_job", "judge_job", "spots_job")] == [1] * 3
    assert jobs["catalog_job"] == 1
    # the binaries group and the two spot groups (spots, and their NZBs)
    assert jobs["merge_job"] == jobs["compact_job"] == 3

    # the spots read and verified; their NZBs linked to the header pass's releases
    (line,) = [x for x in out.splitlines() if x.startswith("spots: ")]
    valid, rejected, linked, _ = (int(w) for w in line.replace(",", "").split() if w.isdigit())
    assert valid and rejected and linked, line

    fs, root = open_fs(demo.catalog)
    group = demo.group
    # the header pass's files compacted into one; the article pass's and the merges'
    # versions beside it
    parts = list_group(fs, root, "releases", group)
    own = [p for p in parts if not p.derived]
    assert len(own) == 1 and own[0].compact
    assert any(p.probe for p in parts) and any(p.merge for p in parts)

    judged = demo.judged()
    assert judged.get("fake") and judged.get("dead"), judged


@pytest.mark.slow
def test_the_pages_show_the_article_pass_and_hide_junk(demo: Demo) -> None:
    judged = demo.judged()
    fakes, dead = judged["fake"], judged["dead"]
    with app_client(demo.catalog) as client:
        front = _listed(html.fromstring(client.get("/").text))
        everything = _listed(html.fromstring(client.get("/?judged=1").text))
        # an obfuscated upload under the name its articles carry, and a merged release
        named = {t.split(" named from ")[0] for t in front.values() if " named from " in t}
        assert named & demo.named_obfuscated(), front
        assert any(" merged from " in t for t in front.values()), front
        # fakes only with "show all", each with its verdict; dead releases never
        assert not fakes & set(front)
        assert fakes <= set(everything) and all("fake" in everything[k] for k in fakes)
        assert not dead & (set(front) | set(everything))
        # a dead release the catalog holds (not only a pending one): its page says so
        pages = [client.get(f"/release/{key}") for key in sorted(dead)]
        assert any(r.status_code == 200 and 'id="dead"' in r.text for r in pages)

        status = html.fromstring(client.get("/status").text)

        def figure(name: str) -> int:
            return int(status.get_element_by_id(name).text_content().split()[0])

        assert figure("probed") > 0 and figure("named") >= 1
        assert figure("verdicts-fake") == len(fakes) and figure("verdicts-dead") == len(dead)
        assert figure("verdicts-total") == sum(len(keys) for keys in judged.values())
        assert figure("health-checked") > figure("health-healthy") > 0
        assert figure("merges-total") >= 2


@pytest.mark.slow
@pytest.mark.integration
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_the_pages_in_chromium(demo: Demo) -> None:
    from tests.browser.test_browser_pages import _dump, _serve

    served = _serve(app_settings(demo.catalog, public_pages=True))
    base = next(served)
    try:
        front = _dump(f"{base}/")
        assert front.xpath("//tr[@class='release']//span[@class='named']")
        assert front.xpath("//tr[@class='release']//span[@class='merged']")
        status = _dump(f"{base}/status")
        for table in ("merge-counts", "health-counts", "verdict-counts"):
            assert status.xpath(f"//table[@id='{table}']//tr[@class]"), table
    finally:
        next(served, None)


@pytest.mark.slow
def test_a_second_run_does_only_what_is_new(demo: Demo) -> None:
    """No header pass, probe or merge run; the sweep and the judge find nothing due."""
    before = demo.jobs()
    releases = pq.read_table(f"{demo.catalog}/releases").num_rows
    again = demo.run()
    assert "materialized 0 range partitions" in again and "probed 0 range partitions" in again
    assert "merged 0 groups" in again and "health: 0 releases checked" in again
    assert "judged 0 releases" in again and "spots: 0 valid, 0 rejected" in again
    assert pq.read_table(f"{demo.catalog}/releases").num_rows == releases
    more = demo.jobs() - before
    assert set(more) == {"compact_job", "health_job", "judge_job", "catalog_job", "spots_job"}, more


@pytest.mark.slow
def test_run_script_without_serving(tmp_path: Path) -> None:
    env = dict(
        os.environ, STATE_DIR=str(tmp_path / "var"), USENET_INDEXER_NO_SERVE="1", PORT="8123"
    )
    env.pop("DAGSTER_HOME", None)
    done = subprocess.run(
        ["bash", "scripts/run.sh", *TINY],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "http://127.0.0.1:8123/" in done.stdout
    assert "not serving" in done.stdout
    assert (tmp_path / "var" / "catalog" / "releases").is_dir()
