"""Print mode and the event stream around plan mode: a planning run that submits no plan prints
nothing on stdout and exits with `NO_PLAN_EXIT_CODE`; a fresh handoff names its new session; every
`--json` stream starts with `session_started`, also with `--plan` (whose mode change comes next)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxscope.harness.modes.plan.texts import NO_PLAN_EXIT_CODE
from tests.cli_support import CliResult, run_cli
from tests.harness.harness_support import make_repo, write_script

PLAN = "# Greet\n1. Add greet() to pkg/greet.py\n"
ANSWER = f"Read it.\n<proposed_plan>\n{PLAN}</proposed_plan>\n"
QUESTION = "Should greet() take a name, or greet the world?"


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _agent(repo: Path, script: Path, *args: str) -> CliResult:
    return run_cli("agent", "--provider", "script", "--script", str(script), "--no-capture", *args, cwd=repo)


@pytest.mark.parametrize("how", [("--plan", "-p", "add greet"), ("-p", "/plan add greet")])
def test_a_planning_run_without_a_plan_prints_nothing_and_exits_3(
    repo: Path, tmp_path: Path, how: tuple[str, ...]
) -> None:
    proc = _agent(repo, write_script(tmp_path / "s.json", [{"text": QUESTION}]), *how)
    assert (proc.returncode, proc.stdout) == (NO_PLAN_EXIT_CODE, "")
    err = proc.stderr
    sid = err.split("session: ")[1].split()[0]
    assert QUESTION in err  # what the model said is not lost
    assert f"note: no plan was submitted, so nothing is printed (exit status {NO_PLAN_EXIT_CODE})" in err
    assert f"--session {sid}" in err


def test_json_starts_with_session_started_even_in_plan_mode(repo: Path, tmp_path: Path) -> None:
    proc = _agent(
        repo, write_script(tmp_path / "s.json", [{"text": QUESTION}]), "--plan", "-p", "x", "--json"
    )
    assert proc.returncode == NO_PLAN_EXIT_CODE
    kinds = [json.loads(line)["type"] for line in proc.stdout.splitlines()]
    assert kinds[:2] == ["session_started", "mode_change"]
    assert kinds[-1] == "notice"  # the no-plan notice, in the stream
    assert proc.stderr == ""


def test_approve_fresh_prints_the_new_sessions_id(repo: Path, tmp_path: Path) -> None:
    planned = _agent(repo, write_script(tmp_path / "s.json", [{"text": ANSWER}]), "--plan", "-p", "add greet")
    assert planned.returncode == 0 and planned.stdout == PLAN
    sid = planned.stderr.split("session: ")[1].split()[0]
    done = write_script(tmp_path / "d.json", [{"text": "implemented"}])
    approve = _agent(repo, done, "--session", sid, "-p", "/plan approve 1 fresh")
    assert approve.returncode == 0 and approve.stdout == "implemented\n"
    ids = [line.split()[1] for line in approve.stderr.splitlines() if line.startswith("session: ")]
    assert ids[0] == sid and len(ids) == 2 and ids[1] != sid
    assert f"note: plan revision 1 approved; implementing in new session {ids[1]}" in approve.stderr
    as_json = _agent(
        repo, done, "--session", sid, "-p", "/plan approve 1 fresh", "--json"
    )  # approved already: refused in one line, still a stream that starts with session_started
    assert as_json.returncode == 2
    assert json.loads(as_json.stdout.splitlines()[0])["type"] == "session_started"
    assert (
        as_json.stderr.strip()
        == "error: plan revision 1 is already approved; /plan starts a new planning cycle"
    )
