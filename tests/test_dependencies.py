"""The product installs what the product imports: every third-party module a shipped
package imports is provided by a distribution in `[project] dependencies`, not only by the
dev extra (a fresh `scripts/run.sh` installs no extras)."""

from __future__ import annotations

import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from tests.imports import absolute_imports

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ("pipelines", "kernels", "assets", "serving", "cli", "bench")


def _imported_modules() -> dict[str, str]:
    """Top-level module -> one file that imports it, over the shipped packages."""
    found: dict[str, str] = {}
    for package in SHIPPED:
        for path in sorted((ROOT / package).rglob("*.py")):
            for name in absolute_imports(path):
                found.setdefault(name.split(".")[0], str(path.relative_to(ROOT)))
    return found


def _requirement_names(requirements: list[str]) -> set[str]:
    return {_normal(re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0]) for r in requirements}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_runtime_import_is_a_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = _requirement_names(project["dependencies"])
    providers = packages_distributions()
    ours = set(SHIPPED)
    missing = []
    for module, where in sorted(_imported_modules().items()):
        if module in ours or module in sys.stdlib_module_names:
            continue
        dists = {_normal(d) for d in providers.get(module, [])}
        assert dists, f"{module} (imported by {where}) is not installed at all"
        if not dists & runtime:
            missing.append(f"{module} (imported by {where}; from {', '.join(sorted(dists))})")
    assert not missing, "imported at run time but not in [project] dependencies: " + "; ".join(
        missing
    )
