"""The modules a Python file imports by absolute name, read from its source (not run)."""

from __future__ import annotations

import ast
from pathlib import Path


def absolute_imports(path: Path) -> list[str]:
    """Every `import x.y` and `from x.y import z` of the file (relative imports left out)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names
