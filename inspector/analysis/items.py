"""Classifying every `input[]` item and every content part of a Responses request.

Context fragments are recognised by the harness's own definitions (`ctxscope.harness.context.fragments`,
one definition, two uses); everything else — plain messages, reasoning, tool calls and outputs,
compaction items — is classified here by its wire `type`. Unknown types are kept and shown as
`unknown:<type>`, never dropped and never fatal.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxscope.harness.context.fragments import classify_text
from ctxscope.harness.context.goal_fragments import goal_objective_of
from ctxscope.inspector.analysis.normalise import item_key
from ctxscope.inspector.analysis.tokens import count_text
from ctxscope.proxy.responses.vocabulary import COMPACTION_TRIGGER
from ctxscope.proxy.store import InputList
from ctxscope.proxy.store.prefix_list import PrefixList

TEXT_PART_TYPES = frozenset({"input_text", "output_text", "text", "summary_text", "refusal"})
TOOL_ITEM_TYPES = frozenset(
    {
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "shell_call",
        "shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "program",
        "program_output",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "tool_search_call",
        "tool_search_output",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "image_generation_call",
        "code_interpreter_call",
        "item_reference",
    }
)
COMPACTION_ITEM_TYPES = frozenset({"compaction", "context_compaction", "compaction_summary"})
PREVIEW_CHARS = 60


@dataclass(frozen=True)
class Part:
    """One content part of a message: plain text, a recognised fragment, an image, or unknown."""

    index: int
    type: str
    kind: str
    """`text`, a fragment kind (`environment_context`, `agents_md`, ...), `image`, or `unknown_part`."""
    label: str
    text: str
    values: dict[str, Any] = field(default_factory=dict)
    tokens: int = 0

    @property
    def is_fragment(self) -> bool:
        """True when the part is a recognised context fragment rather than plain text."""
        return self.kind not in ("text", "image", "unknown_part")


@dataclass(frozen=True)
class Item:
    """One classified input item: where it sits, who speaks, what it is, its text and size."""

    position: int
    type: str
    role: str | None
    kind: str
    """Item class: a fragment kind for a one-fragment message, `context` for several fragments,
    `user_message` / `developer_message` / `assistant_message` / `system_message`, `reasoning`,
    a tool item type, `compaction`, `compaction_trigger`, `additional_tools`, `configuration_update`,
    `agent_message`, or `unknown`."""
    label: str
    text: str
    tokens: int
    key: str
    """Content identity with ids normalised: equal keys mean the same item across turns."""
    parts: tuple[Part, ...] = ()
    raw: Any = None

    @property
    def fragments(self) -> tuple[Part, ...]:
        """The recognised context fragments inside this item."""
        return tuple(p for p in self.parts if p.is_fragment)

    @property
    def is_conversation(self) -> bool:
        """True for items that carry the conversation itself rather than injected context."""
        if self.kind in ("user_message", "assistant_message", "agent_message", "reasoning", "compaction"):
            return True
        return self.type in TOOL_ITEM_TYPES


def _preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    flat = " ".join(text.split())
    return json.dumps(flat if len(flat) <= limit else flat[: limit - 1] + "…", ensure_ascii=False)


def classify_part(index: int, part: Any, role: str) -> Part:
    """Classify one content part (a dict from `content`, or a bare string)."""
    if isinstance(part, str):
        part = {"type": "input_text", "text": part}
    if not isinstance(part, dict):
        return Part(index, type(part).__name__, "unknown_part", f"unknown_part:{type(part).__name__}", "")
    ptype = str(part.get("type", "?"))
    if ptype in TEXT_PART_TYPES:
        text = str(part.get("text", part.get("refusal", "")) or "")
        # Assistant text is never injected context, even when it quotes a fragment's marker.
        match = classify_text(text, role) if role != "assistant" else None
        if match is not None:
            return Part(index, ptype, match.kind, match.label, text, dict(match.values), count_text(text))
        return Part(index, ptype, "text", _preview(text), text, {}, count_text(text))
    if ptype in ("input_image", "image"):
        return Part(index, ptype, "image", "image", "", {}, 0)
    text = json.dumps(part, ensure_ascii=False)
    return Part(index, ptype, "unknown_part", f"unknown_part:{ptype}", text, {}, count_text(text))


def _message_item(position: int, item: dict[str, Any], key: str) -> Item:
    role = str(item.get("role", "user"))
    content = item.get("content", [])
    raw_parts = [content] if isinstance(content, str) else list(content or [])
    parts = tuple(classify_part(i, p, role) for i, p in enumerate(raw_parts))
    fragments = [p for p in parts if p.is_fragment]
    text = "\n".join(p.text for p in parts)
    tokens = sum(p.tokens for p in parts)
    if fragments and len(fragments) == len(parts):
        kind = fragments[0].kind if len(fragments) == 1 else "context"
    elif fragments:
        kind = "context"
    else:
        kind = f"{role}_message"
    if len(parts) == 1 and not fragments:
        label = f"{role}: {parts[0].label}"
    else:
        label = f"{role}[" + ", ".join(f"<{p.label}>" if p.is_fragment else p.label for p in parts) + "]"
    return Item(position, "message", role, kind, label, text, tokens, key, parts, item)


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in output)
    return json.dumps(output, ensure_ascii=False)


def _tool_item(position: int, item: dict[str, Any], itype: str, key: str) -> Item:
    name = str(item.get("name", ""))
    if item.get("namespace"):
        name = f"{item['namespace']}.{name}"
    if itype in ("function_call", "custom_tool_call"):
        body = item.get("arguments", item.get("input", ""))
        text = f"{name} {body if isinstance(body, str) else json.dumps(body)}"
        label = f"{itype} {name} {_preview(text[len(name) + 1 :], 40)}"
    elif itype.endswith("_output"):
        text = _output_text(item.get("output", ""))
        label = f"{itype}: {_preview(text, 50)}"
    elif itype in ("shell_call", "local_shell_call") and isinstance(item.get("action"), dict):
        action = item["action"]
        commands = action.get("commands") or action.get("command") or []
        shown = " && ".join(map(str, commands)) if isinstance(commands, list) else str(commands)
        text = json.dumps(strip_none(item), ensure_ascii=False)
        label = f"{itype} {_preview(shown, 40)}"
    elif itype == "apply_patch_call" and isinstance(item.get("operation"), dict):
        operation = item["operation"]
        text = json.dumps(strip_none(item), ensure_ascii=False)
        label = f"{itype} {operation.get('type', '?')} {operation.get('path', '')}".rstrip()
    else:
        text = json.dumps(strip_none(item), ensure_ascii=False)
        label = itype
    parts = _goal_call_parts(item, itype, text)
    return Item(position, itype, None, itype, label, text, count_text(text), key, parts, item)


def goal_call_values(item: Any) -> dict[str, Any] | None:
    """The goal-status values of the model's own goal call (`update_goal {status}`, `create_goal
    {objective}`), or None for any other item."""
    if not isinstance(item, dict) or item.get("type") != "function_call":
        return None
    name = item.get("name")
    if name not in ("update_goal", "create_goal"):
        return None
    try:
        args = json.loads(item.get("arguments") or "{}")
    except (TypeError, ValueError):
        return None
    if not isinstance(args, dict):
        return None
    if name == "update_goal" and isinstance(args.get("status"), str):
        return {"status": args["status"]}
    if name == "create_goal" and isinstance(args.get("objective"), str):
        return {"objective": args["objective"], "status": "active"}
    return None


def _goal_call_parts(item: dict[str, Any], itype: str, text: str) -> tuple[Part, ...]:
    """The model's own goal changes, read with the goal-status fragment's meaning so they reach the
    world state like the person's."""
    values = goal_call_values({**item, "type": itype})
    if values is None:
        return ()
    return (Part(0, itype, "goal_status", f"goal_status:{values['status']}", text, values),)


def strip_none(item: dict[str, Any]) -> dict[str, Any]:
    """The item without null fields, for compact display."""
    return {k: v for k, v in item.items() if v is not None}


def classify_item(position: int, item: Any, key: str | None = None) -> Item:
    """Classify one `input[]` element; never raises, whatever the element is."""
    key = key or item_key(item)
    if isinstance(item, str):  # `input` may hold bare strings in hand-written requests.
        item = {"type": "message", "role": "user", "content": item}
    if not isinstance(item, dict):
        text = json.dumps(item, ensure_ascii=False, default=str)
        return Item(position, type(item).__name__, None, "unknown", "unknown:not-an-object", text, 0, key)
    itype = str(item.get("type") or ("message" if "role" in item else "?"))
    if itype == "message":
        return _message_item(position, item, key)
    if itype == "reasoning":
        summary = item.get("summary") or []
        text = "\n".join(str(s.get("text", "")) for s in summary if isinstance(s, dict))
        if not text:  # open-weight models stream raw `reasoning_text` content and no summary
            content = item.get("content") or []
            text = "\n".join(
                str(c.get("text", ""))
                for c in content
                if isinstance(c, dict) and c.get("type") == "reasoning_text"
            )
        opaque = len(str(item.get("encrypted_content") or ""))
        label = f"reasoning {_preview(text, 40)}" if text else "reasoning"
        if opaque:
            label += f" (+{opaque} chars encrypted)"
        return Item(position, itype, None, "reasoning", label, text, count_text(text), key, (), item)
    objective = goal_objective_of(item)
    if objective is not None:
        # Codex's goal objective: an output with no call, by design (not an orphan).
        # Its meaning is the goal-status fragment's: it names the objective.
        part = Part(0, itype, "goal_status", "goal_objective", objective, {"objective": objective})
        label = f"goal_objective {_preview(objective, 50)}"
        return Item(
            position,
            itype,
            None,
            "goal_objective",
            label,
            objective,
            count_text(objective),
            key,
            (part,),
            item,
        )
    if itype in TOOL_ITEM_TYPES:
        return _tool_item(position, item, itype, key)
    if itype in COMPACTION_ITEM_TYPES:
        opaque = len(str(item.get("encrypted_content") or ""))
        text = str(item.get("summary") or item.get("text") or "")
        return Item(
            position,
            itype,
            None,
            "compaction",
            f"{itype} ({opaque} chars encrypted)",
            text,
            count_text(text),
            key,
            (),
            item,
        )
    if itype == COMPACTION_TRIGGER:
        return Item(position, itype, None, COMPACTION_TRIGGER, COMPACTION_TRIGGER, "", 0, key, (), item)
    if itype == "configuration_update":
        # An in-band parameter change; `diffs.params_of` applies it, this names it in the layout.
        changes = {k: v for k, v in item.items() if k not in ("type", "id", "status")}
        text = json.dumps(changes, ensure_ascii=False, sort_keys=True)
        label = f"configuration_update {_preview(text, 50)}"
        return Item(
            position, itype, None, "configuration_update", label, text, count_text(text), key, (), item
        )
    if itype == "agent_message":
        # Multi-agent Codex: a message from another agent of the session (conversation, not context).
        content = item.get("content")
        raw_parts = [content] if isinstance(content, str) else list(content or [])
        parts = tuple(classify_part(i, p, "assistant") for i, p in enumerate(raw_parts))
        text = "\n".join(p.text for p in parts) or str(item.get("text") or item.get("message") or "")
        who = item.get("author") or item.get("agent") or item.get("name")
        label = f"agent_message{f' {who}' if who else ''}: {_preview(text, 50)}"
        return Item(position, itype, None, "agent_message", label, text, count_text(text), key, parts, item)
    if itype == "additional_tools":
        tools = item.get("tools") or []
        names = [str(t.get("name", t.get("type", "?"))) for t in tools if isinstance(t, dict)]
        text = json.dumps(tools, ensure_ascii=False)
        return Item(
            position,
            itype,
            str(item.get("role", "developer")),
            "additional_tools",
            f"additional_tools[{', '.join(names)}]",
            text,
            count_text(text),
            key,
            (),
            item,
        )
    text = json.dumps(item, ensure_ascii=False, default=str)
    return Item(
        position,
        itype,
        item.get("role") if isinstance(item.get("role"), str) else None,
        "unknown",
        f"unknown:{itype}",
        text,
        count_text(text),
        key,
        (),
        item,
    )


class ItemList(PrefixList[Item]):
    """A request's classified items. Built on the classified list of the request it extends (`base`,
    its first `keep` items) it shares that list's storage (`PrefixList`: a thread of n turns holds
    its items once, not n²/2 times), and a comparison with that request needs no look at the items
    (`changes.extends`)."""

    __slots__ = ("_fragments",)

    def __init__(self, base: Sequence[Item] | None = None, keep: int = 0) -> None:
        super().__init__(base, keep)
        self._fragments: list[tuple[int, Part]] | None = None

    def fragment_parts(self) -> list[tuple[int, Part]]:
        """(item position, part) of every context fragment in the list, in order: the base's that
        lie in the kept prefix plus those of the items after it, worked out once per list."""
        if self._fragments is not None:
            return self._fragments
        chain: list[ItemList] = [self]  # back along the bases to one already known (no recursion)
        while chain[-1]._fragments is None and isinstance(chain[-1].base, ItemList):
            chain.append(chain[-1].base)
        known: list[tuple[int, Part]] | None = chain[-1]._fragments
        if known is None:
            head = chain.pop()
            start = head.keep if head.base is not None else 0
            known = fragment_parts(head.base[: head.keep]) if head.base is not None else []
            head._fragments = known + [(i.position, p) for i in head[start:] for p in i.fragments]
            known = head._fragments
        else:
            chain.pop()
        for items in reversed(chain):
            kept = known[: bisect_left(known, items.keep, key=lambda e: e[0])]
            items._fragments = kept + [(i.position, p) for i in items[items.keep :] for p in i.fragments]
            known = items._fragments
        return known


def fragment_parts(items: Sequence[Item]) -> list[tuple[int, Part]]:
    """(item position, part) of every context fragment in `items`, in order."""
    if isinstance(items, ItemList):
        return items.fragment_parts()
    return [(item.position, part) for item in items for part in item.fragments]


class ItemClassifier:
    """Classifies items once per distinct content: later turns repeat earlier items verbatim.

    A turn's input usually starts with the input of an earlier turn: the reader says which (an
    `InputList` names its base), so the base's classified items are taken as they are and only the
    items it added are looked at. An input without that (built by hand, or a chain rebuilt in) is
    tried against the recent input lists: one C-level list comparison that stops at identical objects.
    """

    RECENT = 4
    """How many recent input lists are tried as the prefix (threads may interleave)."""

    def __init__(self) -> None:
        self._cache: dict[str, Item] = {}
        # id() of an item dict → (the dict, its key); keeps the dict alive so the id is not reused.
        self._keys: dict[int, tuple[Any, str]] = {}
        self._recent: list[tuple[Sequence[Any], ItemList]] = []
        # id() of a reader's input list → (the list, its classified items), kept alive likewise
        self._by_input: dict[int, tuple[Sequence[Any], ItemList]] = {}

    def key(self, item: Any) -> str:
        """The normalised key of an item, cached by object identity (readers share resolved bodies)."""
        hit = self._keys.get(id(item))
        if hit is not None and hit[0] is item:
            return hit[1]
        key = item_key(item)
        self._keys[id(item)] = (item, key)
        return key

    def _known_prefix(self, items: Sequence[Any]) -> ItemList:
        """The classified items of the input `items` extends: its base as the reader gives it, else
        the longest recent input list that `items` starts with."""
        if isinstance(items, InputList | PrefixList) and items.base is not None:
            known = self._by_input.get(id(items.base))
            if known is not None and known[0] is items.base:
                return ItemList(known[1], items.keep)
        best: Sequence[Item] = ()
        for raw, classified in self._recent:
            if len(best) < len(raw) <= len(items) and items[: len(raw)] == raw:
                best = classified
        return ItemList(best, len(best))

    def classify(self, items: Sequence[Any]) -> ItemList:
        """Classify a whole input list, reusing earlier results for identical items."""
        out = self._known_prefix(items)
        for position in range(len(out), len(items)):
            raw = items[position]
            key = self.key(raw)
            cached = self._cache.get(key)
            if cached is None:
                cached = classify_item(position, raw, key)
                self._cache[key] = cached
            out.append(cached if cached.position == position else _moved(cached, position))
        self._recent = [*self._recent[-(self.RECENT - 1) :], (items, out)]
        if isinstance(items, InputList | PrefixList):
            self._by_input[id(items)] = (items, out)
        return out


def _moved(item: Item, position: int) -> Item:
    return Item(
        position,
        item.type,
        item.role,
        item.kind,
        item.label,
        item.text,
        item.tokens,
        item.key,
        item.parts,
        item.raw,
    )
