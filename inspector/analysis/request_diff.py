"""What differs between a recorded request and a live one, as context a person reads.

A strict replay names differing JSON paths (`input[0].content[0].text differs: at char 812 …`); that
is exact but says little about what changed in the model's context. This pairs the two requests'
input items the way the inspector pairs turns (by content, then by kind), so a changed template reads
as "the base prompt, line 14 added", and adds the tools and parameters that changed.

Both bodies are normalised first with the replay's own rules (ids, dates, temp paths, each side's
working directory), so only what a strict replay would reject remains.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ctxscope.inspector.analysis.diffs import (
    ToolDiff,
    effective_tools,
    instructions_text,
    params_diff,
    tools_diff,
)
from ctxscope.inspector.analysis.inputs import classify_request, input_list
from ctxscope.inspector.analysis.item_diff import ItemChange, TextDiff, diff_items, diff_text, item_text
from ctxscope.inspector.analysis.items import ItemClassifier
from ctxscope.inspector.analysis.normalise import cross_run

__all__ = ["ChangedItem", "RequestDiff", "diff_requests"]


@dataclass(frozen=True)
class ChangedItem:
    """One input item that is not the same on both sides."""

    change: ItemChange
    text: TextDiff
    """For a changed item, its text diff; for an added or removed one, its whole text."""

    @property
    def label(self) -> str:
        item = self.change.after or self.change.before
        assert item is not None
        return item.label

    @property
    def kind(self) -> str:
        item = self.change.after or self.change.before
        assert item is not None
        return item.kind

    @property
    def position(self) -> int:
        """Where the item sits in the live request (the recorded one for a removed item)."""
        item = self.change.after or self.change.before
        assert item is not None
        return item.position


@dataclass
class RequestDiff:
    """The context differences between a recorded (`before`) and a live (`after`) request."""

    items: list[ChangedItem] = field(default_factory=list)
    tools: ToolDiff | None = None
    params: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    """Changed request parameters (model, reasoning, …): name → (recorded, live)."""
    instructions: TextDiff | None = None
    """The `instructions` field's text diff, when it differs (clients that send the base prompt there)."""

    @property
    def same(self) -> bool:
        """True when nothing a person would call context differs."""
        tools_same = self.tools is None or self.tools.empty
        return not self.items and not self.params and tools_same and self.instructions is None


def diff_requests(recorded: dict[str, Any], live: dict[str, Any], *, normalise: bool = True) -> RequestDiff:
    """The differences between two request bodies, after the replay's normalisation unless
    `normalise` is False (two versions of one body, e.g. a request and its edited copy)."""
    before = cross_run([recorded]).body(recorded) if normalise else recorded
    after = cross_run([live]).body(live) if normalise else live
    # The base prompt at input[0] is labelled as such, as on the inspector's timeline.
    classifier = ItemClassifier()
    old, new = classify_request(before, classifier), classify_request(after, classifier)
    result = RequestDiff()
    for change in diff_items(old, new):
        if change.op == "same":
            continue
        a = item_text(change.before) if change.before is not None else ""
        b = item_text(change.after) if change.after is not None else ""
        result.items.append(ChangedItem(change, diff_text(a, b)))
    if "tools" in before or "tools" in after or any(i.type == "additional_tools" for i in (*old, *new)):
        result.tools = tools_diff(
            effective_tools(before, input_list(before)), effective_tools(after, input_list(after))
        )
    result.params = params_diff(before, after, input_list(before), input_list(after))
    if before.get("instructions") != after.get("instructions"):
        result.instructions = diff_text(
            instructions_text(before.get("instructions")), instructions_text(after.get("instructions"))
        )
    return result
