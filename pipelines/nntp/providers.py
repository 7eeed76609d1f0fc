"""The providers settings file: every news account the indexer uses, in one TOML file.

```toml
[[provider]]
name = "main"               # unique; how logs, the status page and health rows name it
host = "news.example.com"
port = 563                  # default 119, or 563 with tls = "implicit"
tls = "implicit"            # "none" (default), "implicit" or "starttls"; true = "implicit"
user = "me"
password_env = "MAIN_PASS"  # or password_file = "/run/secrets/main"; never the password
connections = 20            # the account's limit, never exceeded
priority = 0                # lower first (default: the order in the file)
role = "both"               # "headers", "bodies" or "both"
backbone = "omicron"        # optional: accounts on one backbone share articles and numbers
```

Optional too: `insecure = true` (no certificate check), `compression` ("auto", "plain",
"xfeature", "xzver", "deflate"), `timeout`, `connect_timeout`, `idle_close` (seconds).

`capture`, `live`, `probe`, `health`, `spots` and the Dagster resources read the same file
(`--providers FILE`, or `$USENET_INDEXER_PROVIDERS`); the one-server flags still build a
set of one. The password is read when the file is loaded, from the environment or a
secrets file, so it is never on a command line nor in a stored file. Bad input is a
`ProvidersError` naming the file, the line and the field.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipelines.nntp.provider import ROLES, TLS_MODES, Provider

PROVIDERS_ENV = "USENET_INDEXER_PROVIDERS"  # the settings file, when no flag names one

_FIELDS: dict[str, type | tuple[type, ...]] = {
    "name": str, "host": str, "port": int, "tls": (str, bool), "user": str,
    "password_env": str, "password_file": str, "connections": int, "priority": int,
    "role": str, "backbone": str, "insecure": bool, "compression": str,
    "timeout": (int, float), "connect_timeout": (int, float), "idle_close": (int, float),
}  # fmt: skip
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")  # it names files and URLs' query values


class ProvidersError(ValueError):
    """A settings file that cannot be used: the message names the file, line and field."""


@dataclass(frozen=True)
class ProviderSet:
    """The providers, in priority order (the file's order among equal priorities)."""

    providers: tuple[Provider, ...]
    source: str = ""  # the settings file, or '' for the command line's flags

    def __post_init__(self) -> None:
        names = [p.label for p in self.providers]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ProvidersError(f"providers named twice: {', '.join(repeated)}")

    @classmethod
    def of(cls, providers: Sequence[Provider], source: str = "") -> ProviderSet:
        """A set of providers built elsewhere (the flags): sorted by priority, stable."""
        return cls(tuple(sorted(providers, key=lambda p: p.priority)), source)

    def __iter__(self) -> Iterator[Provider]:
        return iter(self.providers)

    def __len__(self) -> int:
        return len(self.providers)

    def for_headers(self) -> list[Provider]:
        """The providers whose overview capture reads, in priority order."""
        return [p for p in self.providers if p.serves_headers]

    def for_bodies(self) -> list[Provider]:
        """The providers articles and STATs are asked of, in priority order."""
        return [p for p in self.providers if p.serves_bodies]

    def named(self, name: str) -> Provider:
        for p in self.providers:
            if p.label == name:
                return p
        raise KeyError(name)

    def backbones(self) -> dict[str, list[Provider]]:
        """The providers by backbone (as configured: a provider with none is its own)."""
        out: dict[str, list[Provider]] = {}
        for p in self.providers:
            out.setdefault(backbone_of(p), []).append(p)
        return out


def backbone_of(provider: Provider) -> str:
    """The backbone a provider is on: its configured one, else its own name."""
    return provider.backbone or provider.label


def load_providers(path: str | Path, env: Mapping[str, str]) -> ProviderSet:
    """The providers of the settings file at `path`; `env` holds the passwords' variables."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProvidersError(f"{path}: cannot read: {exc}") from exc
    return parse_providers(text, env, str(path), base=path.parent)


def parse_providers(
    text: str, env: Mapping[str, str], source: str = "<providers>", base: Path | None = None
) -> ProviderSet:
    """The providers of a settings file's text (`source` names it in errors; a relative
    `password_file` is found from `base`)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProvidersError(f"{source}: not TOML: {exc}") from exc
    unknown = sorted(set(doc) - {"provider"})
    if unknown:
        raise ProvidersError(
            f"{source}:{_line_of(text, unknown[0])}: unknown setting {unknown[0]!r} "
            "(the file holds [[provider]] tables)"
        )
    tables = doc.get("provider")
    if not isinstance(tables, list) or not tables:
        raise ProvidersError(f"{source}: no [[provider]] table")
    starts = _table_lines(text)
    providers = [
        _provider(t, i, env, _Where(source, text, starts, i), base) for i, t in enumerate(tables)
    ]
    try:
        return ProviderSet.of(providers, source)
    except ProvidersError as exc:
        raise ProvidersError(f"{source}: {exc}") from exc


class _Where:
    """Where a provider's field is in the file, for an error message."""

    def __init__(self, source: str, text: str, starts: list[int], index: int) -> None:
        self.source, self.text, self.index = source, text, index
        self.start = starts[index] if index < len(starts) else 0
        self.end = starts[index + 1] if index + 1 < len(starts) else 1 << 30

    def error(self, name: str, field: str | None, message: str) -> ProvidersError:
        line = self.start
        if field is not None:
            line = _line_of(self.text, field, self.start, self.end) or self.start
        who = f"provider {name!r}" if name else f"provider #{self.index + 1}"
        what = f" {field}:" if field else ""
        return ProvidersError(f"{self.source}:{line}: {who}:{what} {message}")


def _provider(
    table: Any, index: int, env: Mapping[str, str], where: _Where, base: Path | None
) -> Provider:
    if not isinstance(table, dict):
        raise where.error("", None, "not a table")
    name: str = table["name"] if isinstance(table.get("name"), str) else ""
    if "password" in table:
        raise where.error(name, "password", "a password is never stored in the file: "
                          "use password_env (a variable's name) or password_file")  # fmt: skip
    for key, value in table.items():
        kind = _FIELDS.get(key)
        if kind is None:
            raise where.error(name, key, f"unknown field (known: {', '.join(sorted(_FIELDS))})")
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise where.error(name, key, f"{value!r} is not {_kind_name(kind)}")
    if not table.get("host"):
        raise where.error(name, "host" if "host" in table else None, "host is required")
    if name and not _NAME.match(name):
        raise where.error(name, "name", "letters, digits, '.', '_' and '-' only")
    tls = table.get("tls", "none")
    tls = {True: "implicit", False: "none"}.get(tls, tls) if isinstance(tls, bool) else tls
    if tls not in TLS_MODES:
        raise where.error(name, "tls", f"{tls!r} is not one of {', '.join(TLS_MODES)}")
    role = table.get("role", "both")
    if role not in ROLES:
        raise where.error(name, "role", f"{role!r} is not one of {', '.join(ROLES)}")
    settings: dict[str, Any] = {
        "port": table.get("port", 563 if tls == "implicit" else 119),
        "tls": tls,
        "user": table.get("user"),
        "password": _password(table, name, env, where, base),
        "connections": table.get("connections", 4),
        "priority": table.get("priority", index),
        "role": role,
        "backbone": table.get("backbone", ""),
        "tls_verify": not table.get("insecure", False),
        "name": name,
    }
    for key in ("compression", "timeout", "connect_timeout", "idle_close"):
        if key in table:
            settings[key] = table[key]
    if not 0 < settings["port"] < 65536:
        raise where.error(name, "port", f"{settings['port']} is not a port")
    for key in ("timeout", "connect_timeout", "idle_close"):
        if key in settings and settings[key] <= 0:
            raise where.error(name, key, "must be positive")
    try:
        return Provider(table["host"], **settings)
    except ValueError as exc:
        field = next((k for k in ("connection", "compression") if k in str(exc)), None)
        field = "connections" if field == "connection" else field
        raise where.error(name, field, str(exc)) from exc


def _password(
    table: dict[str, Any], name: str, env: Mapping[str, str], where: _Where, base: Path | None
) -> str | None:
    if "password_env" in table and "password_file" in table:
        raise where.error(name, "password_file", "give password_env or password_file, not both")
    if "password_env" in table:
        var = table["password_env"]
        if var not in env:
            raise where.error(name, "password_env", f"${var} is not set")
        return env[var]
    if "password_file" in table:
        file = Path(table["password_file"]).expanduser()
        if not file.is_absolute() and base is not None:
            file = base / file
        try:
            return file.read_text(encoding="utf-8").rstrip("\r\n")
        except (OSError, UnicodeDecodeError) as exc:
            raise where.error(name, "password_file", f"cannot read {file}: {exc}") from exc
    if table.get("user"):
        raise where.error(name, "user", "a user needs password_env or password_file")
    return None


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    words = {str: "text", int: "a whole number", float: "a number", bool: "true or false"}
    return " or ".join(words[k] for k in kinds)


def _table_lines(text: str) -> list[int]:
    """The line (from 1) of each `[[provider]]` header."""
    return [
        n for n, line in enumerate(text.splitlines(), 1)
        if re.match(r"^\s*\[\[\s*provider\s*\]\]", line)
    ]  # fmt: skip


def _line_of(text: str, key: str, start: int = 0, end: int = 1 << 30) -> int:
    """The line (from 1) where `key = ...` is first set between lines start and end."""
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
    for n, line in enumerate(text.splitlines(), 1):
        if start <= n < end and pattern.match(line):
            return n
    return 0
