"""ctxscope's harness: a Codex-style coding agent that runs behind the recording proxy.

    wire/          Responses API types and the typed SSE stream (over ctxscope.proxy.responses)
    providers/     apikey, chatgpt (auth.json + refresh), custom endpoints, offline script
    client         HTTP/SSE streaming with retries, backoff and actionable errors
    request        the request body and headers, Codex-shaped
    context/       fragments, world state, AGENTS.md, skills (context helper)
    tools/         the tools and the router (tools helper)
    session/       JSONL session files: resume, fork
    session_context  a session's context settings in, world state and context items out
    modes/         collaboration modes: the one object that owns what a mode changes
    goal/          the thread goal (/goal): state, the goal tools' JSON, the goal loop
    compaction/    compacting the history into a new context window (local and remote forms)
    events         the typed agent events (`--json`, the printers)
    commands       the slash-command registry (REPL and `-p "/command ..."`); command_result its answer
    agent          the loop; runtime assembles it; cli adds `ctxscope agent`
    loop_host      what the loop's helpers see of the agent (a protocol, so they import downward)
    send           building and sending one request; tool_batch runs a batch of tool calls
    turn_result    what a turn returns; plan_profiles the plan-profile names (leaves, imported widely)

Names are loaded on first use, so `import ctxscope.harness.context` does not start mitmproxy imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxscope.proxy.lazy import lazy_attributes

if TYPE_CHECKING:  # what the names resolve to, for type checkers and editors
    from ctxscope.harness.agent import Agent, TurnResult
    from ctxscope.harness.client import ResponsesClient
    from ctxscope.harness.config import HarnessConfig, load_config
    from ctxscope.harness.providers import Provider, make_provider
    from ctxscope.harness.request import TurnRequest, build_request
    from ctxscope.harness.runtime import AgentOptions, AgentRuntime
    from ctxscope.harness.session import SessionStore

__all__ = [
    "Agent",
    "AgentOptions",
    "AgentRuntime",
    "HarnessConfig",
    "Provider",
    "ResponsesClient",
    "SessionStore",
    "TurnRequest",
    "TurnResult",
    "build_request",
    "load_config",
    "make_provider",
]

_WHERE = {
    "Agent": "ctxscope.harness.agent",
    "TurnResult": "ctxscope.harness.agent",
    "AgentOptions": "ctxscope.harness.runtime",
    "AgentRuntime": "ctxscope.harness.runtime",
    "HarnessConfig": "ctxscope.harness.config",
    "load_config": "ctxscope.harness.config",
    "Provider": "ctxscope.harness.providers",
    "make_provider": "ctxscope.harness.providers",
    "ResponsesClient": "ctxscope.harness.client",
    "SessionStore": "ctxscope.harness.session",
    "TurnRequest": "ctxscope.harness.request",
    "build_request": "ctxscope.harness.request",
}


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)
