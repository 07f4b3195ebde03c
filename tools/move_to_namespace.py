#!/usr/bin/env python3
"""Rewrite old module paths (`proxy.…`, `harness.…`, `inspector.…`) to `ctxscope.proxy.…` and so on.

The packages used to install at the top level, where `proxy` collides with the `proxy.py` distribution.
They now import as `ctxscope.proxy`, `ctxscope.harness` and `ctxscope.inspector` (the folders stay where
they are; `ctxscope/proxy` and its twins are symlinks to them). Work started before the move is brought
over with this script:

    python tools/move_to_namespace.py [PATH ...]     # files or folders; default: the whole checkout
    git diff BASE > work.patch && python tools/move_to_namespace.py work.patch && git apply -3 work.patch

A patch works as well as a tree because the rewrite is textual and the files did not move: the context
lines of a patch are rewritten exactly as the tree was. The rewrite is idempotent (`ctxscope.proxy.x`
is left alone) and touches only dotted paths whose first two parts name a real module of the three
packages, so `self.proxy.port` or a local `harness.run()` stay as they are; bare package names are
rewritten only where they are unambiguous (import statements, `resources.files("harness")`).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

PACKAGES = ("proxy", "harness", "inspector")
ROOT = Path(__file__).resolve().parents[1]
TEXT_SUFFIXES = {".py", ".pyi", ".md", ".toml", ".cfg", ".ini", ".txt", ".sh", ".tcss", ".patch", ".diff", ".yml"}
SKIP_DIRS = {".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", "node_modules", "build", "dist"}


def module_names(root: Path = ROOT) -> set[str]:
    """Every dotted module and package name under the three folders (`proxy`, `proxy.store`, …)."""
    names: set[str] = set()
    for package in PACKAGES:
        base = root / package
        if not base.is_dir():
            continue
        for path in base.rglob("*"):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(root)
            if path.is_dir() and (path / "__init__.py").exists():
                names.add(".".join(rel.parts))
            elif path.suffix == ".py" and path.name != "__init__.py":
                names.add(".".join(rel.with_suffix("").parts))
        names.add(package)
    return names


_DOTTED = re.compile(r"(?<![\w.])((?:proxy|harness|inspector)(?:\.[A-Za-z_]\w*)+)")
# `lead` admits a patch's first column (+, - or a space) before the indentation
_FROM_IMPORT = re.compile(r"^(?P<lead>[+\- ]?[ \t]*)from (?P<pkg>proxy|harness|inspector)(?P<rest>\s+import\b)", re.M)
_IMPORT = re.compile(r"^(?P<lead>[+\- ]?[ \t]*)import (?P<pkg>proxy|harness|inspector)\b(?!\.)", re.M)
_RESOURCES = re.compile(r"""(resources\.files\()(["'])(proxy|harness|inspector)(\2\))""")


def rewrite(text: str, modules: set[str]) -> str:
    """`text` with every old module path moved under `ctxscope.`."""

    def dotted(match: re.Match[str]) -> str:
        parts = match.group(1).split(".")
        # the longest prefix that is a real module (at least package.submodule) is the module path
        for end in range(len(parts), 1, -1):
            if ".".join(parts[:end]) in modules:
                return "ctxscope." + match.group(1)
        return match.group(1)

    text = _DOTTED.sub(dotted, text)
    text = _FROM_IMPORT.sub(lambda m: f"{m['lead']}from ctxscope.{m['pkg']}{m['rest']}", text)
    text = _IMPORT.sub(lambda m: f"{m['lead']}from ctxscope import {m['pkg']}", text)
    text = _RESOURCES.sub(lambda m: f"{m[1]}{m[2]}ctxscope.{m[3]}{m[4]}", text)
    return text


def files_under(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
            continue
        for sub in sorted(path.rglob("*")):
            if any(part in SKIP_DIRS for part in sub.parts) or sub.is_symlink() or not sub.is_file():
                continue
            if sub.suffix in TEXT_SUFFIXES and sub.resolve() != Path(__file__).resolve():
                found.append(sub)
    return found


def main(argv: list[str]) -> int:
    paths = [Path(arg) for arg in argv] or [ROOT]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        print(f"error: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    modules = module_names()
    changed = 0
    for path in files_under(paths):
        try:
            old = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(old, modules)
        if new != old:
            path.write_text(new, encoding="utf-8")
            changed += 1
            print(f"rewrote {path}")
    print(f"{changed} file(s) rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
