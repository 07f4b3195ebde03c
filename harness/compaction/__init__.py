"""Compaction: replacing a long history by a new context window the model continues from.

window   rebuild_window (Codex 0.169's order), real_user_messages, approx_tokens
run      compact(agent, trigger) for the local and both remote forms; the auto threshold
"""

from __future__ import annotations

from ctxscope.harness.compaction.run import (
    COMPACTION_FORMS,
    CompactionTrigger,
    compact,
    context_tokens,
    over_threshold,
)
from ctxscope.harness.compaction.window import (
    USER_MESSAGE_TOKENS,
    approx_tokens,
    real_user_messages,
    rebuild_window,
)

__all__ = [
    "COMPACTION_FORMS",
    "USER_MESSAGE_TOKENS",
    "CompactionTrigger",
    "approx_tokens",
    "compact",
    "context_tokens",
    "over_threshold",
    "real_user_messages",
    "rebuild_window",
]
