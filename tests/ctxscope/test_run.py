"""`ctxscope run -- COMMAND`: a real command (an openai-python client) behind the recording proxy.

The command is a real `python3` subprocess using the real openai SDK against a local upstream; the
proxy is the real recording proxy; nothing in the command knows about ctxscope except its environment.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ctxscope.proxy.forward import child_environment
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream, SseReply, response_stream, text_message
from ctxscope.proxy.testing.tls import self_signed_cert
from tests.cli_support import run_cli

CLIENT = """
import os, sys
from openai import OpenAI

base = sys.argv[1] if len(sys.argv) > 1 else None  # forward mode: the real server's URL
client = OpenAI(api_key="sk-test-run", base_url=base, max_retries=0, timeout=30)
stream = client.responses.create(model="gpt-run", input="hello from the client", stream=True)
text = "".join(event.delta for event in stream if event.type == "response.output_text.delta")
open(os.environ["ANSWER_FILE"], "w").write(text)
sys.exit(int(os.environ.get("EXIT_WITH", "0")))
"""


def _client(tmp_path: Path) -> Path:
    script = tmp_path / "client.py"
    script.write_text(CLIENT)
    return script


def test_forward_mode_records_a_python_client_and_returns_its_exit_code(
    tmp_path: Path, upstream: FakeUpstream
) -> None:
    upstream.reply(SseReply(response_stream(text_message("hi from the model"))))
    out, answer = tmp_path / "run.jsonl", tmp_path / "answer.txt"
    # loopback in NO_PROXY would send the client around the proxy: `run` takes it out
    env = {"ANSWER_FILE": str(answer), "EXIT_WITH": "3", "NO_PROXY": "localhost,127.0.0.1,example.com"}
    command = [sys.executable, str(_client(tmp_path)), f"{upstream.url}/v1"]
    result = run_cli("run", "--out", str(out), "--", *command, env=env)
    assert result.returncode == 3, result.stderr
    assert answer.read_text() == "hi from the model"
    [line] = [line for line in result.stderr.splitlines() if line.startswith("ctxscope run:")]
    assert line == f"ctxscope run: 1 model request(s) recorded in full in {out}"
    [exchange] = read_recording(out).exchanges
    assert exchange.url == f"{upstream.url}/v1/responses" and exchange.is_model_request
    assert exchange.request_body["input"] == "hello from the client"
    assert exchange.response is not None and exchange.response["status"] == "completed"
    assert "sk-test-run" not in out.read_text()


def test_reverse_mode_points_the_sdk_at_the_proxy(tmp_path: Path, upstream: FakeUpstream) -> None:
    upstream.reply(SseReply(response_stream(text_message("reversed"))))
    out, answer = tmp_path / "run.jsonl", tmp_path / "answer.txt"
    command = [sys.executable, str(_client(tmp_path))]  # no base URL: OPENAI_BASE_URL from `run`
    result = run_cli(
        "run",
        "--mode",
        "reverse",
        "--upstream",
        upstream.url,
        "--out",
        str(out),
        "--",
        *command,
        env={"ANSWER_FILE": str(answer)},
    )
    assert result.returncode == 0, result.stderr
    assert answer.read_text() == "reversed"
    [exchange] = read_recording(out).exchanges
    assert exchange.is_model_request and exchange.request_body["model"] == "gpt-run"


def test_the_environment_trusts_the_proxy_ca_over_https(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Forward mode over TLS: the client verifies the intercepted connection only through the CA
    # variables `run` sets (SSL_CERT_FILE for httpx, which openai-python uses).
    cert, key = self_signed_cert(tmp_path / "upstream-tls")
    out, answer = tmp_path / "run.jsonl", tmp_path / "answer.txt"
    from ctxscope.run import run_behind_proxy

    with FakeUpstream(tls=(cert, key)) as upstream:
        upstream.reply(SseReply(response_stream(text_message("over tls"))))
        monkeypatch.setenv("ANSWER_FILE", str(answer))
        command = [sys.executable, str(_client(tmp_path)), f"{upstream.url}/v1"]
        result = run_behind_proxy(command, out=out, ssl_insecure=True)
    assert result.returncode == 0 and answer.read_text() == "over tls"
    assert result.model_requests == 1


def test_child_environment_in_forward_mode(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    base = {"NO_PROXY": "localhost, 127.0.0.1:8080,[::1],corp.example", "ALL_PROXY": "socks5://x", "A": "1"}
    env = child_environment("http://127.0.0.1:9", ca, base)
    assert env["NO_PROXY"] == "corp.example" and "no_proxy" not in env and "ALL_PROXY" not in env
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        assert env[name] == "http://127.0.0.1:9"
    for name in ("CODEX_CA_CERTIFICATE", "SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE"):
        assert env[name] == str(ca)
    assert env["A"] == "1" and base["NO_PROXY"].startswith("localhost")  # the base is not changed


def test_a_missing_command_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = run_cli("run", "--out", str(tmp_path / "r.jsonl"), "--", "no-such-command-xyz")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: command not found: no-such-command-xyz"
    assert run_cli("run").returncode == 2


def test_sigterm_is_passed_on_and_the_exit_code_says_so(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    child = (
        "import pathlib, signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *a: sys.exit(42))\n"
        f"pathlib.Path({str(ready)!r}).write_text('up')\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ctxscope.cli",
            "run",
            "--out",
            str(tmp_path / "r.jsonl"),
            "--",
            sys.executable,
            "-c",
            child,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(600):  # bounded: the proxy and the child start in a few seconds
            if ready.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert ready.exists(), proc.communicate(timeout=30)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 42, err  # the child's own answer to SIGTERM, passed back
    assert "ctxscope run: 0 model request(s)" in err
    assert "ctxscope run: no model request recorded: the command sent none through the proxy" in err


TERMINAL_SESSION_S = 180.0


def _in_a_terminal(
    args: list[str], replies: list[tuple[bytes, bytes]], env: dict[str, str] | None = None
) -> tuple[str, int]:
    """`ctxscope ARGS` on a pseudo-terminal; each (prompt, keys): the keys are typed once the output
    shows the prompt, in order."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: becomes ctxscope, with the pty as its controlling terminal
        # as a shell in a terminal starts it: Ctrl-C and Ctrl-\ at their defaults. A test run started in the
        # background by a non-interactive shell (a CI job's `pytest &`) has them ignored, and an ignored
        # signal stays ignored across exec: the command would never see the Ctrl-C typed here.
        for sig in (signal.SIGINT, signal.SIGQUIT):
            signal.signal(sig, signal.SIG_DFL)
        os.execve(
            sys.executable, [sys.executable, "-m", "ctxscope.cli", *args], {**os.environ, **(env or {})}
        )
    out = b""
    waiting = list(replies)
    # bounded by the clock, not by a count of polls: on a loaded machine (CI beside other jobs) the proxy's
    # start alone can take half a minute, and a count of 0.05 s polls ran out before the command's last words
    deadline = time.monotonic() + TERMINAL_SESSION_S
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(fd, 4096)
            except OSError:  # the terminal closed: everything on it has exited
                break
            if not data:
                break
            out += data
            if waiting and waiting[0][0] in out:
                os.write(fd, waiting.pop(0)[1])
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return out.decode(errors="replace"), os.waitstatus_to_exitcode(status)


def test_the_command_gets_the_terminal_and_ctrl_c(tmp_path: Path) -> None:
    # A TUI (Codex's own) needs the terminal: stdin and stdout a tty, in the foreground process group,
    # reading what is typed. Ctrl-C typed there reaches the command, and ctxscope waits for it.
    child = (
        "import os, sys\n"
        "print('TTY', os.isatty(0), os.isatty(1), os.getpgrp() == os.tcgetpgrp(0), 'READY', flush=True)\n"
        "try:\n"
        "    print('GOT', sys.stdin.readline().strip(), flush=True)\n"
        "    sys.stdin.readline()\n"
        "except KeyboardInterrupt:\n"
        "    print('INTERRUPTED', flush=True)\n"
        "    sys.exit(130)\n"
    )
    run = ["run", "--out", str(tmp_path / "r.jsonl"), "--", sys.executable, "-c", child]
    # Ctrl-C only once the whole line is on the terminal: ISIG without NOFLSH discards the output the
    # terminal still holds, so a ^C sent on seeing "GOT" threw away the rest of the line whenever it
    # came in a write of its own (PYTHONUNBUFFERED, as on this machine: print writes "GOT", " ",
    # "typed here", "\n" one by one) and the reader was slow to take it. That was the "first read
    # returns EOF" of earlier runs: the command had read its line; the test lost what it printed.
    # One session, no retry; unbuffered on purpose, so the separate writes are exercised.
    keys = [(b"READY", b"typed here\n"), (b"GOT typed here\r\n", b"\x03")]
    out, code = _in_a_terminal(run, keys, env={"PYTHONUNBUFFERED": "1"})
    assert "TTY True True True" in out and "GOT typed here" in out
    assert "INTERRUPTED" in out and code == 130, out
    assert f"ctxscope run: 0 model request(s) recorded in full in {tmp_path / 'r.jsonl'}" in out


def test_inspect_opens_the_inspector_on_the_recording_afterwards(
    tmp_path: Path, upstream: FakeUpstream
) -> None:
    upstream.reply(SseReply(response_stream(text_message("inspect me"))))
    out, answer = tmp_path / "run.jsonl", tmp_path / "answer.txt"
    command = [sys.executable, str(_client(tmp_path)), f"{upstream.url}/v1"]
    env = {"ANSWER_FILE": str(answer), "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
    # the inspector draws the recording's one turn; `q` quits it, and ctxscope exits with the command's code
    screen, code = _in_a_terminal(
        ["run", "--inspect", "--out", str(out), "--", *command], [(b"gpt-run", b"q")], env
    )
    assert code == 0, screen[-2000:]
    assert answer.read_text() == "inspect me"
    assert "gpt-run" in screen and "ctxscope run: 1 model request(s)" in screen


def test_a_codex_that_cannot_leave_a_running_daemon_alone_is_refused_before_it_starts(tmp_path: Path) -> None:
    # A Codex release without --no-daemon (none seen yet; both 0.169 and 0.171 have it) beside a
    # running daemon would record nothing: `run` refuses in one line, before starting the command.
    home, started = tmp_path / "codex-home", tmp_path / "started"
    codex = tmp_path / "bin" / "codex"
    codex.parent.mkdir()
    codex.write_text(f"#!/bin/sh\n[ \"$1\" = --help ] && echo 'Usage: codex [OPTIONS]' && exit 0\ntouch {started}\n")
    codex.chmod(0o755)
    daemon = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "app-server", "--managed-daemon"])
    try:
        (home / "app-server-daemon").mkdir(parents=True)
        (home / "app-server-daemon" / "daemon.pid").write_text(f'{{"pid": {daemon.pid}}}')
        out = tmp_path / "r.jsonl"
        result = run_cli("run", "--out", str(out), "--", str(codex), env={"CODEX_HOME": str(home)})
        assert daemon.poll() is None  # left running
    finally:
        daemon.kill()
        daemon.wait()
    assert result.returncode == 2 and not started.exists() and not out.exists()
    [line] = result.stderr.strip().splitlines()
    assert f"pid {daemon.pid}, CODEX_HOME {home}" in line
    assert line.endswith(f"stop it first: CODEX_HOME={home} codex app-server daemon stop")
    # with no daemon running the same Codex is run as it is, and the empty run says why
    (home / "app-server-daemon" / "daemon.pid").unlink()
    result = run_cli("run", "--out", str(out), "--", str(codex), env={"CODEX_HOME": str(home)})
    assert result.returncode == 0 and started.exists()
    assert "ctxscope run: no model request recorded: Codex sent none" in result.stderr


def test_a_pid_file_naming_another_live_program_is_no_daemon(tmp_path: Path) -> None:
    # Codex leaves its pid file behind when the daemon dies; the pid may be reused by anything. A live
    # process whose command line names no app-server is not the daemon (this test's own process).
    from ctxscope.codex_daemon import running_daemon

    state = tmp_path / "app-server-daemon"
    state.mkdir()
    (state / "daemon.pid").write_text(f'{{"pid": {os.getpid()}}}')
    assert running_daemon(tmp_path) is None
    daemon = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "app-server"])
    try:
        (state / "daemon.pid").write_text(f'{{"pid": {daemon.pid}}}')
        found = running_daemon(tmp_path)
        assert found is not None and (found.pid, found.updater_pid, found.home) == (daemon.pid, None, tmp_path)
    finally:
        daemon.kill()
        daemon.wait()
    assert running_daemon(tmp_path) is None  # dead (reaped): the stale file is ignored
