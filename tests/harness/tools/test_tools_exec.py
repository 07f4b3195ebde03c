"""exec_command: real subprocesses, exit codes, timeouts, output caps, workdir and environment."""

from __future__ import annotations

import os
import re
import select
from pathlib import Path

import pytest
from tools_support import call, make_router

HEADER = re.compile(
    r"^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\n(?P<status>[^\n]*)\n"
    r"Original token count: (?P<tokens>\d+)\n(?:Approval: [^\n]*\n)?Output:\n",
)


def parse(output: str) -> tuple[str, int, str]:
    m = HEADER.match(output)
    assert m, output
    return m["status"], int(m["tokens"]), output[m.end() :]


def test_success_has_codex_like_header(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    status, tokens, body = parse(call(router, "exec_command", {"cmd": "echo hello"}))
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
            "arguments": '{"cmd": "echo oops >&2; exit 3"}',
        }
    )
    assert outcome.item["type"] == "function_call_output" and outcome.item["call_id"] == "c1"
    status, _, body = parse(outcome.item["output"])
    assert status == "Process exited with code 3"
    assert body == "oops\n"
    assert outcome.result.success is False


def _exited(pid: int) -> bool:
    """Whether `pid` has exited; waits on a pidfd (an event, not a sleep), bounded as a guard."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], 30)
        return bool(readable)
    finally:
        os.close(fd)


def test_timeout_kills_the_process_group(tmp_path: Path) -> None:
    # 3 s leaves room for a slow `bash -lc` start on a loaded machine before the echo runs.
    router = make_router(tmp_path)
    out = call(
        router,
        "exec_command",
        {"cmd": "sleep 60 & echo $! > child.pid; echo started; wait", "timeout_ms": 3000},
    )
    status, _, body = parse(out)
    assert status.startswith("Process timed out after 3 seconds and was killed")
    assert body == "started\n"
    child = int((tmp_path / "child.pid").read_text())
    assert _exited(child)


def test_huge_output_keeps_head_and_tail(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    out = call(router, "exec_command", {"cmd": "seq 1 200000", "max_output_tokens": 100})
    _, tokens, body = parse(out)
    total_bytes = sum(len(f"{i}\n") for i in range(1, 200001))
    assert tokens == (total_bytes + 3) // 4
    assert body.startswith("1\n2\n3\n")
    assert body.endswith("199999\n200000\n")
    assert "bytes (~" in body and "tokens) omitted" in body
    assert len(body) < 100 * 4 + 200


def test_workdir_relative_to_cwd(tmp_path: Path) -> None:
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    router = make_router(tmp_path)
    _, _, body = parse(call(router, "exec_command", {"cmd": "pwd", "workdir": "sub/deeper"}))
    assert Path(body.strip()).resolve() == (tmp_path / "sub" / "deeper").resolve()
    _, _, body = parse(call(router, "exec_command", {"cmd": "pwd"}))
    assert Path(body.strip()).resolve() == tmp_path.resolve()


def test_missing_workdir_is_reported(tmp_path: Path) -> None:
    out = call(make_router(tmp_path), "exec_command", {"cmd": "pwd", "workdir": "nope"})
    assert out.startswith("workdir ") and "does not exist" in out


def test_context_env_is_passed_and_pagers_disabled(tmp_path: Path) -> None:
    router = make_router(tmp_path, env={"CTXSCOPE_TEST_VALUE": "xyz"})
    _, _, body = parse(call(router, "exec_command", {"cmd": 'echo "$CTXSCOPE_TEST_VALUE $GIT_PAGER"'}))
    assert body == "xyz cat\n"
    assert "CTXSCOPE_TEST_VALUE" not in os.environ


def test_stdin_is_closed(tmp_path: Path) -> None:
    _, _, body = parse(call(make_router(tmp_path), "exec_command", {"cmd": "cat; echo done"}))
    assert body == "done\n"


def test_bad_arguments(tmp_path: Path) -> None:
    router = make_router(tmp_path)
    assert call(router, "exec_command", {}).startswith(
        "invalid arguments for exec_command: cmd: Field required"
    )
    out = call(router, "exec_command", {"cmd": "ls", "sandbox_permissions": "root"})
    assert "sandbox_permissions must be one of use_default, require_escalated" in out
    out = call(router, "exec_command", {"cmd": "ls", "timeout_ms": -1})
    assert out.startswith("invalid arguments for exec_command: timeout_ms")


def test_compat_arguments_are_accepted(tmp_path: Path) -> None:
    args = {
        "cmd": "echo ok",
        "yield_time_ms": 10,
        "tty": False,
        "justification": "why",
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
        make_router(tmp_path), "exec_command", {"cmd": "shopt -q login_shell && echo login || echo plain"}
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
    assert "omitted" in body and len(body) < 400_000 + 200


def test_credentials_in_the_agents_environment_are_not_passed_to_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-not-for-commands")
    monkeypatch.setenv("GH_TOKEN", "planted-token")
    monkeypatch.setenv("CTXSCOPE_VISIBLE", "yes")
    router = make_router(tmp_path)
    _, _, body = parse(call(router, "exec_command", {"cmd": "env"}))
    assert "CTXSCOPE_VISIBLE=yes" in body
    assert "sk-planted-not-for-commands" not in body and "planted-token" not in body
