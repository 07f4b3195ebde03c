"""`ctxscope info FILE [--json]` runs without the typer app (`ctxscope.inspector.info.run_fast`) and says
exactly what the typer command says; whatever else it is given goes to typer (real processes)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.cli_support import run_routed

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "inspector"


def _run(args: list[str], tmp: Path, *, through_typer: bool) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """A real `ctxscope ARGS` process, by the usual entry point or straight through the typer app."""
    return run_routed(args, tmp, through_typer=through_typer, timeout=120)


@pytest.mark.parametrize("extra", [[], ["--json"]], ids=["text", "json"])
def test_info_without_typer_says_what_the_typer_command_says(tmp_path: Path, extra: list[str]) -> None:
    for name in ("chain.jsonl", "subagent.jsonl"):
        args = ["info", str(FIXTURES / name), *extra]
        fast, modules = _run(args, tmp_path, through_typer=False)
        slow, _ = _run(args, tmp_path, through_typer=True)
        assert fast.returncode == slow.returncode == 0, fast.stderr[-2000:] + slow.stderr[-2000:]
        assert fast.stdout == slow.stdout and fast.stdout.strip()
        # neither typer's parsing nor typer itself was needed; nor logging (the harness sets its handler
        # where it logs, not on import) nor a process pool
        assert not {"typer", "click", "logging", "concurrent.futures"} & modules


def test_what_the_fast_path_does_not_take_goes_to_typer(tmp_path: Path) -> None:
    done, modules = _run(["info", "--bogus", str(FIXTURES / "chain.jsonl")], tmp_path, through_typer=False)
    assert done.returncode == 2 and "No such option: --bogus" in done.stderr
    done, _ = _run(["info", "--help"], tmp_path, through_typer=False)
    assert done.returncode == 0 and "Summarise a recording" in done.stdout
    done, _ = _run(["info", str(tmp_path / "missing.jsonl")], tmp_path, through_typer=False)
    assert done.returncode != 0 and "missing.jsonl does not exist" in done.stderr
    assert "Traceback" not in done.stderr


ALL_FIXTURES = sorted((FIXTURES.parent).rglob("*.jsonl"))


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_the_spawned_agents_check_agrees_with_the_agent_tree(path: Path) -> None:
    from ctxscope.inspector.analysis import analyse_recording
    from ctxscope.inspector.analysis.agents import agent_tree, has_spawned_agents
    from ctxscope.proxy.errors import CtxscopeError
    from ctxscope.proxy.store import read_recording

    try:
        recording = read_recording(path)
    except CtxscopeError:
        pytest.skip("not a recording this reader takes (a fixture of a bad file)")
    assert has_spawned_agents(recording.exchanges) == (len(agent_tree(analyse_recording(path))) > 1)


def test_info_without_spawned_agents_analyses_no_turn_and_loads_no_report_model(tmp_path: Path) -> None:
    done, modules = _run(["info", str(FIXTURES / "chain.jsonl")], tmp_path, through_typer=False)
    assert done.returncode == 0 and "agents " not in done.stdout
    assert "ctxscope.inspector.reports.models" not in modules
    # the grouping only: none of the per-turn analysis is imported (answers, world state, cache)
    assert "ctxscope.inspector.analysis.grouping" in modules
    per_turn = {"analyse", "answers", "cache", "world_state", "mode_events", "compaction"}
    assert not {f"ctxscope.inspector.analysis.{name}" for name in per_turn} & modules
    done, modules = _run(["info", str(FIXTURES / "subagent.jsonl")], tmp_path, through_typer=False)
    assert done.returncode == 0 and "agents      " in done.stdout
