"""Mode gates: which tools a collaboration mode hides or refuses, decided in one policy object.

The router asks the gate twice: `hidden()` when building `tools[]` (a hidden tool is left out of the
request) and `refusal()` at call time (a refused call still gets its one output item, carrying the
rule's message, so the model learns why and does not loop). A mode adds its own rules through
`AgentMode.gate_rules()` (the router checks them before these) rather than changing the tools.

Built-in rules (Codex behaviour):
- `update_plan` is refused in `plan` mode: it is a TODO checklist for doing work, not for planning.
- `request_user_input` outside `plan` mode: Codex refuses it. ctxscope keeps it usable in every mode by
  default (headless runs answer with the recommended option, so it is harmless, and the harness can
  then be used to record how models use it); `ToolGate.default(user_input_only_in_plan=True)` restores
  the Codex rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

PLAN_MODE = "plan"

UPDATE_PLAN_IN_PLAN_MODE = (
    "update_plan is a TODO/checklist tool for tracking work while implementing; it is not allowed in "
    "Plan mode. Keep exploring read-only and present the plan in a <proposed_plan> block instead."
)
USER_INPUT_OUTSIDE_PLAN = (
    "request_user_input is only available in Plan mode. Make a reasonable assumption, state it, and continue."
)


def still_planning(tool: str) -> str:
    """The refusal text for a tool blocked while planning."""
    return (
        f"{tool} is blocked: still planning (Plan mode). Only read-only exploration is allowed until the "
        "user approves the plan and leaves Plan mode; describe the change in the plan instead."
    )


def recognise_still_planning(output: str) -> str | None:
    """The tool named by a `still_planning` refusal (the inspector reads outputs with it), or None."""
    head, _, tail = still_planning("\0").partition("\0")
    if output.startswith(head) and output.endswith(tail) and len(output) > len(head) + len(tail):
        return output[len(head) : len(output) - len(tail)]
    return None


@dataclass(frozen=True)
class GateRule:
    """One rule: in the modes where `applies(mode)` is true, `tool` is refused with `message`.

    `hide` also leaves the tool out of `tools[]` in those modes. `tool="*"` matches every tool except
    those in `except_tools`.
    """

    tool: str
    applies: Callable[[str], bool]
    message: str | Callable[[str], str]
    hide: bool = False
    except_tools: frozenset[str] = frozenset()

    def matches(self, tool: str, mode: str) -> bool:
        """Whether this rule covers `tool` in `mode`."""
        named = self.tool == tool or (self.tool == "*" and tool not in self.except_tools)
        return named and self.applies(mode)

    def text(self, tool: str) -> str:
        """The refusal message for `tool`."""
        return self.message(tool) if callable(self.message) else self.message


def in_modes(*modes: str) -> Callable[[str], bool]:
    """A rule predicate true in the given modes."""
    wanted = frozenset(modes)
    return lambda mode: mode in wanted


def outside_modes(*modes: str) -> Callable[[str], bool]:
    """A rule predicate true in every mode except the given ones."""
    unwanted = frozenset(modes)
    return lambda mode: mode not in unwanted


@dataclass
class ToolGate:
    """An ordered list of rules; the first matching rule wins. No rules = everything allowed."""

    rules: list[GateRule] = field(default_factory=list)

    @classmethod
    def default(cls, *, user_input_only_in_plan: bool = False) -> ToolGate:
        """The built-in rules (see the module docstring)."""
        rules = [GateRule("update_plan", in_modes(PLAN_MODE), UPDATE_PLAN_IN_PLAN_MODE)]
        if user_input_only_in_plan:
            rules.append(GateRule("request_user_input", outside_modes(PLAN_MODE), USER_INPUT_OUTSIDE_PLAN))
        return cls(rules)

    def with_rules(self, rules: Iterable[GateRule]) -> ToolGate:
        """A new gate whose added rules are checked before the existing ones."""
        return ToolGate([*rules, *self.rules])

    def refusal(self, tool: str, mode: str) -> str | None:
        """The refusal text for calling `tool` in `mode`, or None when the call may run."""
        for rule in self.rules:
            if rule.matches(tool, mode):
                return rule.text(tool)
        return None

    def hidden(self, tool: str, mode: str) -> bool:
        """Whether `tool` is left out of `tools[]` in `mode`."""
        for rule in self.rules:
            if rule.matches(tool, mode):
                return rule.hide
        return False
