"""`usenet-indexer providers check`: connect to each provider of the settings file and
report its greeting, compression, retention per group, speed, and which providers share a
backbone (docs/PROVIDERS.md).

Also the one place the news server options become a set of providers: the settings file
(`--providers FILE` or `$USENET_INDEXER_PROVIDERS`), else the one-server flags.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def provider_set_of(args: argparse.Namespace, command: str) -> Any:
    """The `ProviderSet` the server options name: the settings file when one is given
    (`--providers`, or the environment's when no server flag is), else the flags' set of
    one or more. None, the problem printed, when they name none that can be used."""
    from cli.commands.capture import _flag_providers
    from pipelines.nntp.providers import PROVIDERS_ENV, ProvidersError, ProviderSet, load_providers

    path = getattr(args, "providers", None)
    flags = bool(getattr(args, "server", None) or getattr(args, "provider", None))
    if path and flags:
        print(f"{command}: give --providers or the server flags, not both", file=sys.stderr)
        return None
    if not path and not flags:
        path = os.environ.get(PROVIDERS_ENV) or None
    if path:
        try:
            return load_providers(path, os.environ)
        except ProvidersError as exc:
            print(f"{command}: {exc}", file=sys.stderr)
            return None
    providers = _flag_providers(args, command)
    if providers is None:
        return None
    try:
        return ProviderSet.of(providers)
    except ProvidersError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return None
