"""A request's context as removable units, and the differences between two requests as units.

`ctxscope bisect` asks "which part of this context made the model answer so?" by removing parts
and asking again. The parts must be ones a person names (the AGENTS.md fragment, the permissions
message, one tool, one earlier tool call with its output, `reasoning`), and every edited request
must still be one the API accepts. So a request is cut into *units*:

- each recognised context fragment is a unit (a content part of its message: the AGENTS.md and
  the environment context of one user message are two units), the base prompt too; a fragment's
  lines can go one by one (`RequestUnits.lines`), so a search that finds the AGENTS.md can go on to
  the line inside it that matters;
- each plain message part is a unit;
- history items that must travel together are one unit: a tool call with its output (matched by
  `call_id`), and a reasoning item with the item it led to;
- each tool in `tools[]` is a unit, by name;
- each request parameter that shapes the answer (`model`, `instructions`, `reasoning`, `text`,
  `tool_choice`, …) is a unit (`model` can be changed, never removed: `Unit.removable`); the ones
  that only address or frame the request (`stream`, `input`, `tools`, `store`, `include`,
  `prompt_cache_key`, `client_metadata`) are not.

A request is kept as an ordered list of *atoms* (a parameter, a tool, an input item, or one
content part with the message it sits in); a unit owns one or more atoms. Rendering a selection
of units walks the atoms in their order, so removing units never reorders what stays.

Two requests (GOOD and BAD) differ by units: one only in BAD (added), one only in GOOD
(removed), or one whose key both share with different content (changed: the AGENTS.md text,
the permissions text, a tool's schema, `reasoning.effort`). `merge_requests` lays BAD's added
atoms into GOOD's order, so any set of differences can be applied to GOOD.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ctxscope.inspector.analysis.inputs import classify_input, input_list
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.analysis.tokens import count_text

__all__ = [
    "Difference",
    "RequestUnits",
    "Unit",
    "UnitMerge",
    "merge_requests",
    "request_units",
]

Section = Literal["fragment", "message", "history", "tool", "parameter"]

PARAMETER_UNITS = (
    "model",
    "instructions",
    "reasoning",
    "text",
    "tool_choice",
    "parallel_tool_calls",
    "temperature",
    "top_p",
    "max_output_tokens",
    "truncation",
    "service_tier",
)
"""Request parameters that shape the answer, each a unit in the order a person reads them."""

MIN_LINES = 3
"""A fragment with this many removable lines is searched line by line once it is found to matter."""

_LONE_TAG = re.compile(r"^</?[A-Za-z_][\w -]*>$")

_CALL_TYPES = frozenset(
    {"function_call", "custom_tool_call", "local_shell_call", "shell_call", "apply_patch_call"}
)


@dataclass(frozen=True)
class Unit:
    """One removable piece of a request's context."""

    id: str
    """Unique within its request: its key, with `#2`, `#3` … for a repeated key."""
    section: Section
    label: str
    """What a person calls it: `agents_md:/repo`, `permissions`, `tool exec_command`, …"""
    key: str
    """Identity across two requests: the same key in GOOD and BAD names the same part."""
    content: str
    """Canonical JSON of what the unit holds: equal keys with unequal content are a change."""
    tokens: int
    preview: str = ""
    text: str = ""
    """The unit's text (a fragment's or message's words; JSON for the rest), for showing a change."""

    @property
    def removable(self) -> bool:
        """False for a unit the API needs (the model): it can differ between requests, not be left out."""
        return self.key != "param:model"


@dataclass(frozen=True)
class _Atom:
    unit: str
    kind: Literal["parameter", "tool", "item", "part"]
    payload: Any
    name: str = ""
    """The parameter's name (parameters)."""
    shell: str = ""
    """For a content part: the message it belongs to (parts of one shell render as one message)."""
    shell_item: Mapping[str, Any] | None = None


@dataclass
class RequestUnits:
    """A request body cut into units; `render` builds the body again from any selection."""

    body: dict[str, Any]
    units: list[Unit]
    atoms: list[_Atom]
    swaps: dict[str, list[_Atom]] = field(default_factory=dict)
    """unit id → atoms that replace that unit's own when the swap is chosen (changed units)."""

    def unit(self, unit_id: str) -> Unit:
        for unit in self.units:
            if unit.id == unit_id:
                return unit
        raise KeyError(unit_id)

    def lines(self, unit_id: str) -> list[tuple[int, str]]:
        """The lines of a fragment unit that can go one by one (index in its text, the line): its
        non-blank lines but the first (the fragment's heading) and lone tags (`<INSTRUCTIONS>`).
        Empty for any other unit, and for a fragment shorter than `MIN_LINES` such lines."""
        atoms = [a for a in self.atoms if a.unit == unit_id and a.kind == "part"]
        if self.unit(unit_id).section != "fragment" or len(atoms) != 1:
            return []
        text = atoms[0].payload.get("text") if isinstance(atoms[0].payload, dict) else None
        if not isinstance(text, str):
            return []
        found = [
            (index, line)
            for index, line in enumerate(text.split("\n"))
            if index > 0 and line.strip() and not _LONE_TAG.match(line.strip())
        ]
        return found if len(found) >= MIN_LINES else []

    def render(
        self,
        keep: Iterable[str],
        swapped: Iterable[str] = (),
        without_lines: Mapping[str, Iterable[int]] | None = None,
    ) -> dict[str, Any]:
        """The body holding only the units in `keep`, with `swapped` units in their other form and,
        for a fragment unit in `without_lines`, the text without those lines (indices of `lines`)."""
        kept, swap = set(keep), set(swapped)
        cut = {unit: set(lines) for unit, lines in (without_lines or {}).items()}
        body = {k: copy.deepcopy(v) for k, v in self.body.items() if k not in PARAMETER_UNITS}
        body.pop("input", None)
        tools: list[Any] = []
        items: list[Any] = []
        open_shell = ""
        done_swaps: set[str] = set()
        for atom in self.atoms:
            if atom.unit not in kept:
                continue
            atoms = [atom]
            if atom.unit in swap:
                if atom.unit in done_swaps:
                    continue
                done_swaps.add(atom.unit)
                atoms = self.swaps[atom.unit]
            for one in atoms:
                if one.kind == "parameter":
                    body[one.name] = copy.deepcopy(one.payload)
                elif one.kind == "tool":
                    tools.append(copy.deepcopy(one.payload))
                elif one.kind == "item":
                    items.append(copy.deepcopy(one.payload))
                    open_shell = ""
                else:
                    if one.shell != open_shell or not items:
                        shell = dict(one.shell_item or {"type": "message", "role": "user"})
                        shell["content"] = []
                        items.append(shell)
                        open_shell = one.shell
                    payload = copy.deepcopy(one.payload)
                    if one.unit in cut and isinstance(payload, dict) and isinstance(payload.get("text"), str):
                        kept_lines = payload["text"].split("\n")
                        payload["text"] = "\n".join(t for i, t in enumerate(kept_lines) if i not in cut[one.unit])
                    items[-1]["content"].append(payload)
        body["input"] = items
        if "tools" in self.body or tools:
            body["tools"] = tools
        ordered = {k: body[k] for k in self.body if k in body}
        ordered.update({k: v for k, v in body.items() if k not in ordered})
        return ordered


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _preview(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _fragment_key(kind: str, values: Mapping[str, Any]) -> str:
    """Fragments of one kind are told apart by what they are about (AGENTS.md by path, a skill by name)."""
    for name in ("path", "directory", "name", "skill"):
        value = values.get(name)
        if isinstance(value, str) and value:
            return f"fragment:{kind}:{value}"
    return f"fragment:{kind}"


def _history_groups(items: Sequence[Item]) -> dict[int, int]:
    """Input position → the position of its group's first item (call + output, reasoning + next)."""
    group: dict[int, int] = {}
    calls: dict[str, int] = {}
    pending: list[int] = []
    for item in items:
        raw = item.raw if isinstance(item.raw, dict) else {}
        position = item.position
        call_id = raw.get("call_id")
        if item.type == "reasoning":
            pending.append(position)
            continue
        if item.type.endswith("_output") and isinstance(call_id, str) and call_id in calls:
            group[position] = calls[call_id]
        else:
            group[position] = position
            if item.type in _CALL_TYPES and isinstance(call_id, str):
                calls[call_id] = position
        for waiting in pending:  # a reasoning item travels with what it led to
            group[waiting] = group[position]
        pending = []
    for waiting in pending:  # trailing reasoning with nothing after it: a unit of its own
        group[waiting] = pending[0]
    return group


class _Builder:
    def __init__(self) -> None:
        self.units: list[Unit] = []
        self.atoms: list[_Atom] = []
        self._seen: dict[str, int] = {}
        self._by_id: dict[str, int] = {}

    def unit(self, section: Section, key: str, label: str, content: Any, tokens: int, preview: str) -> str:
        count = self._seen.get(key, 0) + 1
        self._seen[key] = count
        unit_id = key if count == 1 else f"{key}#{count}"
        self._by_id[unit_id] = len(self.units)
        text = (
            content.get("text") if isinstance(content, dict) and section in ("fragment", "message") else None
        )
        shown = (
            text if isinstance(text, str) else content if isinstance(content, str) else _canonical(content)
        )
        self.units.append(Unit(unit_id, section, label, key, _canonical(content), tokens, preview, shown))
        return unit_id

    def grow(self, unit_id: str, content: Any, tokens: int, label: str) -> None:
        """Add another atom's content to a unit made earlier (a tool output joining its call)."""
        index = self._by_id[unit_id]
        old = self.units[index]
        if old.label == "reasoning":  # a reasoning item is named by what it led to
            old = Unit(
                old.id,
                old.section,
                f"{label} (with reasoning)",
                old.key,
                old.content,
                old.tokens,
                "",
                old.text,
            )
        merged = json.loads(old.content) if old.content.startswith("[") else [json.loads(old.content)]
        merged.append(content)
        content = _canonical(merged)
        self.units[index] = Unit(
            old.id, old.section, old.label, old.key, content, old.tokens + tokens, old.preview, content
        )


def request_units(body: Mapping[str, Any]) -> RequestUnits:
    """Cut a Responses request body into units (see the module docstring)."""
    body = dict(body)
    build = _Builder()
    for name in PARAMETER_UNITS:
        if name in body:
            value = body[name]
            text = value if isinstance(value, str) else _canonical(value)
            unit_id = build.unit(
                "parameter", f"param:{name}", f"parameter {name}", value, count_text(text), _preview(text)
            )
            build.atoms.append(_Atom(unit_id, "parameter", value, name=name))
    items_raw = input_list(body)  # a plain-string input is one user message, as everywhere
    items = classify_input(items_raw, body)
    groups = _history_groups(items)
    group_units: dict[int, str] = {}
    for item in items:
        raw = items_raw[item.position]
        if item.type == "message" and isinstance(raw, dict) and item.parts:
            shell = {k: v for k, v in raw.items() if k != "content"}
            content = raw.get("content")
            raw_parts = [content] if isinstance(content, str) else list(content or [])
            for part, raw_part in zip(item.parts, raw_parts, strict=False):
                if item.kind == "instructions":
                    section: Section = "fragment"
                    key, label = "fragment:instructions", "base prompt"
                elif part.is_fragment:
                    section = "fragment"
                    key, label = _fragment_key(part.kind, part.values), part.label
                else:
                    section = "message"
                    key = f"message:{item.role}:{_digest(part.text)}"
                    label = f"{item.role} message"
                payload = raw_part if isinstance(raw_part, dict) else {"type": "input_text", "text": raw_part}
                unit_id = build.unit(section, key, label, payload, part.tokens, _preview(part.text))
                build.atoms.append(
                    _Atom(unit_id, "part", payload, shell=f"input[{item.position}]", shell_item=shell)
                )
            continue
        first = groups.get(item.position, item.position)
        if first in group_units:
            unit_id = group_units[first]
            build.grow(unit_id, raw, item.tokens, item.label)
        else:
            label = item.label if item.type != "reasoning" else "reasoning"
            unit_id = build.unit("history", f"history:{_digest(item.key)}", label, raw, item.tokens, "")
            group_units[first] = unit_id
        build.atoms.append(_Atom(unit_id, "item", raw))
    tools = body.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        name = str(tool.get("name") or tool.get("type") or "?") if isinstance(tool, dict) else "?"
        text = _canonical(tool)
        unit_id = build.unit("tool", f"tool:{name}", f"tool {name}", tool, count_text(text), "")
        build.atoms.append(_Atom(unit_id, "tool", tool))
    return RequestUnits(body, build.units, build.atoms)


@dataclass(frozen=True)
class Difference:
    """One way BAD's request differs from GOOD's: a unit added, removed or changed."""

    id: str
    change: Literal["added", "removed", "changed"]
    unit: str
    """The unit id in the merged request."""
    label: str
    good: str = ""
    """A preview of GOOD's form (removed, changed)."""
    bad: str = ""
    """A preview of BAD's form (added, changed)."""

    def line(self) -> str:
        if self.change == "changed":
            return f"{self.label}: changed ({self.good!r} → {self.bad!r})"
        return f"{self.label}: {self.change}"


@dataclass
class UnitMerge:
    """GOOD's request with BAD's added units laid in and BAD's changed forms at hand."""

    merged: RequestUnits
    differences: list[Difference]
    base: list[str]
    """The units GOOD's request holds (rendering `base` alone gives GOOD's body back)."""

    def apply(self, chosen: Iterable[str]) -> dict[str, Any]:
        """GOOD's body with the chosen differences (ids) applied."""
        picked = {d.id: d for d in self.differences if d.id in set(chosen)}
        keep = set(self.base)
        swapped: set[str] = set()
        for diff in picked.values():
            if diff.change == "added":
                keep.add(diff.unit)
            elif diff.change == "removed":
                keep.discard(diff.unit)
            else:
                swapped.add(diff.unit)
        return self.merged.render(keep, swapped)


def _changed_text(good: str, bad: str) -> tuple[str, str]:
    """The first line GOOD has that BAD lacks, and the first line BAD has that GOOD lacks."""
    old = [line for line in good.splitlines() if line.strip()]
    new = [line for line in bad.splitlines() if line.strip()]
    removed = added = ""
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        removed = removed or " | ".join(old[i1:i2])
        added = added or " | ".join(new[j1:j2])
        if removed and added:
            break
    return _preview(removed, 70), _preview(added, 70)


def _anchors(request: RequestUnits, shared: set[str]) -> dict[str, str]:
    """Each unit not in `shared` → the last shared unit before it (its place in the request)."""
    anchor, out = "", {}
    for unit in request.units:
        if unit.id in shared:
            anchor = unit.id
        else:
            out[unit.id] = anchor
    return out


def _slot(unit: Unit) -> tuple[str, str]:
    """What a removed and an added unit must share to be one changed unit: section and speaker."""
    return unit.section, unit.key.rsplit(":", 1)[0] if unit.section == "message" else ""


def merge_requests(good_body: Mapping[str, Any], bad_body: Mapping[str, Any]) -> UnitMerge:
    """The differences between two requests, as units that can be applied to GOOD one by one.

    Fragments, tools and parameters are matched by key (AGENTS.md by its path, a tool by name), so
    a changed text is one `changed` difference. Messages and history items are known by their
    content; one that GOOD has and BAD lacks at the same place (between the same shared units,
    same section and speaker) as one BAD has and GOOD lacks is one changed message too.
    """
    good, bad = request_units(good_body), request_units(bad_body)
    good_by_id = {u.id: u for u in good.units}
    bad_by_id = {u.id: u for u in bad.units}
    shared = set(good_by_id) & set(bad_by_id)
    good_anchor, bad_anchor = _anchors(good, shared), _anchors(bad, shared)
    # Pair GOOD-only and BAD-only content units that sit at the same place: one changed message.
    paired: dict[str, str] = {}
    """BAD unit id → the GOOD unit it changes."""
    waiting: dict[tuple[str, tuple[str, str]], list[str]] = {}
    for unit in good.units:
        if unit.id not in shared and unit.section in ("message", "history"):
            waiting.setdefault((good_anchor[unit.id], _slot(unit)), []).append(unit.id)
    for unit in bad.units:
        if unit.id not in shared and unit.section in ("message", "history"):
            queue = waiting.get((bad_anchor[unit.id], _slot(unit)))
            if queue:
                paired[unit.id] = queue.pop(0)
    changes_of = {good_id: bad_id for bad_id, good_id in paired.items()}
    for good_id, bad_id in changes_of.items():
        shared.add(good_id)  # for placing what BAD adds, a changed unit is where it was
        bad_by_id[good_id] = bad_by_id[bad_id]

    atoms = list(good.atoms)
    units = list(good.units)
    differences: list[Difference] = []
    swaps: dict[str, list[_Atom]] = {}
    # Lay each BAD-only unit's atoms after the atom of the last unit both hold, in BAD's order.
    anchor = -1
    shells: dict[str, str] = {}
    """BAD's message (`input[k]`) → the merged message its shared parts sit in."""
    for atom in bad.atoms:
        own_id = paired.get(atom.unit, atom.unit)
        if own_id in good_by_id and (own_id in shared):
            positions = [i for i, a in enumerate(atoms) if a.unit == own_id]
            if positions:
                anchor = max(anchor, positions[-1])
                if atom.kind == "part" and atoms[positions[-1]].kind == "part":
                    shells[atom.shell] = atoms[positions[-1]].shell
            continue
        new_id = f"bad:{atom.unit}"
        if all(u.id != new_id for u in units):
            unit = bad_by_id[atom.unit]
            units.append(
                Unit(
                    new_id,
                    unit.section,
                    unit.label,
                    unit.key,
                    unit.content,
                    unit.tokens,
                    unit.preview,
                    unit.text,
                )
            )
            differences.append(Difference(f"+{unit.id}", "added", new_id, unit.label, bad=unit.preview))
        # a part added to a message both send stays in that message; one of a new message, in a new one
        shell = shells.get(atom.shell, f"bad:{atom.shell}") if atom.shell else ""
        anchor += 1
        atoms.insert(anchor, _Atom(new_id, atom.kind, atom.payload, atom.name, shell, atom.shell_item))
    for unit in good.units:
        bad_id = changes_of.get(unit.id, unit.id)
        other = bad_by_id.get(unit.id)
        if unit.id not in shared or other is None:
            differences.append(Difference(f"-{unit.id}", "removed", unit.id, unit.label, good=unit.preview))
            continue
        if other.content == unit.content:
            continue
        own = [a for a in good.atoms if a.unit == unit.id]
        theirs = [a for a in bad.atoms if a.unit == bad_id]
        shell = own[0].shell if own else ""
        swaps[unit.id] = [
            _Atom(unit.id, a.kind, a.payload, a.name, shell if a.kind == "part" else a.shell, a.shell_item)
            for a in theirs
        ]
        removed, added = _changed_text(unit.text, other.text)
        differences.append(Difference(f"~{unit.id}", "changed", unit.id, unit.label, good=removed, bad=added))
    merged = RequestUnits(dict(good_body), units, atoms, swaps)
    return UnitMerge(merged, differences, [u.id for u in good.units])
