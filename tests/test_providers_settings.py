"""The providers settings file: what it builds, and the errors that name line and field."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from pipelines.nntp.providers import ProvidersError, load_providers, parse_providers

GOOD = """\
# two accounts on one backbone, a block account on another
[[provider]]
name = "block"
host = "block.example"
tls = true
user = "u1"
password_env = "BLOCK_PASS"
connections = 8
priority = 5
role = "bodies"
backbone = "alpha"

[[provider]]
name = "main"
host = "main.example"
port = 1119
user = "u2"
password_file = "secret.txt"
connections = 30
priority = 1
backbone = "omega"

[[provider]]
name = "headers-only"
host = "h.example"
role = "headers"
tls = "starttls"
insecure = true
compression = "plain"
"""


def test_a_file_gives_the_providers_in_priority_order_by_role(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("s3cret\n")
    path = tmp_path / "providers.toml"
    path.write_text(GOOD)
    ps = load_providers(path, {"BLOCK_PASS": "pw"})
    assert [p.name for p in ps] == ["main", "headers-only", "block"]  # priorities 1, 2, 5
    assert [p.name for p in ps.for_bodies()] == ["main", "block"]
    assert [p.name for p in ps.for_headers()] == ["main", "headers-only"]
    block = ps.named("block")
    assert (block.port, block.tls, block.password, block.connections) == (563, "implicit", "pw", 8)
    main = ps.named("main")
    assert (main.port, main.tls, main.password, main.backbone) == (1119, "none", "s3cret", "omega")
    h = ps.named("headers-only")
    assert (h.tls, h.tls_verify, h.compression, h.user) == ("starttls", False, "plain", None)
    assert set(ps.backbones()) == {"alpha", "omega", "headers-only"}


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ('[[provider]]\nname = "a"\nhost = "x"\nconnections = "four"\n', {},
         r":4: provider 'a': connections: 'four' is not a whole number"),
        ('[[provider]]\nhost = "x"\n\n[[provider]]\nname = "b"\nhost = "y"\nrole = "all"\n', {},
         r":7: provider 'b': role: 'all' is not one of headers, bodies, both"),
        ('[[provider]]\nname = "a"\nhost = "x"\nuser = "u"\npassword = "p"\n', {},
         r":5: provider 'a': password: a password is never stored"),
        ('[[provider]]\nname = "a"\nhost = "x"\nuser = "u"\npassword_env = "NOPE"\n', {},
         r":5: provider 'a': password_env: \$NOPE is not set"),
        ('[[provider]]\nname = "a"\nhost = "x"\nuser = "u"\n', {},
         r":4: provider 'a': user: a user needs password_env or password_file"),
        ('[[provider]]\nname = "a"\nport = 119\n', {}, r":1: provider 'a': host is required"),
        ('[[provider]]\nname = "a"\nhost = "x"\nconnections = 0\n', {},
         r":4: provider 'a': connections: a provider needs at least one connection"),
        ('[[provider]]\nname = "a"\nhost = "x"\nprot = 1\n', {},
         r":4: provider 'a': prot: unknown"),
        ('[[provider]]\nname = "a"\nhost = "x"\n[[provider]]\nname = "a"\nhost = "y"\n', {},
         r"providers named twice: a"),
        ('[[provider]\nhost = "x"\n', {}, r"not TOML: .*line 1"),
        ('host = "x"\n', {}, r":1: unknown setting 'host'"),
        ("", {}, r"no \[\[provider\]\] table"),
    ],
)  # fmt: skip
def test_bad_input_is_an_error_naming_line_and_field(
    text: str, env: dict[str, str], expected: str
) -> None:
    with pytest.raises(ProvidersError, match=expected):
        parse_providers(text, env, "p.toml")


def test_a_missing_file_and_secrets_file_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ProvidersError, match="cannot read"):
        load_providers(tmp_path / "none.toml", {})
    path = tmp_path / "p.toml"
    path.write_text('[[provider]]\nname = "a"\nhost = "x"\nuser = "u"\npassword_file = "gone"\n')
    with pytest.raises(ProvidersError, match=r"p.toml:5: provider 'a': password_file: cannot"):
        load_providers(path, {})


def _good_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """GOOD as a file, its secrets file beside it and its variable set."""
    (tmp_path / "secret.txt").write_text("s")
    path = tmp_path / "providers.toml"
    path.write_text(GOOD)
    monkeypatch.setenv("BLOCK_PASS", "pw")
    return path


def _args(argv: list[str]) -> argparse.Namespace:
    from cli.commands.capture import add_server_arguments

    p = argparse.ArgumentParser()
    add_server_arguments(p)
    p.add_argument("--connections", type=int, default=4)
    return p.parse_args(argv)


def test_the_commands_take_the_file_or_the_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.commands.capture import providers_of
    from cli.commands.providers import provider_set_of

    path = _good_file(tmp_path, monkeypatch)
    headers = providers_of(_args(["--providers", str(path)]), "capture")
    assert headers is not None and [p.name for p in headers] == ["main", "headers-only"]
    # today's flags: one server is a set of one
    one = provider_set_of(_args(["--server", "news.example:1119"]), "probe")
    assert [(p.host, p.port, p.role) for p in one] == [("news.example", 1119, "both")]
    # the environment's file when no flag names a server
    monkeypatch.setenv("USENET_INDEXER_PROVIDERS", str(path))
    assert len(provider_set_of(_args([]), "health")) == 3
    assert provider_set_of(_args(["--providers", str(path), "--server", "x"]), "probe") is None
    assert "not both" in capsys.readouterr().err
    monkeypatch.delenv("BLOCK_PASS")
    assert provider_set_of(_args([]), "health") is None
    assert "BLOCK_PASS is not set" in capsys.readouterr().err


def test_the_dagster_resource_reads_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assets.resources import NNTPResource

    path = _good_file(tmp_path, monkeypatch)
    monkeypatch.delenv("USENET_INDEXER_NNTP_HOST", raising=False)
    assert not NNTPResource().configured()
    nntp = NNTPResource(providers_file=str(path))
    assert nntp.configured() and nntp.account_connections() == 30
    # capture and spots: the first provider for headers, with a share of its connections
    first = nntp.provider(4)
    assert (first.name, first.connections, first.password) == ("main", 4, "s")
    pools = nntp.body_pools(4, str(tmp_path / "cat"))
    try:  # bodies and health: every body provider with its own limit, in priority order
        assert [(p.provider.name, p.size) for p in pools.pools] == [("main", 30), ("block", 8)]
    finally:
        pools.close()
    # without the file: the one account, as before
    one = NNTPResource(host="news.example", connections=6).body_pools(2, str(tmp_path / "c"))
    try:
        assert [(p.provider.host, p.size) for p in one.pools] == [("news.example", 2)]
    finally:
        one.close()


def test_live_shares_capture_pools_with_the_body_providers_of_the_same_account(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cli.commands.providers import live_bodies
    from pipelines.nntp.pool import ConnectionPool

    path = _good_file(tmp_path, monkeypatch)
    args = _args(["--providers", str(path)])
    args.catalog = str(tmp_path / "cat")
    ps = load_providers(path, {"BLOCK_PASS": "pw"})
    capture = [ConnectionPool(p) for p in ps.for_headers()]  # main, headers-only
    bodies = live_bodies(args, capture)
    # main's pool is capture's (one pool per account); block, bodies only, has its own
    assert [p.provider.name for p in bodies.pools] == ["main", "block"]
    assert bodies.pools[0] is capture[0] and bodies.pools[1] not in capture
    bodies.close()  # closes block's pool only
    assert not capture[0]._closed and bodies.pools[1]._closed
