"""Answering one batch of tool calls: every call gets exactly one output item, in call order.

The model may ask for several calls in one response. A mode that allows it (`parallel_tool_calls`)
has the batch run concurrently; otherwise the calls run one after another, and once the mode ends
the step after a call (`EndStep`) the later calls are answered with the mode's message instead of
running. Either way the outputs and the events shown are written on the loop's thread, in call order,
and each outcome passes through the mode (`revise_outcome`, then `on_tool_outcome`).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ctxscope.harness.events import ToolCall, ToolOutput
from ctxscope.harness.modes import EndStep
from ctxscope.harness.tools import ToolOutcome

if TYPE_CHECKING:
    from ctxscope.harness.loop_host import LoopHost

__all__ = ["MAX_PARALLEL_TOOLS", "call_output", "missing_outputs", "run_tools"]

MAX_PARALLEL_TOOLS = 8
"""At most this many calls of one batch run at once (a batch is rarely larger; the rest wait)."""


def call_output(call: dict[str, Any], output: str) -> dict[str, Any]:
    """An output item answering `call` (function or custom) with `output`."""
    kind = "custom_tool_call_output" if call.get("type") == "custom_tool_call" else "function_call_output"
    return {"type": kind, "call_id": call.get("call_id"), "output": output}


def missing_outputs(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Calls in `history` without an output item (e.g. the harness died mid-step)."""
    answered = {
        i.get("call_id")
        for i in history
        if i.get("type") in ("function_call_output", "custom_tool_call_output")
    }
    return [
        i
        for i in history
        if i.get("type") in ("function_call", "custom_tool_call") and i.get("call_id") not in answered
    ]


def run_tools(agent: LoopHost, calls: Sequence[dict[str, Any]]) -> EndStep | None:
    """Answer each call, outputs appended in call order; the mode's `EndStep` if it ended the step."""
    if len(calls) > 1 and agent.mode.parallel_tool_calls:
        return _run_concurrently(agent, calls)
    for n, call in enumerate(calls):
        _announce(agent, call)
        end = _record(agent, agent.router.dispatch(call))
        if end is not None:
            for sibling in calls[n + 1 :]:
                data = agent.append_item(call_output(sibling, end.sibling_output))
                agent.emit(ToolOutput(call_id=data.get("call_id"), output=data.get("output")))
            return end
    return None


def _run_concurrently(agent: LoopHost, calls: Sequence[dict[str, Any]]) -> EndStep | None:
    """Every call of the batch runs at once (the tools touch no loop state); the history and the
    events are written here, on the loop's thread, in call order. All calls have run, so an
    `EndStep` can only end the step here, not keep siblings from running."""
    for call in calls:
        _announce(agent, call)
    workers = min(len(calls), MAX_PARALLEL_TOOLS)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tool") as pool:
        outcomes = list(pool.map(agent.router.dispatch, calls))
    end: EndStep | None = None
    for outcome in outcomes:
        end = _record(agent, outcome) or end
    return end


def _announce(agent: LoopHost, call: dict[str, Any]) -> None:
    agent.emit(
        ToolCall(
            name=call.get("name"),
            call_id=call.get("call_id"),
            arguments=call.get("arguments", call.get("input")),
        )
    )


def _record(agent: LoopHost, outcome: ToolOutcome) -> EndStep | None:
    """Append a call's output (as the mode revises it) and show it; the mode's verdict."""
    outcome = agent.mode.revise_outcome(agent, outcome)
    data = agent.append_item(outcome.item)
    agent.emit(ToolOutput(call_id=data.get("call_id"), output=data.get("output")))
    return agent.mode.on_tool_outcome(agent, outcome)
