"""A news provider's account: where it is, how to log in, how many connections it allows."""

from __future__ import annotations

from dataclasses import dataclass

TLS_MODES = ("none", "implicit", "starttls")


@dataclass(frozen=True)
class Provider:
    host: str
    port: int = 119
    tls: str = "none"  # 'implicit' (port 563) or 'starttls'
    user: str | None = None
    password: str | None = None
    connections: int = 4  # the account's limit
    timeout: float = 60.0  # seconds without a byte before a command fails
    connect_timeout: float = 15.0
    idle_close: float = 60.0  # close connections unused this long (providers drop them)
    compression: str = "auto"  # 'auto', 'plain', 'xfeature', 'xzver' or 'deflate'
    cut_grace: float = 1.0  # quiet seconds after a '.\r\n' that mean a cut compressed reply
    tls_verify: bool = True
    name: str = ""

    def __post_init__(self) -> None:
        if self.tls not in TLS_MODES:
            raise ValueError(f"tls must be one of {TLS_MODES}, not {self.tls!r}")
        if self.connections < 1:
            raise ValueError("a provider needs at least one connection")
        if self.compression not in ("auto", "plain", "xfeature", "xzver", "deflate"):
            raise ValueError(f"unknown compression {self.compression!r}")

    @property
    def label(self) -> str:
        return self.name or f"{self.host}:{self.port}"


def parse_server(spec: str, tls: bool = False) -> tuple[str, int]:
    """`HOST[:PORT]` (or `[v6]:PORT`) with the default port of the TLS mode."""
    default = 563 if tls else 119
    if spec.startswith("["):
        host, _, rest = spec[1:].partition("]")
        port = rest.lstrip(":")
        return host, int(port) if port else default
    if spec.count(":") == 1:
        host, port = spec.split(":")
        if not port.isdigit():
            raise ValueError(f"bad port in {spec!r}")
        return host, int(port)
    return spec, default
