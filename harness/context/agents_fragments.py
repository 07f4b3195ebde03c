"""AGENTS.md fragments (user role): the full form, the "replaces all previous" form, the "no longer
apply" form, and the legacy `<user_instructions>` wrapper.

Codex shape: a `# AGENTS.md instructions for <dir>` heading, a blank line, then the documents
inside `<INSTRUCTIONS>` ... `</INSTRUCTIONS>`: the global file's text, a `--- project-doc ---`
line, the project documents' texts (repo root down to the cwd) joined by a blank line, all raw as
read (trailing newlines kept). No file is named; the heading names the cwd only when project
documents apply. Values: `path` (the heading's directory or None), `global`, `project` (texts).
The replace/remove notices are ctxscope's own sentences; Codex's are recognised by key phrases.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from ._markup import inner, wrap
from ._spec import FragmentSpec, Values, WorldMeaning
from ._state_field import ChangeStyle, StateField

__all__ = [
    "AGENTS_MD_REMOVED_SPEC",
    "AGENTS_MD_REPLACED_SPEC",
    "AGENTS_MD_SPEC",
    "USER_INSTRUCTIONS_SPEC",
    "render_agents_md",
    "render_agents_md_removed",
    "render_agents_md_replaced",
]

REPLACE_NOTICE = (
    "The AGENTS.md instructions below supersede every AGENTS.md instruction given earlier "
    "in this conversation."
)
REMOVE_NOTICE = "No AGENTS.md instructions apply any more; disregard the ones given earlier."
# Key phrases of Codex's notices (recognition only).
_REPLACE_RE = re.compile(
    r"^(?:These AGENTS\.md instructions replace all previously provided[^\n]*|"
    + re.escape(REPLACE_NOTICE)
    + r")\n*"
)
_REMOVE_RE = re.compile(
    r"^(?:The previously provided AGENTS\.md instructions no longer apply\.?|"
    + re.escape(REMOVE_NOTICE)
    + r")\s*$"
)
_HEADING_RE = re.compile(r"# AGENTS\.md instructions(?: for (?P<path>[^\n]+))?\n")
_OBSERVATION_RE = re.compile(r"<AGENTS_MD_OBSERVATION>.*?</AGENTS_MD_OBSERVATION>\s*", re.DOTALL)


PROJECT_DOC_SEPARATOR = "\n\n--- project-doc ---\n\n"
"""Between the global file's text and the project documents' (Codex's layout)."""


def _docs_block(values: Values) -> str:
    """The global text, the separator, the project texts: raw, as read (trailing newlines kept)."""
    parts = [values[key] for key in ("global", "project") if values.get(key)]
    return PROJECT_DOC_SEPARATOR.join(parts)


def _heading(values: Values) -> str:
    # Codex names the directory only when project documents apply; the global file alone has none.
    return (
        f"# AGENTS.md instructions for {values['path']}\n\n"
        if values.get("path")
        else "# AGENTS.md instructions\n\n"
    )


def _instructions(body: str) -> str:
    # Not `wrap`: the body keeps its own trailing newline, as the file had it.
    return f"<INSTRUCTIONS>\n{body}\n</INSTRUCTIONS>"


def render_agents_md(values: Values) -> str:
    """Full form: heading (for `path`, the cwd, when project documents apply), then the texts."""
    return _heading(values) + _instructions(_docs_block(values))


def render_agents_md_replaced(values: Values) -> str:
    """Replacement form: same as the full form, body opened by the supersede notice."""
    return _heading(values) + _instructions(REPLACE_NOTICE + "\n\n" + _docs_block(values))


def render_agents_md_removed(values: Values) -> str:
    """Removal form: no path, body is the notice only."""
    return "# AGENTS.md instructions\n\n" + wrap("<INSTRUCTIONS>", REMOVE_NOTICE, "</INSTRUCTIONS>")


def _split_docs(body: str, path: str | None) -> Values:
    """`global` and `project` texts of a body: split at the separator; a body without one is the
    global text when the heading names no directory, else the project documents."""
    head, sep, tail = body.partition(PROJECT_DOC_SEPARATOR)
    if sep:
        return {"global": head, "project": tail}
    return {"project": body} if path else {"global": body}


def parse_agents(text: str) -> tuple[str, Values] | None:
    """("agents_md" | "agents_md_replaced" | "agents_md_removed", values) for any AGENTS.md form."""
    rest = text.strip()
    replaced = False
    lead = _REPLACE_RE.match(rest)
    if lead:  # older Codex put the notice before the heading
        replaced, rest = True, rest[lead.end() :]
    heading = _HEADING_RE.match(rest)
    if heading is None:
        return None
    path = heading.group("path")
    rest = _OBSERVATION_RE.sub("", rest[heading.end() :]).strip()
    body = inner(rest, "<INSTRUCTIONS>", "</INSTRUCTIONS>")
    if body is None:
        return None
    body = body.removeprefix("\n").removesuffix("\n")  # the tags' own line breaks, not the texts'
    if _REMOVE_RE.match(body):
        return "agents_md_removed", {}
    notice = _REPLACE_RE.match(body)
    if notice:
        replaced, body = True, body[notice.end() :]
    path = path.strip() if path else None
    values: Values = {"path": path, **_split_docs(body, path)}
    return ("agents_md_replaced" if replaced else "agents_md"), values


def _recogniser(kind: str) -> Callable[[str], Values | None]:
    """A recogniser accepting only the AGENTS.md form `kind` (the three share one parser)."""

    def recognise(text: str) -> Values | None:
        parsed = parse_agents(text)
        return parsed[1] if parsed and parsed[0] == kind else None

    return recognise


def _label(kind: str, values: Values) -> str:
    return f"{kind}:{values['path']}" if values.get("path") else kind


# --- world state -------------------------------------------------------------------------------
# The AGENTS.md text the context carries, by the directory its heading names (the cwd it was sent
# for), all documents of one fragment joined. Not `WorldState.agents_docs` (one entry per file):
# Codex's form names no file per document, so a recording can only say which directory's set.
_AGENTS_FIELDS: dict[str, Any] = {
    "agents_md": Annotated[dict[str, str], StateField("AGENTS.md", ChangeStyle.DOCUMENTS)]
}


def _docs_text(values: Values) -> str:
    if "text" in values:  # the legacy `<user_instructions>` wrapper
        return str(values["text"])
    return _docs_block(values)


def _agents_world(replace: bool) -> WorldMeaning:
    """One more directory's AGENTS.md set (`replace`: the only set from now on)."""

    def project(values: Values, state: Mapping[str, Any]) -> Values:
        path = values.get("path") or state.get("cwd") or "?"
        docs = {} if replace else dict(state.get("agents_md") or {})
        docs[str(path)] = _docs_text(values)
        return {"agents_md": docs}

    return WorldMeaning(project, _AGENTS_FIELDS, replaces=("agents_md",) if replace else ())


AGENTS_MD_SPEC = FragmentSpec(
    kind="agents_md",
    roles=("user",),
    recognise=_recogniser("agents_md"),
    render=render_agents_md,
    label=lambda values: _label("agents_md", values),
    description="the active AGENTS.md documents (global file, repo root down to cwd)",
    codex_label="agents_md.instructions",
    world=_agents_world(replace=False),
)
AGENTS_MD_REPLACED_SPEC = FragmentSpec(
    kind="agents_md_replaced",
    roles=("user",),
    recognise=_recogniser("agents_md_replaced"),
    render=render_agents_md_replaced,
    label=lambda values: _label("agents_md_replaced", values),
    description="a new AGENTS.md set that replaces every earlier one",
    codex_label="agents_md.instructions",  # Codex labels first and replacing AGENTS.md alike
    world=_agents_world(replace=True),
)
AGENTS_MD_REMOVED_SPEC = FragmentSpec(
    kind="agents_md_removed",
    roles=("user",),
    recognise=_recogniser("agents_md_removed"),
    render=render_agents_md_removed,
    label=lambda values: "agents_md_removed",
    description="earlier AGENTS.md instructions no longer apply",
    world=WorldMeaning(lambda values, state: {"agents_md": {}}, _AGENTS_FIELDS),
)
USER_INSTRUCTIONS_SPEC = FragmentSpec(
    kind="user_instructions",
    roles=("user", "developer"),
    recognise=lambda text: (
        None
        if (b := inner(text, "<user_instructions>", "</user_instructions>")) is None
        else {"text": b.strip()}
    ),
    render=lambda values: wrap("<user_instructions>", values["text"], "</user_instructions>"),
    label=lambda values: "user_instructions",
    description="legacy wrapper of AGENTS.md text (Codex before late 2025)",
    world=_agents_world(replace=False),
)
