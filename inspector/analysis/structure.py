"""Structural comparison of two model requests: the same structure on the wire, wording aside.

Two requests have the same structure when their labelled layouts (fragment kinds/labels per item,
not wording), body key sets, request settings, tools (names, types, parameter names) and metadata
key sets match, apart from the known differences `ALLOWED` lists and explains. The Codex parity
test and `ctxscope compare` both use this one definition.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ctxscope.inspector.analysis.analyse import TurnAnalysis
from ctxscope.inspector.analysis.items import Item
from ctxscope.proxy.replay.matching import SOMETIMES_SENT
from ctxscope.proxy.responses.vocabulary import CodexHeader

__all__ = ["ALLOWED", "SETTING_KEYS", "layout", "metadata_keys", "structural_differences", "tool_shapes"]

# What may differ, and why. Everything else must be identical request by request. Wording, base
# prompt content, originator/user agent and values are never compared: only labels and key sets.
ALLOWED: dict[str, Any] = {
    # Codex tells the model about its deferred tool namespaces (multi_agent_v1, reachable through
    # tool_search); the harness has no deferred namespaces, so it sends no <tools> notice.
    "layout_parts": re.compile(r"<tools(:removed)?>"),
    # Codex's model-switch sentence does not name the models, so its label carries no model name.
    "model_switch_label": re.compile(r"<model_switch:[^>]+>"),
    # Tools Codex has and the harness does not (goals, hosted/deferred search, sub-agents).
    "tools_only_codex": {
        "get_goal",
        "create_goal",
        "update_goal",
        "tool_search",
        "web_search",
        "multi_agent_v1",
    },
    # ctxscope's own tools: the plan checklist (the file tools read_file/list_dir/grep_files are
    # switched off in the Codex profile with file_tools = false).
    "tools_only_harness": {"update_plan"},
    # Codex drops apply_patch for a model its catalog does not know; the harness keeps offering it.
    "tools_only_harness_unknown_model": {"apply_patch"},
    # Models Codex's catalog does not know (see tools_only_harness_unknown_model).
    "unknown_models": {"gpt-5.4"},
    # Turn-metadata keys Codex sends only sometimes (its git probe may not finish in time): a key
    # one side lacks is not a difference. The one list cassette matching also uses.
    "turn_metadata_sometimes": {
        where[-1] for where in SOMETIMES_SENT if where[:2] == ("client_metadata", CodexHeader.TURN_METADATA)
    },
}

# Request settings whose values (not only presence) are structure.
SETTING_KEYS = ("reasoning", "text", "parallel_tool_calls", "tool_choice", "store", "stream", "include")


def layout(
    turn: TurnAnalysis,
    clean: Callable[[str], str] = lambda text: text,
    *,
    memo: dict[str, str | None] | None = None,
) -> list[str]:
    """The labelled layout (`role[<fragment>, text]` per message, labels of other items) with the
    allowed parts left out; `clean` normalises run-specific text such as the working directory.
    `memo` (item key → its entry, None for an item left out) spares the turns of one recording,
    which share most items, from labelling each again (use one per `clean`)."""
    if memo is None:
        memo = {}
    out = []
    for item in turn.turn.items:
        key = f"{item.kind}\x00{item.key}"  # the kind too: a marked base prompt has its text's key
        if key not in memo:
            memo[key] = _layout_entry(item, clean)
        entry = memo[key]
        if entry is not None:
            out.append(entry)
    return out


def _layout_entry(item: Item, clean: Callable[[str], str]) -> str | None:
    if item.parts and item.type == "message":
        parts = [
            f"<{p.label}>" if p.is_fragment else "text"
            for p in item.parts
            if not (p.is_fragment and ALLOWED["layout_parts"].fullmatch(f"<{p.label}>"))
        ]
        if not parts:
            return None
        label = f"{item.role}[{', '.join(parts)}]"
        if parts == ["text"]:
            label = f"{item.role}: text"
    else:
        label = item.label.split(" ", 1)[0] if item.type.endswith("_output") else item.label
        label = re.sub(r" \".*\"$", "", label)
    label = ALLOWED["model_switch_label"].sub("<model_switch>", label)
    return clean(label)


def tool_shapes(body: dict[str, Any]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """name → (type, parameter names) of every tool (namespaces and hosted tools by type)."""
    shapes = {}
    for tool in body.get("tools") or []:
        name = str(tool.get("name") or tool.get("type"))
        params = tuple(sorted((tool.get("parameters") or {}).get("properties") or {}))
        shapes[name] = (str(tool.get("type")), params)
    return shapes


def metadata_keys(body: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The `client_metadata` keys and the keys of its `x-codex-turn-metadata` JSON."""
    meta = body.get("client_metadata") or {}
    try:
        turn_meta = json.loads(meta.get(CodexHeader.TURN_METADATA) or "{}")
    except (TypeError, ValueError):
        turn_meta = {}
    return set(meta), set(turn_meta) if isinstance(turn_meta, dict) else set()


def structural_differences(
    a: TurnAnalysis,
    b: TurnAnalysis,
    clean_a: Callable[[str], str] = lambda text: text,
    clean_b: Callable[[str], str] = lambda text: text,
    *,
    memos: tuple[dict[str, str | None], dict[str, str | None]] | None = None,
) -> list[str]:
    """The structural differences of request `a` (e.g. the harness) and `b` (e.g. Codex), one line
    each; empty when they have the same structure. `memos`: each side's `layout` memo."""
    ba, bb = a.turn.body, b.turn.body
    out: list[str] = []
    memo_a, memo_b = memos if memos is not None else ({}, {})
    la, lb = layout(a, clean_a, memo=memo_a), layout(b, clean_b, memo=memo_b)
    if la != lb:
        out.append(f"layout: a {la} b {lb}")
    if set(ba) != set(bb):
        out.append(f"body keys: only a {sorted(set(ba) - set(bb))}, only b {sorted(set(bb) - set(ba))}")
    for key in SETTING_KEYS:
        if ba.get(key) != bb.get(key):
            out.append(f"{key}: a {ba.get(key)!r} b {bb.get(key)!r}")
    (ca, ta), (cb, tb) = metadata_keys(ba), metadata_keys(bb)
    sometimes = ALLOWED["turn_metadata_sometimes"]
    ta, tb = ta - (sometimes - tb), tb - (sometimes - ta)  # one-sided only: dropped
    if (ca, ta) != (cb, tb):
        out.append(
            f"metadata keys: only a {sorted((ca - cb) | (ta - tb))}, only b {sorted((cb - ca) | (tb - ta))}"
        )
    sa, sb = tool_shapes(ba), tool_shapes(bb)
    # Either side may be Codex: the allowed one-sided tools are allowed on either side.
    only_a = set(sa) - set(sb) - ALLOWED["tools_only_codex"] - ALLOWED["tools_only_harness"]
    only_b = set(sb) - set(sa) - ALLOWED["tools_only_codex"] - ALLOWED["tools_only_harness"]
    if {ba.get("model"), bb.get("model")} & ALLOWED["unknown_models"]:
        only_a -= ALLOWED["tools_only_harness_unknown_model"]
        only_b -= ALLOWED["tools_only_harness_unknown_model"]
    if only_a or only_b:
        out.append(f"tools: only a {sorted(only_a)}, only b {sorted(only_b)}")
    for name in sorted(set(sa) & set(sb)):
        if sa[name] != sb[name]:
            out.append(f"tool {name}: a {sa[name]} b {sb[name]}")
    return out
