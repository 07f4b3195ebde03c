"""Codex's own trace of a compaction and of a subagent, imported: the real Codex CLI at both releases.

Each run goes through the recording proxy to a local upstream with `CODEX_ROLLOUT_TRACE_ROOT` set, and
the import is held against the wire capture of the same run, body for body (docs/codex-trace.md):

- a remote compaction (v2) with the built-in provider, over HTTP (`--disable responses_websockets`)
  and over the Responses WebSocket: `exec_command` reports a huge context, so Codex compacts mid-turn.
  The trace holds it as `compaction_request_started` with Codex's own account of the request; the
  import rebuilds the request as sent, equal to the wire's but for what the trace does not hold
  (the turn metadata's `compaction` details, a frame's send-time stamp);
- a local compaction (a custom provider) is not in the trace at all: the import has one request less;
- a subagent (`spawn_agent`, then `wait_agent`): the child's thread, its parent and nickname.

Skipped, saying why, where npm cannot provide the release.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.agents import agent_tree
from ctxscope.proxy.codex_trace import find_bundles, read_bundle, read_traces
from ctxscope.proxy.codex_trace.compaction import NOT_IN_TRACE, as_traced
from ctxscope.proxy.codex_trace.verify import verify_exchanges
from ctxscope.proxy.model import Exchange
from ctxscope.proxy.responses import compaction
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import (
    FakeUpstream,
    JsonReply,
    RecordedRequest,
    SseReply,
    WsRequest,
    WsUpstream,
    capture_proxy,
    function_call,
    response_stream,
    text_message,
    usage,
)
from tests.cli_support import run_cli
from tests.proxy.replay.codex_support import RUN_TIMEOUT_S, codex_binary

pytestmark = pytest.mark.slow

RELEASES = ("0.169.0", "0.171.0")
HUGE = usage(input_tokens=300_000, output_tokens=10)  # over model_auto_compact_token_limit: compact
SUMMARY = "SUMMARY: we ran echo."
NO_SOCKET = ("--disable", "responses_websockets", "--disable", "responses_websockets_v2")


def _codex(binary: Path, tmp: Path, config: str, prompt: str, *flags: str) -> str:
    """One `codex exec` in `tmp/repo` with its own CODEX_HOME and HOME, traced into `tmp/traces`."""
    home, user, repo = (tmp / n for n in ("home", "user", "repo"))
    for directory in (home, user, repo):
        directory.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(config)
    env = {
        **os.environ,
        "CODEX_HOME": str(home),
        "HOME": str(user),
        "CODEX_API_KEY": "sk-trace-test-key",
        "LOCAL_KEY": "x",
        "CODEX_ROLLOUT_TRACE_ROOT": str(tmp / "traces"),
    }
    proc = subprocess.run(
        [str(binary), "exec", *flags, "--skip-git-repo-check", prompt],
        cwd=repo,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    return proc.stdout


def _builtin(base_url: str) -> str:
    return (
        f'model = "gpt-5.5"\nopenai_base_url = "{base_url}/v1"\nsandbox_mode = "workspace-write"\n'
        "model_auto_compact_token_limit = 2000\n"
    )


def _custom(base_url: str, extra: str = "") -> str:
    return (
        f'model = "gpt-5.5"\nmodel_provider = "local"\nsandbox_mode = "workspace-write"\n{extra}'
        'approval_policy = "never"\n[model_providers.local]\nname = "local"\n'
        f'base_url = "{base_url}/v1"\nwire_api = "responses"\nenv_key = "LOCAL_KEY"\n'
        "request_max_retries = 0\nstream_max_retries = 0\n"
    )


def _wire(capture: Path) -> list[Exchange]:
    """The capture's model requests, without a socket's prewarm frames (no inference in the trace)."""
    exchanges = read_recording(capture).exchanges
    return [e for e in exchanges if e.is_model_request and e.request_body.get("generate") is not False]


def _imported(traces: Path, out: Path, said: str = "") -> list[Exchange]:
    result = run_cli("import", "codex-trace", str(traces), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr and said in result.stderr, result.stderr
    return read_recording(out).exchanges


def _http_compaction_model(request: RecordedRequest) -> SseReply | JsonReply:
    if not request.path.endswith("/responses"):
        return JsonReply({"models": []})  # a model-list refresh
    items = request.json().get("input", [])
    last = items[-1].get("type") if items else None
    if last == "compaction_trigger":
        return SseReply(response_stream(compaction("enc-compacted")))
    if last == "function_call_output" or any(i.get("type") == "compaction" for i in items):
        return SseReply(response_stream(text_message("done")))
    return SseReply(response_stream(function_call("exec_command", {"cmd": "echo hi"}), usage=HUGE))


class _WsCompactionModel:
    """The socket's real turns: `exec_command` reporting a huge context, then the answer."""

    def __init__(self) -> None:
        self.turns = 0
        self.huge: set[int] = set()

    def __call__(self, request: WsRequest) -> list[list[dict[str, Any]]]:
        self.turns += 1
        if self.turns == 1:
            self.huge.add(id(request))
            return [function_call("exec_command", {"cmd": "echo hi"})]
        return [text_message("done")]

    def usage(self, request: WsRequest) -> dict[str, Any] | None:
        return HUGE if id(request) in self.huge else None


def _assert_compaction_imported(wire: list[Exchange], imported: list[Exchange], endpoint: str) -> None:
    assert len(imported) == len(wire) == 3
    kinds = [e.meta["codex_trace"].get("kind", "inference") for e in imported]
    assert kinds == ["inference", "compaction", "inference"]
    for number, (theirs, ours) in enumerate(zip(wire, imported, strict=True), start=1):
        assert ours.endpoint == theirs.endpoint == endpoint
        if number == 2:
            assert ours.meta["codex_trace"]["not_in_trace"] == list(NOT_IN_TRACE)
            assert ours.request_body != theirs.request_body  # the trace lacks the compaction details
            assert as_traced(ours.request_body) == as_traced(theirs.request_body), "the compaction request"
            assert ours.request_body["input"][-1] == {"type": "compaction_trigger"}
            assert theirs.response is not None and ours.response is not None
            assert ours.response["output"] == theirs.response["output"]  # the one compaction item
        else:
            assert ours.request_body == theirs.request_body, f"request {number} differs"
    # the request after the compaction carries its item, as the wire's did
    assert any(i.get("type") == "compaction" for i in imported[2].request_body["input"])


@pytest.mark.parametrize("version", RELEASES)
def test_a_remote_compaction_over_http_is_imported_as_the_request_the_wire_carried(
    version: str, tmp_path: Path
) -> None:
    binary = codex_binary(version)
    capture = tmp_path / "wire.jsonl"
    with FakeUpstream(handler=_http_compaction_model) as upstream, capture_proxy(upstream.url, capture) as cap:
        said = _codex(binary, tmp_path, _builtin(cap.url), "please run echo", *NO_SOCKET)
        cap.wait_for(3)
    assert said.strip() == "done"
    bundles, _ = find_bundles([tmp_path / "traces"])
    events = [e["payload"]["type"] for b in bundles for e in read_bundle(b).events]
    assert {"compaction_request_started", "compaction_request_completed", "compaction_installed"} <= set(events)
    wire = _wire(capture)
    imported = _imported(tmp_path / "traces", tmp_path / "imported.jsonl", "2 inference(s) and 1 compaction(s)")
    _assert_compaction_imported(wire, imported, "responses")
    # the HTTP compaction request is in full form: the history, the tool call and output, the trigger
    assert imported[1].request_body["input"][:-3] == imported[0].request_body["input"]
    assert [i["type"] for i in imported[1].request_body["input"][-3:]] == [
        "function_call",
        "function_call_output",
        "compaction_trigger",
    ]
    # both witnesses agree on all three requests, the compaction among them
    agreement = verify_exchanges(read_recording(capture).exchanges, imported)
    assert agreement.ok, agreement.line()
    info = run_cli("info", str(tmp_path / "imported.jsonl"))
    assert info.returncode == 0 and "compaction" in info.stdout, info.stdout

    # the import replays strictly into a fresh Codex elsewhere, which compacts again: all 3 served
    from ctxscope.proxy.replay import serve_cassette

    elsewhere = tmp_path / "elsewhere"
    with serve_cassette(tmp_path / "imported.jsonl", match="strict", live_cwd=str(elsewhere)) as server:
        said = _codex(binary, elsewhere, _builtin(server.url), "please run echo", *NO_SOCKET)
        report = server.report
    assert said.strip() == "done"
    assert report.problems() == [] and report.served == 3 and report.remaining == 0, report.summary()
    assert report.synthesised == 3


@pytest.mark.parametrize("version", RELEASES)
def test_a_remote_compaction_over_the_websocket_is_imported_as_the_frame_sent(version: str, tmp_path: Path) -> None:
    binary = codex_binary(version)
    capture = tmp_path / "wire.jsonl"
    model = _WsCompactionModel()
    with WsUpstream(handler=model, usage=model.usage) as upstream, capture_proxy(upstream.url, capture) as cap:
        said = _codex(binary, tmp_path, _builtin(cap.url), "please run echo")
    assert said.strip() == "done"
    wire = _wire(capture)
    imported = _imported(tmp_path / "traces", tmp_path / "imported.jsonl")
    if version == "0.169.0":
        # 0.169.0 traces a socket's first request in full form: the chain is rebuilt to compare it
        agreement = verify_exchanges(read_recording(capture).exchanges, imported)
        assert agreement.ok, agreement.line()
        [compacting] = [e for e in imported if e.meta["codex_trace"].get("kind") == "compaction"]
        assert compacting.request_body["input"][-1] == {"type": "compaction_trigger"}
        return
    _assert_compaction_imported(wire, imported, "websocket")
    # mid-turn on a socket: chained to the answer that called the tool, the output and the trigger
    frame = imported[1].request_body
    assert frame["type"] == "response.create"
    assert frame["previous_response_id"] == imported[0].response["id"]  # type: ignore[index]
    assert [i["type"] for i in frame["input"]] == ["function_call_output", "compaction_trigger"]
    agreement = verify_exchanges(read_recording(capture).exchanges, imported)
    assert agreement.ok, agreement.line()


def test_a_local_compaction_is_not_in_the_trace(tmp_path: Path) -> None:
    """A custom provider compacts locally (a `/responses` request with Codex's compaction prompt):
    Codex 0.171.0 writes no event for it, so the import holds every other request, body for body."""
    binary = codex_binary("0.171.0")

    def model(request: RecordedRequest) -> SseReply:
        items = request.json().get("input", [])
        if '"compaction"' in request.headers.get("x-codex-turn-metadata", ""):
            return SseReply(response_stream(text_message(SUMMARY)))
        if (items and items[-1].get("type") == "function_call_output") or SUMMARY in json.dumps(items[-3:]):
            return SseReply(response_stream(text_message("done")))
        return SseReply(response_stream(function_call("exec_command", {"cmd": "echo hi"}), usage=HUGE))

    capture = tmp_path / "wire.jsonl"
    with FakeUpstream(handler=model) as upstream, capture_proxy(upstream.url, capture) as cap:
        _codex(binary, tmp_path, _custom(cap.url, "model_auto_compact_token_limit = 2000\n"), "please run echo")
        cap.wait_for(3)
    wire = _wire(capture)
    kinds = [json.loads(e.request_headers["x-codex-turn-metadata"])["request_kind"] for e in wire]
    assert kinds == ["turn", "compaction", "turn"]
    imported = _imported(tmp_path / "traces", tmp_path / "imported.jsonl")
    assert [e.request_body for e in imported] == [wire[0].request_body, wire[2].request_body]
    agreement = verify_exchanges(read_recording(capture).exchanges, imported)
    assert not agreement.ok and str(agreement.difference).startswith("request 2 differs at $.input")


def _subagent_model(request: RecordedRequest) -> SseReply:
    """The parent spawns one agent and waits for it; the child says hi; anything else is answered done
    (0.169.0 also tells the parent the child finished, as a `<subagent_notification>` user message)."""
    items = request.json().get("input", [])
    last = json.dumps(items[-1:])
    if "Say hi and stop." in last and "function_call" not in last:
        return SseReply(response_stream(text_message("hi")))
    if "spawn one agent" in last:
        spawn = {"message": "Say hi and stop."}
        return SseReply(response_stream(function_call("spawn_agent", spawn, namespace="multi_agent_v1")))
    output = items[-1].get("output") if items else None
    if isinstance(output, str) and '"agent_id"' in output:
        wait = {"targets": [json.loads(output)["agent_id"]], "timeout_ms": 30000}
        return SseReply(response_stream(function_call("wait_agent", wait, namespace="multi_agent_v1")))
    return SseReply(response_stream(text_message("done")))


@pytest.mark.parametrize("version", RELEASES)
def test_a_subagent_is_imported_in_its_own_thread_with_its_parent(version: str, tmp_path: Path) -> None:
    binary = codex_binary(version)
    capture = tmp_path / "wire.jsonl"
    with FakeUpstream(handler=_subagent_model) as upstream, capture_proxy(upstream.url, capture) as cap:
        said = _codex(binary, tmp_path, _custom(cap.url), "spawn one agent")
        cap.wait_for(len(read_traces([tmp_path / "traces"]).exchanges))  # as many as Codex traced
    assert said.strip() == "done"
    wire = _wire(capture)
    imported = _imported(tmp_path / "traces", tmp_path / "imported.jsonl")
    # spawn, wait, the child's one turn, done (and with 0.169.0 maybe a turn for its notification)
    assert len(imported) == len(wire) >= 4
    for number, (theirs, ours) in enumerate(zip(wire, imported, strict=True), start=1):
        assert ours.request_body == theirs.request_body, f"request {number} differs"
    notes = [e.meta["codex_trace"] for e in imported]
    [child] = [n for n in notes if "subagent" in n]
    parent = notes[0]["thread_id"]
    # the child's own thread, the wire's thread-id header; multi_agent_v1 gives it agent_path /root too
    [child_wire] = [e for e in wire if e.request_headers.get("x-openai-subagent") == "collab_spawn"]
    assert child["thread_id"] == child_wire.request_headers["thread-id"] != parent
    assert child["subagent"]["parent_thread_id"] == parent == child_wire.request_headers["x-codex-parent-thread-id"]
    assert child["subagent"]["depth"] == 1 and child["subagent"]["nickname"]
    assert child["agent_path"] == "/root"
    # the spawn's runtime names the child it started
    runs = {k: v for e in imported for k, v in e.meta["codex_trace"].get("tool_runs", {}).items()}
    assert any(r.get("new_thread_id") == child["thread_id"] for r in runs.values()), runs
    sessions = read_recording(tmp_path / "imported.jsonl").header.meta["codex_sessions"]
    assert [s["thread_id"] for s in sessions] == [parent, child["thread_id"]]
    # one account: the inspector's agent tree of the import is the wire's (the child, spawned by main)
    trees = [
        [(a.name, a.parent, a.turns, a.spawned_in, a.result_in) for a in agent_tree(analyse_recording(path))]
        for path in (capture, tmp_path / "imported.jsonl")
    ]
    assert trees[0] == trees[1] and len(trees[0]) == 2 and trees[0][1][1] == "main", trees
