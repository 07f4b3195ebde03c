"""Hand-made Codex-like exchanges for the inspector's edge-case recordings.

Context fragments are rendered with the harness's own definitions (`render_fragment`), so these
requests carry exactly the texts the inspector must recognise; files are written with the proxy's
real `RecordingWriter`, so they are real recordings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxscope.harness.context.fragments import render_fragment
from ctxscope.proxy.model import Exchange, TransportError
from ctxscope.proxy.store import RecordingWriter

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "name": "exec_command",
        "description": "Run a command.",
        "strict": False,
        "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]},
    },
    {
        "type": "function",
        "name": "view_image",
        "description": "Look at an image.",
        "strict": False,
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
    {
        "type": "custom",
        "name": "apply_patch",
        "description": "Edit files.",
        "format": {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"},
    },
]


def text_part(text: str, role: str = "user") -> dict[str, Any]:
    """One content part as the role sends it."""
    return {"type": "output_text" if role == "assistant" else "input_text", "text": text}


def message(role: str, *texts: str) -> dict[str, Any]:
    """A message item with one part per text."""
    return {"type": "message", "role": role, "content": [text_part(t, role) for t in texts]}


def fragment(kind: str, **values: Any) -> str:
    """A fragment's text in ctxscope's render (the harness's definition)."""
    return render_fragment(kind, values)


def environment(cwd: str, **extra: Any) -> str:
    """An environment_context fragment."""
    return fragment(
        "environment_context", cwd=cwd, shell="bash", current_date="2026-11-29", timezone="UTC", **extra
    )


def agents_md(path: str, text: str, kind: str = "agents_md") -> str:
    """An AGENTS.md fragment for `path` (its project documents only)."""
    return fragment(kind, path=path, project=text)


def initial_context(cwd: str = "/repo", sandbox: str = "workspace-write") -> list[dict[str, Any]]:
    """Codex's first-turn layout: developer fragments, then user fragments."""
    permissions = fragment(
        "permissions",
        sandbox_mode=sandbox,
        approval_policy="on-request",
        network_enabled=False,
        writable_roots=[cwd],
    )
    skills = fragment(
        "skills_catalog",
        skills=[{"name": "demo-skill", "description": "A demo.", "path": "/skills/demo-skill/SKILL.md"}],
    )
    return [
        message("developer", permissions, skills),
        message("user", agents_md(cwd, "Use pytest."), environment(cwd)),
    ]


def call(call_id: str, cmd: str) -> list[dict[str, Any]]:
    """A function call and its output, with per-response ids like Codex echoes back."""
    return [
        {
            "type": "function_call",
            "id": f"fc_{call_id}",
            "call_id": call_id,
            "name": "exec_command",
            "arguments": f'{{"cmd": "{cmd}"}}',
        },
        {"type": "function_call_output", "call_id": call_id, "output": f"ran {cmd}"},
    ]


def body(
    items: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    instructions: str = "You are a coding agent.",
    **extra: Any,
) -> dict[str, Any]:
    """A Codex-like Responses request body."""
    out: dict[str, Any] = {
        "model": "gpt-5-codex",
        "instructions": instructions,
        "input": items,
        "tools": TOOLS if tools is None else tools,
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "reasoning": {"effort": "medium"},
        "store": False,
        "stream": True,
        "include": ["reasoning.encrypted_content"],
    }
    out.update(extra)
    return out


def completed(
    rid: str, output: list[dict[str, Any]] | None = None, input_tokens: int = 1200, cached: int = 0
) -> dict[str, Any]:
    """A reconstructed completed response."""
    return {
        "id": rid,
        "model": "gpt-5-codex",
        "status": "completed",
        "output": output or [message("assistant", "done.")],
        "error": None,
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 5},
            "total_tokens": input_tokens + 20,
        },
    }


class Script:
    """Builds exchanges in order; `.write(path)` saves them as a real recording."""

    def __init__(self) -> None:
        self.exchanges: list[Exchange] = []

    def request(
        self,
        request_body: dict[str, Any] | None,
        *,
        response: dict[str, Any] | None = None,
        endpoint: str = "responses",
        url: str = "http://127.0.0.1:9/v1/responses",
        headers: dict[str, str] | None = None,
        status: int | None = 200,
        error: TransportError | None = None,
        response_body: Any = None,
        request_text: str | None = None,
    ) -> Exchange:
        """Append one exchange."""
        n = len(self.exchanges)
        exchange = Exchange(
            id=n,
            started_at=1_800_000_000.0 + n,
            ended_at=1_800_000_000.5 + n,
            method="POST",
            url=url,
            endpoint=endpoint,
            status=status,  # type: ignore[arg-type]
            request_headers=headers or {"content-type": "application/json"},
            request_body=request_body,
            request_text=request_text,
            response=response,
            response_body=response_body,
            error=error,
        )
        self.exchanges.append(exchange)
        return exchange

    def write(self, path: Path) -> Path:
        """Write every exchange with the proxy's writer."""
        with RecordingWriter(path, meta={"mode": "hand-made"}) as writer:
            for exchange in self.exchanges:
                writer.write(exchange)
        return path
