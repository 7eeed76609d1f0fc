"""All serving configuration in one place, validated at start.

Read from, lowest to highest priority: defaults, a TOML config file (`config_file`,
or the `USENET_INDEXER_CONFIG` environment variable), `USENET_INDEXER_*` environment
variables, then whatever the caller passes (the CLI's flags).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="USENET_INDEXER_", extra="forbid")

    catalog: str = Field(description="catalog root: a folder or an fsspec URL")
    # NoDecode: the environment gives "k1,k2" or "k1 k2", not JSON; the validator splits.
    api_keys: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="accepted API keys"
    )
    open_api: bool = Field(False, description="serve the API without a key (only if set)")
    public_pages: bool = Field(
        False,
        description="let visitors browse the web pages without signing in; "
        "downloads and feeds still need a key",
    )
    site_title: str = "usenet-indexer"
    site_url: str | None = Field(None, description="public base URL for links in feeds")
    default_limit: int = Field(100, ge=1)
    max_limit: int = Field(100, ge=1)
    retention_days: int = Field(4000, ge=1)
    daily_requests: int = Field(10_000, ge=0, description="per key; 0 means no limit")
    daily_downloads: int = Field(2_000, ge=0, description="per key; 0 means no limit")
    # Without a key (an open API), each client address is counted on its own: one shared
    # count would let one busy client lock every other out for the rest of the day.
    anonymous_requests: int = Field(
        0, ge=0, description="per client address a day without a key; 0 means no limit"
    )
    anonymous_downloads: int = Field(
        0, ge=0, description="per client address a day without a key; 0 means no limit"
    )
    admin_keys: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="keys of the admin pages and status.json"
    )
    wrong_keys_burst: int = Field(
        10, ge=1, description="wrong keys a client address may send before it is slowed"
    )
    wrong_keys_per_minute: float = Field(
        6.0, gt=0, description="wrong keys a slowed client address may send a minute"
    )
    corpus: str | None = Field(
        None,
        description="the corpus the catalog is indexed from: the admin page's Try runs "
        "`rules try` over its last stored ranges",
    )
    rules_file: str | None = Field(
        None, description="the header pass's rule set (JSON) the catalog was indexed under"
    )
    try_ranges: int = Field(3, ge=1, le=100, description="ranges a group the admin Try redoes")
    admin_log: str | None = Field(
        None, description="file the admin actions are appended to (default: in index_dir)"
    )
    # A look is a `scandir` per group folder (and, in a `--workers` worker, one `stat` of
    # the builder's index.json): every 2 s costs ~0.1 % of a core, and a landed range is
    # searchable within seconds.
    refresh_seconds: float = Field(2.0, gt=0, description="how often new partitions are looked for")
    index_dir: str | None = Field(None, description="where index segments go (a temp dir if unset)")
    build_in_process: bool = Field(False, description="build index segments in the server process")
    follow_index: bool = Field(
        False, description="load segments another process builds (a `serve --workers` worker)"
    )
    search_cache: int = Field(
        512, ge=0, description="recent search results kept per index snapshot; 0 = none"
    )
    page_size: int = Field(50, ge=1, le=500)
    max_query_chars: int = Field(512, ge=16)

    @field_validator("api_keys", "admin_keys", mode="before")
    @classmethod
    def _split_keys(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [k for k in value.replace(",", " ").split() if k]
        return value

    @model_validator(mode="after")
    def _admin_keys_apart(self) -> Settings:
        # the pages' links carry an API key in their URL: an admin key must never be one
        if set(self.admin_keys) & set(self.api_keys):
            raise ValueError("an admin key must not also be an API key")
        return self


def load_settings(config_file: str | None = None, **overrides: Any) -> Settings:
    """Settings from the config file (if any), the environment and explicit overrides."""
    path = config_file or os.environ.get("USENET_INDEXER_CONFIG")
    values: dict[str, Any] = {}
    if path:
        with Path(path).open("rb") as fh:
            values.update(tomllib.load(fh))
    env = Settings.model_config.get("env_prefix", "")
    for name in Settings.model_fields:
        # The environment beats the file; explicit overrides beat both.
        if f"{env}{name}".upper() in os.environ:
            values.pop(name, None)
    values.update({k: v for k, v in overrides.items() if v is not None})
    settings = Settings(**values)
    if settings.default_limit > settings.max_limit:
        raise ValueError("default_limit must not exceed max_limit")
    return settings
