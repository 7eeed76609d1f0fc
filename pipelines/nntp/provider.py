"""A news provider's account: where it is, how to log in, how many connections it allows."""

from __future__ import annotations

from dataclasses import dataclass

TLS_MODES = ("none", "implicit", "starttls")
ROLES = ("headers", "bodies", "both")  # what a provider is asked for


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
    priority: int = 0  # lower first: bodies and STATs are asked of providers in this order
    role: str = "both"  # 'headers' (overview), 'bodies' (articles, STAT) or 'both'
    backbone: str = ""  # the backbone it resells ('' unknown: counted as its own)

    def __post_init__(self) -> None:
        if self.tls not in TLS_MODES:
            raise ValueError(f"tls must be one of {TLS_MODES}, not {self.tls!r}")
        if self.connections < 1:
            raise ValueError("a provider needs at least one connection")
        if self.compression not in ("auto", "plain", "xfeature", "xzver", "deflate"):
            raise ValueError(f"unknown compression {self.compression!r}")
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}, not {self.role!r}")

    @property
    def label(self) -> str:
        return self.name or f"{self.host}:{self.port}"

    @property
    def serves_headers(self) -> bool:
        return self.role in ("headers", "both")

    @property
    def serves_bodies(self) -> bool:
        return self.role in ("bodies", "both")


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


def parse_provider(spec: str, env: dict[str, str], **defaults: object) -> Provider:
    """`HOST[:PORT][,tls|starttls][,insecure][,user=U][,password-env=VAR][,connections=N]`.

    The capture command's `--provider`: one account each, with its own credentials and
    connection limit. Passwords come from the environment, never from the command line.
    """
    host_part, *options = [x.strip() for x in spec.split(",")]
    settings: dict[str, object] = dict(defaults)
    for option in options:
        key, _, value = option.partition("=")
        if key in ("tls", "starttls"):
            settings["tls"] = "implicit" if key == "tls" else "starttls"
        elif key == "insecure":
            settings["tls_verify"] = False
        elif key == "user":
            settings["user"] = value
        elif key == "password-env":
            if value not in env:
                raise ValueError(f"provider {host_part}: ${value} is not set")
            settings["password"] = env[value]
        elif key == "connections":
            settings["connections"] = int(value)
        elif key == "name":
            settings["name"] = value
        else:
            raise ValueError(f"provider {host_part}: unknown option {key!r}")
    host, port = parse_server(host_part, tls=settings.get("tls") == "implicit")
    return Provider(host, port, **settings)  # type: ignore[arg-type]
