"""Skill discovery from real SKILL.md files (good, malformed, not UTF-8, duplicate) and `$name`
selection appending the full skill text after the prompt."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from workspace_support import Workspace, write

from ctxscope.harness.context import (
    classify_text,
    collect_world_state,
    discover_skills,
    mentioned_skill_names,
    selected_skill_items,
)
from ctxscope.harness.context.skill_fragments import render_skills_catalog
from ctxscope.harness.context.skills import parse_front_matter


def test_discovery_reads_front_matter(ws: Workspace) -> None:
    skills = discover_skills([ws.skills_dir, ws.root / "no-such-dir"])
    assert [(s.name, s.description, s.path) for s in skills] == [
        ("demo-skill", "Shows how a skill is attached", str(ws.skills_dir / "demo-skill" / "SKILL.md")),
        ("lint", "Run the linters and fix what they report", str(ws.skills_dir / "lint" / "SKILL.md")),
    ]


def test_bad_skill_files_are_skipped_with_warnings_naming_them(
    ws: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    bad = {
        "no-front": write(ws.skills_dir / "no-front" / "SKILL.md", "# Just markdown\n"),
        "unclosed": write(ws.skills_dir / "unclosed" / "SKILL.md", "---\nname: unclosed\ndescription: x\n"),
        "no-desc": write(ws.skills_dir / "no-desc" / "SKILL.md", "---\nname: no-desc\n---\nbody"),
        "garbage": write(ws.skills_dir / "garbage" / "SKILL.md", "---\n{[ not yaml\n---\n"),
        "latin1": write(ws.skills_dir / "latin1" / "SKILL.md", b"---\nname: caf\xe9\ndescription: d\n---\n"),
        "bad-name": write(
            ws.skills_dir / "bad-name" / "SKILL.md", "---\nname: two words\ndescription: d\n---\n"
        ),
        "dup": write(ws.skills_dir / "zz-dup" / "SKILL.md", "---\nname: lint\ndescription: again\n---\n"),
    }
    warnings: list[str] = []
    with caplog.at_level(logging.WARNING, logger="ctxscope.harness.context.skills"):
        skills = discover_skills([ws.skills_dir], warnings)
    assert [s.name for s in skills] == ["demo-skill", "lint"]
    assert len(warnings) == len(bad)
    for path in bad.values():
        assert sum(str(path) in w for w in warnings) == 1, path
    assert any("not UTF-8" in w for w in warnings)
    assert any("already defined" in w for w in warnings)
    assert any("no description" in w for w in warnings)
    assert len(caplog.records) == len(bad)
    # The world state still builds, with the good skills.
    collected: list[str] = []
    state = collect_world_state(ws.settings(), collected)
    assert [s.name for s in state.skills] == ["demo-skill", "lint"] and len(collected) == len(bad)


def test_front_matter_parser() -> None:
    assert parse_front_matter("---\nname: a\ndescription: 'quoted: yes'\n# comment\n---\n") == {
        "name": "a",
        "description": "quoted: yes",
    }
    assert parse_front_matter("---\r\nname: a\r\n---\r\n") == {"name": "a"}
    assert parse_front_matter("no front matter") is None
    assert parse_front_matter("") is None


def test_hidden_dirs_are_not_searched(ws: Workspace) -> None:
    write(ws.skills_dir / ".cache" / "x" / "SKILL.md", "---\nname: hidden\ndescription: d\n---\n")
    assert "hidden" not in [s.name for s in discover_skills([ws.skills_dir])]


def test_dollar_mentions_select_skills_in_order(ws: Workspace) -> None:
    skills = discover_skills([ws.skills_dir])
    prompt = "Use $lint then $demo-skill. Also $lint again, $unknown, costs $5, a$demo-skill."
    assert mentioned_skill_names(prompt, skills) == ["lint", "demo-skill"]
    items = selected_skill_items(prompt, skills)
    assert [item["role"] for item in items] == ["user", "user"]
    values = [classify_text(item["content"][0]["text"], "user") for item in items]
    assert [(v.kind, v.values["name"]) for v in values if v] == [
        ("selected_skill", "lint"),
        ("selected_skill", "demo-skill"),
    ]
    demo = values[1]
    assert demo is not None
    assert demo.values["path"] == str(ws.skills_dir / "demo-skill" / "SKILL.md")
    # the file as written, its trailing newline kept (Codex)
    assert demo.values["text"] == Path(demo.values["path"]).read_text(encoding="utf-8")
    assert selected_skill_items("no mentions here", skills) == []


def test_skill_deleted_after_discovery_is_left_out(ws: Workspace) -> None:
    skills = discover_skills([ws.skills_dir])
    (ws.skills_dir / "demo-skill" / "SKILL.md").unlink()
    assert (
        selected_skill_items("$demo-skill and $lint", skills)[0]["content"][0]["text"].count(
            "<name>lint</name>"
        )
        == 1
    )
    assert len(selected_skill_items("$demo-skill and $lint", skills)) == 1


def test_catalog_names_each_skill_root_once_and_locates_skills_under_it() -> None:
    skills = [
        {"name": "a", "description": "A.", "path": "/home/u/.codex/skills/a/SKILL.md"},
        {"name": "b", "description": "B.", "path": "/repo/.codex/skills/b/SKILL.md"},
        {"name": "c", "description": "C.", "path": "/home/u/.codex/skills/c/SKILL.md"},
    ]
    text = render_skills_catalog({"skills": skills})
    assert "- `r0`: /home/u/.codex/skills\n- `r1`: /repo/.codex/skills\n" in text
    assert "(file: r0/a/SKILL.md)" in text and "(file: r1/b/SKILL.md)" in text
    assert "(file: r0/c/SKILL.md)" in text and "/home/u/.codex/skills/a" not in text
    assert text.index("### Skill roots") < text.index("### Available skills") < text.index("### How to use")
    match = classify_text(text, "developer")
    assert match is not None and match.values == {"skills": skills}  # locators resolve back
