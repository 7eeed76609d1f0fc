"""`grabs`: NZB downloads per release (`t=get`, `/nzb/<guid>`, the web's NZB link), one
count the worker processes share, kept across restarts on the same index folder."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from lxml import etree, html

from pipelines.catalog.partitions import list_table
from pipelines.corpus.fs import open_fs
from serving.grabs import RECORD, Grabs
from tests.catalogs import app_client, synthetic_catalog

NS = {"newznab": "http://www.newznab.com/DTD/2010/feeds/attributes/"}


@pytest.fixture
def catalog(tmp_path: Path) -> str:
    return synthetic_catalog(tmp_path / "cat", 300, groups=1, per_range=300, seed=5)


def _keys(catalog: str) -> list[bytes]:
    fs, root = open_fs(catalog)
    part = list_table(fs, root, "releases")[-1]
    return [r["release_key"] for r in pq.read_table(part.path).to_pylist()
            if r["finished"] and not r["merged_into"]]  # fmt: skip


def _grabs_attr(client, key: bytes) -> str:
    r = client.get("/api", params={"t": "details", "apikey": "k1", "id": key.hex()})
    attrs = {a.get("name"): a.get("value")
             for a in etree.fromstring(r.content).iter(f"{{{NS['newznab']}}}attr")}  # fmt: skip
    return attrs["grabs"]


def _page_grabs(client, key: bytes) -> str:
    doc = html.fromstring(client.get(f"/release/{key.hex()}").text)
    return doc.xpath("//dd[@id='grabs']")[0].text_content()


def test_downloads_counted_shown_and_kept_across_a_restart(catalog: str, tmp_path: Path) -> None:
    one, two = _keys(catalog)[:2]
    index_dir = str(tmp_path / "index")
    with app_client(catalog, index_dir=index_dir) as client:
        assert _grabs_attr(client, one) == "0"
        assert client.get("/api", params={"t": "get", "apikey": "k1", "id": one.hex()}).is_success
        # the web's NZB link (what the release page links to)
        doc = html.fromstring(client.get(f"/release/{one.hex()}").text)
        link = doc.xpath("//a[@id='nzb-link']/@href")[0]
        assert link.startswith("/nzb/") and client.get(link).is_success
        assert client.get(f"/nzb/{two.hex()}", params={"apikey": "k1"}).is_success
        # a failed download (no such release) counts nothing
        client.get("/api", params={"t": "get", "apikey": "k1", "id": "ab" * 20})
        assert (_grabs_attr(client, one), _grabs_attr(client, two)) == ("2", "1")
        assert _page_grabs(client, one) == "2"
        search = client.get("/api", params={"t": "search", "apikey": "k1", "limit": "100",
                                            "o": "json"}).json()  # fmt: skip
        items = [{a["@attributes"]["name"]: a["@attributes"]["value"] for a in item["attr"]}
                 for item in search["channel"]["item"]]  # fmt: skip
        assert all(i["grabs"] == {one.hex(): "2", two.hex(): "1"}.get(i["guid"], "0")
                   for i in items)  # fmt: skip
    with app_client(catalog, index_dir=index_dir) as again:
        assert (_grabs_attr(again, one), _grabs_attr(again, two)) == ("2", "1")
        assert _page_grabs(again, one) == "2"


def _count(path: str, keys: list[bytes], times: int) -> None:
    grabs = Grabs(path)
    for _ in range(times):
        for key in keys:
            grabs.count(key)
    grabs.close()


def test_worker_processes_count_into_one_total(tmp_path: Path) -> None:
    """Two processes counting at once (as `serve --workers 2` does): every grab is in
    both processes' counts, and in a third's that starts after."""
    path = str(tmp_path / "grabs.bin")
    keys = [bytes([i]) * 20 for i in range(3)] + [b"\x00" * 19 + b"\x01", b"\x01" + b"\x00" * 19]
    watcher = Grabs(path)
    assert watcher.get(keys[0]) == 0
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_count, args=(path, keys, 200)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
        assert w.exitcode == 0
    assert watcher.current() == {key: 400 for key in keys}  # trailing zero bytes kept
    watcher.close()
    late = Grabs(path)
    assert [late.get(k) for k in keys] == [400] * len(keys)
    late.close()


def test_a_record_cut_short_is_dropped(tmp_path: Path) -> None:
    """A process killed inside its write leaves part of a key: never counted, and cut
    off before the next grab, whose count is then right."""
    path = tmp_path / "grabs.bin"
    key = b"k" * 20
    grabs = Grabs(str(path))
    grabs.count(key)
    with open(path, "ab") as fh:
        fh.write(b"half-a-key")
    reader = Grabs(str(path))
    assert reader.get(key) == 1
    grabs.count(key)
    assert path.stat().st_size == 2 * RECORD
    assert (reader.get(key), Grabs(str(path)).get(key)) == (2, 2)


def test_without_a_file_counts_stay_in_memory() -> None:
    grabs = Grabs()
    grabs.count(b"x" * 20)
    assert (grabs.get(b"x" * 20), grabs[b"y" * 20]) == (1, 0)


def _start(catalog: Path, index_dir: Path, port: int):
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "cli.main", "serve", "--catalog", str(catalog), "--port",
           str(port), "--api-key", "k1", "--workers", "2", "--refresh", "0.5",
           "--index-dir", str(index_dir)]  # fmt: skip
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _api(base: str, **params: str):
    import httpx

    # a connection of its own per request: the kernel hands it to either worker
    return httpx.get(f"{base}/api", params={"apikey": "k1", **params}, timeout=30)


def _up(server, base: str) -> None:
    import time

    import httpx

    deadline = time.time() + 180
    while True:
        assert server.poll() is None, server.stderr.read().decode()[-2000:]
        try:
            if _api(base, t="search", limit="1").status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.time() < deadline, "the workers did not come up"
        time.sleep(0.5)


def _attrs(base: str, key: bytes) -> dict[str, str]:
    root = etree.fromstring(_api(base, t="details", id=key.hex()).content)
    return {a.get("name"): a.get("value") for a in root.iter(f"{{{NS['newznab']}}}attr")}


@pytest.mark.slow  # starts real server processes, twice
def test_two_workers_share_grabs_and_verdicts_across_a_restart(tmp_path: Path) -> None:
    import time

    from tests.servers import free_port
    from tests.verdict_tables import verdict, write_rows

    catalog = Path(synthetic_catalog(tmp_path / "cat", 300, groups=1, per_range=300, seed=5))
    one, judged = _keys(str(catalog))[:2]
    index_dir = tmp_path / "index"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = _start(catalog, index_dir, port)
    try:
        _up(server, base)
        for _ in range(8):
            assert (
                _api(base, t="get", id=one.hex())
                .headers["content-type"]
                .startswith("application/x-nzb")
            )
        assert {_attrs(base, one)["grabs"] for _ in range(8)} == {"8"}
        fs, root = open_fs(str(catalog))
        group = list_table(fs, root, "releases")[0].path.rsplit("/", 2)[-2]
        write_rows(str(catalog), "release_verdicts", group, "v",
                   [verdict(judged, group, "unusable")])  # fmt: skip
        deadline = time.time() + 60
        while any("verdict" not in _attrs(base, judged) for _ in range(8)):
            assert time.time() < deadline, "the verdict never showed on every worker"
            time.sleep(0.5)
        total = lambda **p: etree.fromstring(_api(base, t="search", **p).content).find(  # noqa: E731
            ".//newznab:response", NS).get("total")  # fmt: skip
        assert {total() for _ in range(6)} == {"299"}
        assert {total(judged="1") for _ in range(6)} == {"300"}
    finally:
        server.terminate()
        server.wait(timeout=60)
    server = _start(catalog, index_dir, port)
    try:
        _up(server, base)
        assert {_attrs(base, one)["grabs"] for _ in range(6)} == {"8"}
        assert {_attrs(base, judged).get("verdict") for _ in range(6)} == {"unusable"}
    finally:
        server.terminate()
        server.wait(timeout=60)
