"""exec_command: real subprocesses, exit codes, output caps, workdir and environment. Sessions,
write_stdin and the tracking of what a command leaves running are in test_tools_exec_sessions.py."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from tools_support import call, make_router

HEADER = re.compile(
    r"^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\n(?P<status>[^\n]*)\n"
    r"Original token count: (?P<tokens>\d+)\n(?:Killed [^\n]*\n)?(?:Approval: [^\n]*\n)?Output:\n",
)


# Wait for the exit however slow the machine is (a login shell's profile may take seconds):
# these tests are about what a finished command reports; sessions are tested elsewhere.
WAIT = {"yield_time_ms": 120_000}


def parse(output: str) -> tuple[str, int, str]:
    m = HEADER.match(output)
    assert m, output
    return m["status"], int(m["tokens"]), output[m.end() :]


def test_success_has_codex_like_header(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    status, tokens, body = parse(call(router, "exec_command", {**WAIT, "cmd": "echo hello"}))
    assert status == "Process exited with code 0"
    assert body == "hello\n"
    assert tokens == 2  # 6 bytes at ~4 bytes per token


def test_failure_reports_exit_code_and_stderr(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    outcome = router.dispatch(
        {
            "type": "function_call",
            "name": "exec_command",
            "call_id": "c1",
            "arguments": '{"cmd": "echo oops >&2; exit 3", "yield_time_ms": 120000}',
        }
    )
    assert outcome.item["type"] == "function_call_output" and outcome.item["call_id"] == "c1"
    status, _, body = parse(outcome.item["output"])
    assert status == "Process exited with code 3"
    assert body == "oops\n"
    assert outcome.result.success is False


def test_huge_output_keeps_head_and_tail(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    out = call(router, "exec_command", {**WAIT, "cmd": "seq 1 200000", "max_output_tokens": 100})
    _, tokens, body = parse(out)
    total_bytes = sum(len(f"{i}\n") for i in range(1, 200001))
    assert tokens == (total_bytes + 3) // 4
    assert body.startswith("1\n2\n3\n")
    assert body.endswith("199999\n200000\n")
    omitted = total_bytes - 400
    assert f"…{(omitted + 3) // 4} tokens truncated…" in body
    assert len(body) < 100 * 4 + 200


def test_workdir_relative_to_cwd(tmp_path: Path) -> None:
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    router = make_router(tmp_path)
    _, _, body = parse(call(router, "exec_command", {**WAIT, "cmd": "pwd", "workdir": "sub/deeper"}))
    assert Path(body.strip()).resolve() == (tmp_path / "sub" / "deeper").resolve()
    _, _, body = parse(call(router, "exec_command", {**WAIT, "cmd": "pwd"}))
    assert Path(body.strip()).resolve() == tmp_path.resolve()


def test_missing_workdir_is_reported(tmp_path: Path) -> None:
    out = call(make_router(tmp_path), "exec_command", {**WAIT, "cmd": "pwd", "workdir": "nope"})
    assert out.startswith("workdir ") and "does not exist" in out


def test_context_env_is_passed_and_pagers_disabled(tmp_path: Path) -> None:
    router = make_router(tmp_path, env={"CTXSCOPE_TEST_VALUE": "xyz"})
    _, _, body = parse(
        call(router, "exec_command", {**WAIT, "cmd": 'echo "$CTXSCOPE_TEST_VALUE $GIT_PAGER"'})
    )
    assert body == "xyz cat\n"
    assert "CTXSCOPE_TEST_VALUE" not in os.environ


def test_stdin_is_closed(tmp_path: Path) -> None:
    _, _, body = parse(call(make_router(tmp_path), "exec_command", {**WAIT, "cmd": "cat; echo done"}))
    assert body == "done\n"


def test_bad_arguments(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    assert call(router, "exec_command", {}).startswith(
        "invalid arguments for exec_command: cmd: Field required"
    )
    out = call(router, "exec_command", {**WAIT, "cmd": "ls", "sandbox_permissions": "root"})
    assert "sandbox_permissions must be one of use_default, require_escalated" in out
    out = call(router, "exec_command", {**WAIT, "cmd": "ls", "yield_time_ms": -1})
    assert out.startswith("invalid arguments for exec_command: yield_time_ms")
    out = call(router, "exec_command", {**WAIT, "cmd": "ls", "shell": "no-such-shell"})
    assert out.startswith("shell 'no-such-shell' was not found")


def test_codex_arguments_are_accepted(tmp_path: Path) -> None:
    args = {
        "cmd": "echo ok",
        "yield_time_ms": 120_000,
        "tty": False,
        "shell": "sh",
        "justification": "why",
        "prefix_rule": ["echo"],
        "sandbox_permissions": "use_default",
    }
    status, _, body = parse(call(make_router(tmp_path), "exec_command", args))
    assert status == "Process exited with code 0" and body == "ok\n"


def test_login_false_runs_plain_bash(tmp_path: Path) -> None:
    out = call(
        make_router(tmp_path),
        "exec_command",
        {"cmd": "shopt -q login_shell && echo login || echo plain", "login": False},
    )
    assert parse(out)[2] == "plain\n"
    out = call(
        make_router(tmp_path),
        "exec_command",
        {**WAIT, "cmd": "shopt -q login_shell && echo login || echo plain"},
    )
    assert parse(out)[2] == "login\n"


def test_output_budget_is_clamped(tmp_path: Path) -> None:
    out = call(
        make_router(tmp_path),
        "exec_command",
        {"cmd": "head -c 1000000 /dev/zero | tr '\\0' x", "max_output_tokens": 10**9},
    )
    _, tokens, body = parse(out)
    assert tokens == 250_000
    assert "tokens truncated…" in body and len(body) < 400_000 + 200


def test_credentials_in_the_agents_environment_are_not_passed_to_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-not-for-commands")
    monkeypatch.setenv("GH_TOKEN", "planted-token")
    monkeypatch.setenv("CTXSCOPE_VISIBLE", "yes")
    router = make_router(tmp_path)
    _, _, body = parse(call(router, "exec_command", {**WAIT, "cmd": "env"}))
    assert "CTXSCOPE_VISIBLE=yes" in body
    assert "sk-planted-not-for-commands" not in body and "planted-token" not in body
