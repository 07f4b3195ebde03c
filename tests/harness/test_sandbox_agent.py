"""The agent tells the model and the person what the OS sandbox enforces, and planning commands
run in it too. Real proxy, script cassette, real commands."""

from __future__ import annotations

import io
import select
import socket
import sys
from pathlib import Path

import pytest

from ctxscope.harness.commands import run_command
from ctxscope.harness.events import Notice
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.harness.sandbox import Capabilities, capabilities, enforcement
from tests.harness.harness_support import PINNED_CONTEXT, make_repo, run_agent, write_config, write_script

CAPS = capabilities()


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    return make_repo(tmp_path)


def _permissions(body: dict[str, object]) -> str:
    texts = [
        part["text"]
        for item in body["input"]  # type: ignore[attr-defined]
        if item.get("role") == "developer"
        for part in item["content"]
        if "<permissions instructions>" in part.get("text", "")
    ]
    assert len(texts) == 1, texts
    return str(texts[0])


def _outputs(body: dict[str, object]) -> list[str]:
    return [i["output"] for i in body["input"] if i["type"] == "function_call_output"]  # type: ignore[attr-defined]


def test_the_permissions_text_and_status_say_what_the_kernel_enforces(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "hi"}])
    run = run_agent(repo, script, ["hello"], tmp_path / "cap.jsonl")
    text = _permissions(run.bodies()[0])
    assert f"Enforcement: {enforcement('workspace-write', False, CAPS)}" in text
    if CAPS.landlock and CAPS.namespaces:
        assert "writes outside the writable roots fail (Landlock)" in text and "Not enforced" not in text
        assert not [e for e in run.events if isinstance(e, Notice) and "sandbox" in e.message]
    options = AgentOptions(provider="script", script=script, cwd=repo, no_capture=True)
    with AgentRuntime(options) as runtime:
        out = io.StringIO()
        run_command("/status", runtime, out)
    assert f"  os_sandbox: {CAPS.summary()}; " in out.getvalue()


def test_without_kernel_support_the_agent_says_so(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The seam a kernel without Landlock or user namespaces would take (it cannot be faked for real).
    monkeypatch.setattr("ctxscope.harness.runtime.capabilities", lambda: Capabilities())
    script = write_script(tmp_path / "s.json", [{"text": "hi"}])
    run = run_agent(repo, script, ["hello"], tmp_path / "cap.jsonl")
    text = _permissions(run.bodies()[0])
    assert "Enforcement: Not enforced here: file writes (this kernel has no Landlock)" in text
    assert "network access (no user namespaces); keep to these rules yourself." in text
    notices = [e.message for e in run.events if isinstance(e, Notice)]
    assert any(
        n.startswith("sandbox `workspace-write`: the operating system cannot enforce file writes")
        for n in notices
    )


@pytest.mark.skipif(not CAPS.landlock, reason="this kernel has no Landlock")
def test_planning_commands_run_in_the_same_sandbox(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.setitem(PINNED_CONTEXT, "writable_roots", [repo])
    call = {"name": "exec_command", "arguments": {"cmd": f"echo x > {outside}/f", "login": False}}
    script = write_script(tmp_path / "s.json", [{"output": [{"function_call": call}]}, {"text": "noted"}])
    run = run_agent(repo, script, ["plan it"], tmp_path / "cap.jsonl", plan=True)
    (output,) = _outputs(run.bodies()[1])
    assert "Sandbox: the command ran in the `workspace-write` sandbox" in output
    assert "Permission denied" in output and list(outside.iterdir()) == []


@pytest.mark.skipif(not CAPS.namespaces, reason="no unprivileged user namespaces")
def test_codexs_sandbox_workspace_write_table_opens_the_network_and_adds_roots(
    repo: Path, tmp_path: Path, ctxscope_home: Path
) -> None:
    extra = tmp_path / "scratch"
    extra.mkdir()
    table = f'[sandbox_workspace_write]\nnetwork_access = true\nwritable_roots = ["{extra}"]\n'
    write_config(ctxscope_home, tmp_path / "skills", table)
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        cmd = f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5)\""
        call = {"name": "exec_command", "arguments": {"cmd": cmd, "login": False, "yield_time_ms": 60000}}
        script = write_script(tmp_path / "s.json", [{"output": [{"function_call": call}]}, {"text": "ok"}])
        run = run_agent(repo, script, ["connect"], tmp_path / "cap.jsonl")
        readable, _, _ = select.select([server], [], [], 5)
        assert readable == [server]  # the command reached the listener
        server.accept()[0].close()
    (output,) = _outputs(run.bodies()[1])
    assert "Process exited with code 0" in output, output
    text = _permissions(run.bodies()[0])
    assert "Network access is enabled." in text and f"`{extra}`" in text and "no network" not in text
