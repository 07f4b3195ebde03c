"""How agent events reach the terminal in each CLI mode.

- print mode (`-p`): only the final answer on stdout; notices, tool activity and errors on stderr.
- json mode (`--json`): every event as one JSON line on stdout.
- interactive: streamed text on stdout, tool activity and notices on stderr.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from ctxscope.harness.compaction.said import compaction_line
from ctxscope.harness.events import (
    AgentEvent,
    AssistantMessage,
    Compacted,
    ModelSwitch,
    Notice,
    PlanApproved,
    PlanSubmitted,
    SessionStarted,
    TextDelta,
    ToolCall,
    ToolOutput,
    TurnCompleted,
    TurnError,
    TurnStarted,
    event_json,
)
from ctxscope.harness.modes.plan.enforcement import SUBMISSION_TOOLS
from ctxscope.harness.modes.plan.texts import PLAN_SUBMITTED_SIBLING

__all__ = ["InteractivePrinter", "JsonPrinter", "PrintModePrinter"]


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", " ⏎ ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _TurnCalls:
    """The calls of the running turn, to tell a compaction mid-turn and a call repeated after it."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.before_compaction: set[str] = set()

    def see(self, event: AgentEvent) -> str | None:
        """A line to show for `event` (an automatic compaction, a repeated call), or None."""
        if isinstance(event, TurnStarted):
            self.calls, self.before_compaction = [], set()
        elif isinstance(event, Compacted):
            mid_turn = bool(self.calls)
            self.before_compaction |= set(self.calls)
            if event.trigger != "manual":  # /compact prints its own line, the same one
                return compaction_line(
                    event.trigger, event.items_before, event.items_after, event.window, mid_turn=mid_turn
                )
        elif isinstance(event, ToolCall):
            key = f"{event.name} {_short(event.arguments)}"
            self.calls.append(key)
            if key in self.before_compaction:
                return f"note: {key} ran again: it had already run before this turn's compaction"
        return None


def _session_lines(err: TextIO, event: SessionStarted) -> None:
    """`session: <id>` (what `--session` takes) and `capture: <file>|off`, on stderr."""
    err.write(f"session: {event.session_id}\ncapture: {event.capture or 'off'}\n")


class JsonPrinter:
    """One JSON object per line, flushed, so a consumer can follow along."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout

    def __call__(self, event: AgentEvent) -> None:
        self.out.write(event_json(event) + "\n")
        self.out.flush()


class PrintModePrinter:
    """Notices and tool activity to stderr; the final answer is printed by the caller."""

    def __init__(self, err: TextIO | None = None, verbose: bool = True) -> None:
        self.err = err or sys.stderr
        self.verbose = verbose
        self._turn = _TurnCalls()

    def __call__(self, event: AgentEvent) -> None:
        said = self._turn.see(event)
        if said is not None:
            self.err.write(said if said.startswith("note: ") else f"note: {said}")
            self.err.write("\n")
        if isinstance(event, SessionStarted):
            _session_lines(self.err, event)
        elif isinstance(event, PlanApproved) and event.fresh:
            # After the new session's own `session:` line: say why the run moved there.
            where = f"new session {event.session_id}"
            self.err.write(f"note: plan revision {event.revision} approved; implementing in {where}\n")
        elif isinstance(event, Notice):
            self.err.write(f"note: {event.message}\n")
        elif self.verbose and isinstance(event, ToolCall):
            self.err.write(_call_line(event) + "\n")
        elif isinstance(event, ModelSwitch):
            self.err.write(f"note: model {event.from_} → {event.to}\n")
        self.err.flush()


_SUBMISSION_TOOLS = frozenset(SUBMISSION_TOOLS.values())


def _call_line(event: ToolCall) -> str:
    """`• exec_command {...}`; a plan submission without its plan (shown once, as the plan panel)."""
    if event.name in _SUBMISSION_TOOLS:
        return f"• {event.name} (the plan follows)"
    return f"• {event.name} {_short(event.arguments)}"


class InteractivePrinter:
    """Plain-terminal chat rendering."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self._streaming = False
        self._streamed = ""
        """Delta text shown but not yet matched to an `assistant_message` (a response may hold several)."""
        self._calls: dict[str, str] = {}
        """call_id → the call's line, so an output that says the call did not run can name it."""
        self._turn = _TurnCalls()

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, TextDelta):
            self.out.write(event.delta)
            self.out.flush()
            self._streaming = True
            self._streamed += event.delta
            return
        if isinstance(event, AssistantMessage):
            text = event.text
            if self._streamed.startswith(text):
                self._streamed = self._streamed[len(text) :]
            elif text:
                # A backend that sends the finished message without output_text deltas: show it now.
                self._streamed = ""
                self.out.write(("\n" if self._streaming else "") + text)
                self._streaming = True
        elif isinstance(event, TurnStarted | Notice | ToolCall | TurnCompleted | TurnError | Compacted):
            # Between responses (a retry notice means the text starts over); other events may come
            # mid-stream and must not drop what is still to be matched.
            self._streamed = ""
        if self._streaming and isinstance(event, AssistantMessage | ToolCall | TurnCompleted | Notice | Compacted):
            self.out.write("\n")
            self.out.flush()
            self._streaming = False
        said = self._turn.see(event)
        if isinstance(event, SessionStarted):
            _session_lines(self.err, event)
        elif isinstance(event, Compacted) and said is not None:
            self.err.write(said + "\n")
        elif isinstance(event, ToolCall):
            if said is not None:
                self.err.write(said + "\n")
            line = _call_line(event)
            self._calls[event.call_id or ""] = line[2:]
            self.err.write(line + "\n")
        elif isinstance(event, ToolOutput) and event.output == PLAN_SUBMITTED_SIBLING:
            call = self._calls.get(event.call_id or "", "the call")
            self.err.write(f"  ↳ not run ({call}): a plan was submitted first\n")
        elif isinstance(event, ToolOutput):
            self.err.write(f"  ↳ {_short(event.output, 200)}\n")
        elif isinstance(event, Notice):
            self.err.write(f"note: {event.message}\n")
        elif isinstance(event, ModelSwitch):
            self.err.write(f"model: {event.from_} → {event.to}\n")
        elif isinstance(event, PlanSubmitted):
            # The block was kept out of the streamed text; it is shown once, whole, as a panel.
            self.out.write(f"\n── proposed plan (revision {event.revision}) ──\n{event.plan}")
            self.out.write("" if event.plan.endswith("\n") else "\n")
            self.out.write("──\n")
            self.out.flush()
        elif isinstance(event, PlanApproved):
            where = "a new session " + event.session_id if event.fresh else "this session"
            self.err.write(f"plan revision {event.revision} approved; implementing in {where}\n")
        self.err.flush()
