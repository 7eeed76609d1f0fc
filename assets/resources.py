"""Resources: where the corpus and the catalog live, which rule set indexes, which news
server capture reads and what it captures.

Locations are fsspec URLs (a local folder, `s3://...`, `memory://...`); definitions.py
fills them from environment variables with `EnvVar`, so nothing is read at import time.
The news server's fields come from config or, when a run starts, from the environment
(`USENET_INDEXER_NNTP_*`); its password only ever from an environment variable, whose
name is the config. With a providers settings file (`providers_file`, or
`USENET_INDEXER_PROVIDERS`; docs/PROVIDERS.md) the providers are the file's instead. No
indexing or capture logic here.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable

import dagster as dg
from pydantic import Field

from pipelines.capture.planner import PlanSettings
from pipelines.capture.prefetch import CaptureSettings
from pipelines.capture.schedule import Limits, parse_size
from pipelines.corpus.reader import CorpusReader
from pipelines.index.backbones import CorpusBackbones
from pipelines.index.rules import Rules
from pipelines.nntp.provider import Provider
from pipelines.nntp.providers import PROVIDERS_ENV, ProviderSet, load_providers
from pipelines.providers.failover import BodyPools
from pipelines.providers.resting import Resting
from pipelines.providers.status import rest_recorder

RULES_ENV = "USENET_INDEXER_RULES"
HOST_ENV = "USENET_INDEXER_NNTP_HOST"
PORT_ENV = "USENET_INDEXER_NNTP_PORT"
TLS_ENV = "USENET_INDEXER_NNTP_TLS"  # none, implicit (TLS from the start) or starttls
USER_ENV = "USENET_INDEXER_NNTP_USER"
PASSWORD_ENV = "USENET_INDEXER_NNTP_PASSWORD"
CONNECTIONS_ENV = "USENET_INDEXER_NNTP_CONNECTIONS"
GROUPS_ENV = "USENET_INDEXER_GROUPS"  # comma- or space-separated


class CorpusResource(dg.ConfigurableResource):
    """The stored overview corpus (docs/CORPUS.md), of one backbone or several
    (docs/BACKBONES.md): each group is read from its primary backbone, which the catalog
    pins once a second backbone holds the group."""

    url: str
    catalog: str = ""  # the catalog's URL: where a group's primary backbone is pinned

    def reader(self) -> CorpusReader:
        return CorpusReader(self.url)

    def backbones(self) -> CorpusBackbones:
        return CorpusBackbones(self.url)

    def group_reader(self, backbones: CorpusBackbones, group: str) -> CorpusReader:
        """The reader of the group's primary backbone (the corpus's, with one backbone)."""
        if len(backbones.holders(group)) > 1 and not self.catalog:
            raise ValueError(
                f"{group} is on several backbones: the corpus resource needs the catalog "
                "(its `catalog`) to know the group's primary"
            )
        return backbones.reader(self.catalog, group)


class CatalogResource(dg.ConfigurableResource):
    """The Parquet catalog the header pass writes and the server reads (docs/CATALOG.md)."""

    url: str


class RulesResource(dg.ConfigurableResource):
    """The rule set: a JSON file, or the built-in rules when no path is given.

    The path may come from config or, at run time, from USENET_INDEXER_RULES.
    """

    path: str = ""

    def load(self) -> Rules:
        path = self.path or os.environ.get(RULES_ENV, "")
        return Rules.load(path or None)


class NNTPResource(dg.ConfigurableResource):
    """The news server capture reads (one account). An empty field is read from the
    environment when a run starts; the password is never config: `password_env` names
    the environment variable that holds it."""

    host: str = ""  # or USENET_INDEXER_NNTP_HOST
    port: int = 0  # or USENET_INDEXER_NNTP_PORT; default 119, 563 with implicit TLS
    tls: str = ""  # none, implicit or starttls; or USENET_INDEXER_NNTP_TLS (default none)
    insecure: bool = False  # do not verify the TLS certificate
    user: str = ""  # or USENET_INDEXER_NNTP_USER
    password_env: str = PASSWORD_ENV
    connections: int = 0  # the account's limit; or USENET_INDEXER_NNTP_CONNECTIONS (4)
    compression: str = "auto"
    timeout: float = 60.0
    providers_file: str = ""  # or USENET_INDEXER_PROVIDERS: the settings file, used instead

    def settings_file(self) -> str:
        return self.providers_file or os.environ.get(PROVIDERS_ENV, "")

    def provider_set(self, connections: int | None = None) -> ProviderSet:
        """The settings file's providers, or the one account (with `connections` of its
        connections) as a set of one."""
        path = self.settings_file()
        if path:
            return load_providers(path, os.environ)
        return ProviderSet.of([self.provider(connections or self.account_connections())])

    def body_pools(
        self, connections: int, catalog: str, adapt: Callable[[Provider], Provider] | None = None
    ) -> BodyPools:
        """Pools of the providers bodies and STATs are asked of (the one account with
        `connections` of its connections, or the settings file's body providers, each with
        its own limit), their rests stored in `catalog` for the status page."""
        bodies = self.provider_set(connections).for_bodies()
        if not bodies:
            raise ValueError(f"{self.settings_file()}: no provider for bodies")
        resting = Resting(record=rest_recorder(catalog))
        return BodyPools([adapt(p) if adapt else p for p in bodies], resting)

    def server(self) -> str:
        return self.host or os.environ.get(HOST_ENV, "")

    def configured(self) -> bool:
        """Whether a news server is named: the one account's host, or a settings file."""
        return bool(self.server() or self.settings_file())

    def _first_for_headers(self) -> Provider | None:
        """With a settings file and no host: its first provider for headers."""
        if self.server() or not self.settings_file():
            return None
        headers = load_providers(self.settings_file(), os.environ).for_headers()
        if not headers:
            raise ValueError(f"{self.settings_file()}: no provider for headers")
        return headers[0]

    def account_connections(self) -> int:
        first = self._first_for_headers()
        if first is not None:
            return first.connections
        return self.connections or int(os.environ.get(CONNECTIONS_ENV) or 4)

    def provider(self, connections: int) -> Provider:
        """The account with `connections` of its connections (a run's share of them);
        with a settings file and no host, its first provider for headers."""
        first = self._first_for_headers()
        if first is not None:
            return dataclasses.replace(first, connections=min(connections, first.connections))
        host = self.server()
        if not host:
            raise ValueError(f"no news server: set {HOST_ENV} or the nntp resource's host")
        tls = self.tls or os.environ.get(TLS_ENV, "") or "none"
        port = self.port or int(os.environ.get(PORT_ENV) or (563 if tls == "implicit" else 119))
        user = self.user or os.environ.get(USER_ENV) or None
        password = os.environ.get(self.password_env) if self.password_env else None
        if user and password is None:
            raise ValueError(f"user {user} has no password: ${self.password_env} is not set")
        return Provider(
            host,
            port,
            tls=tls,
            user=user,
            password=password,
            connections=connections,
            timeout=self.timeout,
            compression=self.compression,
            tls_verify=not self.insecure,
        )


class CaptureResource(dg.ConfigurableResource):
    """What capture fetches: the groups, the corpus's range and chunk sizes, the prefetch
    limits of history (per group `ahead` ranges captured and not yet indexed, `disk_cap`
    bytes of them in all) and the tail's share of the account's connections."""

    groups: list[str] = Field(default_factory=list)  # or USENET_INDEXER_GROUPS
    range_size: int = 2_000_000
    chunk_size: int = 100_000
    headroom: int = 1_000  # articles below the server's high mark left for the next poll
    ahead: int = 2
    disk_cap: str = "10G"
    ranges_open: int = 2  # history ranges fetched at once
    tail_connections: int = 2  # the tail's connections; history has the rest

    def group_list(self) -> list[str]:
        if self.groups:
            return list(self.groups)
        return [g for g in os.environ.get(GROUPS_ENV, "").replace(",", " ").split() if g]

    def plan(self) -> PlanSettings:
        return PlanSettings(self.range_size, self.chunk_size, headroom=self.headroom)

    def settings(self, part: str, groups: int) -> CaptureSettings:
        """History is held to the prefetch limits; the tail never is (it follows the
        server's high mark), and opens every group's newest ranges at once."""
        if part == "tail":
            limits = Limits(ranges_open=max(2, 2 * groups))
        else:
            limits = Limits(self.ranges_open, self.ahead, parse_size(self.disk_cap))
        return CaptureSettings(plan=self.plan(), limits=limits, part=part)

    def connections(self, part: str, account: int) -> int:
        """The part's share of the account's connections: the tail's, and the rest (an
        account of one connection has history and tail take turns at it: a provider
        refuses the second, which the pool retries)."""
        tail = max(1, min(self.tail_connections, account))
        return tail if part == "tail" else max(1, account - tail)
