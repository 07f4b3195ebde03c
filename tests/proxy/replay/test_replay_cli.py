"""`ctxscope replay` as a real subprocess: one-line errors for bad files, and a served session."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.cli_support import CliResult, run_cli

RECORDINGS = Path(__file__).resolve().parents[3] / "recordings"
TIMEOUT_S = 60


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "ctxscope.cli", "replay", *args]


def _run(*args: str) -> CliResult:
    """`ctxscope replay ARGS` in-process: the errors checked here happen before anything is served."""
    return run_cli("replay", *args)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONWARNINGS": "ignore"}


def _assert_one_line_error(result: CliResult, *fragments: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


HEADER = {"kind": "header", "format": "ctxscope-recording", "created_at": 0.0, "tool": "test", "meta": {}}


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("", "is empty"),
        ("# just some notes\nnot json at all\n", "neither a ctxscope recording nor a script cassette"),
        ('{"kind": "header", "format": "ctxscope-rec', "neither a ctxscope recording nor a script cassette"),
        (json.dumps({"hello": "world"}), "neither a ctxscope recording nor a script cassette"),
        (json.dumps({**HEADER, "version": "9.0"}) + "\n", "newer ctxscope"),
        (json.dumps({**HEADER, "version": "1.0"}) + "\n", "holds no exchanges"),
        (json.dumps({"format": "ctxscope-script", "responses": [{"txt": "x"}]}), "unknown key 'txt'"),
    ],
)
def test_bad_files_get_a_one_line_error(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "cassette.jsonl"
    path.write_text(content)
    _assert_one_line_error(_run(str(path), "--listen", "127.0.0.1:0"), fragment)


def test_missing_file_and_bad_options(tmp_path: Path) -> None:
    _assert_one_line_error(_run(str(tmp_path / "nope.jsonl")), "does not exist")
    example = str(RECORDINGS / "script-example.json")
    _assert_one_line_error(_run(example, "--match", "fuzzy"), "unknown --match 'fuzzy'")
    _assert_one_line_error(_run(example, "--pace", "slow"), "unknown --pace 'slow'")
    _assert_one_line_error(_run(example, "--ignore", "input["), "bad --ignore")
    _assert_one_line_error(_run(example, "--listen", "127.0.0.1:http"), "bad --listen")
    _assert_one_line_error(_run(example, "--match-on", "method,colour"), "unknown matcher 'colour'")
    _assert_one_line_error(_run(example, "--map-path", "/only/one"), "--map-path wants OLD=NEW")


def test_port_already_taken() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = _run(str(RECORDINGS / "script-example.json"), "--listen", f"127.0.0.1:{port}")
    _assert_one_line_error(result, "already in use")


class _Served:
    """A replay subprocess; knows its URL once it has printed it."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            _cli(*args, "--listen", "127.0.0.1:0", "--exit-when-done"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        self.lines: list[str] = []
        self.url = ""
        assert self.proc.stdout is not None
        for _ in range(50):  # bounded: the banner is a handful of lines
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line.rstrip("\n"))
            if line.startswith("listening on "):
                self.url = line.split()[2]
                break
        assert self.url, "\n".join(self.lines) + (self.proc.stderr.read() if self.proc.stderr else "")

    def finish(self) -> tuple[int, str]:
        out, err = self.proc.communicate(timeout=TIMEOUT_S)
        assert "Traceback" not in err, err
        return self.proc.returncode, "\n".join(self.lines) + "\n" + out

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate(timeout=TIMEOUT_S)


def test_serves_a_script_and_exits_when_done() -> None:
    served = _Served(str(RECORDINGS / "script-example.json"))
    try:
        with httpx.Client(timeout=30) as client:
            statuses = [
                client.post(served.url + "/v1/responses", json={"stream": True}).status_code for _ in range(3)
            ]
        code, out = served.finish()
    finally:
        served.kill()
    assert statuses == [200, 200, 200]
    assert code == 0, out
    assert "script cassette, 3 model responses" in out
    assert "served 3/3 model responses" in out


def test_strict_mismatch_is_printed_and_exits_1(tmp_path: Path) -> None:
    from tests.proxy.replay.replay_support import Run, codex_body, post, record_session, turn_replies

    run = Run(cwd="/home/ann/proj")
    report = tmp_path / "report.json"
    path = record_session(
        tmp_path / "r.jsonl", {}, turn_replies()[:1], lambda url: [post(url, codex_body(run, 1), run)]
    )
    served = _Served(str(path), "--report", str(report))
    try:
        changed = codex_body(run, 1, prompt="a different prompt, key sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4")
        answer = post(served.url, changed, run)
        code, out = served.finish()
    finally:
        served.kill()
    assert answer.status_code == 400
    assert code == 1
    assert "mismatch:" in out and "input[2].content[0].text differs" in out
    assert "1 mismatch" in out
    written = json.loads(report.read_text())
    [mismatch] = written["mismatches"]
    assert mismatch["served"] is False and mismatch["exchange"] == 0
    assert mismatch["differences"][0].startswith("input[2].content[0].text differs")
    assert mismatch["live_body"]["input"][2]["content"][0]["text"].startswith(
        "a different prompt, key <redacted:"
    )
    assert "sk-proj-A1b2" not in report.read_text()  # the live body is redacted like a recording


def test_the_addon_runs_under_plain_mitmdump(tmp_path: Path) -> None:
    mitmdump = Path(sys.executable).parent / "mitmdump"
    addon = Path(__file__).resolve().parents[3] / "proxy" / "replay" / "addon.py"
    args = [str(mitmdump), "--mode", "reverse:http://127.0.0.1:9", "-p", "0"]
    args += ["--set", "connection_strategy=lazy", "--set", f"confdir={tmp_path}", "-s", str(addon)]
    args += ["--set", f"cassette={RECORDINGS / 'script-example.json'}", "--set", "replay_match=sequential"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_env())
    try:
        assert proc.stdout is not None
        port = None
        for _ in range(50):  # bounded: a few start-up lines
            line = proc.stdout.readline()
            found = re.search(r"listening at \*?:?(\d+)", line)
            if found or not line:
                port = found.group(1) if found else None
                break
        assert port, "mitmdump did not report its port"
        with httpx.Client(timeout=30) as client:
            answer = client.post(f"http://127.0.0.1:{port}/v1/responses", json={"stream": True})
            models = client.get(f"http://127.0.0.1:{port}/v1/models")
    finally:
        proc.terminate()
        proc.communicate(timeout=TIMEOUT_S)
    assert answer.status_code == 200 and "response.completed" in answer.text
    assert models.json()["data"][0]["id"] == "gpt-5-codex"


def test_map_path_and_match_on_reach_the_replay(tmp_path: Path) -> None:
    """A tool path outside the checkout differs until `--map-path` pairs it; `--match-on` is applied."""
    from tests.proxy.replay.replay_support import Run, codex_body, post, record_session, turn_replies

    def body(run: Run, tools: str) -> dict[str, object]:
        out = codex_body(run, 1)
        out["instructions"] = f"Tools live in {tools}/bin."
        return out

    recorded, live = Run(cwd="/home/ann/proj"), Run(cwd="/srv/ci/proj")
    first = turn_replies()[:1]
    path = record_session(
        tmp_path / "r.jsonl", {}, first, lambda url: [post(url, body(recorded, "/opt/kit"), recorded)]
    )
    runs = (
        ("--match-on", "method,path,body"),
        ("--map-path", "/opt/kit=/usr/local/kit-2"),
        ("--match-on", "method,path"),
    )
    statuses = []
    for extra in runs:
        served = _Served(str(path), *extra)
        try:
            statuses.append(post(served.url, body(live, "/usr/local/kit-2"), live).status_code)
            code, out = served.finish()
        finally:
            served.kill()
        assert code == (1 if statuses[-1] == 400 else 0), out
    assert statuses == [400, 200, 200]
