"""Skill fragments: the catalog (developer role) and one selected skill (user role).

Codex shapes: `<skills_instructions>` holding a `## Skills` section whose entries read
`- name: description (file: /path/SKILL.md)`, and `<skill>` holding `<name>`, `<path>` and the
full SKILL.md text. Explanatory wording is ctxscope's own.
"""

from __future__ import annotations

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


def render_skills_catalog(values: Values) -> str:
    """The catalog: what skills are, how to use them, one line per skill."""
    lines = [
        "## Skills",
        "Skills are instruction files stored on this machine. Each entry below gives a skill's name, "
        "what it is for, and its SKILL.md. When the user names a skill with `$name`, or the task "
        "clearly matches a description, open that SKILL.md and follow it; otherwise ignore it.",
        "### Available skills",
    ]
    lines += [f"- {s['name']}: {s['description']} (file: {s['path']})" for s in values["skills"]]
    return wrap("<skills_instructions>", "\n".join(lines), "</skills_instructions>")


def recognise_skills_catalog(text: str) -> Values | None:
    """Skill entries of any catalog form (only the "Available skills" section when there is one)."""
    body = inner(text, "<skills_instructions>", "</skills_instructions>")
    if body is None:
        return None
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
            skill["path"] = locator.group("path").strip()
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
    world=WorldMeaning(_catalog_world),
)
SELECTED_SKILL_SPEC = FragmentSpec(
    kind="selected_skill",
    roles=("user",),
    recognise=recognise_selected_skill,
    render=render_selected_skill,
    label=lambda values: f"selected_skill:{values['name']}",
    description="the full SKILL.md of a skill the user selected with $name",
    world=WorldMeaning(
        _selected_world,
        # Skills the user selected with `$name` in this context, in order.
        fields={
            "selected_skills": Annotated[
                list[str], StateField("skill", ChangeStyle.SELECTED, on_first_turn=True)
            ]
        },
    ),
)
