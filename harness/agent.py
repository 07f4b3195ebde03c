"""The agent loop: world state → request → stream → tool calls → repeat, all append-only.

One turn:
1. Rebuild the world state. The first request of a session (or after a compaction, later issue)
   gets the full render (`initial_context_items`); every later request gets only the sections that
   changed (`context_update_items(baseline, current)`), usually nothing.
2. Append the user prompt, then the full text of each `$skill` it mentions.
3. Stream the request (tools = the router's snapshot for this step); append every output item.
4. Answer each function/custom tool call with exactly one output item (`router.handle` never
   raises); loop until the model answers with no tool call, at most `max_steps` requests.

Every history item and world-state snapshot goes to the session file as it happens, so a crash or
an upstream failure mid-turn leaves a session that resumes where it stopped.

Seams for later issues: `mode` (consulted for the tool router and the turn context: plan mode),
`before_request` hooks (called with the built request before each send: compaction, goal),
and typed session entries.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness.client import ResponsesClient, StreamResult
from harness.config import HarnessConfig
from harness.context import base_prompt_item
from harness.context_bridge import ContextBridge
from harness.request import TurnRequest, build_request
from harness.session.store import ResumedSession, SessionStore
from harness.turn_metadata import TurnIds, installation_id, message_id, workspace_status
from harness.wire.types import (
    MessageItem,
    OutputTextDelta,
    ReasoningSummaryTextDelta,
    is_tool_call,
    to_wire,
)
from proxy.errors import ConfigError

__all__ = ["Agent", "AgentMode", "DefaultMode", "EventSink", "RequestHook", "TurnResult", "user_message"]

EventSink = Callable[[dict[str, Any]], None]
"""Receives agent events: `{"type": "text_delta" | "tool_call" | "tool_output" | "notice" | ..., ...}`."""


class AgentMode(Protocol):
    """What the loop asks a collaboration mode (plan mode implements this in a later issue).

    `name` goes to the tool router (its gate decides what is visible/refused); `collaboration_mode`
    goes to the world state (None: no collaboration-mode fragment at all, like `codex exec`), so a
    mode change reaches the model as an appended fragment, never a rewrite.
    """

    name: str
    collaboration_mode: str | None

    def on_turn_start(self, agent: Agent) -> None: ...

    def on_stream_event(self, agent: Agent, event: Any) -> None: ...

    def on_turn_end(self, agent: Agent, result: TurnResult) -> None: ...


@dataclass
class DefaultMode:
    """No mode behaviour: every tool visible, nothing injected."""

    name: str = "default"
    collaboration_mode: str | None = None

    def on_turn_start(self, agent: Agent) -> None:
        return None

    def on_stream_event(self, agent: Agent, event: Any) -> None:
        return None

    def on_turn_end(self, agent: Agent, result: TurnResult) -> None:
        return None


RequestHook = Callable[["Agent", TurnRequest], None]


@dataclass
class TurnResult:
    """What one turn produced."""

    final_text: str
    steps: int
    stopped: str = "completed"
    """`completed`, or `max_steps` when the loop hit its bound with tool calls still coming."""
    usage: list[dict[str, Any]] = field(default_factory=list)


def user_message(text: str) -> dict[str, Any]:
    """A plain user message item."""
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def history_form(item: Any) -> dict[str, Any]:
    """An item as it goes into `input[]`: exactly as the server sent it (ids and status kept —
    openai-python's input types require the `id` of a reasoning item, and the inspector needs
    them to pair items across requests)."""
    return to_wire(item) if not isinstance(item, dict) else dict(item)


_ID_PREFIXES = {"function_call_output": "fco", "custom_tool_call_output": "ctco"}


def with_id(item: dict[str, Any]) -> dict[str, Any]:
    """The item with an id if it has none: Codex 0.169 ids every message it injects (`msg_…`) and
    every tool output (`fco_…`, `ctco_…`); items from the server keep the ids it gave."""
    if item.get("id"):
        return item
    if item.get("type") == "message":
        return {"type": "message", "id": message_id(), **{k: v for k, v in item.items() if k != "type"}}
    prefix = _ID_PREFIXES.get(str(item.get("type")))
    if prefix:
        return {
            "type": item["type"],
            "id": f"{prefix}_{uuid.uuid4()}",
            **{k: v for k, v in item.items() if k != "type"},
        }
    return item


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


class Agent:
    """One session's loop. Not thread-safe: one turn at a time."""

    def __init__(
        self,
        *,
        config: HarnessConfig,
        client: ResponsesClient,
        session: SessionStore,
        context: ContextBridge,
        router: Any,
        model: str | None = None,
        emit: EventSink | None = None,
        resumed: ResumedSession | None = None,
    ) -> None:
        self.config = config
        self.client = client
        self.session = session
        self.context = context
        self.router = router
        self.emit: EventSink = emit or (lambda _e: None)
        self.mode: AgentMode = DefaultMode()
        self.before_request: list[RequestHook] = []
        self.window = 0
        """Compaction count (the `n` of `x-codex-window-id`)."""
        self.model = model or config.model
        self.instructions = config.instructions_for(self.model)
        self.history: list[dict[str, Any]] = []
        self.baseline: Any = None
        """The world state the last request was built from; None = next request gets the full render."""
        self.requests = 0
        self.installation_id = installation_id()
        self.history_initialization = "cold_resume" if resumed is not None else "new"
        self.turn_trigger = "user"
        """What starts turns (`user`, `exec` for headless `-p`, `goal`): sent in the turn metadata."""
        self._turn_started_ms = 0
        self.rate_limits: dict[str, str] = {}
        """The backend's latest rate-limit headers (Codex's `x-codex-primary-*` and the like)."""
        if resumed is not None:
            self._resume(resumed)

    @property
    def session_id(self) -> str:
        return self.session.session_id

    # ---- state -------------------------------------------------------------------------------

    def _resume(self, resumed: ResumedSession) -> None:
        self.history = list(resumed.history)
        if resumed.model and resumed.model != self.model:
            self.model = resumed.model
            self.instructions = self.config.instructions_for(self.model)
        if resumed.world_state is not None:
            self.baseline = self.context.restore(resumed.world_state)
        self._answer_orphans()

    def _answer_orphans(self) -> None:
        """A call left without output (crash or Ctrl-C mid-step) would make the next request
        invalid: answer it, so the model learns the call did not finish."""
        for call in missing_outputs(self.history):
            self._append(self.router_aborted_output(call))

    @staticmethod
    def router_aborted_output(call: dict[str, Any]) -> dict[str, Any]:
        kind = "custom_tool_call_output" if call.get("type") == "custom_tool_call" else "function_call_output"
        return {
            "type": kind,
            "call_id": call.get("call_id"),
            "output": "aborted: the harness stopped before this call finished",
        }

    def _append(self, item: Any) -> dict[str, Any]:
        data = with_id(history_form(item))
        self.history.append(data)
        self.session.append("response_item", {"item": data})
        return data

    def notice(self, message: str) -> None:
        self.emit({"type": "notice", "message": message})
        self.session.append("event", {"kind": "notice", "message": message})

    def status(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "session_file": str(self.session.path),
            "model": self.model,
            "provider": self.client.provider.name,
            "base_url": self.client.base_url,
            "cwd": str(self.context.cwd),
            "mode": self.mode.name,
            "history_items": len(self.history),
            "requests": self.requests,
            "sandbox": self.config.sandbox,
            "approval": self.config.approval,
            **({"rate_limits": self.rate_limits} if self.rate_limits else {}),
        }

    # ---- commands ----------------------------------------------------------------------------

    def switch_model(self, name: str) -> None:
        """`/model NAME`: new model and instructions; a model-switch fragment is appended, history kept.

        Before anything was sent there is no earlier model to switch from: the first request simply
        goes to the new model (a switch fragment would otherwise precede the initial context)."""
        if name == self.model:
            return
        # Read the new instructions first: if the file is unreadable the agent stays on the old model.
        instructions = self.config.instructions_for(name)
        old, self.model, self.instructions = self.model, name, instructions
        self.context.set_model(name)
        self.router.set_apply_patch_tool(self.config.model_info(name).apply_patch_tool)
        if self.history:
            for item in self.context.model_switch_items(old, name, self.instructions):
                self._append(item)
        self.session.append("model_switch", {"from": old, "to": name})
        self.emit({"type": "model_switch", "from": old, "to": name})

    def change_cwd(self, path: Path) -> Path:
        """`/cd DIR`: the next request appends the environment diff (and the AGENTS.md change, if
        the new directory has different instructions); tools run there from now on."""
        # Expand `~` before joining: `cwd / "~/x"` would no longer start with the tilde.
        target = (self.context.cwd / path.expanduser()).resolve()
        if not target.is_dir():
            raise ConfigError(f"{target} is not a directory: give an existing directory to /cd")
        self.context.set_cwd(target)
        self.router.ctx.cwd = target
        # Writable roots follow the cwd, matching what the permissions fragment tells the model.
        self.router.ctx.workspace_roots = [target]
        self.session.append("event", {"kind": "cwd_change", "cwd": str(target)})
        return target

    def set_mode(self, mode: AgentMode) -> None:
        """Switch collaboration mode; the next request appends the mode fragment if it changed."""
        old = self.mode.name
        self.mode = mode
        self.router.set_mode(mode.name)
        self.context.set_collaboration_mode(mode.collaboration_mode)
        self.session.append("event", {"kind": "mode_change", "from": old, "to": mode.name})
        self.emit({"type": "mode_change", "from": old, "to": mode.name})

    def reset_context(self) -> None:
        """Start a new context window: the next request gets the full render again (compaction seam)."""
        self.baseline = None
        self.window += 1

    # ---- the loop ----------------------------------------------------------------------------

    def _sync_world(self) -> None:
        """Append the full context (first request) or only what changed since the baseline."""
        state, warnings = self.context.collect()
        for warning in warnings:
            self.notice(warning)
        if self.baseline is None:
            items = self.context.initial_items(state)
            if not self.history and self.config.instructions_placement == "input":
                # Codex 0.169 sends no `instructions`: the base prompt opens the history as input[0].
                items.insert(0, base_prompt_item(self.instructions))
        else:
            items = self.context.update_items(self.baseline, state)
        if items or self.baseline is None:
            for item in items:
                self._append(item)
            self.session.append("world_state", {"state": self.context.snapshot(state)})
        self.baseline = state

    def run_turn(self, prompt: str) -> TurnResult:
        """Send `prompt` and loop until the model stops calling tools (or `max_steps`)."""
        turn_id = str(uuid.uuid4())
        self._turn_started_ms = int(time.time() * 1000)
        self.session.append(
            "turn_context",
            {
                "turn_id": turn_id,
                "model": self.model,
                "cwd": str(self.context.cwd),
                "mode": self.mode.name,
                "sandbox": self.config.sandbox,
                "approval": self.config.approval,
            },
        )
        self.emit({"type": "turn_started", "turn_id": turn_id})
        self.router.set_mode(self.mode.name)
        result = TurnResult(final_text="", steps=0)
        try:
            self.mode.on_turn_start(self)
            self._sync_world()
            self._append(user_message(prompt))
            for item in self.context.selected_skill_items(prompt):
                self._append(item)
            for step in range(self.config.max_steps):
                if step:
                    self._sync_world()
                streamed = self._request(turn_id)
                self.rate_limits = _rate_limits(streamed.headers) or self.rate_limits
                result.steps = step + 1
                if streamed.response.usage is not None:
                    result.usage.append(to_wire(streamed.response.usage))
                calls = []
                for item in streamed.items:
                    self._append(item)
                    if isinstance(item, MessageItem) and item.role == "assistant":
                        result.final_text = item.text()
                        self.emit({"type": "assistant_message", "text": result.final_text})
                    if is_tool_call(item):
                        calls.append(item)
                if not calls:
                    break
                for call in calls:
                    self._run_tool(call)
            else:
                result.stopped = "max_steps"
                self.notice(
                    f"stopped after {self.config.max_steps} requests (max_steps) with tool calls "
                    "still coming; send another message to continue"
                )
        except KeyboardInterrupt:
            self._answer_orphans()
            for item in self.context.turn_aborted_items():
                self._append(item)
            self.session.append("event", {"kind": "turn_aborted", "turn_id": turn_id})
            raise
        except Exception as e:
            self._answer_orphans()
            self.session.append("event", {"kind": "error", "turn_id": turn_id, "message": str(e)})
            self.emit({"type": "error", "turn_id": turn_id, "message": str(e)})
            raise
        self.mode.on_turn_end(self, result)
        self.session.append(
            "event",
            {
                "kind": "turn_completed",
                "turn_id": turn_id,
                "steps": result.steps,
                "stopped": result.stopped,
                "usage": result.usage,
            },
        )
        self.emit(
            {
                "type": "turn_completed",
                "turn_id": turn_id,
                "final_text": result.final_text,
                "steps": result.steps,
                "stopped": result.stopped,
                "usage": result.usage,
            }
        )
        return result

    def _request(self, turn_id: str) -> StreamResult:
        request = build_request(
            model=self.model,
            instructions=self.instructions if self.config.instructions_placement == "field" else None,
            input_items=list(self.history),
            tools=self.router.specs(),
            session_id=self.session_id,
            turn_id=turn_id,
            options=self.config.request_options(self.model),
            workspaces=workspace_status(self.context.cwd),
            ids=TurnIds(
                session_id=self.session_id,
                turn_id=turn_id,
                installation_id=self.installation_id,
                window=self.window,
                history_initialization=self.history_initialization,
                turn_trigger=self.turn_trigger,
                turn_started_ms=self._turn_started_ms,
            ),
        )
        for hook in self.before_request:
            hook(self, request)
        self.requests += 1
        return self.client.stream(request, on_event=self._on_event)

    def _on_event(self, event: Any) -> None:
        self.mode.on_stream_event(self, event)
        if isinstance(event, OutputTextDelta):
            self.emit({"type": "text_delta", "delta": event.delta})
        elif isinstance(event, ReasoningSummaryTextDelta):
            self.emit({"type": "reasoning_delta", "delta": event.delta})

    def _run_tool(self, call: Any) -> None:
        wire = to_wire(call)
        self.emit(
            {
                "type": "tool_call",
                "name": wire.get("name"),
                "call_id": wire.get("call_id"),
                "arguments": wire.get("arguments", wire.get("input")),
            }
        )
        output = self.router.handle(wire)
        data = self._append(output)
        self.emit({"type": "tool_output", "call_id": data.get("call_id"), "output": data.get("output")})


def _rate_limits(headers: dict[str, str]) -> dict[str, str]:
    prefixes = ("x-codex-primary", "x-codex-secondary", "x-codex-credits", "x-ratelimit-")
    return {k.lower(): v for k, v in headers.items() if k.lower().startswith(prefixes)}
