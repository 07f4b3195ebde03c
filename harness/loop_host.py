"""`LoopHost`: the agent as the loop's own helpers see it (`ctxscope.harness.agent.Agent` is one).

The loop is split by concept: sending a request (`ctxscope.harness.send`), answering a batch of tool calls
(`ctxscope.harness.tool_batch`), compacting (`ctxscope.harness.compaction.run`) and the goal's turn items
(`ctxscope.harness.goal.turns`). Each is a function of the agent; typed against this protocol rather than
the `Agent` class, they sit below the loop that imports them, and every module imports downward.
It extends `ModeHost` (what a mode sees), since each of them hands the agent to the mode's hooks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ctxscope.harness.modes.base import ModeHost

if TYPE_CHECKING:
    from ctxscope.harness.client import ResponsesClient
    from ctxscope.harness.config import HarnessConfig
    from ctxscope.harness.goal.state import GoalBook
    from ctxscope.harness.modes.base import AgentMode
    from ctxscope.harness.request import TurnRequest
    from ctxscope.harness.session.store import SessionStore
    from ctxscope.harness.session_context import SessionContext
    from ctxscope.harness.tools import ToolRouter

__all__ = ["LoopHost", "RequestHook"]

RequestHook = Callable[["LoopHost", "TurnRequest"], None]
"""Sees each built request before it is sent (`Agent.before_request`)."""


class LoopHost(ModeHost, Protocol):
    """The agent's state and parts the loop's helpers read, and the counters they move."""

    # what the helpers change
    history: list[dict[str, Any]]
    window: int
    baseline: Any
    pending_baseline: Any
    """The world state a compaction in progress rendered into the new window."""
    usage_mark: tuple[int | None, int]
    """(tokens the backend last reported for this window, history length they covered)."""
    requests: int

    # what they read
    @property
    def config(self) -> HarnessConfig: ...

    @property
    def client(self) -> ResponsesClient: ...

    @property
    def session(self) -> SessionStore: ...

    @property
    def context(self) -> SessionContext: ...

    @property
    def router(self) -> ToolRouter: ...

    @property
    def goals(self) -> GoalBook: ...

    @property
    def mode(self) -> AgentMode: ...

    @property
    def instructions(self) -> str: ...

    @property
    def installation_id(self) -> str: ...

    @property
    def history_initialization(self) -> str: ...

    @property
    def turn_trigger(self) -> str: ...

    @property
    def active_trigger(self) -> str: ...

    @property
    def turn_started_ms(self) -> int: ...

    @property
    def before_request(self) -> Sequence[RequestHook]: ...
