"""What the agent loop asks a collaboration mode: the `AgentMode` protocol and the `EndStep` verdict.

A mode is one object that owns everything mode-specific, so plan mode, /goal and the like each land in
one place instead of as branches in the loop:

- `name` is what the tool gate matches rules against; `gate_rules()` adds rules while the mode is
  active (checked before the router's own), so tools[] never changes and refusals happen at call time.
- `collaboration_mode` + `fragment_text()` are the world state's mode fragment: the mode supplies its
  own instructions (None = no fragment at all, like `codex exec`).
- `transform_event` sees every agent event before the front end does and may hold it back, rewrite it
  or split it (plan mode strips a `<proposed_plan>` block from the visible text). The history keeps
  what the model sent; only what the person sees changes.
- `revise_outcome` may change a call's output before the model sees it (plan mode adds a note when
  a planning shell command changed the workspace).
- `on_tool_outcome` may end the step after a call (a submitted plan): the loop answers the remaining
  calls of the batch with `EndStep.sibling_output` and sends no further request this turn.
- `parallel_tool_calls`: True lets the loop run a batch of calls concurrently (Codex does in Default
  mode); False runs them one after another, which a mode needs when it watches each call (plan mode's
  workspace snapshots) or may end the step after one (only sequential runs keep the later siblings
  from running).
- `on_compaction` returns items carried into the new context window (a frozen plan recovery message);
  the loop appends them right after the window's full context.

Each hook gets the agent as a `ModeHost`: what a mode reads of the session and the few ways it acts
(show an event, say a notice, append an item). A protocol, not the `Agent` class, so the modes sit
below the loop that imports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ctxscope.harness.events import AgentEvent
    from ctxscope.harness.tools import GateRule, ToolOutcome
    from ctxscope.harness.turn_result import TurnResult
    from ctxscope.harness.wire.types import Event

__all__ = ["AgentMode", "EndStep", "ModeHost", "WorkingDirectory"]

SIBLING_BLOCKED = "not run: an earlier call in the same batch ended the step"


@dataclass(frozen=True)
class EndStep:
    """A mode's verdict on a tool outcome: nothing more runs in this step, and the turn ends."""

    sibling_output: str = SIBLING_BLOCKED
    """The output every later call of the same batch gets instead of running."""


class WorkingDirectory(Protocol):
    """Where the session works (the session context, as a mode reads it)."""

    @property
    def cwd(self) -> Path: ...


class ModeHost(Protocol):
    """The agent as a mode's hooks see it (`ctxscope.harness.agent.Agent` is one)."""

    @property
    def session_id(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def window(self) -> int:
        """The context window number (compactions so far)."""
        ...

    @property
    def history(self) -> Sequence[dict[str, Any]]: ...

    @property
    def baseline(self) -> Any:
        """The world state the last request was built from; None before the window's first request."""
        ...

    @property
    def context(self) -> WorkingDirectory: ...

    def emit(self, event: AgentEvent) -> None:
        """Show an event (it passes through the mode's `transform_event`)."""
        ...

    def notice(self, message: str) -> None:
        """Show a remark to the person and keep it in the session file."""
        ...

    def append_item(self, item: Any) -> dict[str, Any]:
        """Add one item to the history (and the session file); the item as stored."""
        ...


class AgentMode(Protocol):
    """A collaboration mode as the loop, the tool router and the context builder see it."""

    @property
    def name(self) -> str:
        """The mode's name, matched by gate rules (`default`, `plan`, ...)."""
        ...

    @property
    def collaboration_mode(self) -> str | None:
        """The mode named in the collaboration-mode fragment; None sends no fragment."""
        ...

    @property
    def parallel_tool_calls(self) -> bool:
        """True: a batch of tool calls runs concurrently; False: one call after another."""
        ...

    def fragment_text(self) -> str:
        """The instructions inside the collaboration-mode fragment when this mode becomes active."""
        ...

    def gate_rules(self) -> Sequence[GateRule]:
        """Extra gate rules while this mode is active, checked before the router's own."""
        ...

    def on_turn_start(self, agent: ModeHost) -> None:
        """Called before the turn's world state and prompt are appended."""
        ...

    def on_stream_event(self, agent: ModeHost, event: Event) -> None:
        """Observes every wire stream event of every request (read-only)."""
        ...

    def transform_event(self, agent: ModeHost, event: AgentEvent) -> Sequence[AgentEvent]:
        """The events to show instead of `event`: `[event]` passes it, `[]` holds it back."""
        ...

    def revise_outcome(self, agent: ModeHost, outcome: ToolOutcome) -> ToolOutcome:
        """The outcome to record for a call (`outcome` itself to keep it), before it is appended."""
        ...

    def on_tool_outcome(self, agent: ModeHost, outcome: ToolOutcome) -> EndStep | None:
        """Called after each tool call is answered; an `EndStep` ends the step there."""
        ...

    def on_turn_end(self, agent: ModeHost, result: TurnResult) -> None:
        """Called when a turn completed (not when it failed or was interrupted)."""
        ...

    def on_compaction(self, agent: ModeHost) -> Sequence[dict[str, Any]]:
        """Items to carry into the new context window, appended after its full context."""
        ...
