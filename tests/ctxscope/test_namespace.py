"""One import namespace: the three parts import as `ctxscope.proxy`, `ctxscope.harness`, `ctxscope.inspector`.

The top-level names `proxy`, `harness` and `inspector` are what other distributions take (`proxy.py` owns
`proxy`), so nothing of ours may use them: not an import, not a module string, not a `sys.modules` key.
The layers import downward (proxy ← harness ← inspector), and none of them imports the workflow modules
of `ctxscope` itself (the CLI, run, demo, …), which sit on top of all three.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("proxy", "harness", "inspector")
MAY_IMPORT = {"proxy": set(), "harness": {"proxy"}, "inspector": {"proxy", "harness"}}


def _rewriter() -> object:
    spec = importlib.util.spec_from_file_location("move_to_namespace", ROOT / "tools" / "move_to_namespace.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return names


def test_the_three_folders_are_the_ctxscope_subpackages() -> None:
    for layer in LAYERS:
        link = ROOT / "ctxscope" / layer
        assert link.is_symlink() and link.resolve() == (ROOT / layer).resolve(), layer


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_imports_only_downward_and_never_the_workflows(layer: str) -> None:
    wrong: list[str] = []
    for path in sorted((ROOT / layer).rglob("*.py")):
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] in LAYERS:
                wrong.append(f"{path.relative_to(ROOT)}: old top-level name {name}")
            elif parts[0] == "ctxscope" and len(parts) > 1:
                target = parts[1]
                if target in LAYERS and target != layer and target not in MAY_IMPORT[layer]:
                    wrong.append(f"{path.relative_to(ROOT)}: {layer} imports {name}")
                elif target not in LAYERS and (ROOT / "ctxscope" / f"{target}.py").exists():
                    wrong.append(f"{path.relative_to(ROOT)}: {layer} imports the workflow module {name}")
                elif target not in LAYERS and (ROOT / "ctxscope" / target / "__init__.py").exists():
                    wrong.append(f"{path.relative_to(ROOT)}: {layer} imports the workflow package {name}")
    assert wrong == []


def test_no_module_path_of_the_old_names_is_left_in_the_tree() -> None:
    # the rewrite script is the definition of "an old module path": it would change nothing anywhere
    rewriter = _rewriter()
    modules = rewriter.module_names(ROOT)  # type: ignore[attr-defined]
    left = []
    for path in rewriter.files_under([ROOT]):  # type: ignore[attr-defined]
        text = path.read_text(encoding="utf-8")
        if path != Path(__file__) and rewriter.rewrite(text, modules) != text:  # type: ignore[attr-defined]
            left.append(str(path.relative_to(ROOT)))
    assert left == []


def test_the_rewrite_script_moves_a_branch_patch_and_leaves_attributes_alone() -> None:
    rewriter = _rewriter()
    modules = rewriter.module_names(ROOT)  # type: ignore[attr-defined]
    patch = (
        "--- a/inspector/x.py\n+++ b/inspector/x.py\n"
        " from proxy.store import read_recording\n"
        "+from harness import Agent\n"
        "+import inspector\n"
        '+    path = resources.files("harness") / "prompts"\n'
        '+    COMMANDS = {"diff": "inspector.cli"}\n'
        "+    self.proxy.store = harness.run()  # attributes and locals stay\n"
        "+    ctxscope.proxy.store  # already moved\n"
    )
    assert rewriter.rewrite(patch, modules) == (  # type: ignore[attr-defined]
        "--- a/inspector/x.py\n+++ b/inspector/x.py\n"
        " from ctxscope.proxy.store import read_recording\n"
        "+from ctxscope.harness import Agent\n"
        "+from ctxscope import inspector\n"
        '+    path = resources.files("ctxscope.harness") / "prompts"\n'
        '+    COMMANDS = {"diff": "ctxscope.inspector.cli"}\n'
        "+    self.proxy.store = harness.run()  # attributes and locals stay\n"
        "+    ctxscope.proxy.store  # already moved\n"
    )


def test_importing_every_module_puts_no_old_name_in_sys_modules() -> None:
    # module strings (lazy tables, the command table, importlib calls) are caught here, not by the AST
    code = (
        "import sys, pkgutil, importlib, ctxscope\n"
        "from ctxscope.cli import COMMANDS\n"
        "for module in dict.fromkeys(COMMANDS.values()): importlib.import_module(module)\n"
        "import ctxscope.proxy, ctxscope.harness, ctxscope.inspector\n"
        "for package in (ctxscope.proxy, ctxscope.harness, ctxscope.inspector):\n"
        "    for name in package.__all__: getattr(package, name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('proxy', 'harness', 'inspector')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd="/", capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


def test_the_build_and_the_tools_name_only_the_ctxscope_namespace() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setuptools = config["tool"]["setuptools"]
    assert setuptools["packages"]["find"]["include"] == ["ctxscope*"]
    assert all(key == "ctxscope" or key.startswith("ctxscope.") for key in setuptools["package-data"])
    assert config["tool"]["mypy"]["packages"] == ["ctxscope"]
    entry_points = [v for group in config["project"]["entry-points"].values() for v in group.values()]
    assert entry_points and all(v.startswith("ctxscope.") for v in entry_points)
    assert all(v.startswith("ctxscope.") for v in config["project"]["scripts"].values())
