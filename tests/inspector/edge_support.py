"""The hand-made edge recordings: each function returns a `Script` of Codex-like exchanges.

Written to disk with the proxy's `RecordingWriter` (by the `edge` fixture, and by
`tests/fixtures/inspector/make_fixtures.py` for the committed copies).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from ctxscope.proxy.model import TransportError
from tests.inspector.exchange_support import (
    TOOLS,
    Script,
    agents_md,
    body,
    call,
    completed,
    environment,
    fragment,
    initial_context,
    message,
)

SESSION = {"content-type": "application/json", "session-id": "sess-A"}


def _meta(kind: str) -> dict[str, str]:
    return {**SESSION, "x-codex-turn-metadata": json.dumps({"request_kind": kind})}


def compaction() -> Script:
    """Local compaction: a `request_kind: compaction` request, then the summarised history."""
    s = Script()
    ctx = initial_context()
    t1 = [*ctx, message("user", "fix the failing test")]
    s.request(body(t1), response=completed("resp_1", call("c1", "pytest")[:1]), headers=_meta("turn"))
    log = "FAILED tests/test_a.py::test_parse - AssertionError: expected 3, got 4\n" * 60
    t2 = [*t1, call("c1", "pytest")[0], {"type": "function_call_output", "call_id": "c1", "output": log}]
    s.request(body(t2), response=completed("resp_2", call("c2", "cat a.py")[:1]), headers=_meta("turn"))
    t3 = t2 + call("c2", "cat a.py") + [message("assistant", "Found it.")]
    s.request(body(t3), response=completed("resp_3"), headers=_meta("turn"))
    prompt = message("user", "Summarise the conversation so far for a handoff.")
    summary = "The user asked to fix a failing test; pytest showed a.py is wrong."
    s.request(
        body([*t3, prompt], tools=[]),
        headers=_meta("compaction"),
        response=completed("resp_4", [message("assistant", summary)]),
    )
    after = [
        message("user", "fix the failing test"),
        *ctx,
        message("user", fragment("compaction_summary", summary=summary)),
    ]
    s.request(body(after), response=completed("resp_5"), headers=_meta("turn"))
    return s


def remote_compaction() -> Script:
    """Remote compaction: `POST /responses/compact`, answered with a `compaction` item."""
    s = Script()
    ctx = initial_context()
    t1 = [*ctx, message("user", "hello")]
    s.request(body(t1), response=completed("resp_1"), headers=SESSION)
    t2 = [*t1, message("assistant", "done."), message("user", "more")]
    s.request(body(t2), response=completed("resp_2"), headers=SESSION)
    s.request(
        {"model": "gpt-5-codex", "input": t2, "instructions": "You are a coding agent."},
        endpoint="responses/compact",
        url="http://127.0.0.1:9/v1/responses/compact",
        headers=SESSION,
        response_body={"output": [{"type": "compaction", "encrypted_content": "opaque" * 40}]},
    )
    t4 = [{"type": "compaction", "encrypted_content": "opaque" * 40}, *ctx, message("user", "go on")]
    s.request(body(t4), response=completed("resp_4"), headers=SESSION)
    return s


def fork() -> Script:
    """Two branches from one conversation, no ids: turn 3 branches off turn 1, turn 4 continues turn 2."""
    s = Script()
    t1 = [*initial_context(), message("user", "plan the refactor")]
    s.request(body(t1), response=completed("resp_1", [message("assistant", "Plan: A then B.")]))
    t2 = [*t1, message("assistant", "Plan: A then B."), message("user", "do A")]
    s.request(body(t2), response=completed("resp_2"))
    t3 = [*t1, message("assistant", "Plan: A then B."), message("user", "do B instead")]
    s.request(body(t3), response=completed("resp_3"))
    t4 = [*t2, message("assistant", "A done."), message("user", "now B")]
    s.request(body(t4), response=completed("resp_4"))
    return s


def fork_with_ids() -> Script:
    """A new session id whose first request repeats another session's conversation."""
    s = Script()
    t1 = [*initial_context(), message("user", "plan the refactor")]
    s.request(body(t1), response=completed("resp_1"), headers=SESSION)
    t2 = [*t1, message("assistant", "Plan."), message("user", "do A")]
    s.request(body(t2), response=completed("resp_2"), headers=SESSION)
    t3 = [*t2, message("assistant", "A done."), message("user", "try B on a fork")]
    s.request(body(t3), response=completed("resp_3"), headers={**SESSION, "session-id": "sess-B"})
    return s


def rewrite() -> Script:
    """Turn 3 edits an item in the middle of the history (a tool output rewritten)."""
    s = Script()
    t1 = [*initial_context(), message("user", "run tests")]
    s.request(body(t1), response=completed("resp_1", call("c1", "pytest")[:1]))
    t2 = [*t1, *call("c1", "pytest"), message("assistant", "2 failed."), message("user", "why?")]
    s.request(body(t2), response=completed("resp_2"))
    t3 = list(t2)
    t3[4] = {"type": "function_call_output", "call_id": "c1", "output": "[output truncated]"}
    t3 += [message("assistant", "Looking."), message("user", "go")]
    s.request(body(t3), response=completed("resp_3"))
    return s


def chain() -> Script:
    """`previous_response_id`: over HTTP, then over a WebSocket `response.create` frame."""
    s = Script()
    t1 = [*initial_context(), message("user", "list files")]
    fc = {**call("c1", "ls")[0], "status": "completed"}
    s.request(body(t1, store=True), response=completed("resp_1", [fc]))
    s.request(
        body([call("c1", "ls")[1]], store=True, previous_response_id="resp_1"),
        response=completed("resp_2", [message("assistant", "Two files.")]),
    )
    frame = {
        "type": "response.create",
        **body([message("user", "thanks")], store=True),
        "previous_response_id": "resp_2",
    }
    s.request(frame, endpoint="websocket", url="ws://127.0.0.1:9/v1/responses", response=completed("resp_3"))
    s.request(
        body([message("user", "orphan")], previous_response_id="resp_missing"), response=completed("resp_4")
    )
    return s


def failed_stream() -> Script:
    """A failed response, a stream cut before `response.completed`, a reset, a 429, then success."""
    s = Script()
    t1 = [*initial_context(), message("user", "hi")]
    s.request(
        body(t1),
        response={
            "id": "resp_1",
            "status": "failed",
            "output": [],
            "usage": None,
            "error": {"code": "context_length_exceeded", "message": "too long"},
        },
        headers=SESSION,
    )
    s.request(
        body(t1),
        response={"id": "resp_2", "status": "in_progress", "output": [], "usage": None, "error": None},
        headers=SESSION,
    )
    s.request(
        body(t1),
        response=None,
        status=None,
        headers=SESSION,
        error=TransportError(kind="upstream_reset", message="connection reset by peer"),
    )
    s.request(
        body(t1),
        status=429,
        headers=SESSION,
        response_body={"error": {"code": "rate_limit_exceeded", "message": "slow down"}},
    )
    s.request(body(t1), response=completed("resp_5"), headers=SESSION)
    return s


def tools_reordered() -> Script:
    """Turn 2 sends the same tools in another order; turn 3 changes one tool's schema."""
    s = Script()
    t1 = [*initial_context(), message("user", "hi")]
    s.request(body(t1), response=completed("resp_1"))
    t2 = [*t1, message("assistant", "done."), message("user", "again")]
    s.request(body(t2, tools=list(reversed(TOOLS))), response=completed("resp_2"))
    changed = [dict(t) for t in TOOLS]
    changed[0] = {
        **changed[0],
        "parameters": {
            "type": "object",
            "properties": {"cmd": {"type": "string"}, "workdir": {"type": "string"}},
            "required": ["cmd"],
        },
    }
    t3 = [*t2, message("assistant", "done."), message("user", "once more")]
    s.request(body(t3, tools=[*changed[:2], {"type": "web_search"}]), response=completed("resp_3"))
    return s


def odd_input() -> Script:
    """Things that are not (quite) Responses requests: all shown or skipped, none fatal."""
    s = Script()
    s.request(
        {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]},
        endpoint="other",
        url="http://127.0.0.1:9/v1/chat/completions",
    )
    s.request(None, endpoint="other", url="http://127.0.0.1:9/v1/files", request_text="binary-ish")
    s.request({"model": "gpt-5-codex", "stream": True}, response=completed("resp_x"))
    items = [
        {"type": "mystery_item", "payload": {"x": 1}},
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_audio", "data": "…"}, {"type": "input_text", "text": "hi"}],
        },
        {"role": "user", "content": "a bare easy-input message"},
        "a bare string item",
        42,
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "thinking"}],
            "encrypted_content": "zzz",
        },
        {"type": "custom_tool_call", "call_id": "p1", "name": "apply_patch", "input": "*** Begin Patch"},
        {"type": "custom_tool_call_output", "call_id": "p1", "output": "ok"},
        {"type": "compaction_trigger"},
    ]
    s.request({"model": "gpt-5-codex", "input": items}, response=completed("resp_y"))
    s.request({"model": "gpt-5-codex", "input": "just a string prompt"}, response=completed("resp_z"))
    return s


def world() -> Script:
    """A session that changes directory into a package, selects a skill, switches mode and goal."""
    s = Script()
    t1 = [*initial_context(), message("user", "look around")]
    s.request(body(t1), response=completed("resp_1"), headers=SESSION)
    moved = message(
        "user", agents_md("/repo/pkg", "Package rules.", kind="agents_md_replaced"), environment("/repo/pkg")
    )
    perms = message(
        "developer",
        fragment(
            "permissions",
            sandbox_mode="workspace-write",
            approval_policy="never",
            network_enabled=True,
            writable_roots=["/repo/pkg", "/tmp"],
        ),
        fragment("collaboration_mode", mode="plan"),
    )
    skill = message(
        "user",
        fragment("selected_skill", name="demo-skill", path="/skills/demo-skill/SKILL.md", text="Say DEMO."),
    )
    t2 = [*t1, message("assistant", "ok"), perms, moved, message("user", "use $demo-skill"), skill]
    s.request(
        body(t2, model="gpt-5.1-codex", reasoning={"effort": "high"}),
        response=completed("resp_2"),
        headers=SESSION,
    )
    goal = message("user", fragment("goal", objective="ship the parser"))
    t3 = [*t2, message("assistant", "ok"), goal, message("user", "continue")]
    s.request(
        body(t3, model="gpt-5.1-codex", reasoning={"effort": "high"}),
        response=completed("resp_3"),
        headers=SESSION,
    )
    return s


def _backend(url: str, headers: dict[str, str], endpoint: str = "responses", **extra: object) -> Script:
    s = Script()
    t1 = [*initial_context(), message("user", "fix the failing test")]
    t2 = [*t1, message("assistant", "done."), message("user", "thanks")]
    for n, items in enumerate((t1, t2), start=1):
        request = body(items, **extra)
        if endpoint == "websocket":
            request = {"type": "response.create", **request}
        s.request(request, url=url, headers=headers, endpoint=endpoint, response=completed(f"resp_{n}"))
    return s


def backend_apikey() -> Script:
    """The task on the API-key backend (HTTP/SSE)."""
    return _backend(
        "https://api.openai.com/v1/responses",
        {
            "authorization": "Bearer <redacted:api_key:1a2b3c>",
            "openai-organization": "org-1",
            "originator": "codex_exec",
            "session-id": "s-1",
        },
    )


def backend_chatgpt() -> Script:
    """The same task on the ChatGPT backend (WebSocket, account header, a service tier)."""
    return _backend(
        "wss://chatgpt.com/backend-api/codex/responses",
        {
            "authorization": "Bearer <redacted:bearer:4d5e6f>",
            "chatgpt-account-id": "<redacted:account:7a8b9c>",
            "originator": "codex_exec",
            "session-id": "s-2",
        },
        endpoint="websocket",
        service_tier="priority",
    )


EDGES: dict[str, Callable[[], Script]] = {
    "compaction": compaction,
    "remote_compaction": remote_compaction,
    "fork": fork,
    "fork_with_ids": fork_with_ids,
    "rewrite": rewrite,
    "chain": chain,
    "failed_stream": failed_stream,
    "tools_reordered": tools_reordered,
    "odd_input": odd_input,
    "world": world,
    "backend_apikey": backend_apikey,
    "backend_chatgpt": backend_chatgpt,
}
