"""Token attribution of one request per fragment kind, reconciled with the usage the backend reported.

Counts come from `tokens` (o200k_base, or an estimate labelled as such). The backend also counts
message framing and tool-schema rendering we cannot see, so the reconciliation reports the gap
rather than hiding it. The predicted cache hit is the cache model's (`cache.CacheModel`): the
prefix shared with the best earlier request of the same cache key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ctxscope.inspector.analysis.diffs import instructions_text
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.analysis.tokens import count_json, count_text, get_tokenizer


@dataclass
class TokenReport:
    """Token figures of one turn."""

    by_kind: dict[str, int] = field(default_factory=dict)
    """Tokens per kind: `instructions`, `tools`, fragment kinds, `user_message`, `reasoning`, ..."""
    total: int = 0
    estimated: bool = False
    tokenizer: str = ""
    usage: dict[str, int | None] = field(default_factory=dict)
    """Reported: input_tokens, cached_tokens, output_tokens, reasoning_tokens (None when absent)."""
    items: int = 0
    """Counted tokens of the input items alone (`total` less the instructions and tools fields)."""
    shared_prefix: int = 0
    """Tokens of the prefix shared with the best earlier request of the same cache key (set from the
    analysis's one cache model, `cache.CacheModel`)."""
    predicted_cached: int = 0
    """Cached tokens predicted from `shared_prefix` (`tokens.predicted_cached`)."""

    @property
    def shown(self) -> tuple[int, Literal["reported", "counted"]]:
        """The one figure a timeline shows, and which it is: the reported input tokens (what the
        backend's window holds), else the counted total; every view labels it by the second."""
        reported = self.usage.get("input_tokens")
        return (reported, "reported") if reported is not None else (self.total, "counted")

    @property
    def unaccounted(self) -> int | None:
        """Reported input tokens minus the counted total (framing, schemas rendered server-side)."""
        reported = self.usage.get("input_tokens")
        return None if reported is None else reported - self.total


def usage_numbers(usage: dict[str, Any] | None) -> dict[str, int | None]:
    """A response's usage as four numbers (None: not reported); the report's one usage shape."""
    usage = usage or {}
    inp = usage.get("input_tokens_details") or {}
    out = usage.get("output_tokens_details") or {}

    def num(value: Any) -> int | None:
        return value if isinstance(value, int) else None

    numbers = {
        "input_tokens": num(usage.get("input_tokens")),
        "cached_tokens": num(inp.get("cached_tokens") if isinstance(inp, dict) else None),
        "output_tokens": num(usage.get("output_tokens")),
        "reasoning_tokens": num(out.get("reasoning_tokens") if isinstance(out, dict) else None),
    }
    # Cache writes only where the backend reports them (Codex 0.171 knows the field): a fifth number
    # absent elsewhere keeps every other usage document as it was.
    write = inp.get("cache_write_tokens") if isinstance(inp, dict) else None
    if isinstance(write, int):
        numbers["cache_write_tokens"] = write
    return numbers


def item_kind_tokens(item: Item, into: dict[str, int]) -> None:
    """Add an item's tokens to `into`: a message's per part (fragments by kind, plain text as
    `<role>_message`), any other item whole under its kind. (A goal call's or a goal objective's part
    gives its meaning to the world state; it is not a share of its tokens: read as one, the item's
    tokens went missing from `by_kind`, which then no longer added up to `total`.)"""
    if item.type == "message" and item.parts:
        for part in item.parts:
            kind = part.kind if part.is_fragment else f"{item.role}_message"
            into[kind] = into.get(kind, 0) + part.tokens
    else:
        into[item.kind] = into.get(item.kind, 0) + item.tokens


@dataclass
class ItemTotals:
    """Running per-kind totals of an input list's first `count` items (reused by appending turns)."""

    by_kind: dict[str, int]
    tokens: int
    count: int


def item_totals(items: Sequence[Item], prior: ItemTotals | None = None) -> ItemTotals:
    """Totals of `items`, continuing from `prior` when it covers a prefix of them."""
    by_kind: dict[str, int] = {}
    start = tokens = 0
    if prior is not None and prior.count <= len(items):
        start, tokens, by_kind = prior.count, prior.tokens, dict(prior.by_kind)
    for item in items[start:]:
        item_kind_tokens(item, by_kind)
        tokens += item.tokens
    return ItemTotals(by_kind, tokens, len(items))


def attribute(
    body: dict[str, Any],
    totals: ItemTotals,
    usage: dict[str, Any] | None,
) -> TokenReport:
    """Per-kind counts of a request (the cache figures are the cache model's, set afterwards)."""
    tokenizer = get_tokenizer()
    by_kind: dict[str, int] = {}
    instructions = instructions_text(body.get("instructions"))
    head = 0
    if instructions:
        by_kind["instructions"] = count_text(instructions)
        head += by_kind["instructions"]
    if body.get("tools"):
        by_kind["tools"] = count_json(body.get("tools"))
        head += by_kind["tools"]
    for kind, value in totals.by_kind.items():
        by_kind[kind] = by_kind.get(kind, 0) + value
    total = head + totals.tokens
    return TokenReport(by_kind, total, tokenizer.estimated, tokenizer.name, usage_numbers(usage), totals.tokens)
