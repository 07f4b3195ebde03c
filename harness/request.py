"""Build one Responses request (body + headers) the way Codex does, for every provider alike.

The body carries the whole history each time (`store: false`), the tools snapshot the router gave
for this step, the session id as `prompt_cache_key`, and Codex's `client_metadata` keys
(`ctxscope.harness.turn_metadata`); the headers carry session/turn metadata (`session-id`, `thread-id`,
`x-client-request-id`, `x-codex-window-id`, `x-codex-turn-metadata`, `originator: ctxscope`, a
`User-Agent`). Credentials are added later by the client, from the
provider, so nothing built here is secret and it can be logged or stored.
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass, field
from typing import Any

from ctxscope.harness.turn_metadata import TurnIds, client_metadata
from ctxscope.proxy.responses.vocabulary import CodexHeader, RequestKind
from ctxscope.proxy.version import installed_version

__all__ = ["ORIGINATOR", "RequestOptions", "TurnRequest", "build_request", "user_agent"]

ORIGINATOR = "ctxscope"


def user_agent() -> str:
    """`ctxscope/<version> (<os> <release>; <arch>) <terminal>`, shaped like Codex's."""
    terminal = os.environ.get("TERM_PROGRAM") or os.environ.get("TERM") or "unknown"
    system = f"{platform.system()} {platform.release()}; {platform.machine()}"
    return f"{ORIGINATOR}/{installed_version()} ({system}) {terminal}"


@dataclass(frozen=True)
class RequestOptions:
    """Per-session knobs of the request body."""

    reasoning_effort: str | None = "medium"
    reasoning_summary: str | None = None
    parallel_tool_calls: bool = True
    verbosity: str | None = None
    """`text: {verbosity}` when set (per the model catalog)."""
    sandbox: str = "workspace-write"
    extra_body: dict[str, Any] = field(default_factory=dict)
    """Fields merged into the body last (e.g. `text`, `service_tier`)."""


@dataclass
class TurnRequest:
    """A built request: JSON body and non-secret headers."""

    body: dict[str, Any]
    headers: dict[str, str]


def build_request(
    *,
    model: str,
    instructions: str | None,
    input_items: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    session_id: str,
    turn_id: str,
    options: RequestOptions = RequestOptions(),
    window: int = 0,
    request_kind: str = RequestKind.TURN.value,
    workspaces: dict[str, dict[str, Any]] | None = None,
    ids: TurnIds | None = None,
) -> TurnRequest:
    """The body and headers of one `POST {base}/responses`.

    `ids` carries the thread/turn/window ids and what started the turn (built from `session_id`,
    `turn_id` and `window` when not given); `request_kind` is `turn`, or `compaction` for a
    summarising request; `workspaces` is `turn_metadata.workspace_status` of the cwd.
    """
    if ids is None:
        ids = TurnIds(session_id=session_id, turn_id=turn_id, installation_id="", window=window)
    metadata = client_metadata(
        ids,
        request_kind=request_kind,
        model=model,
        reasoning_effort=options.reasoning_effort,
        sandbox_mode=options.sandbox,
        workspaces=workspaces or {},
    )
    # Key order as Codex CLI 0.169 sends them (a diff of two bodies then lines up).
    body: dict[str, Any] = {"model": model}
    if instructions is not None:
        body["instructions"] = instructions
    body["stream"] = True
    body["input"] = input_items
    body["tools"] = tools
    body["tool_choice"] = "auto"
    body["parallel_tool_calls"] = options.parallel_tool_calls
    reasoning = {
        k: v for k, v in (("effort", options.reasoning_effort), ("summary", options.reasoning_summary)) if v
    }
    if reasoning:
        body["reasoning"] = reasoning
    body["store"] = False
    body["include"] = ["reasoning.encrypted_content"] if reasoning else []
    body["prompt_cache_key"] = ids.session_id
    if options.verbosity:
        body["text"] = {"verbosity": options.verbosity}
    body["client_metadata"] = metadata
    body.update(options.extra_body)
    headers = {
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
        CodexHeader.SESSION.value: ids.session_id,
        CodexHeader.THREAD.value: ids.session_id,
        # Constant per thread, as in Codex (it is the thread id there too).
        CodexHeader.CLIENT_REQUEST_ID.value: ids.session_id,
        CodexHeader.WINDOW_ID.value: ids.window_id,
        CodexHeader.TURN_METADATA.value: metadata[CodexHeader.TURN_METADATA.value],
        CodexHeader.ORIGINATOR.value: ORIGINATOR,
        "User-Agent": user_agent(),
    }
    return TurnRequest(body=body, headers=headers)
