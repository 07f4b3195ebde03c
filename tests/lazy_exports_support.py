"""Check a lazily loading package `__init__`: each name in `_WHERE` is also imported for type checkers.

A package that loads names on first use (`__getattr__`) is opaque to mypy and editors unless an
`if TYPE_CHECKING:` block imports the same names from the same modules; this keeps the two in step.
"""

from __future__ import annotations

import ast
import importlib
import inspect


def type_checking_imports(package: str) -> dict[str, str]:
    """{name: module} of the imports under `if TYPE_CHECKING:` in `package/__init__.py`."""
    tree = ast.parse(inspect.getsource(importlib.import_module(package)))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module:
                    found.update({alias.name: stmt.module for alias in stmt.names})
    return found


def lazy_names(package: str) -> dict[str, str]:
    """{name: full module} of the package's `_WHERE` table (relative entries resolved)."""
    where: dict[str, str] = importlib.import_module(package)._WHERE
    return {name: f"{package}{mod}" if mod.startswith(".") else mod for name, mod in where.items()}
