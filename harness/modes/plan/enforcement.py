"""What each plan profile's gate enforces, defined once: the gate's rules and the prompt's words come
from the same `Enforcement`, so the model is never told a call is refused that then runs.

Three kinds of call while planning:
- run: read and search tools, the profile's question and submission tools;
- watched: shell tools run, unchecked beforehand; a command that changes the workspace is only
  reported afterwards (to the model in the call's output, to the user as a notice);
- refused: every other tool gets the "still planning" refusal before it runs (update_plan the
  Codex-style TODO refusal), naming the profile's own way to submit a plan.

The lists follow the seeds: Codex allows reading, inspecting commands and `request_user_input`;
KnightCode's manual lists read, grep, find, ls, web search, shell, `ask_user` and `submit_plan` and
blocks every other tool; Claude Code reads, searches, runs read-only commands and asks with
`AskUserQuestion`, and submits with `ExitPlanMode`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["ENFORCEMENT", "SHELL_TOOLS", "SUBMISSION_TOOLS", "Enforcement", "enforcement", "submission_tool"]

SHELL_TOOLS: frozenset[str] = frozenset({"exec_command", "write_stdin", "shell"})
"""Calls that run commands: allowed while planning, and watched for workspace changes."""

SUBMISSION_TOOLS: dict[str, str] = {"claude": "exit_plan_mode", "knightcode": "submit_plan"}
"""The profiles that submit a plan through a tool; codex submits a `<proposed_plan>` block."""


def submission_tool(tools: Iterable[str]) -> str | None:
    """How a request's client submits plans, read from its tools[]: the submission tool it declares,
    or None for a `<proposed_plan>` block (Codex, and ctxscope's codex profile). The inspector tells
    a submission by this, so a block in a client that ignores blocks stays text."""
    names = set(tools)
    return next((tool for tool in SUBMISSION_TOOLS.values() if tool in names), None)


_READ = frozenset({"read_file", "list_dir", "grep_files", "web_search"})


@dataclass(frozen=True)
class Enforcement:
    """One profile's gate while planning, and how its prompt states it."""

    profile: str
    runs: frozenset[str]
    """Tools that run while planning (shell tools among them are also `watched`)."""
    submission: str
    """How the model submits a plan, in the words its refusals use."""
    watched: frozenset[str] = SHELL_TOOLS

    def allows(self, tool: str) -> bool:
        """Whether `tool` runs while planning (refused before it runs otherwise)."""
        return tool in self.runs

    def text(self, tools: Iterable[str]) -> str:
        """The "what is enforced" part of the planning instructions, naming only `tools` (the session's)."""
        names = list(dict.fromkeys(tools))
        runs = [t for t in names if self.allows(t) and t not in self.watched]
        watched = [t for t in names if self.allows(t) and t in self.watched]
        refused = [t for t in names if not self.allows(t)]
        lines = ["## What the harness enforces while planning"]
        if runs:
            lines.append(f"- Run: {', '.join(runs)}.")
        if watched:
            lines.append(
                f"- Run without a check beforehand: {', '.join(watched)}. A command that changes files is "
                "not stopped; the change is reported to you and to the user after it ran. Run only "
                "commands that inspect."
            )
        if refused:
            lines.append(
                f"- Refused before they run: {', '.join(refused)}. The call gets a refusal as its output; "
                f"describe the change in the plan instead, and submit the plan {self.submission}."
            )
        return "\n".join(lines)


ENFORCEMENT: dict[str, Enforcement] = {
    "codex": Enforcement(
        "codex",
        _READ | {"view_image", "request_user_input"} | SHELL_TOOLS,
        "in a <proposed_plan> block",
    ),
    "claude": Enforcement(
        "claude",
        _READ | {"view_image", "ask_user_question", "exit_plan_mode", "enter_plan_mode"} | SHELL_TOOLS,
        "with exit_plan_mode(plan)",
    ),
    "knightcode": Enforcement(
        "knightcode",
        _READ | {"ask_user", "submit_plan"} | SHELL_TOOLS,
        "with submit_plan(plan)",
    ),
}


def enforcement(profile: str) -> Enforcement:
    """The enforcement of `profile` (codex's for a name this version does not know)."""
    return ENFORCEMENT.get(profile, ENFORCEMENT["codex"])
