"""Codex's own rollout trace, imported: the real Codex CLI at both releases against a local upstream.

Each run is `codex exec "please run echo"` (a tool call, then an answer) and a resume, over HTTP
through the recording proxy, with `CODEX_ROLLOUT_TRACE_ROOT` set. The trace imported must hold the
same request bodies as the wire capture of the same run, body for body, and `ctxscope info` must count
them. Bad bundles (cut mid-write, an unknown schema_version, a corrupt shard) are one line each and
the rest is imported. Skipped, saying why, where npm cannot provide the release.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxscope.proxy.codex_trace import find_bundles, read_bundle, read_traces
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream, SseReply, capture_proxy, function_call, response_stream, text_message
from tests.cli_support import run_cli
from tests.proxy.codex_trace_support import plant
from tests.proxy.replay.codex_support import codex_binary, exec_codex

pytestmark = pytest.mark.slow

RELEASES = ("0.169.0", "0.171.0")
SCHEMA = {"0.169.0": 2, "0.171.0": 3}


def fake_model(request: Any) -> SseReply:
    items = request.json().get("input", [])
    if items and items[-1].get("type") == "function_call_output":
        return SseReply(response_stream(text_message("done")))
    if "please run echo" in json.dumps(items[-1:]):
        return SseReply(response_stream(function_call("exec_command", {"cmd": "echo hi"})))
    return SseReply(response_stream(text_message("ok")))


def traced_session(version: str, tmp_path: Path) -> tuple[Path, Path]:
    """The two-command session at `version`: (the wire capture, the trace root)."""
    binary = codex_binary(version)
    home, user, repo, traces = (tmp_path / n for n in ("home", "user", "repo", "traces"))
    for directory in (home, user, repo):
        directory.mkdir()
    wire = tmp_path / "wire.jsonl"
    with FakeUpstream(handler=fake_model) as upstream, capture_proxy(upstream.url, wire) as capture:
        (home / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "local"\nsandbox_mode = "workspace-write"\n'
            'approval_policy = "never"\n[model_providers.local]\nname = "local"\n'
            f'base_url = "{capture.url}/v1"\nwire_api = "responses"\nenv_key = "LOCAL_KEY"\n'
            "request_max_retries = 0\nstream_max_retries = 0\n"
        )
        with pytest.MonkeyPatch.context() as env:
            env.setenv("CODEX_ROLLOUT_TRACE_ROOT", str(traces))
            first = exec_codex(binary, home, user, repo, "please run echo")
            found = re.search(r"session id: (\S+)", first.stderr)
            assert found, first.stderr[-2000:]
            exec_codex(binary, home, user, repo, "resume", found.group(1), "second prompt")
        capture.wait_for(3)
    return wire, traces


@pytest.fixture(scope="module", params=RELEASES)
def session(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, Path]:
    version: str = request.param
    tmp = tmp_path_factory.mktemp(f"codex-{version}")
    wire, traces = traced_session(version, tmp)
    return version, wire, traces


def test_imported_trace_equals_the_wire_capture_body_for_body(session: tuple[str, Path, Path], tmp_path: Path) -> None:
    version, wire, traces = session
    bundles, problems = find_bundles([traces])
    assert problems == [] and len(bundles) == 2  # the first run and the resume, the same rollout id
    assert {read_bundle(b).schema_version for b in bundles} == {SCHEMA[version]}
    out = tmp_path / "imported.jsonl"
    result = run_cli("import", "codex-trace", str(traces), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "3 inference(s) from 2 bundle(s), 1 tool run(s)" in result.stderr, result.stderr
    assert "warning" not in result.stderr

    captured = [e for e in read_recording(wire).exchanges if e.is_model_request]
    imported = read_recording(out).exchanges
    assert len(imported) == len(captured) == 3
    for number, (ours, theirs) in enumerate(zip(imported, captured, strict=True), start=1):
        assert ours.request_body == theirs.request_body, f"request {number} differs"
        assert ours.meta["codex_trace"]["reconstructed"] is True
        assert ours.meta["codex_trace"]["agent_path"] == "/root"
        assert ours.response is not None and theirs.response is not None
        assert ours.response["output"] == theirs.response["output"] or number == 1
    # the tool call's runtime is attached to the inference that asked for it
    [call] = [i for i in imported[0].response["output"] if i["type"] == "function_call"]  # type: ignore[index]
    run = imported[0].meta["codex_trace"]["tool_runs"][call["call_id"]]
    assert run["command"][-1] == "echo hi" and run["exit_code"] == 0 and run["status"] == "completed"
    assert run["ended_at_ms"] >= run["started_at_ms"]
    [sess] = read_recording(out).header.meta["codex_sessions"][:1]
    assert sess["approval_policy"] == "never" and sess["cwd"].endswith("repo")
    # 0.171.0 names the permissions profile; 0.169.0 writes the sandbox policy as Rust debug text
    assert sess.get("permissions_profile") == "workspace-write" or "WorkspaceWrite" in sess["sandbox_policy"]

    # the tool's own time and exit status, which no proxy sees, in show (text and JSON)
    shown = run_cli("show", str(out), "-t", "1")
    assert re.search(r"ran: (<1|[\d,]+) ms, exit 0", shown.stdout), shown.stdout
    doc = json.loads(run_cli("show", str(out), "-t", "1", "-f", "json").stdout)
    [timed] = [i for i in doc["turn"]["answer"]["output"] if i["type"] == "function_call"]
    assert timed["exit_code"] == 0 and timed["run_status"] == "completed" and timed["duration_ms"] >= 0

    info = run_cli("info", str(out))
    assert info.returncode == 0, info.stderr
    assert re.search(r"exchanges\s+3 \(responses 3\)", info.stdout), info.stdout
    assert re.search(r"threads\s+1 \(3 turns\)", info.stdout), info.stdout


def test_bad_bundles_are_one_line_each_and_the_rest_is_imported(
    session: tuple[str, Path, Path], tmp_path: Path
) -> None:
    version, _, traces = session
    bundles, _ = find_bundles([traces])
    first, second = sorted(bundles, key=lambda b: json.loads((b / "manifest.json").read_text())["started_at_unix_ms"])
    root = tmp_path / "bad"
    good, cut, unknown, corrupt = (root / n for n in ("good", "cut", "unknown", "corrupt"))
    for target in (good, cut, unknown, corrupt):
        shutil.copytree(first if target is not good else second, target)
    # cut mid-write: the event log stops inside a line, before recording_completed
    log = (cut / "trace.jsonl").read_bytes()
    (cut / "trace.jsonl").write_bytes(log[: len(log) * 2 // 3])
    manifest = json.loads((unknown / "manifest.json").read_text())
    (unknown / "manifest.json").write_text(json.dumps({**manifest, "schema_version": 99}))
    payloads = corrupt / "payloads"
    for file in payloads.iterdir():
        file.write_bytes(b"\x00garbage" * 8)

    out = tmp_path / "imported.jsonl"
    result = run_cli("import", "codex-trace", str(good), str(cut), str(unknown), str(corrupt), "-o", str(out))
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert "Traceback" not in result.stderr
    assert any("unknown" in w and "schema_version 99" in w for w in warnings), warnings
    assert any("cut" in w and "recording_completed" in w for w in warnings), warnings
    assert any("corrupt" in w and ("does not decode" in w or "cannot be read" in w) for w in warnings), warnings
    # the resumed run's bundle is whole, and the cut one keeps its inferences before the cut
    imported = read_recording(out).exchanges
    assert len(imported) >= 1
    assert any(e.request_body["input"][-1]["content"][0]["text"] == "second prompt" for e in imported)


def test_imported_session_replays_strictly_into_a_fresh_codex_elsewhere(
    session: tuple[str, Path, Path], tmp_path: Path
) -> None:
    from ctxscope.proxy.replay import serve_cassette

    version, wire, traces = session
    imported = tmp_path / "imported.jsonl"
    assert run_cli("import", "codex-trace", str(traces), "-o", str(imported)).returncode == 0
    binary = codex_binary(version)
    home, user, repo = (tmp_path / "elsewhere" / n for n in ("other-home", "person", "checkout"))
    for directory in (home, user, repo):
        directory.mkdir(parents=True)
    with serve_cassette(imported, match="strict", live_cwd=str(tmp_path / "elsewhere")) as server:
        (home / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "local"\nsandbox_mode = "workspace-write"\n'
            'approval_policy = "never"\n[model_providers.local]\nname = "local"\n'
            f'base_url = "{server.url}/v1"\nwire_api = "responses"\nenv_key = "LOCAL_KEY"\n'
            "request_max_retries = 0\nstream_max_retries = 0\n"
        )
        first = exec_codex(binary, home, user, repo, "please run echo")
        found = re.search(r"session id: (\S+)", first.stderr)
        assert found, first.stderr[-2000:]
        exec_codex(binary, home, user, repo, "resume", found.group(1), "second prompt")
        report = server.report
    assert report.problems() == [], report.problems()
    assert report.served == 3 and report.remaining == 0
    assert report.synthesised == 3  # every answer was built from the trace's output items
    assert "3 as streams synthesised" in report.summary()
    assert first.stdout.strip() == "done"


def test_import_holds_the_inferences_and_tool_calls_codex_trace_reduce_finds(
    session: tuple[str, Path, Path], tmp_path: Path
) -> None:
    import subprocess

    from ctxscope.proxy.codex_trace import bundle_exchanges

    version, _, traces = session
    binary = codex_binary(version)
    bundles, _ = find_bundles([traces])
    for bundle in bundles:
        state_file = tmp_path / f"{bundle.name}.json"
        reduced = subprocess.run(
            [str(binary), "debug", "trace-reduce", str(bundle), "-o", str(state_file)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        if reduced.returncode != 0 and "unrecognized subcommand" in reduced.stderr:
            pytest.skip(f"codex {version} has no `debug trace-reduce`")
        assert reduced.returncode == 0, reduced.stderr[-2000:]
        state = json.loads(state_file.read_text())
        imported = bundle_exchanges(read_bundle(bundle)).exchanges
        ours = {e.meta["codex_trace"]["inference_call_id"]: e for e in imported}
        assert set(ours) == set(state["inference_calls"])
        for call_id, call in state["inference_calls"].items():
            exchange = ours[call_id]
            assert exchange.response is not None and exchange.response["id"] == call["response_id"]
            assert exchange.request_body["model"] == call["model"]
            assert exchange.meta["codex_trace"]["thread_id"] == call["thread_id"]
            assert exchange.response["usage"]["output_tokens"] == call["usage"]["output_tokens"]
        runs = {k for e in imported for k in e.meta["codex_trace"].get("tool_runs", {})}
        visible = {t["model_visible_call_id"] for t in state["tool_calls"].values()}
        assert runs == visible


def test_a_secret_in_the_trace_never_reaches_the_imported_recording(
    session: tuple[str, Path, Path], tmp_path: Path
) -> None:
    _, _, traces = session
    secret = "sk-proj-" + "Q7vK2mX9pL4rT8wZ1nB6cY3hJ5dF0gS2aE7uI9oP4kM1"
    copy = tmp_path / "traces"
    shutil.copytree(traces, copy)
    for bundle in copy.iterdir():
        plant(bundle, "Output:\\nhi\\n", f"Output:\\nOPENAI_API_KEY={secret}\\n")  # the tool's output
    out = tmp_path / "imported.jsonl"
    result = run_cli("import", "codex-trace", str(copy), "-o", str(out))
    assert result.returncode == 0, result.stderr
    planted = read_traces([copy]).exchanges  # in memory only: the bundle does hold it
    assert any(secret in json.dumps(e.request_body) for e in planted)
    text = out.read_text()
    assert secret not in text and secret[8:24] not in text
    assert "OPENAI_API_KEY=<redacted:" in text
