"""The context window after a local compaction, in Codex 0.169's observed order (`codex-observed.md` §7).

The new window replaces the history; it is not appended to it:

    earlier real user messages (all but the last; bounded, oldest dropped first)
    the full initial context for the current cwd (developer message, contextual user message)
    the last real user message
    the summary (a user message: our lead sentence, then the model's summary)

Assistant messages, reasoning, tool calls and outputs, injected context (fragments: AGENTS.md,
environment, `<skill>` texts, goal messages, earlier summaries) are dropped: the summary stands for
them. The base prompt is not part of the history (it goes with every request), so it is kept by
construction. Mid-turn the summary is last; before a turn the new prompt follows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxscope.harness.context import classify_text, compaction_summary_item

__all__ = ["USER_MESSAGE_TOKENS", "approx_tokens", "real_user_messages", "rebuild_window"]

USER_MESSAGE_TOKENS = 20_000
"""How many tokens of earlier user messages a new window keeps (Codex keeps about as many)."""

Item = dict[str, Any]


def approx_tokens(value: Any) -> int:
    """About four characters per token: what the threshold check adds for items not yet sent."""
    text = value if isinstance(value, str) else repr(value)
    return (len(text) + 3) // 4


def _texts(item: Item) -> list[str]:
    content = item.get("content")
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [str(p.get("text", "")) for p in content if isinstance(p, dict)]


def real_user_messages(history: Sequence[Item]) -> list[Item]:
    """User messages the person wrote: no part of them is a recognised context fragment."""
    out = []
    for item in history:
        if item.get("type", "message") != "message" or item.get("role") != "user":
            continue
        texts = _texts(item)
        if texts and not any(classify_text(t, "user") for t in texts):
            out.append(item)
    return out


def _bounded(messages: list[Item], budget: int) -> list[Item]:
    """The most recent messages whose sizes fit in `budget` tokens (the newest is always kept)."""
    kept: list[Item] = []
    used = 0
    for item in reversed(messages):
        size = approx_tokens(" ".join(_texts(item)))
        if kept and used + size > budget:
            break
        kept.append(item)
        used += size
    return list(reversed(kept))


def rebuild_window(
    history: Sequence[Item],
    summary: str,
    initial_context: Sequence[Item],
    *,
    user_tokens: int = USER_MESSAGE_TOKENS,
) -> list[Item]:
    """The history of the new context window (see the module docstring for the order)."""
    users = _bounded(real_user_messages(history), user_tokens)
    earlier, last = users[:-1], users[-1:]
    return [*earlier, *initial_context, *last, compaction_summary_item(summary)]
