"""The slash-command registry: one table, reached from the REPL and from `-p "/command ..."`."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import TextIO

import pytest

from ctxscope.harness import commands
from ctxscope.harness.commands import COMMANDS, Command, CommandResult, find_command, run_command
from ctxscope.harness.repl import run_repl
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.store.reader import read_recording
from tests.harness.harness_support import PINNED_CONTEXT, make_repo, write_config, write_script


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills")
    return repo


def _agent_cli(argv: list[str], monkeypatch: pytest.MonkeyPatch, cwd: Path) -> int:
    from ctxscope.cli import main

    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "argv", ["ctxscope", "agent", *argv])
    with pytest.raises(SystemExit) as exit_info:
        main()
    return int(exit_info.value.code or 0)


def _ask(runtime: AgentRuntime, arg: str, out: TextIO) -> CommandResult:
    """A command that runs a turn, the way `/plan task` will."""
    assert runtime.agent is not None
    out.write("asking\n")
    return CommandResult(turn=runtime.agent.run_turn(f"question: {arg}"))


def test_the_registry_is_one_table_with_help_for_each_command() -> None:
    names = [c.name for c in COMMANDS]
    assert names == ["/model", "/status", "/new", "/cd", "/plan", "/goal", "/compact", "/quit"]
    assert all(c.usage.startswith(c.name) and c.help for c in COMMANDS)
    assert find_command("/exit") is find_command("/quit") and find_command("/nope") is None
    assert find_command("/model") is not None
    assert find_command("/model").line() == "/model NAME — switch model"  # type: ignore[union-attr]


def test_the_repl_lists_every_command_and_reaches_them_all(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "one"}])
    options = AgentOptions(
        provider="script", script=script, cwd=repo, no_capture=True, context_overrides=dict(PINNED_CONTEXT)
    )
    (repo / "sub").mkdir()
    lines = iter(["/cd sub", "/model gpt-b", "/status", "/frob", "/exit", "never read"])
    err = io.StringIO()
    with AgentRuntime(options) as runtime:
        run_repl(runtime, read=lambda _p: next(lines), err=err)
        assert runtime.agent is not None and runtime.agent.model == "gpt-b"
    shown = err.getvalue()
    names = "/model /status /new /cd /plan /goal /compact /quit"
    assert shown.splitlines()[0] == f"ctxscope agent — type a task, or {names}"
    assert f"cwd: {repo / 'sub'}" in shown and "  model: gpt-b" in shown
    assert f"error: unknown command /frob; commands: {names.replace(' ', ', ')}" in shown


def test_print_mode_runs_a_command_without_a_request(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "unused"}])
    capture = tmp_path / "cap.jsonl"
    argv = ["-p", "/status", "--provider", "script", "--script", str(script), "--capture", str(capture)]
    assert _agent_cli(argv, monkeypatch, repo) == 0
    out = capsys.readouterr().out
    assert "  provider: script" in out and f"  capture: {capture}" in out
    assert read_recording(capture).exchanges == []


def test_print_mode_rejects_an_unknown_command_in_one_line(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "unused"}])
    argv = ["-p", "/frob x", "--provider", "script", "--script", str(script), "--no-capture"]
    assert _agent_cli(argv, monkeypatch, repo) == 2
    err = capsys.readouterr().err
    known = "/model, /status, /new, /cd, /plan, /goal, /compact, /quit"
    assert err.splitlines()[-1] == f"error: unknown command /frob; commands: {known}"


def test_a_command_that_runs_a_turn_prints_its_answer_in_print_mode(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(commands, "COMMANDS", (*COMMANDS, Command("/ask", "/ask TEXT", "ask", _ask)))
    script = write_script(tmp_path / "s.json", [{"text": "the answer"}])
    capture = tmp_path / "cap.jsonl"
    argv = ["-p", "/ask why", "--provider", "script", "--script", str(script), "--capture", str(capture)]
    assert _agent_cli(argv, monkeypatch, repo) == 0
    assert capsys.readouterr().out == "asking\nthe answer\n"
    (exchange,) = read_recording(capture).exchanges
    last = exchange.request_body["input"][-1]
    assert last["content"][0]["text"] == "question: why"


def test_run_command_needs_a_running_agent(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "unused"}])
    runtime = AgentRuntime(AgentOptions(provider="script", script=script, cwd=repo, no_capture=True))
    with pytest.raises(ConfigError, match="no agent is running"):
        run_command("/status", runtime, io.StringIO())
