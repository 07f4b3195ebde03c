"""World-state snapshots from real files and the items built from them: the first-turn layout
(golden), append-only diffs on cwd changes, AGENTS.md replace/remove forms, permissions and mode
changes, JSON persistence of the baseline, and bad files."""

from __future__ import annotations

import copy
import os
from datetime import UTC
from pathlib import Path

import pytest
from workspace_support import Workspace, write

from ctxscope.harness.context import (
    WorldState,
    classify_text,
    collect_world_state,
    context_items,
    context_update_items,
    diff_world_state,
    initial_context_items,
    layout_labels,
    selected_skill_items,
    user_message_item,
)
from ctxscope.proxy.errors import ConfigError

GOLDEN = Path(__file__).parent / "golden"


def check_golden(name: str, actual: str) -> None:
    """Compare with a golden file; CTXSCOPE_UPDATE_GOLDEN=1 rewrites it (review the git diff)."""
    path = GOLDEN / name
    if os.environ.get("CTXSCOPE_UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"missing golden {path}; run with CTXSCOPE_UPDATE_GOLDEN=1"
    assert actual == path.read_text(encoding="utf-8")


def fragments(items: list[dict]) -> list[tuple[str, str, dict]]:
    """(role, kind, values) of every part; a plain part is kind "text"."""
    out = []
    for item in items:
        for part in item["content"]:
            match = classify_text(part["text"], item["role"])
            out.append((item["role"], match.kind if match else "text", match.values if match else {}))
    return out


def test_first_turn_layout_golden(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TMPDIR", raising=False)  # a set $TMPDIR is one more writable root
    state = collect_world_state(ws.settings())
    prompt = "Please look at $demo-skill and fix the build."
    items = initial_context_items(state, developer_instructions=None)
    items += [user_message_item(prompt), *selected_skill_items(prompt, state.skills)]
    labels = layout_labels(items, root=ws.root)
    assert labels == [
        "developer[<skills_catalog>, <permissions>]",
        "user[<agents_md:$ROOT/repo>, <environment_context:cwd=$ROOT/repo>]",
        'user: "Please look at $demo-skill and fix the build."',
        "user[<selected_skill:demo-skill>]",
    ]
    check_golden("first_turn_labels.txt", "\n".join(labels) + "\n")
    # The full text too, so a wording change shows up as a readable diff.
    text = "\n\n=====\n\n".join(
        f"[{item['role']}]\n" + "\n-----\n".join(p["text"] for p in item["content"]) for item in items
    )
    check_golden("first_turn_text.txt", text.replace(str(ws.root), "$ROOT") + "\n")


def test_first_turn_values(ws: Workspace) -> None:
    state = collect_world_state(ws.settings(collaboration_mode="plan", goal="green tests"))
    items = initial_context_items(state, developer_instructions="Be careful.")
    assert [i["role"] for i in items] == ["developer", "user"]
    found = fragments(items)
    assert [(role, kind) for role, kind, _ in found] == [
        ("developer", "text"),
        ("developer", "skills_catalog"),
        ("developer", "permissions"),
        ("developer", "collaboration_mode"),
        ("user", "agents_md"),
        ("user", "environment_context"),
        ("user", "goal"),
    ]
    perms, agents, env = found[2][2], found[4][2], found[5][2]
    writable = [
        str(ws.repo),
        "/tmp",
        *([os.path.realpath(os.environ["TMPDIR"])] if "TMPDIR" in os.environ else []),
    ]
    assert perms == {
        "sandbox_mode": "workspace-write",
        "approval_policy": "on-request",
        "network_enabled": False,
        "writable_roots": writable,
    }
    # Codex's layout: the global text, then the project documents, raw (trailing newline kept).
    assert agents == {
        "path": str(ws.repo),
        "global": "Global: answer briefly.\n",
        "project": "# Root rules\n\nRun the tests before you finish.\n",
    }
    assert env == {
        "cwd": str(ws.repo),
        "shell": "bash",
        "current_date": "2026-11-29",
        "timezone": "UTC",
        "workspace_roots": [str(ws.repo)],
        "writable_roots": writable,
    }
    assert [s["name"] for s in found[1][2]["skills"]] == ["demo-skill", "lint"]
    assert found[1][2]["skills"][1]["description"] == "Run the linters and fix what they report"


def test_cd_into_dir_with_agents_md_appends_replaced_form(ws: Workspace) -> None:
    roots = [ws.repo]
    prev = collect_world_state(ws.settings(writable_roots=roots))
    cur = collect_world_state(ws.settings(ws.pkg, writable_roots=roots))
    assert set(diff_world_state(prev, cur)) == {"cwd", "agents_docs"}
    items = context_update_items(prev, cur)
    assert layout_labels(items, root=ws.root) == [
        "user[<agents_md_replaced:$ROOT/repo/pkg>, <environment_context:cwd=$ROOT/repo/pkg>]"
    ]
    (_, _, agents), (_, _, env) = fragments(items)
    assert agents["global"] == ws.global_file.read_text()
    root_text, pkg_text = (ws.repo / "AGENTS.md").read_text(), (ws.pkg / "AGENTS.md").read_text()
    assert agents["project"] == root_text + "\n\n" + pkg_text
    # A cwd change re-sends every child (Codex 0.169), not only the changed one.
    assert env["cwd"] == str(ws.pkg) and set(env) == {
        "cwd",
        "shell",
        "current_date",
        "timezone",
        "workspace_roots",
        "writable_roots",
    }


def test_cd_into_plain_subdir_changes_only_cwd(ws: Workspace) -> None:
    prev = collect_world_state(ws.settings(writable_roots=[ws.repo]))
    cur = collect_world_state(ws.settings(ws.src, writable_roots=[ws.repo]))
    ((role, kind, env),) = fragments(context_update_items(prev, cur))
    assert (role, kind, env["cwd"], env["workspace_roots"]) == (
        "user",
        "environment_context",
        str(ws.src),
        [str(ws.src)],
    )


def test_leaving_every_agents_md_appends_removed_form(ws: Workspace) -> None:
    prev = collect_world_state(ws.settings(ws.pkg, global_agents_file=None, writable_roots=[]))
    cur = collect_world_state(ws.settings(ws.outside, global_agents_file=None, writable_roots=[]))
    assert cur.agents_docs == []
    items = context_update_items(prev, cur)
    assert layout_labels(items, root=ws.root) == [
        "user[<agents_md_removed>, <environment_context:cwd=$ROOT/elsewhere>]"
    ]
    # With a global file, leaving the repo keeps only it: a replacement, not a removal.
    prev = collect_world_state(ws.settings(ws.pkg, writable_roots=[]))
    cur = collect_world_state(ws.settings(ws.outside, writable_roots=[]))
    kinds = [kind for _, kind, _ in fragments(context_update_items(prev, cur))]
    assert kinds == ["agents_md_replaced", "environment_context"]


def test_first_agents_md_after_none_is_full_form(ws: Workspace) -> None:
    prev = collect_world_state(ws.settings(ws.outside, global_agents_file=None, writable_roots=[]))
    cur = collect_world_state(ws.settings(ws.repo, global_agents_file=None, writable_roots=[]))
    assert [kind for _, kind, _ in fragments(context_update_items(prev, cur))] == [
        "agents_md",
        "environment_context",
    ]


def test_other_environment_changes_resend_date_and_timezone(ws: Workspace) -> None:
    from datetime import datetime

    prev = collect_world_state(ws.settings())
    cur = collect_world_state(ws.settings(now=datetime(2026, 11, 30, 0, 5, tzinfo=UTC)))
    assert diff_world_state(prev, cur) == {"current_date": ("2026-11-29", "2026-11-30")}
    assert fragments(context_update_items(prev, cur)) == [
        ("user", "environment_context", {"current_date": "2026-11-30", "timezone": "UTC"})
    ]
    # The same instant in another zone is still the 29th there; the zone change is sent with it.
    cur = collect_world_state(
        ws.settings(timezone="America/New_York", now=datetime(2026, 11, 30, 0, 5, tzinfo=UTC))
    )
    assert fragments(context_update_items(prev, cur)) == [
        ("user", "environment_context", {"current_date": "2026-11-29", "timezone": "America/New_York"})
    ]


def test_nothing_changed_appends_nothing(ws: Workspace) -> None:
    prev = collect_world_state(ws.settings())
    cur = collect_world_state(ws.settings())
    assert diff_world_state(prev, cur) == {}
    assert context_update_items(prev, cur) == []


def test_permission_and_mode_changes_use_developer_fragments(ws: Workspace) -> None:
    prev = collect_world_state(ws.settings())
    cur = collect_world_state(
        ws.settings(
            sandbox_mode="read-only", approval_policy="never", network_enabled=True, collaboration_mode="plan"
        )
    )
    items = context_update_items(prev, cur)
    # Adjacent same-role parts are merged; the mode switch is a developer message of its own, last
    # (before the user's message), as Codex sends it.
    assert [i["role"] for i in items] == ["developer", "user", "developer"]
    assert len(items[2]["content"]) == 1
    found = fragments(items)
    # A sandbox change re-sends date, timezone and filesystem; network is in permissions only.
    assert found[0] == (
        "developer",
        "permissions",
        {
            "sandbox_mode": "read-only",
            "approval_policy": "never",
            "network_enabled": True,
            "writable_roots": [],
        },
    )
    assert found[1] == (
        "user",
        "environment_context",
        {
            "current_date": "2026-11-29",
            "timezone": "UTC",
            "workspace_roots": [str(ws.repo)],
            "writable_roots": [],
        },
    )
    # the mode switch is a developer message of its own, the last before the user's message
    assert found[2][:2] == ("developer", "collaboration_mode") and found[2][2]["mode"] == "plan"
    # Leaving the mode says "default" explicitly so plan instructions do not linger.
    back = collect_world_state(
        ws.settings(sandbox_mode="read-only", approval_policy="never", network_enabled=True)
    )
    assert [(k, v["mode"]) for _, k, v in fragments(context_update_items(cur, back))] == [
        ("collaboration_mode", "default")
    ]


def test_writable_roots_change_sends_new_permissions(ws: Workspace) -> None:
    prev = collect_world_state(ws.settings())
    cur = collect_world_state(ws.settings(writable_roots=[ws.repo, ws.outside]))
    found = fragments(context_update_items(prev, cur))
    assert [kind for _, kind, _ in found] == ["permissions", "environment_context"]
    assert found[0][2]["writable_roots"] == [str(ws.repo), str(ws.outside)]


def test_skill_and_goal_changes(ws: Workspace) -> None:
    prev = collect_world_state(ws.settings())
    write(ws.skills_dir / "new-one" / "SKILL.md", "---\nname: new-one\ndescription: Fresh\n---\nbody\n")
    cur = collect_world_state(ws.settings(goal="ship it"))
    found = fragments(context_update_items(prev, cur))
    assert [kind for _, kind, _ in found] == ["skills_catalog", "goal"]
    assert [s["name"] for s in found[0][2]["skills"]] == ["demo-skill", "lint", "new-one"]
    assert found[1][2] == {"objective": "ship it"}


def test_history_is_append_only(ws: Workspace) -> None:
    first = collect_world_state(ws.settings())
    history = context_items(None, first) + [user_message_item("hi")]
    snapshot = copy.deepcopy(history)
    states = [
        first,
        collect_world_state(ws.settings(ws.pkg)),
        collect_world_state(ws.settings(ws.outside)),
        collect_world_state(ws.settings(ws.repo)),
    ]
    for prev, cur in zip(states, states[1:], strict=False):
        added = context_items(prev, cur)
        # Default writable roots follow the cwd (Codex 0.169's order): AGENTS.md (user), the new
        # permissions (developer), then the whole environment_context (user).
        assert [item["role"] for item in added] == ["user", "developer", "user"]
        history += added
        assert history[: len(snapshot)] == snapshot
    assert len(history) == len(snapshot) + 9


def test_world_state_json_round_trip_keeps_the_baseline(ws: Workspace) -> None:
    state = collect_world_state(ws.settings(ws.pkg, collaboration_mode="plan", reasoning_effort="high"))
    restored = WorldState.model_validate_json(state.model_dump_json())
    assert restored == state
    assert isinstance(restored.agents_docs[0], tuple)
    assert context_update_items(restored, state) == []
    # Unknown keys from a newer session file do not break a resume.
    data = state.model_dump(mode="json") | {"future_field": 1}
    assert WorldState.model_validate(data) == state


def test_override_wins_and_repo_root_is_found_by_git(ws: Workspace) -> None:
    write(ws.pkg / "AGENTS.override.md", "Override rules.\n")
    deep = ws.pkg / "a" / "b"
    deep.mkdir(parents=True)
    state = collect_world_state(ws.settings(deep, global_agents_file=None))
    assert state.agents_docs == [
        (str(ws.repo / "AGENTS.md"), "# Root rules\n\nRun the tests before you finish.\n"),
        (str(ws.pkg / "AGENTS.override.md"), "Override rules.\n"),
    ]
    # An empty override does not hide the AGENTS.md beside it.
    write(ws.pkg / "AGENTS.override.md", "  \n")
    state = collect_world_state(ws.settings(deep, global_agents_file=None))
    assert state.agents_docs[-1][0] == str(ws.pkg / "AGENTS.md")
    # An explicit repo root narrows the chain.
    state = collect_world_state(ws.settings(deep, global_agents_file=None, repo_root=ws.pkg))
    assert [p for p, _ in state.agents_docs] == [str(ws.pkg / "AGENTS.md")]


def test_without_git_only_cwd_is_searched(ws: Workspace) -> None:
    write(ws.outside / "AGENTS.md", "outside rules")
    write(ws.outside / "sub" / "AGENTS.md", "sub rules")
    state = collect_world_state(ws.settings(ws.outside / "sub", global_agents_file=None))
    assert state.agents_docs == [(str(ws.outside / "sub" / "AGENTS.md"), "sub rules")]


def test_non_utf8_agents_md_is_read_with_replacement_and_a_warning(ws: Workspace) -> None:
    bad = write(ws.pkg / "AGENTS.md", b"caf\xe9 rules\n")
    before = bad.read_bytes()
    warnings: list[str] = []
    state = collect_world_state(ws.settings(ws.pkg), warnings)
    # kept as written (trailing newline too), the bad byte replaced
    assert (str(bad), "caf\ufffd rules\n") in state.agents_docs
    assert len(warnings) == 1
    assert str(bad) in warnings[0] and "UTF-8" in warnings[0] and "\n" not in warnings[0]
    assert bad.read_bytes() == before  # the input is never rewritten


def test_bad_settings_are_clear_errors(ws: Workspace) -> None:
    for overrides, needle in [
        ({"sandbox_mode": "yolo"}, "sandbox mode"),
        ({"approval_policy": "sometimes"}, "approval policy"),
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"cwd": ws.root / "missing"}, "does not exist"),
    ]:
        with pytest.raises(ConfigError, match=needle):
            collect_world_state(ws.settings(**overrides))  # type: ignore[arg-type]


def test_project_docs_share_a_byte_budget(ws: Workspace) -> None:
    write(ws.repo / "AGENTS.md", "é" * 30)  # 60 bytes
    warnings: list[str] = []
    state = collect_world_state(ws.settings(ws.pkg, agents_max_bytes=71), warnings)
    # Global file not counted; the root file fits; the package file gets the 11 bytes left.
    assert [(p, len(t.encode())) for p, t in state.agents_docs] == [
        (str(ws.global_file), len("Global: answer briefly.\n")),
        (str(ws.repo / "AGENTS.md"), 60),
        (str(ws.pkg / "AGENTS.md"), 11),
    ]
    assert state.agents_docs[2][1] == "Package rul"
    assert len(warnings) == 1 and str(ws.pkg / "AGENTS.md") in warnings[0]
    # A budget spent entirely leaves the file out; a multi-byte character is never split.
    warnings.clear()
    state = collect_world_state(ws.settings(ws.pkg, agents_max_bytes=59), warnings)
    assert [(p, t) for p, t in state.agents_docs][1:] == [(str(ws.repo / "AGENTS.md"), "é" * 29)]
    assert len(warnings) == 2 and "left out" in warnings[1]


def test_global_file_alone_has_a_heading_without_a_directory(ws: Workspace) -> None:
    (ws.repo / "AGENTS.md").unlink()
    items = initial_context_items(collect_world_state(ws.settings()))
    agents = next(values for _, kind, values in fragments(items) if kind == "agents_md")
    assert agents == {"path": None, "global": ws.global_file.read_text()}
    text = next(p["text"] for i in items for p in i["content"] if "<INSTRUCTIONS>" in p["text"])
    assert text == "# AGENTS.md instructions\n\n<INSTRUCTIONS>\nGlobal: answer briefly.\n\n</INSTRUCTIONS>"
    assert "--- doc:" not in text and "--- project-doc ---" not in text
