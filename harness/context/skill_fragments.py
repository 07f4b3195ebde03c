"""Skill fragments: the catalog (developer role) and one selected skill (user role).

Codex shapes: `<skills_instructions>` holding a `## Skills` section: a skill-roots table
(`r0`, `r1`, ... naming the directories that hold skill folders), entries reading
`- name: description (file: r0/<folder>/SKILL.md)`, then usage rules; and `<skill>` holding
`<name>`, `<path>` and the full SKILL.md text. Explanatory wording is ctxscope's own.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Annotated, Any

from ._markup import inner, wrap
from ._spec import FragmentSpec, Values, WorldMeaning
from ._state_field import ChangeStyle, StateField
from .world_state import SkillInfo

__all__ = ["SELECTED_SKILL_SPEC", "SKILLS_CATALOG_SPEC", "render_selected_skill", "render_skills_catalog"]

_ENTRY_RE = re.compile(r"^- (?P<name>[^:\n`]+): (?P<rest>[^\n]*)$", re.MULTILINE)
# Where the skill lives: "(file: /p/SKILL.md)", or Codex's package locators for remote skills.
_LOCATOR_RE = re.compile(r"\s*\((?:file|executor package|orchestrator package): (?P<path>[^\n]+)\)$")


def _skill_roots(skills: list[Mapping[str, Any]]) -> list[str]:
    """The directories holding the skills' folders, in order of first use (`r0`, `r1`, ...)."""
    roots: list[str] = []
    for skill in skills:
        root = posixpath.dirname(posixpath.dirname(str(skill.get("path", ""))))
        if posixpath.isabs(root) and root not in roots:
            roots.append(root)
    return roots


def _locator(path: str, roots: list[str]) -> str:
    """`rN/<folder>/SKILL.md` for a path under a root; the path itself otherwise."""
    root = posixpath.dirname(posixpath.dirname(path))
    return f"r{roots.index(root)}/{path[len(root) + 1 :]}" if root in roots else path


def render_skills_catalog(values: Values) -> str:
    """The catalog: what skills are, the roots table, one line per skill, the usage rules."""
    skills = values["skills"]
    roots = _skill_roots(skills)
    lines = [
        "## Skills",
        "Skills are instruction files stored on this machine. Each entry below gives a skill's name, "
        "what it is for, and where its SKILL.md is: `rN/...` means under skill root `rN`.",
        "### Skill roots",
        *(f"- `r{i}`: {root}" for i, root in enumerate(roots)),
        "### Available skills",
        *(f"- {s['name']}: {s['description']} (file: {_locator(s['path'], roots)})" for s in skills),
        "### How to use skills",
        "- When the user names a skill with `$name`, or the task clearly matches a description, open "
        "that SKILL.md (root path + rest of the locator) and follow it for this turn.",
        "- Read only as much of a skill as the task needs; files it mentions are relative to its folder.",
        "- Several skills may apply: use the fewest that cover the task, and say which you used.",
        "- A skill that cannot be read or does not fit: say so briefly and carry on without it.",
    ]
    return wrap("<skills_instructions>", "\n".join(lines), "</skills_instructions>")


_ROOT_RE = re.compile(r"^[-*]?\s*`?(?P<id>r\d+)`?\s*(?::|=|->)\s*`?(?P<path>[^`\n]+?)`?\s*$", re.MULTILINE)


def _roots_table(body: str) -> dict[str, str]:
    section = re.search(r"^### Skill roots\n(.*?)(?=^### |\Z)", body, re.MULTILINE | re.DOTALL)
    return {m.group("id"): m.group("path") for m in _ROOT_RE.finditer(section.group(1))} if section else {}


def _resolve(locator: str, roots: dict[str, str]) -> str:
    head, sep, rest = locator.partition("/")
    return f"{roots[head]}/{rest}" if sep and head in roots else locator


def recognise_skills_catalog(text: str) -> Values | None:
    """Skill entries of any catalog form (only the "Available skills" section when there is one);
    `rN/...` locators are resolved through the skill-roots table."""
    body = inner(text, "<skills_instructions>", "</skills_instructions>")
    if body is None:
        return None
    roots = _roots_table(body)
    section = re.search(r"^### Available skills\n(.*?)(?=^### |\Z)", body, re.MULTILINE | re.DOTALL)
    skills: list[dict[str, str]] = []
    for entry in _ENTRY_RE.finditer(section.group(1) if section else body):
        rest = entry.group("rest")
        skill = {"name": entry.group("name").strip()}
        locator = _LOCATOR_RE.search(rest)
        if locator:
            rest = rest[: locator.start()]
        skill["description"] = rest.strip()
        if locator:
            skill["path"] = _resolve(locator.group("path").strip(), roots)
        skills.append(skill)
    return {"skills": skills}


def render_selected_skill(values: Values) -> str:
    """One selected skill with its full SKILL.md text."""
    # Not `wrap`: the text keeps the file's own trailing newline, as Codex sends it.
    head = f"<name>{values['name']}</name>\n<path>{values['path']}</path>"
    return f"<skill>\n{head}\n{values['text']}\n</skill>"


def recognise_selected_skill(text: str) -> Values | None:
    """Name, path and text of a `<skill>` item (Codex notices for replaced/unavailable skills kept)."""
    body = inner(text, "<skill>", "</skill>")
    if body is None:
        return None
    body = body.removeprefix("\n").removesuffix("\n")  # the tags' own line breaks, not the text's
    name = re.match(r"<name>(.*?)</name>\n?", body, re.DOTALL)
    if name is None:
        return None
    rest = body[name.end() :]
    values: Values = {"name": name.group(1).strip()}
    path = re.match(r"<path>(.*?)</path>\n?", rest, re.DOTALL)
    if path:
        values["path"] = path.group(1).strip()
        rest = rest[path.end() :]
    if rest.startswith("<unavailable_notice>"):
        values["unavailable"] = True
    values["text"] = rest
    return values


def _catalog_world(values: Values, state: Mapping[str, Any]) -> Values:
    """The catalog's skills (a remote skill without a SKILL.md path gets an empty path)."""
    skills = [s for s in values.get("skills", []) if isinstance(s, dict)]
    return {
        "skills": [
            SkillInfo(
                name=str(s.get("name")),
                description=str(s.get("description", "")),
                path=str(s.get("path", "")),
            )
            for s in skills
        ]
    }


def _selected_world(values: Values, state: Mapping[str, Any]) -> Values:
    """The selected skill joins the skills chosen so far (once)."""
    selected = list(state.get("selected_skills") or [])
    if values.get("name") not in selected:
        selected.append(str(values.get("name")))
    return {"selected_skills": selected}


SKILLS_CATALOG_SPEC = FragmentSpec(
    kind="skills_catalog",
    roles=("developer", "user"),
    recognise=recognise_skills_catalog,
    render=render_skills_catalog,
    label=lambda values: "skills_catalog",
    description="names, descriptions and paths of the available skills",
    codex_label="host_skills.instructions",
    world=WorldMeaning(_catalog_world),
)
SELECTED_SKILL_SPEC = FragmentSpec(
    kind="selected_skill",
    roles=("user",),
    recognise=recognise_selected_skill,
    render=render_selected_skill,
    label=lambda values: f"selected_skill:{values['name']}",
    description="the full SKILL.md of a skill the user selected with $name",
    codex_label="skills.selected_skill_instructions",
    world=WorldMeaning(
        _selected_world,
        # Skills the user selected with `$name` in this context, in order.
        fields={
            "selected_skills": Annotated[
                list[str], StateField("skill", ChangeStyle.SELECTED, on_first_turn=True, short="selected")
            ]
        },
    ),
)
