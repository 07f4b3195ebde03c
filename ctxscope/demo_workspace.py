"""The demo's workspace: a small git repository with two AGENTS.md files and a skill beside it.

`ctxscope demo` and `ctxscope demo --tour` both run in it; it is its own module so that neither
imports the other for it (the demo imports the tour, never the reverse).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["build_workspace"]

_ROOT_AGENTS = "# Project rules\n\nKeep functions small and typed. Explain changes in one sentence.\n"
_PKG_AGENTS = "# pkg rules\n\nTests live next to the code in pkg/. Use plain asserts.\n"
_SKILL = (
    "---\nname: demo-skill\ndescription: House style for small Python helpers (typed, one-line docstring).\n"
    "---\n\n# demo-skill\n\nWrite helpers with type hints and return early. Name tests test_<function>.\n"
)


def build_workspace(root: Path) -> tuple[Path, Path]:
    """Create the demo repository and skill directory under `root`; returns (repo, skills dir)."""
    repo, skills = root / "repo", root / "skills"
    (repo / "pkg").mkdir(parents=True, exist_ok=True)
    (repo / "AGENTS.md").write_text(_ROOT_AGENTS)
    (repo / "pkg" / "AGENTS.md").write_text(_PKG_AGENTS)
    (repo / "pkg" / "__init__.py").write_text("")
    (skills / "demo-skill").mkdir(parents=True, exist_ok=True)
    (skills / "demo-skill" / "SKILL.md").write_text(_SKILL)
    try:  # a git repo makes AGENTS.md discovery walk from the repo root, as Codex does
        subprocess.run(["git", "init", "-q", str(repo)], check=True, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        pass  # without git the workspace still works; discovery then starts at the cwd
    return repo, skills
