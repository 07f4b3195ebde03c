"""Sending one request of a turn: the body built from the agent's state, the hooks, the stream.

The request carries the whole history, the router's tools snapshot, the model's options and the
Codex turn metadata (ids, window number, trigger, workspaces). `before_request` hooks see it last
(compaction and goal code read or adjust it); stream events go to the mode, and text and reasoning
deltas are shown as they arrive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ctxscope.harness.client import StreamResult
from ctxscope.harness.events import ReasoningDelta, TextDelta
from ctxscope.harness.request import TurnRequest, build_request
from ctxscope.harness.turn_metadata import TurnIds, workspace_status
from ctxscope.harness.wire.types import Event, OutputTextDelta, ReasoningSummaryTextDelta
from ctxscope.proxy.responses.vocabulary import RequestKind

if TYPE_CHECKING:
    from ctxscope.harness.loop_host import LoopHost

__all__ = ["agent_request", "rate_limits", "send_request"]

_RATE_LIMIT_PREFIXES = ("x-codex-primary", "x-codex-secondary", "x-codex-credits", "x-ratelimit-")


def agent_request(
    agent: LoopHost,
    input_items: list[dict[str, Any]],
    turn_id: str,
    *,
    tools: bool = True,
    request_kind: str = RequestKind.TURN.value,
) -> TurnRequest:
    """The one request builder for a session's turns and compactions: the agent's model, options,
    ids and turn metadata (window, trigger, `history_initialization`, the turn's start time, the
    workspaces), with `input_items` and the router's tools (or `tools: []`). The turn trigger is the
    one of the turn in progress (`agent.active_trigger`), so a compaction inside a goal turn says `goal`."""
    return build_request(
        model=agent.model,
        instructions=agent.instructions if agent.config.instructions_placement == "field" else None,
        input_items=input_items,
        tools=agent.router.specs() if tools else [],
        session_id=agent.session_id,
        turn_id=turn_id,
        options=agent.config.request_options(agent.model),
        window=agent.window,
        request_kind=request_kind,
        workspaces=workspace_status(agent.context.cwd),
        ids=TurnIds(
            session_id=agent.session_id,
            turn_id=turn_id,
            installation_id=agent.installation_id,
            window=agent.window,
            history_initialization=agent.history_initialization,
            turn_trigger=agent.active_trigger,
            turn_started_ms=agent.turn_started_ms,
        ),
    )


def send_request(agent: LoopHost, turn_id: str) -> StreamResult:
    """Build the next request from `agent`'s state, let the hooks see it, and stream it."""
    request = agent_request(agent, list(agent.history), turn_id)
    for hook in agent.before_request:
        hook(agent, request)
    agent.requests += 1

    def on_event(event: Event) -> None:
        agent.mode.on_stream_event(agent, event)
        if isinstance(event, OutputTextDelta):
            agent.emit(TextDelta(delta=event.delta))
        elif isinstance(event, ReasoningSummaryTextDelta):
            agent.emit(ReasoningDelta(delta=event.delta))

    return agent.client.stream(request, on_event=on_event)


def rate_limits(headers: dict[str, str]) -> dict[str, str]:
    """The rate-limit headers of a response (Codex's `x-codex-primary-*` and the like), lower-cased."""
    return {k.lower(): v for k, v in headers.items() if k.lower().startswith(_RATE_LIMIT_PREFIXES)}
