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

_UPDATE_PLAN_HEAD = (
    "update_plan is a TODO/checklist tool for tracking work while implementing; it is not allowed in "
    "Plan mode. Keep exploring read-only and present the plan "
)


def update_plan_refused(submission: str) -> str:
    """The refusal of `update_plan` while planning; `submission` says how the profile submits a plan
    (`in a <proposed_plan> block`, `with exit_plan_mode(plan)`, ...)."""
    return f"{_UPDATE_PLAN_HEAD}{submission} instead."


def recognise_update_plan_refused(output: str) -> bool:
    """Whether a tool output is an `update_plan_refused` text (any profile's)."""
    return output.startswith(_UPDATE_PLAN_HEAD) and output.endswith(" instead.")


UPDATE_PLAN_IN_PLAN_MODE = update_plan_refused("in a <proposed_plan> block")
"""The router's own rule (Codex's protocol); a plan profile with a submission tool adds its own words."""

USER_INPUT_OUTSIDE_PLAN = (
    "request_user_input is only available in Plan mode. Make a reasonable assumption, state it, and continue."
)

_STILL_PLANNING = " was refused before it ran: still planning (Plan mode). "


def still_planning(tool: str, submission: str = "") -> str:
    """The refusal text for a tool blocked while planning; `submission` names how to submit a plan."""
    how = f", and submit the plan {submission}" if submission else ""
    return (
        # Says only what the gate does: this tool waits. Shell commands still run while planning
        # (reported afterwards), so "only read-only exploration runs" would promise more than it keeps.
        f"{tool}{_STILL_PLANNING}It waits until the user approves the plan and leaves Plan mode; "
        f"describe the change in the plan instead{how}."
    )


def recognise_still_planning(output: str) -> str | None:
    """The tool named by a `still_planning` refusal (the inspector reads outputs with it), or None."""
    at = output.find(_STILL_PLANNING)
    tool = output[:at] if at > 0 else ""
    if tool and " " not in tool and output.endswith("."):
        return tool
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
