"""One Settings class: defaults < TOML file < environment < flags, validated at start."""

from __future__ import annotations

import os

import pytest
from pydantic import ValidationError

from cli.main import build_parser
from serving.settings import load_settings


def test_file_then_environment_then_flags(tmp_path, monkeypatch):
    config = tmp_path / "serve.toml"
    config.write_text(
        'catalog = "/data/a"\nsite_title = "From file"\nmax_limit = 200\napi_keys = ["f"]\n'
    )
    monkeypatch.delenv("USENET_INDEXER_CONFIG", raising=False)
    s = load_settings(str(config))
    assert (s.catalog, s.site_title, s.max_limit, s.api_keys) == (
        "/data/a",
        "From file",
        200,
        ["f"],
    )
    monkeypatch.setenv("USENET_INDEXER_SITE_TITLE", "From env")
    monkeypatch.setenv("USENET_INDEXER_API_KEYS", "k1, k2")
    s = load_settings(str(config))
    assert s.site_title == "From env" and s.api_keys == ["k1", "k2"]
    s = load_settings(str(config), site_title="From flag", catalog="/data/b")
    assert (s.site_title, s.catalog) == ("From flag", "/data/b")
    monkeypatch.setenv("USENET_INDEXER_CONFIG", str(config))
    assert load_settings().catalog == "/data/a"


def test_bad_settings_fail_at_start(tmp_path, monkeypatch):
    monkeypatch.delenv("USENET_INDEXER_CONFIG", raising=False)
    with pytest.raises(ValidationError):
        load_settings(catalog="/x", max_limit=0)
    with pytest.raises(ValueError, match="default_limit"):
        load_settings(catalog="/x", default_limit=500, max_limit=100)
    with pytest.raises(ValidationError):
        load_settings(catalog="/x", no_such_setting=1)
    with pytest.raises(ValidationError):
        load_settings()  # no catalog anywhere


def test_serve_command_line():
    args = build_parser().parse_args(
        ["serve", "--catalog", "c", "--api-key", "a", "--api-key", "b", "--port", "9000", "--open"]
    )
    assert (args.catalog, args.api_keys, args.port, args.open) == ("c", ["a", "b"], 9000, True)
    # No --workers: one per core, at most two (the memory budget fits two).
    from serving.workers import default_workers

    assert args.workers is None and default_workers() == min(2, os.cpu_count() or 1)
