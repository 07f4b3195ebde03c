"""Skills, two-stage: discovery of `SKILL.md` files (front matter `name` + `description`) for the
catalog, and selection — a `$name` mention in a prompt appends that skill's full text as a user
item after the prompt.

Front matter is the YAML-ish block between `---` lines at the top of the file: `key: value`
lines, optional quotes, indented continuation lines. A file without a usable name/description,
or not UTF-8, is skipped with a warning that names it; discovery never fails as a whole.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .skill_fragments import render_selected_skill
from .world_state import SkillInfo

__all__ = ["discover_skills", "mentioned_skill_names", "parse_front_matter", "selected_skill_items"]

log = logging.getLogger(__name__)
# What is logged here (a skipped SKILL.md ...) also reaches the person once, as a notice; with no
# logging configured, Python's last-resort handler would print it again on every request. Set where
# the harness's only logger is, not in `ctxscope.harness` itself: every analysis imports that package,
# and logging is 5 ms of its start-up.
logging.getLogger("ctxscope.harness").addHandler(logging.NullHandler())

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_MENTION_RE = re.compile(r"(?<![\w$])\$([A-Za-z0-9][A-Za-z0-9._-]*)")
_MAX_DEPTH = 6  # skill dirs hold <name>/SKILL.md, sometimes grouped; deeper trees are not skills
_MAX_DESCRIPTION = 500


def parse_front_matter(text: str) -> dict[str, str] | None:
    """Keys of the leading `---` block, or None when there is no well-formed block."""
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    fields: dict[str, str] = {}
    key: str | None = None
    for line in lines[1:]:
        if line.strip() == "---":
            return fields
        if key is not None and line[:1] in (" ", "\t") and line.strip():
            fields[key] = (fields[key] + " " + line.strip()).strip()  # folded continuation
            continue
        match = re.match(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$", line)
        if match is None:
            if line.strip() and not line.lstrip().startswith("#"):
                return None  # not YAML-ish: refuse rather than guess
            continue
        key, value = match.group(1), match.group(2).strip()
        if value in (">", "|", ">-", "|-"):
            value = ""
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        fields[key] = value
    return None  # no closing ---


def _skill_files(directory: Path) -> list[Path]:
    found: list[Path] = []
    for current, dirnames, filenames in os.walk(directory):
        depth = len(Path(current).relative_to(directory).parts)
        # Sorted, hidden dirs skipped, depth bounded: discovery is deterministic and cheap.
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")) if depth < _MAX_DEPTH else []
        if "SKILL.md" in filenames:
            found.append(Path(current) / "SKILL.md")
    return found


def _load_skill(path: Path) -> tuple[SkillInfo | None, str | None]:
    """(skill, None) or (None, warning)."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        return None, f"skipped skill {path}: not UTF-8 text; save it as UTF-8"
    except OSError as err:
        return None, f"skipped skill {path}: cannot read it ({err.strerror or err})"
    fields = parse_front_matter(text)
    if fields is None:
        return (
            None,
            f"skipped skill {path}: no front matter; start the file with ---, name:, description:, ---",
        )
    name, description = fields.get("name", "").strip(), " ".join(fields.get("description", "").split())
    if not name or not description:
        missing = " and ".join(k for k, v in (("name", name), ("description", description)) if not v)
        return None, f"skipped skill {path}: front matter has no {missing}"
    if not _NAME_RE.match(name):
        return None, f"skipped skill {path}: name {name!r} must be letters, digits, '.', '_' or '-'"
    return SkillInfo(name=name, description=description[:_MAX_DESCRIPTION], path=str(path)), None


def discover_skills(dirs: Iterable[Path], warnings: list[str] | None = None) -> list[SkillInfo]:
    """Skills in `dirs` (missing dirs ignored), first definition of a name wins.

    Problems are appended to `warnings` (when given) and logged; they never raise.
    """
    skills: list[SkillInfo] = []
    seen: dict[str, str] = {}
    problems: list[str] = []
    for directory in dirs:
        if not Path(directory).is_dir():
            continue
        for path in _skill_files(Path(directory)):
            skill, problem = _load_skill(path)
            if skill is not None and skill.name in seen:
                problem = f"skipped skill {path}: name {skill.name!r} already defined by {seen[skill.name]}"
                skill = None
            if problem:
                problems.append(problem)
            if skill is not None:
                seen[skill.name] = skill.path
                skills.append(skill)
    for problem in problems:
        log.warning("%s", problem)
    if warnings is not None:
        warnings.extend(problems)
    return skills


def mentioned_skill_names(prompt: str, skills: Iterable[SkillInfo]) -> list[str]:
    """Known skill names mentioned as `$name` in `prompt`, in order of first mention, no repeats."""
    known = {s.name for s in skills}
    names: list[str] = []
    for match in _MENTION_RE.finditer(prompt):
        name = match.group(1)
        if name not in known:
            name = name.rstrip(".-")  # "$demo." at the end of a sentence
        if name in known and name not in names:
            names.append(name)
    return names


def selected_skill_items(prompt: str, skills: Iterable[SkillInfo]) -> list[dict[str, Any]]:
    """One user message per `$name`-mentioned skill, holding its full SKILL.md text.

    A skill whose file became unreadable since discovery is left out (and logged), not fatal.
    """
    by_name = {s.name: s for s in skills}
    items: list[dict[str, Any]] = []
    for name in mentioned_skill_names(prompt, by_name.values()):
        skill = by_name[name]
        try:
            text = Path(skill.path).read_bytes().decode("utf-8-sig").replace("\r\n", "\n")
        except (OSError, UnicodeDecodeError) as err:
            log.warning("skill %s not attached: cannot read %s (%s)", name, skill.path, err)
            continue
        part = render_selected_skill({"name": name, "path": skill.path, "text": text})
        items.append({"type": "message", "role": "user", "content": [{"type": "input_text", "text": part}]})
    return items
