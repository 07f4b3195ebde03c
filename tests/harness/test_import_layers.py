"""harness imports downward: no import cycle among its modules, whatever kind of import closes it.

Edges are read from the source (AST): module-level imports, imports inside functions (they only
put a cycle off until run time) and `if TYPE_CHECKING:` imports (a cycle for the type checker and
for a reader). Importing `a.b.c` runs the package `a.b` first, so that is an edge too; the root
package is left out (its names load lazily, on first use).
"""

from __future__ import annotations

import ast
from pathlib import Path

from ctxscope import harness

ROOT = Path(harness.__file__).parent


def _modules(root: Path, package: str) -> dict[str, Path]:
    found = {}
    for path in root.rglob("*.py"):
        parts = [*package.split("."), *path.relative_to(root).with_suffix("").parts]
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imported(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules `module` imports, with the packages each import runs first."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                base = ".".join([*here[: len(here) - node.level + 1], *([base] if base else [])])
            names += [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
    root = min(known, key=len)  # the package itself
    out: set[str] = set()
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        parts = name.split(".")
        out |= {".".join(parts[:n]) for n in range(2, len(parts) + 1)} if name else set()
    return {m for m in out if m in known and m != module and m != root and not module.startswith(m + ".")}


def import_cycles(root: Path, package: str | None = None) -> list[list[str]]:
    """Groups of modules under `root` (imported as `package`, by default its folder's name) that import
    each other (strongly connected, more than one)."""
    known = _modules(root, package or root.name)
    graph = {m: sorted(_imported(m, p, known)) for m, p in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_harness_modules_import_each_other_in_one_direction_only() -> None:
    assert import_cycles(ROOT, "ctxscope.harness") == []


def test_a_cycle_closed_by_a_type_checking_or_a_deferred_import_is_found(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub.low import X\n")
    (pkg / "sub" / "low.py").write_text(
        "from typing import TYPE_CHECKING\nX = 1\nif TYPE_CHECKING:\n    from pkg.top import Top\n"
    )
    (pkg / "top.py").write_text("from pkg.sub import X\nclass Top: ...\n")
    (pkg / "a.py").write_text("def f():\n    from . import b\n")
    (pkg / "b.py").write_text("from pkg import a\n")
    assert import_cycles(pkg) == [["pkg.a", "pkg.b"], ["pkg.sub", "pkg.sub.low", "pkg.top"]]
