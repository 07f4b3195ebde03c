"""Developer-role fragments: permissions, collaboration mode, model switch, personality, and the
deferred-tools notice (`<tools>`).

Wrapper shapes follow Codex (`<permissions instructions>`, `<collaboration_mode>`,
`<model_switch>`, `<personality_spec>`); the wording inside is ctxscope's own. The typed values
are written as short machine-readable phrases (`sandbox_mode` is `workspace-write`) that Codex
also uses, so one recogniser reads both.
"""

from __future__ import annotations

import re
from typing import Annotated

from ._markup import inner, wrap
from ._spec import FragmentSpec, Values, WorldMeaning, takes
from ._state_field import ChangeStyle, StateField

__all__ = [
    "COLLABORATION_SPEC",
    "DEFERRED_TOOLS_SPEC",
    "MODEL_SWITCH_SPEC",
    "PERMISSIONS_SPEC",
    "PERSONALITY_SPEC",
    "render_collaboration_mode",
    "render_deferred_tools",
    "render_model_switch",
    "render_permissions",
]

# --- permissions -------------------------------------------------------------------------------

P_OPEN, P_CLOSE = "<permissions instructions>", "</permissions instructions>"

_SANDBOX_TEXT = {
    "read-only": "Commands may read any file but must not change anything on disk.",
    "workspace-write": "Commands may read anything and write inside the writable roots; "
    "writing elsewhere needs the user's approval.",
    "danger-full-access": "There is no sandbox: commands may read and write anywhere.",
}
_APPROVAL_TEXT = {
    "never": "Never ask the user to approve a command; work within the limits above.",
    "on-request": "When a command needs more than the sandbox allows, ask the user to approve it "
    "and say why.",
    "untrusted": "Only known-safe read commands run without asking; anything else needs the user's approval.",
    "on-failure": "Commands run in the sandbox first; if one fails there, ask to rerun it outside.",
}


def render_permissions(values: Values) -> str:
    """Render sandbox mode, network, approval policy and writable roots."""
    sandbox = values["sandbox_mode"]
    approval = values["approval_policy"]
    network = "enabled" if values["network_enabled"] else "restricted"
    roots = list(values.get("writable_roots", []))
    lines = [
        f"Sandbox: `sandbox_mode` is `{sandbox}`. {_SANDBOX_TEXT.get(sandbox, '')}".rstrip(),
        f"Network access is {network}.",
        f"Approvals: `approval_policy` is `{approval}`. {_APPROVAL_TEXT.get(approval, '')}".rstrip(),
    ]
    if not roots:
        lines.append("There are no writable roots.")
    elif len(roots) == 1:
        lines.append(f"The writable root is `{roots[0]}`.")
    else:
        lines.append("The writable roots are " + ", ".join(f"`{r}`" for r in roots) + ".")
    if values.get("sandbox_enforcement"):
        # What the kernel actually enforces on this machine, so the model is never told more.
        lines.append(f"Enforcement: {values['sandbox_enforcement']}")
    return wrap(P_OPEN, "\n".join(lines), P_CLOSE)


def recognise_permissions(text: str) -> Values | None:
    """Values from ctxscope's render or any Codex permissions text."""
    body = inner(text, P_OPEN, P_CLOSE)
    if body is None:
        return None
    values: Values = {}
    sandbox = re.search(r"`sandbox_mode` is `([^`]+)`", body)
    if sandbox:
        values["sandbox_mode"] = sandbox.group(1)
    network = re.search(r"Network access is (enabled|restricted)", body)
    if network:
        values["network_enabled"] = network.group(1) == "enabled"
    approval = re.search(r"`approval_policy` is `([^`]+)`", body) or re.search(
        r"Approval policy is (?:currently )?`?([a-z][\w-]*)`?", body
    )
    if approval:
        values["approval_policy"] = approval.group(1)
    elif "require_escalated" in body or "# Escalation Requests" in body:
        # Codex's on-request text names no policy; its escalation section identifies it.
        values["approval_policy"] = "on-request"
    enforced = re.search(r"^Enforcement: (.+)$", body, re.MULTILINE)
    if enforced:
        values["sandbox_enforcement"] = enforced.group(1)
    roots = re.search(r"The writable roots? (?:is|are) ((?:`[^`]*`(?:, )?)+)", body)
    if roots:
        values["writable_roots"] = re.findall(r"`([^`]*)`", roots.group(1))
    elif "There are no writable roots." in body or values.get("sandbox_mode") == "read-only":
        values["writable_roots"] = []
    return values


PERMISSIONS_SPEC = FragmentSpec(
    kind="permissions",
    roles=("developer",),
    recognise=recognise_permissions,
    render=render_permissions,
    label=lambda values: "permissions",
    description="sandbox mode, approval policy, network access, writable roots, how the OS enforces them",
    codex_label="permissions.instructions",
    world=WorldMeaning(
        takes("sandbox_mode", "approval_policy", "network_enabled", "writable_roots", "sandbox_enforcement")
    ),
)

# --- collaboration mode ------------------------------------------------------------------------

C_OPEN, C_CLOSE = "<collaboration_mode>", "</collaboration_mode>"


def render_collaboration_mode(values: Values) -> str:
    """`# Collaboration mode: Plan` heading then the mode's instructions.

    The text is the mode object's own (`ctxscope.harness.modes`); this module keeps no per-mode text."""
    mode = values["mode"]
    text = values.get("text") or f"Work in {mode} mode."
    return wrap(C_OPEN, f"# Collaboration mode: {mode.capitalize()}\n\n{text}", C_CLOSE)


def recognise_collaboration_mode(text: str) -> Values | None:
    """Mode name from ctxscope's heading, or from Codex's `# Plan Mode` style heading."""
    body = inner(text, C_OPEN, C_CLOSE)
    if body is None:
        return None
    body = body.strip("\n")
    ours = re.match(r"# Collaboration mode: (\S+)\n\n?", body)
    if ours:
        return {"mode": ours.group(1).lower(), "text": body[ours.end() :]}
    heading = re.search(r"^#\s*(.+?)\s*$", body, re.MULTILINE)
    name = heading.group(1).lower() if heading else ""
    mode = "plan" if "plan" in name else "default"
    return {"mode": mode, "text": body}


COLLABORATION_SPEC = FragmentSpec(
    kind="collaboration_mode",
    roles=("developer",),
    recognise=recognise_collaboration_mode,
    render=render_collaboration_mode,
    label=lambda values: f"collaboration_mode:{values['mode']}",
    description="the active collaboration mode (default or plan) and its instructions",
    world=WorldMeaning(lambda values, state: {"collaboration_mode": values.get("mode")}),
)

# --- model switch ------------------------------------------------------------------------------

M_OPEN, M_CLOSE = "<model_switch>", "</model_switch>"


def render_model_switch(values: Values) -> str:
    """Which model the conversation moved to, then that model's instructions."""
    head = f"The user switched the model from `{values['previous_model']}` to `{values['model']}`."
    head += " From here on, follow the instructions below."
    return wrap(M_OPEN, f"{head}\n\n{values['instructions']}", M_CLOSE)


def recognise_model_switch(text: str) -> Values | None:
    """Models (ctxscope form) and the new instructions (both forms)."""
    body = inner(text, M_OPEN, M_CLOSE)
    if body is None:
        return None
    body = body.strip("\n")
    head, _, rest = body.partition("\n\n")
    values: Values = {}
    models = re.search(r"from `([^`]*)` to `([^`]*)`", head)
    if models:
        values["previous_model"], values["model"] = models.group(1), models.group(2)
    values["instructions"] = rest
    return values


MODEL_SWITCH_SPEC = FragmentSpec(
    kind="model_switch",
    roles=("developer",),
    recognise=recognise_model_switch,
    render=render_model_switch,
    label=lambda values: "model_switch" + (f":{values['model']}" if values.get("model") else ""),
    description="the user switched models; carries the new model's instructions",
    world=WorldMeaning(
        lambda values, state: {"context_model": values["model"]} if values.get("model") else {},
        # The model the context last named; the request's own model is `WorldState.model`.
        fields={
            "context_model": Annotated[
                str, StateField("model switch notice", echo_of="model", short="switch")
            ]
        },
    ),
)

# --- personality -------------------------------------------------------------------------------

PERSONALITY_SPEC = FragmentSpec(
    kind="personality",
    roles=("developer",),
    recognise=lambda text: (
        None
        if (b := inner(text, "<personality_spec>", "</personality_spec>")) is None
        else {"text": b.strip("\n")}
    ),
    render=lambda values: wrap("<personality_spec>", values["text"], "</personality_spec>"),
    label=lambda values: "personality",
    description="the configured personality / tone",
    world=WorldMeaning(
        lambda values, state: {"personality": values.get("text")},
        fields={"personality": Annotated[str, StateField("personality", ChangeStyle.HIDDEN)]},
    ),
)

# --- deferred tools notice ---------------------------------------------------------------------

T_OPEN, T_CLOSE = "<tools>", "</tools>"
_NAMESPACE_RE = re.compile(r"^- (?P<name>[^:\n]+): (?P<description>[^\n]*)$", re.MULTILINE)


def render_deferred_tools(values: Values) -> str:
    """Tool namespaces the model can load on request (and those no longer offered)."""
    lines: list[str] = []
    if values.get("namespaces"):
        lines.append("Tool namespaces you can load on request with tool_search:")
        lines += [f"- {n['name']}: {n['description']}" for n in values["namespaces"]]
    if values.get("removed"):
        lines.append("Tool namespaces no longer offered (removed):")
        lines += [f"- {n['name']}: {n['description']}" for n in values["removed"]]
    return wrap(T_OPEN, "\n".join(lines), T_CLOSE)


def recognise_deferred_tools(text: str) -> Values | None:
    """Namespaces of Codex's `<tools>` notice (0.169) or ctxscope's; a "removed" heading starts
    the list of withdrawn ones."""
    body = inner(text, T_OPEN, T_CLOSE)
    if body is None:
        return None
    values: Values = {"namespaces": [], "removed": []}
    target = values["namespaces"]
    for line in body.strip("\n").splitlines():
        entry = _NAMESPACE_RE.match(line)
        if entry:
            target.append({"name": entry.group("name").strip(), "description": entry.group("description")})
        elif "removed" in line.lower():
            target = values["removed"]
    return {key: value for key, value in values.items() if value}


DEFERRED_TOOLS_SPEC = FragmentSpec(
    kind="deferred_tools",
    roles=("developer",),
    recognise=recognise_deferred_tools,
    render=render_deferred_tools,
    label=lambda values: (
        "tools" + (":removed" if values.get("removed") and not values.get("namespaces") else "")
    ),
    description="tool namespaces the model can load on request (Codex's `<tools>` notice)",
    codex_label="tools.deferred_namespaces",
)
