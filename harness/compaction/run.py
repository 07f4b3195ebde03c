"""Compacting a session's history: the compaction request, the new window, and what is recorded.

Three forms behind one switch (`compaction` in config.toml), all shapes Codex sends:

- `local` (default): an ordinary `POST /responses` = the history + the compaction prompt as a user
  message, `tools: []`, `request_kind: "compaction"` in the turn metadata, the current window number.
  The answer's text is the summary; the window is rebuilt by `rebuild_window`.
- `remote`: `POST /responses/compact` with the history; the items it returns replace the history
  (the initial context is placed before the last user message among them).
- `remote_v2`: `POST /responses` whose input ends with a `compaction_trigger` item (header
  `x-codex-beta-features: remote_compaction_v2`); the `compaction` item it answers with stands for
  the history in the rebuilt window.

A compaction that fails (an error, no summary) leaves the history untouched and says so; the
caller decides whether the turn can go on. After a success the window number grows, the world-state
baseline is the state rendered into the new window (later diffs are against what the model now
sees), the mode's `on_compaction` items are appended, and the session file records the new window
(`compacted`), so a resume sends what the model saw last.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any, Literal

from ctxscope.harness.compaction.window import approx_tokens, real_user_messages, rebuild_window
from ctxscope.harness.context import message_item, render_fragment
from ctxscope.harness.errors import UpstreamError
from ctxscope.harness.events import Compacted
from ctxscope.harness.request import TurnRequest
from ctxscope.harness.send import agent_request
from ctxscope.harness.wire.types import MessageItem, to_wire
from ctxscope.proxy.responses.vocabulary import COMPACTION_TRIGGER, CodexHeader, RequestKind

if TYPE_CHECKING:
    from ctxscope.harness.loop_host import LoopHost

__all__ = ["COMPACTION_FORMS", "CompactionTrigger", "compact", "context_tokens", "over_threshold"]

CompactionTrigger = Literal["manual", "auto", "context_length"]
COMPACTION_FORMS = ("local", "remote", "remote_v2")
REMOTE_V2_HEADER = {CodexHeader.BETA_FEATURES.value: "remote_compaction_v2"}


def context_tokens(agent: LoopHost) -> int:
    """What the next request would hold: the last reported usage plus the items appended since
    (estimated); the whole history estimated when nothing was reported in this window yet."""
    reported, at = agent.usage_mark
    if reported is None:
        return approx_tokens(agent.instructions or "") + sum(approx_tokens(i) for i in agent.history)
    return reported + sum(approx_tokens(i) for i in agent.history[at:])


def over_threshold(agent: LoopHost) -> bool:
    """True when the next request would pass the auto-compaction limit (and there is history)."""
    limit = agent.config.auto_compact_limit(agent.model)
    return bool(agent.history) and limit is not None and context_tokens(agent) >= limit


def _request(
    agent: LoopHost, items: list[dict[str, Any]], turn_id: str, *, tools: bool = False
) -> TurnRequest:
    """A compaction request: the turn's own request (the one builder), marked `compaction`."""
    return agent_request(
        agent,
        items,
        turn_id,
        tools=tools,
        request_kind=RequestKind.COMPACTION.value,
    )


def _local(agent: LoopHost, turn_id: str) -> list[dict[str, Any]] | str:
    """The new history, or why there is none."""
    prompt = message_item("user", [render_fragment("compaction_prompt", {})])
    streamed = agent.client.stream(_request(agent, [*agent.history, prompt], turn_id))
    agent.requests += 1
    texts = [i.text() for i in streamed.items if isinstance(i, MessageItem) and i.role == "assistant"]
    summary = "\n".join(t for t in texts if t.strip()).strip()
    if not summary:
        return "the compaction answer had no summary text"
    return rebuild_window(agent.history, summary, _initial_context(agent))


def _remote(agent: LoopHost, turn_id: str) -> list[dict[str, Any]] | str:
    request = _request(agent, list(agent.history), turn_id, tools=True)
    output = agent.client.compact(request)
    agent.requests += 1
    if not output:
        return "/responses/compact returned no items"
    return _with_context(output, _initial_context(agent))


def _remote_v2(agent: LoopHost, turn_id: str) -> list[dict[str, Any]] | str:
    request = _request(agent, [*agent.history, {"type": COMPACTION_TRIGGER}], turn_id, tools=True)
    request.headers.update(REMOTE_V2_HEADER)
    streamed = agent.client.stream(request)
    agent.requests += 1
    items = [to_wire(i) for i in streamed.items]
    compaction = [i for i in items if i.get("type") in ("compaction", "context_compaction")]
    if not compaction:
        return "the compaction_trigger request was not answered with a compaction item"
    users = real_user_messages(agent.history)
    return _with_context([*users, *compaction], _initial_context(agent))


def _with_context(items: list[dict[str, Any]], context: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`items` with the initial context placed before the last user message (or first, if none)."""
    users = [
        n for n, i in enumerate(items) if i.get("type", "message") == "message" and i.get("role") == "user"
    ]
    at = users[-1] if users else 0
    return [*items[:at], *context, *items[at:]]


def _initial_context(agent: LoopHost) -> list[dict[str, Any]]:
    state, warnings = agent.context.collect()
    for warning in warnings:
        agent.notice(warning)
    agent.pending_baseline = state
    return agent.context.initial_items(state)


def compact(agent: LoopHost, trigger: CompactionTrigger, turn_id: str | None = None) -> bool:
    """Compact `agent`'s history (see the module docstring); False when it was left untouched."""
    if not agent.history:
        agent.notice("nothing to compact: the session has no history yet")
        return False
    form = agent.config.compaction
    before = len(agent.history)
    run = {"local": _local, "remote": _remote, "remote_v2": _remote_v2}[form]
    try:
        result = run(agent, turn_id or str(uuid.uuid4()))
    except UpstreamError as e:
        result = f"the compaction request failed ({e})"
    if isinstance(result, str):
        agent.pending_baseline = None
        agent.notice(f"compaction failed: {result}; the history is unchanged")
        agent.session.append("event", {"kind": "compaction_failed", "trigger": trigger, "message": result})
        return False
    first = agent.history[0]
    base_prompt_first = agent.config.instructions_placement == "input" and first.get("role") == "developer"
    if base_prompt_first and result[:1] != [first]:
        # The base prompt travels as input[0] and Codex keeps it through a compaction (observed).
        result = [first, *result]
    agent.window += 1
    agent.history = result
    agent.session.append(
        "compacted", {"history": result, "window": agent.window, "trigger": trigger, "form": form}
    )
    state = agent.pending_baseline
    agent.pending_baseline = None
    if state is not None:
        agent.baseline = state
        agent.session.append("world_state", {"state": agent.context.snapshot(state)})
    agent.usage_mark = (None, 0)
    for item in agent.mode.on_compaction(agent):
        agent.append_item(item)
    agent.emit(
        Compacted(trigger=trigger, window=agent.window, items_before=before, items_after=len(agent.history))
    )
    return True
