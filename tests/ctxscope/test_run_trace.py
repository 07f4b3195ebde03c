"""`ctxscope run -- codex exec …` holds its wire capture against Codex's own trace of the run.

The real Codex CLI at both releases, the built-in provider over the Responses WebSocket against
`WsUpstream` through the forward proxy (as in test_codex_websocket). The clean run ends saying the trace
agrees on every request and leaves no trace directory behind; a difference planted in a kept trace is
named by `ctxscope verify` with its request and JSON path. Skipped, saying why, where npm cannot
provide the release.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ctxscope.proxy.codex_trace import find_bundles, read_bundle
from ctxscope.proxy.testing import WsRequest, WsUpstream, function_call, text_message
from tests.cli_support import run_cli
from tests.proxy.codex_trace_support import plant
from tests.proxy.replay.codex_support import codex_binary

pytestmark = pytest.mark.slow


def _config(home: Path, base_url: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'model = "gpt-5.5"\nopenai_base_url = "{base_url}/v1"\n')


@pytest.mark.parametrize("version", ["0.169.0", "0.171.0"])
def test_run_says_codex_trace_agrees_and_verify_names_a_planted_difference(version: str, tmp_path: Path) -> None:
    binary = codex_binary(version)
    home, user, work, tmp = (tmp_path / n for n in ("home", "user", "work", "tmp"))
    for directory in (user, work, tmp):
        directory.mkdir()
    env = {"CODEX_HOME": str(home), "HOME": str(user), "CODEX_API_KEY": "sk-ws-test-key", "TMPDIR": str(tmp)}
    env.pop("CODEX_ROLLOUT_TRACE_ROOT", None)
    out, kept = tmp_path / "run.jsonl", tmp_path / "kept"
    command = [str(binary), "exec", "--skip-git-repo-check"]
    with WsUpstream() as upstream:
        _config(home, upstream.url)
        clean = run_cli("run", "--out", str(out), "--", *command, "say hi", cwd=work, env=env)
        kept_run = run_cli(
            "run",
            "--out",
            str(tmp_path / "kept.jsonl"),
            "--keep-trace",
            str(kept),
            "--",
            *command,
            "say hello",
            cwd=work,
            env=env,
        )
    assert clean.returncode == 0, clean.stderr
    # the prewarm frame opens the socket: Codex's trace holds the one real request, frame for frame
    assert "ctxscope run: Codex's own trace agrees on 1 of 1 requests (1 prewarm frame(s)" in clean.stderr, clean.stderr
    assert not [p for p in tmp.iterdir() if p.name.startswith("ctxscope-trace-")]  # nothing unredacted left
    assert kept_run.returncode == 0, kept_run.stderr
    assert "agrees on 1 of 1 requests" in kept_run.stderr, kept_run.stderr
    assert oct(kept.stat().st_mode & 0o777) == "0o700"

    same = run_cli("verify", str(tmp_path / "kept.jsonl"), str(kept))
    assert same.returncode == 0 and "agrees on 1 of 1 requests" in same.stdout, same.stdout + same.stderr
    # which form each side had: 0.169.0 traces the first request after a prewarm in full, 0.171.0 as the frame
    trace_form = {"0.169.0": "full", "0.171.0": "frame"}[version]
    assert f"recording: frame bodies, trace: {trace_form}" in same.stdout, same.stdout
    [bundle] = list(kept.iterdir())
    plant(bundle, "say hello", "say goodbye")
    planted = run_cli("verify", str(tmp_path / "kept.jsonl"), str(kept))
    assert planted.returncode == 1, planted.stdout + planted.stderr
    found = re.search(r"request 1 differs at (\S+)", planted.stdout)
    assert found, planted.stdout
    assert found.group(1).startswith("$.input[") and found.group(1).endswith(".text")
    assert "say" not in planted.stdout  # paths, never values
    assert json.loads((bundle / "manifest.json").read_text())["schema_version"] in (2, 3)


SECRET = "sk-proj-" + "Z3kQ9vL2mX7pR4tW8nB1cY6hJ0dF5gS3aE9uI2oP7kM4"
"""A credential the command prints: in the tool output, so in the next request and in Codex's trace."""


class _PrintsSecret:
    """The socket's real turns: run a command that prints the credential, then answer."""

    def __init__(self) -> None:
        self.turns = 0

    def __call__(self, request: WsRequest) -> list[list[dict[str, object]]]:
        self.turns += 1
        if self.turns == 1:
            return [function_call("exec_command", {"cmd": f"echo OPENAI_API_KEY={SECRET}"})]
        return [text_message("done")]


def _bundle_text(bundle: Path) -> str:
    """Everything a bundle holds, its payloads decoded (both layouts)."""
    read = read_bundle(bundle)
    refs = [v for e in read.events for v in e["payload"].values() if isinstance(v, dict) and "raw_payload_id" in v]
    return json.dumps([read.manifest, read.events, [read.payload(r) for r in refs]])


@pytest.mark.parametrize("version", ["0.169.0", "0.171.0"])
def test_a_secret_in_the_trace_is_redacted_as_the_recording_has_it_and_still_agrees(
    version: str, tmp_path: Path
) -> None:
    binary = codex_binary(version)
    home, user, work, tmp = (tmp_path / n for n in ("home", "user", "work", "tmp"))
    for directory in (user, work, tmp):
        directory.mkdir()
    env = {"CODEX_HOME": str(home), "HOME": str(user), "CODEX_API_KEY": "sk-ws-test-key", "TMPDIR": str(tmp)}
    out, kept = tmp_path / "run.jsonl", tmp_path / "kept"
    with WsUpstream(handler=_PrintsSecret()) as upstream:
        _config(home, upstream.url)
        command = [str(binary), "exec", "--skip-git-repo-check", "print the key"]
        run = run_cli("run", "--out", str(out), "--keep-trace", str(kept), "--", *command, cwd=work, env=env)
    assert run.returncode == 0, run.stderr
    # the secret is in the tool's output (the second request) and in Codex's trace of it: redacted with
    # the recording's own placeholder, the two are exactly equal
    assert "ctxscope run: Codex's own trace agrees on 2 of 2 requests" in run.stderr, run.stderr
    recording = out.read_text()
    assert SECRET not in recording and SECRET[8:30] not in recording
    placeholders = set(re.findall(r"OPENAI_API_KEY=(<redacted:[a-z_]+:\d+>)", recording))
    assert len(placeholders) == 1, placeholders  # one secret, one placeholder
    # the kept trace is the redacted copy: the same placeholder, and nowhere the secret
    [bundle] = find_bundles([kept])[0]
    text = _bundle_text(bundle)
    assert SECRET not in text and SECRET[8:30] not in text
    assert placeholders <= set(re.findall(r"OPENAI_API_KEY=(<redacted:[a-z_]+:\d+>)", text))
    on_disk = b"".join(p.read_bytes() for p in kept.rglob("*") if p.is_file())
    assert SECRET.encode() not in on_disk
    assert not [p for p in tmp.iterdir() if p.name.startswith("ctxscope-trace-")]  # Codex's own files are gone
    assert oct(kept.stat().st_mode & 0o777) == "0o700"
    # the kept copy still reads as a trace, and verify agrees with it
    same = run_cli("verify", str(out), str(kept))
    assert same.returncode == 0 and "agrees on 2 of 2 requests" in same.stdout, same.stdout + same.stderr
