"""`ctxscope agent` as a real subprocess: print mode, --json, resume, interactive stdin, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope.harness.session import SessionStore
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream, SseReply, function_call, response_stream, text_message
from tests.cli_support import run_cli
from tests.harness.harness_support import assert_golden, labels, make_repo, write_config, write_script
from tests.harness.test_events import WIRE_KEYS

TIMEOUT_S = 120


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills")
    return repo


def ctxscope(
    *args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "ctxscope.cli", *args],
        cwd=cwd,
        env=full_env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def test_print_mode_end_to_end(repo: Path, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [
            {
                "output": [
                    {"reasoning": "look"},
                    {"function_call": {"name": "list_dir", "arguments": {"path": "."}}},
                ]
            },
            {"text": "Hi!"},
        ],
    )
    capture = tmp_path / "cap.jsonl"
    proc = ctxscope(
        "agent",
        "-p",
        "say hello with $greet",
        "--provider",
        "script",
        "--script",
        str(script),
        "--capture",
        str(capture),
        cwd=repo,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hi!\n"
    assert f"capture: {capture}" in proc.stderr and "• list_dir" in proc.stderr
    bodies = [e.request_body for e in read_recording(capture).exchanges]
    assert_golden("first_turn", labels(bodies[0], repo))
    assert_golden("first_turn_second_request", labels(bodies[1], repo))


def test_json_mode_and_resume(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "first"}])
    proc = ctxscope(
        "agent",
        "-p",
        "one",
        "--json",
        "--provider",
        "script",
        "--script",
        str(script),
        "--capture",
        str(tmp_path / "c1.jsonl"),
        cwd=repo,
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert events[0]["type"] == "session_started" and events[-1]["type"] == "turn_completed"
    assert events[-1]["final_text"] == "first"
    assert "first" in "".join(e.get("delta", "") for e in events if e["type"] == "text_delta")
    assert all(list(e) == WIRE_KEYS[e["type"]] for e in events)  # the keys consumers already read
    session_id = events[0]["session_id"]

    script2 = write_script(tmp_path / "s2.json", [{"text": "second"}])
    proc = ctxscope(
        "agent",
        "-p",
        "two",
        "--session",
        session_id[:8],
        "--provider",
        "script",
        "--script",
        str(script2),
        "--capture",
        str(tmp_path / "c2.jsonl"),
        cwd=repo,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "second\n"
    (body,) = [e.request_body for e in read_recording(tmp_path / "c2.jsonl").exchanges]
    assert labels(body, repo)[-3:] == ['user: "one"', 'assistant: "first"', 'user: "two"']
    assert body["prompt_cache_key"] == session_id


def test_instructions_and_skill_dir_flags(repo: Path, tmp_path: Path) -> None:
    extra = tmp_path / "more-skills" / "lint"
    extra.mkdir(parents=True)
    (extra / "SKILL.md").write_text("---\nname: lint\ndescription: Run the linter\n---\nRun ruff.\n")
    (tmp_path / "base.md").write_text("Be terse.\n")
    script = write_script(tmp_path / "s.json", [{"text": "ok"}])
    proc = ctxscope(
        "agent",
        "-p",
        "use $lint",
        "--provider",
        "script",
        "--script",
        str(script),
        "--instructions",
        str(tmp_path / "base.md"),
        "--skill-dir",
        str(tmp_path / "more-skills"),
        "--capture",
        str(tmp_path / "cap.jsonl"),
        cwd=repo,
    )
    assert proc.returncode == 0, proc.stderr
    (body,) = [e.request_body for e in read_recording(tmp_path / "cap.jsonl").exchanges]
    assert body["input"][0]["content"][0]["text"] == "Be terse.\n"
    catalog = next(p["text"] for p in body["input"][1]["content"] if "greet" in p["text"])
    assert "greet" in catalog and "lint" in catalog  # config's skill dir plus the flag's
    assert labels(body, repo)[-1] == "user[<selected_skill:lint>]"


def test_interactive_over_stdin(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "pong"}])
    proc = ctxscope(
        "agent",
        "--provider",
        "script",
        "--script",
        str(script),
        "--no-capture",
        cwd=repo,
        stdin="ping\n/status\n/quit\n",
    )
    assert proc.returncode == 0, proc.stderr
    assert "pong" in proc.stdout
    assert "›" not in proc.stdout and "›" in proc.stderr  # a pipe reading stdout gets the answers only
    assert "capture: off" in proc.stderr and "requests: 1" in proc.stderr


def test_missing_key_is_one_clear_line(repo: Path) -> None:
    proc = run_cli("agent", "-p", "hi", "--provider", "apikey", cwd=repo, env={"OPENAI_API_KEY": ""})
    assert proc.returncode == 2
    assert proc.stderr == (
        "error: OPENAI_API_KEY is not set: export OPENAI_API_KEY=<your key> "
        "(or choose another backend with --provider)\n"
    )


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (
            ["--provider", "chatgpt"],
            {"CODEX_HOME": "/nonexistent-codex-home"},
            "error: no ChatGPT login found at /nonexistent-codex-home/auth.json",
        ),
        (["--provider", "script"], {}, "error: --provider script needs --script FILE"),
        (["--provider", "script", "--script", "/no/such.json"], {}, "does not exist"),
        (["--sandbox", "yolo"], {}, "error: unknown sandbox 'yolo'"),
        (["--session", "nope"], {"OPENAI_API_KEY": "sk-x"}, "error: no session 'nope'"),
        (["--json", "--session", "a", "--fork", "b"], {}, "error: use either --session"),
        (["-p", "  "], {}, "error: -p needs a task"),
        (
            ["--capture", "/dev/null/cap.jsonl"],
            {"OPENAI_API_KEY": "sk-x"},
            "error: cannot write the capture file /dev/null/cap.jsonl",
        ),
        (
            ["--session", "/no/such/dir"],
            {"OPENAI_API_KEY": "sk-x"},
            "error: /no/such/dir is not a session file",
        ),
        (["--instructions", "/no/such.md"], {}, "error: --instructions /no/such.md is not a file"),
        (["--skill-dir", "/no/such/dir"], {}, "error: --skill-dir /no/such/dir is not a directory"),
        (["--base-url", "localhost:8000"], {"OPENAI_API_KEY": "sk-x"}, "is not an http(s) URL"),
    ],
)
def test_bad_input_in_process(
    repo: Path,
    args: list[str],
    env: dict[str, str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from ctxscope.cli import main

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(repo)
    monkeypatch.setattr(sys, "argv", ["ctxscope", "agent", "-p", "hi", *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_upstream_failure_keeps_a_resumable_session(repo: Path, tmp_path: Path, ctxscope_home: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "x", "cut": True}] * 3)
    proc = ctxscope(
        "agent",
        "-p",
        "go",
        "--provider",
        "script",
        "--script",
        str(script),
        "--capture",
        str(tmp_path / "cap.jsonl"),
        cwd=repo,
    )
    assert proc.returncode == 2 and "gave up after 3 attempts" in proc.stderr
    assert "--session" in proc.stderr and "Traceback" not in proc.stderr
    (session_file,) = (ctxscope_home / "sessions").glob("*.jsonl")
    assert SessionStore.open(str(session_file)).load().history[-1]["content"][0]["text"] == "go"
    assert len(read_recording(tmp_path / "cap.jsonl").exchanges) == 3


def test_skill_warning_is_told_once_without_capture(
    repo: Path, tmp_path: Path, upstream: FakeUpstream
) -> None:
    # Without the capture proxy nothing configures logging; the harness's own log line must not
    # reach stderr on every request next to the one notice.
    bad = tmp_path / "more-skills" / "broken" / "SKILL.md"
    bad.parent.mkdir(parents=True)
    bad.write_text("no front matter\n", encoding="utf-8")
    upstream.reply(
        SseReply(response_stream(function_call("list_dir", {"path": "."}))),
        SseReply(response_stream(text_message("done"))),
    )
    proc = ctxscope(
        "agent",
        "-p",
        "go",
        "--provider",
        "apikey",
        "--base-url",
        f"{upstream.url}/v1",
        "--skill-dir",
        str(bad.parent.parent),
        "--no-capture",
        cwd=repo,
        env={"OPENAI_API_KEY": "sk-test-0123456789abcdefghij"},
    )
    assert proc.returncode == 0, proc.stderr
    assert len(upstream.requests) == 2 and proc.stdout == "done\n"
    assert proc.stderr.count(str(bad)) == 1 and f"note: skipped skill {bad}" in proc.stderr


def test_ctrl_c_in_print_mode_says_how_to_resume(repo: Path, tmp_path: Path, ctxscope_home: Path) -> None:
    script = write_script(
        tmp_path / "s.json",
        [{"output": [{"function_call": {"name": "exec_command", "arguments": {"cmd": "sleep 60"}}}]}],
    )
    args = ["agent", "-p", "go", "--provider", "script", "--script", str(script), "--no-capture"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ctxscope.cli", *args],
        cwd=repo,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        for _ in range(20):  # the session and capture lines, then the tool call
            line = proc.stderr.readline()
            if not line or "exec_command" in line:
                break
        assert "exec_command" in line
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    (session_file,) = (ctxscope_home / "sessions").glob("*.jsonl")
    assert proc.returncode == 130 and "Traceback" not in err
    assert f"interrupted; the session is saved: continue with --session {session_file.stem}" in err
    history = SessionStore.open(str(session_file)).load().history
    assert history[-2]["type"] == "function_call_output" and "aborted" in history[-2]["output"]
    assert "turn_aborted" in history[-1]["content"][0]["text"]
