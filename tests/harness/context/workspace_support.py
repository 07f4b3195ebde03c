"""A real workspace on disk for context tests: a git repository with AGENTS.md files at the root
and in `pkg/`, a plain `src/` directory, a global AGENTS.md, and a skills directory."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ctxscope.harness.context import ContextSettings


@dataclass
class Workspace:
    root: Path  # tmp dir holding everything below
    repo: Path
    pkg: Path
    src: Path
    outside: Path  # not in any repository, no AGENTS.md
    global_file: Path
    skills_dir: Path

    def settings(self, cwd: Path | None = None, **overrides: object) -> ContextSettings:
        """Deterministic settings (fixed clock, zone, shell) for `cwd` (default: the repo root)."""
        values: dict[str, object] = {
            "cwd": cwd or self.repo,
            "global_agents_file": self.global_file,
            "skill_dirs": [self.skills_dir],
            "model": "gpt-test",
            "shell": "bash",
            "timezone": "UTC",
            "now": datetime(2026, 11, 29, 12, 0, tzinfo=UTC),
        }
        values.update(overrides)
        return ContextSettings(**values)  # type: ignore[arg-type]


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def make_workspace(tmp_path: Path) -> Workspace:
    root = tmp_path.resolve()
    repo = root / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True, capture_output=True)
    write(repo / "AGENTS.md", "# Root rules\n\nRun the tests before you finish.\n")
    write(repo / "pkg" / "AGENTS.md", "Package rules: keep the public API small.\n")
    (repo / "src").mkdir()
    outside = root / "elsewhere"
    outside.mkdir()
    global_file = write(root / "home" / "AGENTS.md", "Global: answer briefly.\n")
    skills = root / "skills"
    write(
        skills / "demo-skill" / "SKILL.md",
        "---\nname: demo-skill\ndescription: Shows how a skill is attached\n---\n\n# Demo\n\nSay hello.\n",
    )
    write(
        skills / "lint" / "SKILL.md",
        '---\nname: "lint"\ndescription: >\n  Run the linters\n  and fix what they report\n---\nRun ruff.\n',
    )
    return Workspace(root, repo, repo / "pkg", repo / "src", outside, global_file, skills)
