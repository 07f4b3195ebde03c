"""`compare` compares content: two real harness runs that differ in one context fragment (the
sandbox's permissions text, one AGENTS.md line) name that fragment with its differing text, and
`compare` text, JSON and the TUI compare screen give one verdict."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.compare import Verdict, compare_analyses
from ctxscope.inspector.tui.app import InspectorApp
from ctxscope.inspector.tui.screens.compare import CompareScreen
from ctxscope.inspector.tui.snapshot import settle
from ctxscope.inspector.tui.viewmodel.compare import detail_lines, pair_lines, verdict_counts
from ctxscope.inspector.tui.widgets import LinesView
from tests.cli_support import run_cli
from tests.harness.harness_support import make_repo, write_config, write_script

TIMEOUT_S = 120
SCRIPT = [
    {"output": [{"function_call": {"name": "list_dir", "arguments": {"path": "."}}}]},
    {"text": "Done."},
]


def _run(root: Path, home: Path, *extra: str, agents_line: str | None = None) -> Path:
    """One harness run (script model, captured) in a fresh repo under `root`."""
    repo = make_repo(root)
    if agents_line is not None:
        with (repo / "AGENTS.md").open("a", encoding="utf-8") as out:
            out.write(agents_line + "\n")
    script = write_script(root / "script.json", SCRIPT)
    capture = root / "run.jsonl"
    command = [sys.executable, "-m", "ctxscope.cli", "agent", "-p", "list the files", "--provider", "script"]
    proc = subprocess.run(
        [*command, "--script", str(script), "--capture", str(capture), *extra],
        cwd=repo,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return capture


@pytest.fixture
def runs(tmp_path: Path, ctxscope_home: Path) -> dict[str, Path]:
    write_config(ctxscope_home, tmp_path / "skills")
    made = {}
    for name, extra, line in (
        ("base", (), None),
        ("again", (), None),
        ("sandbox", ("--sandbox", "danger-full-access"), None),
        ("agents", (), "Never edit generated files."),
    ):
        (tmp_path / name).mkdir()
        made[name] = _run(tmp_path / name, ctxscope_home, *extra, agents_line=line)
    return made


def _fragments(doc: dict[str, object]) -> list[dict[str, object]]:
    return [f for pair in doc["turns"] for f in pair["fragments_diff"]]  # type: ignore[index,union-attr]


@pytest.mark.anyio
async def test_a_changed_fragment_is_named_with_its_text_in_text_json_and_the_tui(
    runs: dict[str, Path],
) -> None:
    # Two runs of the same task: the same, in every view.
    same = json.loads(run_cli("compare", str(runs["base"]), str(runs["again"]), "--format", "json").stdout)
    assert [p["verdict"] for p in same["turns"]] == ["same", "same"] and _fragments(same) == []

    for name, fragment, text in (
        ("sandbox", "permissions", "danger-full-access"),
        ("agents", "agents_md", "Never edit generated files."),
    ):
        a, b = str(runs["base"]), str(runs[name])
        doc = json.loads(run_cli("compare", a, b, "--format", "json").stdout)
        found = _fragments(doc)
        assert found, f"{name}: compare found no differing fragment"
        assert any(str(f["fragment"]).startswith(fragment) for f in found), found
        assert any(text in line for f in found for line in f["diff"])  # type: ignore[attr-defined]
        assert all(p["verdict"] != "same" for p in doc["turns"])
        assert doc["summary"]["verdicts"].get("same", 0) == 0

        out = run_cli("compare", a, b).stdout
        assert fragment in out and text in out, out
        assert "identical apart from: endpoint" not in out
        if doc["summary"]["identical_apart_from"]:
            assert f"identical apart from: context text ({fragment}" in out

        markdown = run_cli("compare", a, b, "--format", "markdown").stdout
        assert f"{fragment}" in markdown and text in markdown and "| yes |" not in markdown

        comparison = compare_analyses(analyse_recording(a), analyse_recording(b))
        verdicts = [p.verdict.value for p in comparison.turns]
        assert verdicts == [p["verdict"] for p in doc["turns"]]
        rows = [line.text for line in pair_lines(comparison)]
        assert all(" same " not in f" {row} " or "apart" in row for row in rows)
        detail = [line.text for line in detail_lines(comparison, 1)]
        assert any(line.startswith(fragment) and "text differs" in line for line in detail), detail
        assert any(text in line for line in detail)

        app = InspectorApp(Path(a), Path(b))
        async with app.run_test(size=(140, 40)) as pilot:
            for _ in range(50):
                await settle(pilot)
                if isinstance(app.screen, CompareScreen) and app.screen.comparison is not None:
                    break
            screen = app.screen
            assert isinstance(screen, CompareScreen) and screen.comparison is not None
            status = str(screen.query_one("#status").render())
            assert verdict_counts(screen.comparison) in status and "0 same" not in status
            shown = [line.text for line in screen.query_one("#pair", LinesView).lines]
            assert any(text in line for line in shown), shown


def test_verdicts_of_the_text_report_and_the_json_agree(runs: dict[str, Path]) -> None:
    doc = json.loads(run_cli("compare", str(runs["base"]), str(runs["sandbox"]), "--format", "json").stdout)
    text = run_cli("compare", str(runs["base"]), str(runs["sandbox"])).stdout
    words = {"same": "same", "same_apart": "same apart from the above", "differs": "differs"}
    for pair in doc["turns"]:
        assert pair["verdict"] in {v.value for v in Verdict}
        assert f"turn {pair['turn']:<3}{words[pair['verdict']]}" in text
