"""The text reports fit the terminal: wrapped to $COLUMNS, paths relative to the first cwd, one turn
alone with its content under `diff --turn N`, the world state under `show --turn N`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.cli_support import run_cli

CODEX_FIXTURE = Path(__file__).parents[2] / "fixtures" / "inspector" / "tui" / "codex.jsonl"


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
    # what was added, each fragment against the one it replaces: the AGENTS.md text as a diff
    # (the text the model saw, exact), the environment as the fields that changed, not its XML again
    assert "agents_md_replaced:./pkg replaces previous [1] agents_md:." in out
    assert "          project: Use pytest. → Package rules." in out  # short values: field by field
    assert "environment_context:cwd=./pkg replaces previous [1] environment_context:cwd=." in out
    assert "          cwd: . → ./pkg" in out
    assert "<environment_context>" not in out


def test_diff_turn_diffs_a_changed_agents_md_and_full_prints_whole_texts() -> None:
    path = CODEX_FIXTURE  # turn 4: cwd moved to ./pkg, whose AGENTS.md replaces the root's
    cut = run_cli("diff", str(path), "--turn", "4", "--no-color", env={"COLUMNS": "60"}).stdout
    full = run_cli("diff", str(path), "--turn", "4", "--full", "--no-color", env={"COLUMNS": "200"})
    assert full.returncode == 0, full.stderr
    # the new AGENTS.md lines are shown as added against the text they replace (they were cut before)
    assert "+ In pkg: keep functions small." in cut
    assert "- # AGENTS.md instructions for /home/dev/repo\n" in cut
    assert "  cwd: . → ./pkg" in cut and "<environment_context>" not in cut
    # --full: the selected skill's whole text, and every line of the AGENTS.md diff
    doc = json.loads(run_cli("diff", str(path), "--turn", "4", "--format", "json").stdout)
    (agents,) = [f for f in doc["detail"]["fragments_replaced"] if f["label"].startswith("agents_md")]
    assert agents["replaces"] == "agents_md:/home/dev/repo" and agents["replaces_position"] == 2
    shown = [row.strip() for row in full.stdout.splitlines()]
    for row in agents["diff"]:
        assert any(line.endswith(row[2:].strip()) for line in shown), row
    assert "more lines" not in full.stdout
    # a bullet's wrapped continuation starts under its text, never at column 0
    lines = [line.rstrip() for line in cut.splitlines()]
    at = lines.index("        · fragments: +agents_md_replaced:./pkg")
    assert lines[at + 1] == "          +environment_context:cwd=./pkg"
    assert "          predicted cached 8,192" in lines


def test_show_turn_prints_the_world_state(edge: Callable[[str], Path]) -> None:
    path = edge("world")
    number = _cd_turn(path)
    out = run_cli("show", str(path), "--turn", str(number), "--no-color", env={"COLUMNS": "120"}).stdout
    assert "world state:" in out
    # paths relative to the first cwd, as in `diff`, the root said once
    assert "  cwd: ./pkg" in out and out.count("paths ./… are relative to /repo") == 1
