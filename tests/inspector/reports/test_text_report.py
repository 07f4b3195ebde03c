"""The text reports fit the terminal: wrapped to $COLUMNS, paths relative to the first cwd, one turn
alone with its content under `diff --turn N`, the world state under `show --turn N`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.cli_support import run_cli


def _cd_turn(path: Path) -> int:
    doc = json.loads(run_cli("diff", str(path), "--format", "json").stdout)
    changed = (t for t in doc["turns"] if any(s.startswith("cwd ") for s in t["world_state_changes"]))
    return int(next(changed)["turn"])


def test_diff_fits_columns_with_paths_relative_to_the_first_cwd(edge: Callable[[str], Path]) -> None:
    path = edge("world")
    for columns in ("60", "80"):
        out = run_cli("diff", str(path), "--no-color", env={"COLUMNS": columns}).stdout
        too_long = [line for line in out.splitlines() if len(line) > int(columns)]
        assert too_long == [], too_long
    out = run_cli("diff", str(path), "--no-color", env={"COLUMNS": "100"}).stdout
    assert "paths ./… are relative to /repo" in out and "cwd . → ./pkg" in out
    # the token detail is a line of its own, not a tail on the turn's row
    rows = [line for line in out.splitlines() if line.lstrip().startswith("turn ")]
    assert rows and all("reported" not in row for row in rows)
    assert any(line.strip().startswith("· tokens: reported") for line in out.splitlines())


def test_diff_turn_prints_that_turn_only_with_its_content(edge: Callable[[str], Path]) -> None:
    path = edge("world")
    number = _cd_turn(path)
    out = run_cli("diff", str(path), "--turn", str(number), "--no-color", env={"COLUMNS": "120"}).stdout
    assert f"turn {number} in full" in out
    rows = [line.split()[1] for line in out.splitlines() if line.startswith("  turn ")]
    assert rows == [str(number)]  # no timeline before it
    # what was added, with its content: the new AGENTS.md text and the environment fragment
    assert "agents_md_replaced:./pkg" in out and "chars" in out
    assert "│ # AGENTS.md instructions for /repo/pkg" in out  # the text the model saw, exact
    assert "│ <environment_context>" in out


def test_show_turn_prints_the_world_state(edge: Callable[[str], Path]) -> None:
    path = edge("world")
    number = _cd_turn(path)
    out = run_cli("show", str(path), "--turn", str(number), "--no-color", env={"COLUMNS": "120"}).stdout
    assert "world state:" in out
    assert "  cwd: /repo/pkg" in out
