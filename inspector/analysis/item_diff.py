"""Item-by-item and line-by-line diffs of two turns, for a reader who walks a recording turn by turn.

`diff_items` aligns two `input[]` lists by item key (a longest-matching-block alignment, so one
inserted item shows as one addition) and returns operations where unchanged runs are one `same`
operation with a count (a viewer folds them to "N unchanged items"). `diff_text` diffs two strings by
line, then locates the changed characters inside changed line pairs (word by word), under size caps:
a character diff of two 64 KB strings can take seconds, so past a cap only the line diff is given
and the result says so.
JSON carried inside strings (`arguments`, `output`) is pretty-printed before diffing.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ctxscope.inspector.analysis.items import Item

CHAR_DIFF_CAP = 4_000
"""Longest line (characters) whose changes are located character by character."""
TEXT_DIFF_CAP = 64_000
"""Longest text (characters, either side) diffed at all; longer texts are compared whole."""

ItemOp = Literal["same", "added", "removed", "changed"]
LineOp = Literal["same", "added", "removed"]


@dataclass(frozen=True)
class ItemChange:
    """One step of the alignment: `count` unchanged items, or one added/removed/changed item."""

    op: ItemOp
    before: Item | None = None
    after: Item | None = None
    count: int = 1
    """For `same`: how many consecutive items are unchanged (`before`/`after`: the first of them)."""


@dataclass(frozen=True)
class DiffLine:
    """One line of a text diff; `spans` are the (start, end) character ranges that changed."""

    op: LineOp
    text: str
    spans: tuple[tuple[int, int], ...] = ()


@dataclass
class TextDiff:
    """A text diff; `whole` when the texts were too large to diff (shown as removed + added)."""

    lines: list[DiffLine] = field(default_factory=list)
    whole: bool = False
    char_level: bool = True
    """False when some changed lines were too long to locate changes by character."""

    @property
    def changed(self) -> bool:
        """True when the two texts differ."""
        return any(line.op != "same" for line in self.lines)


def diff_items(before: Sequence[Item], after: Sequence[Item]) -> list[ItemChange]:
    """Align two item lists by key; a replaced block pairs items of the same kind as `changed`."""
    matcher = difflib.SequenceMatcher(None, [i.key for i in before], [i.key for i in after], autojunk=False)
    out: list[ItemChange] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append(ItemChange("same", before[i1], after[j1], i2 - i1))
        elif tag == "delete":
            out += [ItemChange("removed", before=i) for i in before[i1:i2]]
        elif tag == "insert":
            out += [ItemChange("added", after=i) for i in after[j1:j2]]
        else:
            out += _pair_block(before[i1:i2], after[j1:j2])
    return out


def _pair_block(old: Sequence[Item], new: Sequence[Item]) -> list[ItemChange]:
    """A replaced block: items at the same offset with the same kind changed, the rest removed/added."""
    out: list[ItemChange] = []
    for offset in range(max(len(old), len(new))):
        a = old[offset] if offset < len(old) else None
        b = new[offset] if offset < len(new) else None
        if a is not None and b is not None and a.kind == b.kind:
            out.append(ItemChange("changed", a, b))
            continue
        if a is not None:
            out.append(ItemChange("removed", before=a))
        if b is not None:
            out.append(ItemChange("added", after=b))
    return out


def pretty(value: Any) -> str:
    """A value as readable text: strings holding JSON objects or lists are pretty-printed."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "[") and len(stripped) <= TEXT_DIFF_CAP:
            try:
                parsed = json.loads(stripped)
            except ValueError:
                return value
            return json.dumps(parsed, indent=2, ensure_ascii=False)
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def item_text(item: Item) -> str:
    """The full text of an item as a person reads it: message text, or the tool call with its JSON
    arguments (or output) pretty-printed, or the item's JSON for anything else."""
    raw = item.raw if isinstance(item.raw, dict) else None
    if raw is None:
        return item.text
    if item.type == "message":
        return item.text
    if item.type in ("function_call", "custom_tool_call"):
        name = str(raw.get("name", ""))
        return f"{name}\n{pretty(raw.get('arguments', raw.get('input', '')))}"
    if item.type.endswith("_output"):
        output = raw.get("output", "")
        return pretty(output) if isinstance(output, str) else pretty(item.text)
    if item.kind in ("reasoning", "compaction") and item.text:
        return item.text
    return json.dumps({k: v for k, v in raw.items() if v is not None}, indent=2, ensure_ascii=False)


_WORDS = re.compile(r"\w+|\s+|[^\w\s]")


def _offsets(tokens: list[str]) -> list[int]:
    out, at = [0], 0
    for token in tokens:
        at += len(token)
        out.append(at)
    return out


def _char_spans(a: str, b: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """Changed character ranges of two lines, located word by word (a character-by-character match
    scatters a changed value into shared letters; words read as the change a person made)."""
    wa, wb = _WORDS.findall(a), _WORDS.findall(b)
    oa, ob = _offsets(wa), _offsets(wb)
    matcher = difflib.SequenceMatcher(None, wa, wb, autojunk=False)
    old: list[tuple[int, int]] = []
    new: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            old.append((oa[i1], oa[i2]))
        if j2 > j1:
            new.append((ob[j1], ob[j2]))
    return tuple(old), tuple(new)


def diff_text(before: str, after: str) -> TextDiff:
    """Line diff of two texts, with character spans inside changed line pairs (under the caps)."""
    old, new = before.splitlines(), after.splitlines()
    if before == after:
        return TextDiff([DiffLine("same", line) for line in new])
    if max(len(before), len(after)) > TEXT_DIFF_CAP:
        lines = [DiffLine("removed", line) for line in old] + [DiffLine("added", line) for line in new]
        return TextDiff(lines, whole=True, char_level=False)
    result = TextDiff()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            result.lines += [DiffLine("same", line) for line in new[j1:j2]]
            continue
        removed = [DiffLine("removed", line) for line in old[i1:i2]]
        added = [DiffLine("added", line) for line in new[j1:j2]]
        if tag == "replace":
            for k in range(min(len(removed), len(added))):
                a, b = removed[k].text, added[k].text
                if max(len(a), len(b)) > CHAR_DIFF_CAP:
                    result.char_level = False
                    continue
                spans_a, spans_b = _char_spans(a, b)
                removed[k] = DiffLine("removed", a, spans_a)
                added[k] = DiffLine("added", b, spans_b)
        result.lines += removed + added
    return result


__all__ = [
    "CHAR_DIFF_CAP",
    "TEXT_DIFF_CAP",
    "DiffLine",
    "ItemChange",
    "TextDiff",
    "diff_items",
    "diff_text",
    "item_text",
    "pretty",
]
