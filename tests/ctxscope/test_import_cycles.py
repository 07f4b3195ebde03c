"""The `ctxscope` workflow modules (`ctxscope/*.py`, `ctxscope/bisect/`) import one another without a
cycle, counting the imports deferred into functions too: a cycle hidden in a function body still ties
two modules into one (the demo and the tour shared the workspace that way)."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "ctxscope"


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        found |= {name for name in names if name in modules}
    return found


def test_the_workflow_modules_import_without_a_cycle() -> None:
    files = [*ROOT.glob("*.py"), *(ROOT / "bisect").glob("*.py")]
    modules = {_module(path) for path in files}
    graph = {_module(path): _imports(path, modules) - {_module(path), "ctxscope"} for path in files}
    assert "ctxscope.demo_workspace" in graph["ctxscope.tour"] and "ctxscope.demo" not in graph["ctxscope.tour"]
    try:
        list(TopologicalSorter(graph).static_order())
    except CycleError as err:
        raise AssertionError(f"an import cycle: {' -> '.join(err.args[1])}") from None
