"""AGENTS.md fragments (user role): the full form, the "replaces all previous" form, the "no longer
apply" form, and the legacy `<user_instructions>` wrapper.

Codex shape: a `# AGENTS.md instructions for <dir>` heading, a blank line, then the documents
inside `<INSTRUCTIONS>` ... `</INSTRUCTIONS>`. ctxscope marks each document with a
`--- doc: <path> ---` line so the inspector can tell which file said what; Codex separates the
global text from project docs with `--- project-doc ---` and those parts carry no path.
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
_DOC_LINE_RE = re.compile(r"^--- doc: (?P<path>.+) ---$", re.MULTILINE)
_OBSERVATION_RE = re.compile(r"<AGENTS_MD_OBSERVATION>.*?</AGENTS_MD_OBSERVATION>\s*", re.DOTALL)


def _docs_block(docs: list[dict[str, str]]) -> str:
    return "\n\n".join(f"--- doc: {d['path']} ---\n{d['text']}" for d in docs)


def render_agents_md(values: Values) -> str:
    """Full form: heading for `path` (the cwd), then every active document."""
    return f"# AGENTS.md instructions for {values['path']}\n\n" + wrap(
        "<INSTRUCTIONS>", _docs_block(values["docs"]), "</INSTRUCTIONS>"
    )


def render_agents_md_replaced(values: Values) -> str:
    """Replacement form: same as the full form, body opened by the supersede notice."""
    body = REPLACE_NOTICE + "\n\n" + _docs_block(values["docs"])
    return f"# AGENTS.md instructions for {values['path']}\n\n" + wrap(
        "<INSTRUCTIONS>", body, "</INSTRUCTIONS>"
    )


def render_agents_md_removed(values: Values) -> str:
    """Removal form: no path, body is the notice only."""
    return "# AGENTS.md instructions\n\n" + wrap("<INSTRUCTIONS>", REMOVE_NOTICE, "</INSTRUCTIONS>")


def _split_docs(body: str) -> list[dict[str, str | None]]:
    """Documents of an `<INSTRUCTIONS>` body: ctxscope's `--- doc:` markers, else Codex's parts."""
    marks = list(_DOC_LINE_RE.finditer(body))
    if marks:
        docs: list[dict[str, str | None]] = []
        for i, mark in enumerate(marks):
            end = marks[i + 1].start() if i + 1 < len(marks) else len(body)
            docs.append({"path": mark.group("path"), "text": body[mark.end() : end].strip("\n")})
        return docs
    parts = [p.strip("\n") for p in re.split(r"\n*^--- project-doc ---$\n*", body, flags=re.MULTILINE)]
    return [{"path": None, "text": p} for p in parts if p.strip()]


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
    body = body.strip("\n")
    if _REMOVE_RE.match(body):
        return "agents_md_removed", {}
    notice = _REPLACE_RE.match(body)
    if notice:
        replaced, body = True, body[notice.end() :]
    values: Values = {"path": path.strip() if path else None, "docs": _split_docs(body)}
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
    docs = values.get("docs")
    if isinstance(docs, list):
        return "\n\n".join(str(d.get("text", "")) for d in docs if isinstance(d, dict))
    return str(values.get("text", ""))


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
    world=_agents_world(replace=False),
)
AGENTS_MD_REPLACED_SPEC = FragmentSpec(
    kind="agents_md_replaced",
    roles=("user",),
    recognise=_recogniser("agents_md_replaced"),
    render=render_agents_md_replaced,
    label=lambda values: _label("agents_md_replaced", values),
    description="a new AGENTS.md set that replaces every earlier one",
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
