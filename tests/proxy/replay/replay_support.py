"""Shared helpers for the replay tests: Codex-like request bodies and recording a session for real.

`codex_body(run, turn)` builds the request a Codex-style client sends on turn 1 or 2, with every
volatile value (cwd, session and installation ids, item and call ids, dates, timezone, tool timings)
taken from `run`, so two runs differ exactly where a real client's runs differ. `record_session`
records real traffic through the real Recorder against a FakeUpstream.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from ctxscope.proxy.recorder import Recorder
from ctxscope.proxy.runner import ProxyServer
from ctxscope.proxy.store.writer import RecordingWriter
from ctxscope.proxy.testing import (
    FakeUpstream,
    Reply,
    SseReply,
    function_call,
    response_stream,
    text_message,
    usage,
)


@dataclass
class Run:
    """The volatile values of one client run."""

    cwd: str
    session: str = field(default_factory=lambda: str(uuid.uuid4()))
    installation: str = field(default_factory=lambda: str(uuid.uuid4()))
    date: str = "2026-11-29"
    timezone: str = "Europe/Paris"
    version: str = "0.169.0"
    ids: str = field(default_factory=lambda: uuid.uuid4().hex[:12])


def codex_body(
    run: Run, turn: int, prompt: str = "List the files, then summarise README.md."
) -> dict[str, Any]:
    """A Codex-shaped `/responses` request body for turn 1 (initial) or 2 (after one tool call)."""
    env = (
        f"<environment_context>\n  <cwd>{run.cwd}</cwd>\n  <shell>bash</shell>\n"
        f"  <current_date>{run.date}</current_date>\n  <timezone>{run.timezone}</timezone>\n"
        "</environment_context>"
    )
    items: list[dict[str, Any]] = [
        {
            "type": "message",
            "role": "developer",
            "content": [
                {
                    "type": "input_text",
                    "text": "<permissions instructions>sandbox: workspace-write; writable roots: "
                    f"{run.cwd}, /tmp/codex-{run.ids}</permissions instructions>",
                }
            ],
        },
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": env}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]},
    ]
    if turn >= 2:
        call_id = f"call_{run.ids}"
        items += [
            {
                "type": "function_call",
                "id": f"fc_{run.ids}",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": "ls", "workdir": run.cwd}),
                "call_id": call_id,
            },
            {
                "type": "function_call_output",
                "call_id": call_id,
                "output": f"Chunk ID: {run.ids[:6]}\nWall time: 0.0{len(run.ids)}1 seconds\n"
                f"Process exited with code 0\nOutput:\n{run.cwd}/README.md\n",
            },
        ]
    metadata = {
        "request_kind": "turn",
        "cwd": run.cwd,
        "sandbox": "workspace-write",
        "turn_id": str(uuid.uuid4()),
    }
    return {
        "model": "gpt-5-codex",
        "instructions": "You are a careful coding agent.",
        "input": items,
        "tools": [
            {"type": "function", "name": "exec_command", "description": "Run a command.", "parameters": {}},
            {"type": "custom", "name": "apply_patch", "description": "Edit files."},
        ],
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "store": False,
        "stream": True,
        "include": ["reasoning.encrypted_content"],
        "prompt_cache_key": run.session,
        "client_metadata": {
            "x-codex-installation-id": run.installation,
            "session_id": run.session,
            "thread_id": run.session,
            "x-codex-window-id": f"{run.session}:0",
            "x-codex-turn-metadata": json.dumps(metadata),
        },
    }


def headers(run: Run) -> dict[str, str]:
    return {
        "authorization": "Bearer sk-test-not-a-real-key-0123456789",
        "session-id": run.session,
        "user-agent": f"codex_cli_rs/{run.version} (Linux; x86_64) xterm",
    }


def turn_replies() -> list[Reply]:
    """What the fake model answers on turns 1 and 2."""
    return [
        SseReply(
            response_stream(
                function_call("exec_command", {"cmd": "ls"}, call_id="call_up1"), usage=usage(50, 5)
            )
        ),
        SseReply(response_stream(text_message("README.md says hello."), usage=usage(80, 6))),
    ]


def record_session(
    path: Path,
    meta: dict[str, Any],
    replies: list[Reply],
    drive: Callable[[str], None],
) -> Path:
    """Record `drive(base_url)`'s traffic through the real Recorder against a FakeUpstream."""
    with FakeUpstream() as upstream:
        upstream.reply(*replies)
        writer = RecordingWriter(path, meta={"upstream": upstream.url, **meta})
        recorder = Recorder(writer)
        proxy = ProxyServer([recorder], upstream=upstream.url).start()
        try:
            drive(proxy.url)
        finally:
            recorder.drain()
            proxy.stop()
            writer.close()
    return path


def post(base_url: str, body: Any, run: Run, path: str = "/v1/responses") -> httpx.Response:
    """POST a body and read the whole answer."""
    with httpx.Client(timeout=30) as client:
        return client.post(base_url + path, json=body, headers=headers(run))
