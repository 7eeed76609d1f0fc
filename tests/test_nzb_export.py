"""`usenet-indexer nzb`: one valid NZB per newest release version, all versions' segments."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from lxml import etree

from bench.synthetic_catalog import write_synthetic_catalog
from cli.main import main
from pipelines.catalog.layout import table_glob
from pipelines.catalog.versions import newest_sql
from pipelines.nzb.writer import DTD_PATH

DTD = etree.DTD(str(DTD_PATH))


@pytest.fixture(scope="module")
def catalog(tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("catalog"))
    write_synthetic_catalog(root, 1_500, groups=1, per_range=500, seed=8, spanning_share=0.1)
    return root


def test_every_release_gets_a_valid_nzb_with_all_its_segments(catalog, tmp_path, capsys):
    out = tmp_path / "nzbs"
    assert main(["nzb", "--catalog", catalog, "--out", str(out)]) == 0
    assert "wrote 1500 NZB files" in capsys.readouterr().out
    glob = table_glob(catalog, "releases")
    versions = newest_sql(f"read_parquet('{glob}')")
    newest = duckdb.sql(f"SELECT release_key, segments, finished FROM ({versions})").fetchall()
    assert len(newest) == 1500 == len(list(out.glob("*.nzb")))
    for key, segments, _finished in newest:
        path = out / f"{bytes(key).hex()}.nzb"
        doc = etree.parse(str(path))
        assert DTD.validate(doc), DTD.error_log
        assert len(doc.getroot().findall(".//{*}segment")) == segments


def test_one_key_and_bad_keys(catalog, tmp_path, capsys):
    key = next(Path(catalog, "releases").rglob("*.parquet"))
    first = duckdb.sql(f"SELECT release_key FROM read_parquet('{key}') LIMIT 1").fetchall()[0][0]
    out = tmp_path / "one"
    assert main(["nzb", "--catalog", catalog, "--out", str(out), "--key", bytes(first).hex()]) == 0
    assert [p.name for p in out.iterdir()] == [f"{bytes(first).hex()}.nzb"]
    assert main(["nzb", "--catalog", catalog, "--out", str(out), "--key", "zz"]) == 2
    assert main(["nzb", "--catalog", catalog, "--out", str(out), "--key", "ab" * 20]) == 1
    assert "not found: " + "ab" * 20 in capsys.readouterr().out


def _damaged_copy(catalog: str, tmp_path: Path, table: str) -> tuple[Path, Path]:
    """A copy of the catalog with the middle partition of `table` cut short."""
    copy = tmp_path / "catalog"
    shutil.copytree(catalog, copy)
    parts = sorted((copy / table).rglob("*.parquet"))
    victim = parts[len(parts) // 2]
    victim.write_bytes(victim.read_bytes()[:3000])
    return copy, victim


def test_an_unreadable_partition_is_named_and_costs_only_its_releases(catalog, tmp_path, capsys):
    copy, victim = _damaged_copy(catalog, tmp_path, "release_files")
    first, last = (int(n) for n in victim.stem.split("-"))
    out = tmp_path / "nzbs"
    assert main(["nzb", "--catalog", str(copy), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"unreadable partition {victim}" in err
    glob = table_glob(str(copy), "releases")
    versions = newest_sql(f"read_parquet('{glob}')")
    newest = duckdb.sql(
        "SELECT release_key, segments, first_article, "
        f"greatest(last_article, written_range) FROM ({versions})"
    ).fetchall()
    touching = {bytes(k) for k, _s, a, z in newest if a <= last and first <= z}
    assert 0 < len(touching) < len(newest)
    assert f"{len(touching)} releases not written" in err
    written = {bytes.fromhex(p.stem) for p in out.glob("*.nzb")}
    assert written == {bytes(k) for k, *_ in newest} - touching
    # what was written is whole: every segment of the release
    for key, segments, *_ in newest:
        if bytes(key) in written:
            doc = etree.parse(str(out / f"{bytes(key).hex()}.nzb"))
            assert len(doc.getroot().findall(".//{*}segment")) == segments


def test_unreadable_releases_are_a_clear_error(catalog, tmp_path, capsys):
    copy, victim = _damaged_copy(catalog, tmp_path, "releases")
    assert main(["nzb", "--catalog", str(copy), "--out", str(tmp_path / "nzbs")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("nzb: the catalog's releases cannot be read")
    assert str(victim) in err and "Traceback" not in err


def test_a_known_password_goes_in_the_head(catalog, tmp_path):
    """The newest probe's password_text becomes `<meta type="password">`; a passworded flag
    without a known password writes none (never "yes")."""
    from tests.catalogs import probe_row, write_release_probes

    copy = tmp_path / "catalog"
    shutil.copytree(catalog, copy)
    part = sorted(Path(copy, "releases").rglob("*.parquet"))[0]
    group, span = part.parent.name, part.stem.split("-")
    sql = f"SELECT release_key FROM read_parquet('{part}') ORDER BY release_key LIMIT 2"
    keys = [bytes(k[0]) for k in duckdb.sql(sql).fetchall()]
    write_release_probes(str(copy), group, int(span[0]), int(span[1]), [
        probe_row(keys[0], group, password=1, password_text="old", probed_at=1),
        probe_row(keys[1], group, password=1),
    ])  # fmt: skip
    write_release_probes(str(copy), group, int(span[0]) + 1, int(span[1]), [
        probe_row(keys[0], group, password=1, password_text="n3w", probed_at=2),
    ])  # fmt: skip
    out = tmp_path / "nzbs"
    args = ["nzb", "--catalog", str(copy), "--out", str(out)]
    assert main([*args, "--key", keys[0].hex(), "--key", keys[1].hex()]) == 0

    def meta(key: bytes) -> dict:
        head = etree.parse(str(out / f"{key.hex()}.nzb")).getroot().find("{*}head")
        return {m.get("type"): m.text for m in head}

    assert meta(keys[0])["password"] == "n3w"
    assert "password" not in meta(keys[1])
