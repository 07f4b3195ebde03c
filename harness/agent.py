"""The agent loop: world state → request → stream → tool calls → repeat, all append-only.

One turn:
1. Compact first when the next request would pass the auto-compaction limit (`ctxscope.harness.compaction`).
   Rebuild the world state. The first request of a session gets the full render
   (`initial_context_items`); every later request gets only the sections that changed
   (`context_update_items(baseline, current)`), usually nothing. A compaction rebuilds the window
   with the full render in it and makes that state the baseline.
2. Append the user prompt, then the full text of each `$skill` it mentions. A goal turn
   (`trigger="goal"`, started by `ctxscope.harness.goal.runner`) appends the goal's objective item (once per
   window) and a continuation message instead.
3. Stream the request (`ctxscope.harness.send`: tools = the router's snapshot for this step); append every
   output item.
4. Answer each function/custom tool call with exactly one output item (`ctxscope.harness.tool_batch`;
   `router.dispatch` never raises); loop until the model answers with no tool call, at most
   `max_steps` requests, or until the mode ends the step after a call (the rest of that batch is
   answered without running).

Every history item and world-state snapshot goes to the session file as it happens, so a crash or
an upstream failure mid-turn leaves a session that resumes where it stopped.

Everything mode-specific is the mode object's (`ctxscope.harness.modes`): the loop only calls its hooks at
fixed points (turn start/end, each stream event, each agent event shown, each tool outcome,
compaction). `before_request` hooks get the built request before each send (compaction, goal).
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any, Literal

from ctxscope.harness.client import ResponsesClient, StreamResult
from ctxscope.harness.compaction.run import compact, context_tokens, over_threshold
from ctxscope.harness.config import HarnessConfig
from ctxscope.harness.context import base_prompt_item
from ctxscope.harness.errors import UpstreamError
from ctxscope.harness.events import (
    AgentEvent,
    AssistantMessage,
    EventSink,
    ModeChange,
    ModelSwitch,
    Notice,
    TurnCompleted,
    TurnError,
    TurnStarted,
)
from ctxscope.harness.goal.state import GoalBook
from ctxscope.harness.goal.turns import account_goal_turn, goal_after_tools, goal_turn_items
from ctxscope.harness.loop_host import RequestHook
from ctxscope.harness.modes import AgentMode, CurrentMode
from ctxscope.harness.send import rate_limits, send_request
from ctxscope.harness.session.store import ResumedSession, SessionStore
from ctxscope.harness.session_context import SessionContext
from ctxscope.harness.tool_batch import call_output, missing_outputs, run_tools
from ctxscope.harness.tools import ToolRouter
from ctxscope.harness.turn_metadata import installation_id, message_id
from ctxscope.harness.turn_result import TurnResult, TurnTrigger
from ctxscope.harness.wire.types import MessageItem, is_tool_call, to_wire
from ctxscope.proxy.errors import ConfigError

__all__ = ["Agent", "RequestHook", "TurnResult", "TurnTrigger", "user_message"]


_RESULT_NOT_SAVED = (
    "result not saved: the session file ends before this call's output (the harness was stopped, or "
    "could not write its session file); the call may have run, so check its effects before repeating it"
)


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


class Agent:
    """One session's loop. Not thread-safe: one turn at a time."""

    def __init__(
        self,
        *,
        config: HarnessConfig,
        client: ResponsesClient,
        session: SessionStore,
        context: SessionContext,
        router: ToolRouter,
        model: str | None = None,
        emit: EventSink | None = None,
        resumed: ResumedSession | None = None,
    ) -> None:
        self.config = config
        self.client = client
        self.session = session
        self.context = context
        self.router = router
        self.sink: EventSink = emit or (lambda _e: None)
        self.modes: CurrentMode = context.mode
        """The session's one mode holder, shared with the router's tool context and the session context."""
        if router.ctx.mode is not self.modes:
            raise ValueError("the router's tool context and the session context must share one CurrentMode")
        self.before_request: list[RequestHook] = []
        self.window = 0
        """Compaction count (the `n` of `x-codex-window-id`)."""
        self.goals: GoalBook = router.ctx.goal
        """The thread goal, shared with the goal tools through the tool context."""
        self.goals.thread_id = session.session_id
        self.usage_mark: tuple[int | None, int] = (None, 0)
        """(tokens the backend last reported for this window, history length they covered)."""
        self.pending_baseline: Any = None
        """The world state a compaction in progress rendered into the new window."""
        self._carried: list[dict[str, Any]] = []
        """Items the mode carries into the next context window (`on_compaction`)."""
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
        self.active_trigger = "user"
        """What started the turn in progress (a goal continuation says `goal`): every request of
        the turn, compactions included, sends it; between turns it is `turn_trigger`."""
        self.turn_started_ms = 0
        """When the current turn started (ms since the epoch): sent in the turn metadata."""
        self.rate_limits: dict[str, str] = {}
        """The backend's latest rate-limit headers (Codex's `x-codex-primary-*` and the like)."""
        if resumed is not None:
            self._resume(resumed)

    @property
    def session_id(self) -> str:
        return self.session.session_id

    @property
    def mode(self) -> AgentMode:
        """The active collaboration mode (switch with `set_mode`)."""
        return self.modes.mode

    def emit(self, event: AgentEvent) -> None:
        """Show `event`, after the mode had its say (it may hold back, rewrite or split it)."""
        for shown in self.mode.transform_event(self, event):
            self.sink(shown)

    # ---- state -------------------------------------------------------------------------------

    def _resume(self, resumed: ResumedSession) -> None:
        self.history = list(resumed.history)
        if resumed.model and resumed.model != self.model:
            self.model = resumed.model
            self.instructions = self.config.instructions_for(self.model)
        if resumed.world_state is not None:
            self.baseline = self.context.restore(resumed.world_state)
        self.window = resumed.window
        self.goals.restore(resumed.goal)
        if resumed.unfinished is not None:
            # Killed, or its session writes failed: say what the file holds, not a guess at the rest.
            self.notice(f"resumed session {self.session_id}: {resumed.unfinished}")
        self._answer_orphans(_RESULT_NOT_SAVED)

    def _answer_orphans(self, output: str | None = None) -> None:
        """A call left without output (crash or Ctrl-C mid-step) would make the next request
        invalid: answer it, so the model learns the call did not finish (or, on a resume, that its
        result was not saved: it may well have run)."""
        for call in missing_outputs(self.history):
            self._append(
                call_output(call, output or "aborted: the harness stopped before this call finished")
            )

    def append_item(self, item: Any) -> dict[str, Any]:
        """Add one item to the history (and the session file); for modes, goals and compaction."""
        return self._append(item)

    def _append(self, item: Any) -> dict[str, Any]:
        if not self.history and self.config.instructions_placement == "input":
            # Codex 0.169 sends no `instructions`: the base prompt opens every thread as input[0],
            # also when a mode or a goal speaks first (the goal status precedes the context).
            base = with_id(history_form(base_prompt_item(self.instructions)))
            self.history.append(base)
            self.session.append("response_item", {"item": base})
        data = with_id(history_form(item))
        self.history.append(data)
        self.session.append("response_item", {"item": data})
        return data

    def compact(self, trigger: Literal["manual", "auto", "context_length"] = "manual") -> bool:
        """Replace the history by a compacted window now (`/compact`); False when it failed."""
        self.active_trigger = self.turn_trigger  # between turns: no goal continuation is running
        return compact(self, trigger)

    def notice(self, message: str) -> None:
        self.emit(Notice(message=message))
        self.session.append("event", {"kind": "notice", "message": message})

    def status(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "session_file": str(self.session.path),
            "model": self.model,
            "provider": self.client.provider.name,
            # the backend the requests are for; a capture proxy in between is the runtime's (/status)
            "backend": self.client.provider.base_url,
            "cwd": str(self.context.cwd),
            "mode": self.mode.name,
            "history_items": len(self.history),
            "context_window": self.window,
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
            if self.baseline is not None and self.baseline.skills:
                # Codex 0.169 re-sends the skills catalog after a model switch (with the next
                # world-state update, so it merges with any other developer fragment).
                self.baseline = self.baseline.model_copy(update={"skills": []})
        self.session.append("model_switch", {"from": old, "to": name})
        self.emit(ModelSwitch(from_=old, to=name))

    def change_cwd(self, path: Path) -> Path:
        """`/cd DIR`: the next request appends the environment diff (and the AGENTS.md change, if
        the new directory has different instructions); tools run there from now on."""
        # Expand `~` before joining: `cwd / "~/x"` would no longer start with the tilde.
        target = (self.context.cwd / path.expanduser()).resolve()
        if not target.is_dir():
            raise ConfigError(f"{target} is not a directory: give an existing directory to /cd")
        self.context.set_cwd(target)
        # Tools read the cwd from their own context (the permissions fragment reads the session's).
        self.router.ctx.cwd = target
        # Writable roots follow the cwd, matching what the permissions fragment tells the model.
        self.router.ctx.workspace_roots = [target]
        self.session.append("event", {"kind": "cwd_change", "cwd": str(target)})
        return target

    def set_mode(self, mode: AgentMode) -> None:
        """Switch collaboration mode; the router's gate follows at once and the next request
        appends the mode's fragment if the collaboration mode changed."""
        old = self.modes.switch(mode).name
        self.session.append("event", {"kind": "mode_change", "from": old, "to": mode.name})
        self.emit(ModeChange(from_=old, to=mode.name))

    def reset_context(self) -> None:
        """Restart the world-state render in a new window number without touching the history (a
        seam for tests of `on_compaction`). A real compaction is `compact()`: it rebuilds the window,
        since a full render appended to the unchanged history would only grow it."""
        self.baseline = None
        self.window += 1
        self._carried = list(self.mode.on_compaction(self))

    # ---- the loop ----------------------------------------------------------------------------

    def _sync_world(self) -> None:
        """Append the full context (first request) or only what changed since the baseline."""
        state, warnings = self.context.collect()
        for warning in warnings:
            self.notice(warning)
        if self.baseline is None:
            items = self.context.initial_items(state)  # after the base prompt (see `_append`)
        else:
            items = self.context.update_items(self.baseline, state)
        if items or self.baseline is None:
            for item in items:
                self._append(item)
            self.session.append("world_state", {"state": self.context.snapshot(state)})
        if self.baseline is None:
            for item in self._carried:
                self._append(item)
            self._carried = []
        self.baseline = state

    def _opening_items(self, prompt: str | None, trigger: TurnTrigger) -> list[dict[str, Any]]:
        """What starts the turn: the prompt (and its skills), or the goal's continuation."""
        if trigger == "goal":
            return goal_turn_items(self)
        return [user_message(prompt or ""), *self.context.selected_skill_items(prompt or "")]

    def _auto_compact(self, turn_id: str) -> None:
        """Compact when the next request would pass the limit; a failed compaction lets the turn go
        on, unless the context no longer fits the model's window at all."""
        if not over_threshold(self) or compact(self, "auto", turn_id):
            return
        window = self.config.context_window_for(self.model)
        if context_tokens(self) > window:
            raise UpstreamError(
                f"the context ({context_tokens(self):,} tokens) is over {self.model}'s window "
                f"({window:,}) and compacting it failed: retry /compact, or start a new session (/new)",
                code="context_length_exceeded",
            )

    def run_turn(self, prompt: str | None = None, *, trigger: TurnTrigger = "user") -> TurnResult:
        """Send `prompt` (or, for `trigger="goal"`, the goal's continuation) and loop until the
        model stops calling tools (or `max_steps`)."""
        turn_id = str(uuid.uuid4())
        started = time.monotonic()
        self.turn_started_ms = int(time.time() * 1000)
        # a goal continuation says so; otherwise the session's trigger (`user`, `exec` for -p)
        self.active_trigger = self.turn_trigger if trigger == "user" else trigger
        self.session.append(
            "turn_context",
            {
                "turn_id": turn_id,
                "model": self.model,
                "cwd": str(self.context.cwd),
                "mode": self.mode.name,
                "sandbox": self.config.sandbox,
                "approval": self.config.approval,
                "trigger": trigger,
            },
        )
        self.emit(TurnStarted(turn_id=turn_id))
        result = TurnResult(final_text="", steps=0)
        try:
            self.mode.on_turn_start(self)
            self._auto_compact(turn_id)
            self._sync_world()
            for item in self._opening_items(prompt, trigger):
                self._append(item)
            for step in range(self.config.max_steps):
                if step:
                    self._auto_compact(turn_id)  # mid-turn: the summary ends the new window
                    self._sync_world()
                streamed = self._request(turn_id)
                self.rate_limits = rate_limits(streamed.headers) or self.rate_limits
                result.steps = step + 1
                if streamed.response.usage is not None:
                    result.usage.append(to_wire(streamed.response.usage))
                calls = []
                for item in streamed.items:
                    self._append(item)
                    if isinstance(item, MessageItem) and item.role == "assistant":
                        result.final_text = item.text()
                        self.emit(AssistantMessage(text=result.final_text))
                    if is_tool_call(item):
                        calls.append(to_wire(item))
                if streamed.response.usage is not None:
                    usage = to_wire(streamed.response.usage)
                    reported = int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0)
                    self.usage_mark = (reported, len(self.history))
                if not calls:
                    break
                end = run_tools(self, calls)
                goal_after_tools(self)
                if end is not None:
                    result.stopped = "ended_by_mode"
                    break
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
            self.emit(TurnError(turn_id=turn_id, message=str(e)))
            raise
        if trigger == "goal":
            account_goal_turn(self, result.usage, time.monotonic() - started)
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
            TurnCompleted(
                turn_id=turn_id,
                final_text=result.final_text,
                steps=result.steps,
                stopped=result.stopped,
                usage=result.usage,
            )
        )
        return result

    def _request(self, turn_id: str) -> StreamResult:
        """Send the history; a `context_length_exceeded` refusal gets one compaction and one retry."""
        try:
            return send_request(self, turn_id)
        except UpstreamError as e:
            if e.code != "context_length_exceeded" or not compact(self, "context_length", turn_id):
                raise
        self._sync_world()
        return send_request(self, turn_id)
