"""A private INN 2 server on loopback for the integration tests (scripts/inn/)."""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

_HELPER = Path(__file__).resolve().parents[2] / "scripts" / "inn" / "private_instance.py"
INN_GROUPS = ["alt.binaries.inn.one", "alt.binaries.inn.two"]


def _helper() -> ModuleType:
    spec = importlib.util.spec_from_file_location("inn_private_instance", _HELPER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def inn() -> Iterator[object]:
    helper = _helper()
    reason = helper.available()
    if reason:
        pytest.skip(reason)
    # not under pytest's tmp_path: the news user must be able to reach the folder
    folder = tempfile.mkdtemp(prefix="inn-test-", dir="/tmp")
    server = helper.PrivateINN(folder, helper.free_port())
    try:
        server.configure()
        server.start()
        for group in INN_GROUPS:
            server.newgroup(group)
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
