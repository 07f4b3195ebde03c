"""The environment_context fragment (user role): cwd, shell, date, timezone, filesystem.

Codex shape (0.169): `<environment_context>` with one child element per value, indented two
spaces, and no network element (network access is said in the permissions fragment). The
`<filesystem>` child lists the `<workspace_roots>` then Codex's managed permission profile: read
access to everything (`:root`) unless the sandbox is off, then one `<entry access="write">` per
writable root (`/tmp` as the `:slash_tmp` special path). Which children an update re-sends is
decided in `builder` (Codex re-sends all of them on a cwd change). Older Codex (before 2026-01) also put
`<approval_policy>`, `<sandbox_mode>`, `<network_access>` and `<writable_roots>` here; those are
recognised into the same typed values (`network_access` becomes `network_enabled`).
"""

from __future__ import annotations

import re

from ._markup import child, children, escape, inner
from ._spec import FragmentSpec, Values, WorldMeaning, takes

__all__ = ["ENV_KEYS", "SPEC", "render_environment"]

OPEN = "<environment_context>"
CLOSE = "</environment_context>"

# Order of children in ctxscope's render (same order Codex uses).
ENV_KEYS: tuple[str, ...] = ("cwd", "shell", "current_date", "timezone", "writable_roots")
_SCALARS = ("cwd", "shell", "current_date", "timezone", "approval_policy", "sandbox_mode")


def render_environment(values: Values) -> str:
    """Render the children present in `values` (a diff renders only the changed ones)."""
    lines: list[str] = []
    for key in ("cwd", "shell", "current_date", "timezone"):
        if key in values and values[key] is not None:
            lines.append(f"  <{key}>{escape(str(values[key]))}</{key}>")
    if "network_enabled" in values:  # older forms only; ctxscope's state no longer sends it here
        flag = "true" if values["network_enabled"] else "false"
        lines.append(f'  <network enabled="{flag}" />')
    if "writable_roots" in values:
        lines.append(f"  <filesystem>{_render_filesystem(values)}</filesystem>")
    return OPEN + "\n" + "\n".join(lines) + ("\n" if lines else "") + CLOSE


def _render_filesystem(values: Values) -> str:
    """Workspace roots, then the managed profile: read everything, write the writable roots."""
    roots = ""
    if "workspace_roots" in values:
        roots = "".join(f"<root>{escape(str(r))}</root>" for r in values["workspace_roots"])
        roots = f"<workspace_roots>{roots}</workspace_roots>"
    if list(values["writable_roots"]) == ["/"]:  # no sandbox
        unrestricted = '<file_system type="unrestricted" />'
        return f'{roots}<permission_profile type="managed">{unrestricted}</permission_profile>'

    entries = '<entry access="read"><special>:root</special></entry>'
    for root in values["writable_roots"]:
        target = (
            f"<special>{_SPECIAL_OF[root]}</special>"
            if root in _SPECIAL_OF
            else f"<path>{escape(root)}</path>"
        )
        entries += f'<entry access="write">{target}</entry>'
    profile = f'<permission_profile type="managed"><file_system type="restricted">{entries}</file_system>'
    return f"{roots}{profile}</permission_profile>"


def recognise_environment(text: str) -> Values | None:
    """Typed values of an environment_context in any known form."""
    body = inner(text, OPEN, CLOSE)
    if body is None:
        return None
    values: Values = {}
    for key in _SCALARS:
        found = child(body, key)
        if found is not None:
            values[key] = found
    network = re.search(r'<network\s+enabled="(true|false)"', body)
    if network:
        values["network_enabled"] = network.group(1) == "true"
        allowed, denied = child(body, "allowed"), child(body, "denied")
        if allowed:
            values["network_allowed"] = [d for d in allowed.split(",") if d]
        if denied:
            values["network_denied"] = [d for d in denied.split(",") if d]
    legacy_net = child(body, "network_access")
    if legacy_net is not None:
        values["network_enabled"] = legacy_net.strip().lower() == "enabled"
    filesystem = re.search(r"<filesystem>(.*?)</filesystem>", body, re.DOTALL)
    if filesystem:
        values.update(_filesystem_values(filesystem.group(1)))
    legacy_roots = re.search(r"<writable_roots>(.*?)</writable_roots>", body, re.DOTALL)
    if legacy_roots:
        values["writable_roots"] = children(legacy_roots.group(1), "root")
    return values


# Codex's special paths in permission entries, as the directories they stand for.
_SPECIAL_PATHS = {":root": "/", ":slash_tmp": "/tmp", ":tmpdir": "$TMPDIR"}
_SPECIAL_OF = {"/tmp": ":slash_tmp", "$TMPDIR": ":tmpdir"}


def _filesystem_values(block: str) -> Values:
    """workspace_roots and writable_roots from a `<filesystem>` element (Codex or ctxscope)."""
    values: Values = {}
    roots_block = re.search(r"<workspace_roots>(.*?)</workspace_roots>", block, re.DOTALL)
    workspace = children(roots_block.group(1), "root") if roots_block else []
    if roots_block:
        values["workspace_roots"] = workspace
    kind = re.search(r'<file_system type="(\w+)"', block)
    if kind is None:
        return values
    if kind.group(1) == "unrestricted":
        values["writable_roots"] = ["/"]
        return values
    if kind.group(1) != "restricted":
        return values  # "external": enforced elsewhere, nothing to say about roots
    writable: list[str] = []
    for entry in re.findall(r'<entry access="write"[^>]*>(.*?)</entry>', block, re.DOTALL):
        path = child(entry, "path")
        special = child(entry, "special")
        if path is not None:
            writable.append(path)
        elif special is not None and special.startswith(":workspace_roots"):
            suffix = special[len(":workspace_roots") :]
            writable.extend(root + suffix for root in workspace)
        elif special is not None:
            writable.append(_SPECIAL_PATHS.get(special, special))
    values["writable_roots"] = writable
    return values


def label_environment(values: Values) -> str:
    """`environment_context:cwd=/repo`, or the children an update carries: scalars with their
    value, the filesystem block by name only (its entries differ in detail between clients)."""
    if "cwd" in values:
        return f"environment_context:cwd={values['cwd']}"
    shown = [f"{key}={values[key]}" for key in ("shell", "current_date", "timezone") if key in values]
    if "network_enabled" in values:
        shown.append(f"network={str(values['network_enabled']).lower()}")
    if "writable_roots" in values or "workspace_roots" in values:
        shown.append("filesystem")
    return "environment_context" + (":" + ",".join(shown) if shown else "")


SPEC = FragmentSpec(
    kind="environment_context",
    roles=("user",),
    recognise=recognise_environment,
    render=render_environment,
    label=label_environment,
    description="cwd, shell, date, timezone and filesystem roots; updates re-send what builder says",
    codex_label="environments.environment_context",
    # Older Codex also put the approval policy, sandbox mode and network here.
    world=WorldMeaning(takes(*_SCALARS, "network_enabled", "writable_roots")),
)
