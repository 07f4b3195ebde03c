"""The compaction prompt: the user message a local compaction request ends with.

ctxscope's prompt is wrapped in `<compaction_prompt>` so it is recognised exactly; Codex's own
prompt (plain text, "…CONTEXT CHECKPOINT COMPACTION…") is recognised by that phrase. The summary
that comes back is the `compaction_summary` fragment (`turn_fragments.py`).
"""

from __future__ import annotations

from ._markup import inner, wrap
from ._spec import FragmentSpec, Values

__all__ = ["COMPACTION_PROMPT_SPEC", "COMPACTION_PROMPT_TEXT"]

_OPEN, _CLOSE = "<compaction_prompt>", "</compaction_prompt>"
COMPACTION_PROMPT_TEXT = """\
The conversation is about to be cut down to fit the context window. Write the hand-over note the work \
will continue from; nothing else of this conversation will be visible afterwards except recent user \
messages.

Cover:
- the task as the user stated it, and any constraints or preferences they gave;
- what has been done so far, with the decisions taken and why;
- the current state: files changed, commands that matter, errors still open (quote them exactly);
- what remains, as concrete next steps.

Be brief and specific; write facts, not narration."""
# Codex's local-compaction prompt contains this phrase (recognition only).
_CODEX_PHRASE = "CONTEXT CHECKPOINT COMPACTION"


def recognise_compaction_prompt(text: str) -> Values | None:
    """`{"source": "ctxscope"}` or `{"source": "codex"}`."""
    if inner(text, _OPEN, _CLOSE) is not None:
        return {"source": "ctxscope"}
    if _CODEX_PHRASE in text.lstrip()[:200]:
        return {"source": "codex"}
    return None


COMPACTION_PROMPT_SPEC = FragmentSpec(
    kind="compaction_prompt",
    roles=("user",),
    recognise=recognise_compaction_prompt,
    render=lambda values: wrap(_OPEN, COMPACTION_PROMPT_TEXT, _CLOSE),
    label=lambda values: "compaction_prompt",
    description="the instruction that asks the model to summarise the history (a compaction request)",
)
