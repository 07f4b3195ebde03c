"""Per-turn user fragments: goal, turn aborted, user shell command, plan-mode reminder and
compaction summary.

Goal, turn aborted and user shell command use Codex's wrappers (`<codex_internal_context
source="goal">` / legacy `<goal_context>`, `<turn_aborted>`, `<user_shell_command>`). Plan-mode
reminders and compaction summaries use ctxscope's own markers (`<plan_mode_reminder event=..>`,
`<compaction_summary>`); a Codex local-compaction summary is recognised by its prefix phrase.
"""

from __future__ import annotations

import re

from ._markup import child, escape, inner, unescape, wrap
from ._spec import FragmentSpec, Values, WorldMeaning

__all__ = [
    "COMPACTION_SUMMARY_SPEC",
    "GOAL_SPEC",
    "PLAN_MODE_REMINDER_SPEC",
    "TURN_ABORTED_SPEC",
    "USER_SHELL_COMMAND_SPEC",
]

# --- goal --------------------------------------------------------------------------------------

G_OPEN, G_CLOSE = '<codex_internal_context source="goal">', "</codex_internal_context>"
_GOAL_LEAD = (
    "An active goal is set for this session. Keep working toward it until it is met or the user changes it."
)


def render_goal(values: Values) -> str:
    """The active goal's objective."""
    return wrap(G_OPEN, f"{_GOAL_LEAD}\n<objective>\n{escape(values['objective'])}\n</objective>", G_CLOSE)


def recognise_goal(text: str) -> Values | None:
    """Objective from the current wrapper, or the text of a legacy `<goal_context>`."""
    stripped = text.strip()
    body = None
    if re.match(r'<codex_internal_context\s+source="goal"\s*>', stripped) and stripped.endswith(G_CLOSE):
        body = stripped[stripped.index(">") + 1 : -len(G_CLOSE)]
    if body is None:
        legacy = inner(text, "<goal_context>", "</goal_context>")
        if legacy is None:
            return None
        body = legacy
    objective = child(body, "objective")
    return {"objective": objective} if objective is not None else {"text": body.strip()}


GOAL_SPEC = FragmentSpec(
    kind="goal",
    roles=("user", "developer"),
    recognise=recognise_goal,
    render=render_goal,
    label=lambda values: "goal",
    description="the session goal the model should keep working toward",
    world=WorldMeaning(lambda values, state: {"goal": values.get("objective") or values.get("text")}),
)

# --- turn aborted ------------------------------------------------------------------------------


def recognise_turn_aborted(text: str) -> Values | None:
    """The reason/guidance text (an older form had a `<reason>` child)."""
    body = inner(text, "<turn_aborted>", "</turn_aborted>")
    if body is None:
        return None
    reason = child(body, "reason")
    return {"reason": reason if reason is not None else body.strip("\n")}


TURN_ABORTED_SPEC = FragmentSpec(
    kind="turn_aborted",
    roles=("user", "developer"),
    recognise=recognise_turn_aborted,
    render=lambda values: wrap("<turn_aborted>", values["reason"], "</turn_aborted>"),
    label=lambda values: "turn_aborted",
    description="the previous turn was interrupted",
)

# --- user shell command ------------------------------------------------------------------------


def render_user_shell_command(values: Values) -> str:
    """A command the user ran themselves, with exit code, duration and output."""
    body = (
        f"<command>\n{values['command']}\n</command>\n<result>\nExit code: {values['exit_code']}\n"
        f"Duration: {values['duration_s']:.4f} seconds\nOutput:\n{values['output']}\n</result>"
    )
    return wrap("<user_shell_command>", body, "</user_shell_command>")


_SHELL_RE = re.compile(
    r"<command>\n?(?P<command>.*?)\n?</command>\s*<result>\n?Exit code: (?P<exit>-?\d+)\n"
    # The output is last: anchor on the final </result> so output that quotes the tag survives.
    r"Duration: (?P<duration>[\d.]+) seconds\n(?:.*?\n)??Output:\n(?P<output>.*?)\n?</result>\s*\Z",
    re.DOTALL,
)


def recognise_user_shell_command(text: str) -> Values | None:
    """Command, exit code, duration and output."""
    body = inner(text, "<user_shell_command>", "</user_shell_command>")
    if body is None:
        return None
    match = _SHELL_RE.search(body)
    if match is None:
        return {"text": body.strip()}
    return {
        "command": match.group("command"),
        "exit_code": int(match.group("exit")),
        "duration_s": float(match.group("duration")),
        "output": match.group("output"),
    }


USER_SHELL_COMMAND_SPEC = FragmentSpec(
    kind="user_shell_command",
    roles=("user",),
    recognise=recognise_user_shell_command,
    render=render_user_shell_command,
    label=lambda values: "user_shell_command",
    description="a shell command the user ran (`!cmd`) and its result",
)

# --- plan-mode reminder (ctxscope marker; rendered by the plan-mode code) ----------------------

_PLAN_RE = re.compile(
    r'^<plan_mode_reminder event="(?P<event>[^"]*)">\n(?P<text>.*)\n</plan_mode_reminder>$', re.DOTALL
)


def render_plan_mode_reminder(values: Values) -> str:
    """`event` says why it was sent: entered, reentered, exited, recovery (after compaction), ..."""
    return f'<plan_mode_reminder event="{escape(values["event"])}">\n{values["text"]}\n</plan_mode_reminder>'


def recognise_plan_mode_reminder(text: str) -> Values | None:
    """Event and text of a plan-mode reminder."""
    match = _PLAN_RE.match(text.strip())
    if match is None:
        return None
    return {"event": unescape(match.group("event")), "text": match.group("text")}


PLAN_MODE_REMINDER_SPEC = FragmentSpec(
    kind="plan_mode_reminder",
    roles=("developer", "user"),
    recognise=recognise_plan_mode_reminder,
    render=render_plan_mode_reminder,
    label=lambda values: f"plan_mode_reminder:{values['event']}",
    description="plan-mode transition, reminder or post-compaction recovery message",
)

# --- compaction summary ------------------------------------------------------------------------

_SUMMARY_LEAD = (
    "Earlier parts of this conversation were compacted. The summary below was written from them; "
    "continue the work from it without repeating what is already done."
)
# Codex's local-compaction prefix contains this phrase (recognition only).
_CODEX_SUMMARY_PHRASE = "produced a summary of its thinking process"


def render_compaction_summary(values: Values) -> str:
    """The summary that replaces compacted history."""
    return wrap("<compaction_summary>", f"{_SUMMARY_LEAD}\n\n{values['summary']}", "</compaction_summary>")


def recognise_compaction_summary(text: str) -> Values | None:
    """Summary text from ctxscope's wrapper or a Codex summary-prefixed message."""
    body = inner(text, "<compaction_summary>", "</compaction_summary>")
    if body is not None:
        body = body.strip("\n")
        if body.startswith(_SUMMARY_LEAD):
            body = body[len(_SUMMARY_LEAD) :].lstrip("\n")
        return {"summary": body}
    head = text.lstrip()[:600]
    if _CODEX_SUMMARY_PHRASE in head:
        _, _, summary = text.lstrip().partition("\n")
        return {"summary": summary.strip()}
    return None


COMPACTION_SUMMARY_SPEC = FragmentSpec(
    kind="compaction_summary",
    roles=("user",),
    recognise=recognise_compaction_summary,
    render=render_compaction_summary,
    label=lambda values: "compaction_summary",
    description="the summary that replaced compacted history",
)
