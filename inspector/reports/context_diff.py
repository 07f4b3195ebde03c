"""A request diff in words: each changed context item named, with its changed lines.

Used where a person must see at once why a request no longer matches its recording: the pytest
plugin's failure message (`ctxscope.pytest_plugin`) and `ctxscope demo --tour`.
"""

from __future__ import annotations

from ctxscope.inspector.analysis.instructions import BASE_PROMPT_KIND
from ctxscope.inspector.analysis.item_diff import DiffLine
from ctxscope.inspector.analysis.request_diff import RequestDiff

__all__ = ["context_diff_lines"]


def context_diff_lines(diff: RequestDiff, context: int = 1) -> list[str]:
    """A request diff as lines a person reads: each changed item named, its changed lines ±`context`."""
    out: list[str] = []
    for changed in diff.items:
        op = changed.change.op
        what = " (the base prompt)" if changed.kind == BASE_PROMPT_KIND else ""
        out.append(f"input[{changed.position}] {changed.label}{what}: {op}")
        out += _text_lines(changed.text.lines, context, whole=op != "changed")
    if diff.instructions is not None:
        out.append("instructions: changed")
        out += _text_lines(diff.instructions.lines, context, whole=False)
    if diff.tools is not None and not diff.tools.empty:
        tools = diff.tools
        parts = (
            [f"+{n}" for n in tools.added]
            + [f"-{n}" for n in tools.removed]
            + [f"~{n}" for n in tools.changed]
        )
        out.append("tools[]: " + " ".join(parts))
    for name, (before, after) in diff.params.items():
        out.append(f"{name}: {before!r} → {after!r}")
    return out


def _text_lines(lines: list[DiffLine], context: int, *, whole: bool) -> list[str]:
    if whole:
        return [f"  {'+' if line.op == 'added' else '-'} {line.text}" for line in lines[:20]]
    keep = {
        near
        for at, line in enumerate(lines)
        if line.op != "same"
        for near in range(at - context, at + context + 1)
    }
    out: list[str] = []
    previous = -1
    for at in sorted(k for k in keep if 0 <= k < len(lines)):
        if previous >= 0 and at > previous + 1:
            out.append("  …")
        sign = {"same": " ", "added": "+", "removed": "-"}[lines[at].op]
        out.append(f"  {sign} {lines[at].text}")
        previous = at
    return out
