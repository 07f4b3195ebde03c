"""World-state timeline: typed values per turn (the harness's fields) and `StateChange` records."""

from __future__ import annotations

from collections.abc import Callable

from ctxscope.harness.context import SkillInfo
from ctxscope.inspector.analysis import Analysis, StateChange, analyse_exchanges
from tests.inspector.exchange_support import Script, body, completed, fragment, initial_context, message


def test_changes_are_records_of_the_harness_fields(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("world")
    assert a.turn(1).state_changes == []
    changes = {c.field: c for c in a.turn(2).state_changes}
    assert list(changes) == [
        "cwd",
        "network_enabled",
        "approval_policy",
        "writable_roots",
        "collaboration_mode",
        "model",
        "reasoning_effort",
        "agents_md",
        "selected_skills",
    ]
    assert changes["cwd"] == StateChange("cwd", "/repo", "/repo/pkg")
    assert changes["network_enabled"] == StateChange("network_enabled", False, True)
    assert changes["collaboration_mode"] == StateChange("collaboration_mode", None, "plan")
    assert changes["agents_md"] == StateChange(
        "agents_md", {"/repo": "Use pytest."}, {"/repo/pkg": "Package rules."}, replaced=True
    )
    assert changes["selected_skills"] == StateChange("selected_skills", None, ["demo-skill"])
    assert a.turn(3).state_changes == [StateChange("goal", None, "ship the parser")]


def test_state_holds_typed_values(analysed: Callable[[str], Analysis]) -> None:
    state = analysed("world").turn(3).state
    assert state.value("cwd") == "/repo/pkg" and state.value("shell") == "bash"
    assert state.value("current_date") == "2026-11-29" and state.value("timezone") == "UTC"
    assert state.value("sandbox_mode") == "workspace-write" and state.value("approval_policy") == "never"
    assert state.value("network_enabled") is True
    assert state.value("writable_roots") == ["/repo/pkg", "/tmp"]
    assert state.value("agents_md") == {"/repo/pkg": "Package rules."}
    assert state.value("skills") == [
        SkillInfo(name="demo-skill", description="A demo.", path="/skills/demo-skill/SKILL.md")
    ]
    assert state.value("selected_skills") == ["demo-skill"]
    assert state.value("collaboration_mode") == "plan" and state.value("goal") == "ship the parser"
    assert state.value("model") == "gpt-5.1-codex" and state.value("reasoning_effort") == "high"
    # Never said by this context: unset, not a default from the harness.
    assert state.value("personality") is None and state.value("agents_docs") is None


def test_state_after_compaction_is_rebuilt_from_the_new_context(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("compaction")
    assert a.turn(5).state.value("cwd") == "/repo"
    assert a.turn(5).state.value("agents_md") == {"/repo": "Use pytest."}
    assert a.turn(5).state_changes == []


def _two_turns(second: list[dict[str, object]], **extra: object) -> Analysis:
    s = Script()
    t1 = [*initial_context(), message("user", "hi")]
    s.request(body(t1), response=completed("resp_1"))
    s.request(body([*t1, message("assistant", "ok"), *second], **extra), response=completed("resp_2"))
    return analyse_exchanges(s.exchanges)


def test_a_selected_skill_is_a_change_on_the_first_turn_too() -> None:
    skill = fragment("selected_skill", name="demo-skill", path="/s/SKILL.md", text="Say DEMO.")
    s = Script()
    s.request(body([*initial_context(), message("user", skill)]), response=completed("resp_1"))
    (turn,) = analyse_exchanges(s.exchanges).turns
    assert turn.state_changes == [StateChange("selected_skills", None, ["demo-skill"])]


def test_a_model_switch_notice_that_only_confirms_the_model_change_is_not_a_second_change() -> None:
    notice = fragment("model_switch", previous_model="gpt-5-codex", model="gpt-5.1-codex", instructions="Hi.")
    a = _two_turns([message("developer", notice)], model="gpt-5.1-codex")
    assert [c.field for c in a.turn(2).state_changes] == ["model"]
    assert a.turn(2).state.value("context_model") == "gpt-5.1-codex"
    lagging = _two_turns([message("developer", notice)])  # the request still names the old model
    assert [c.field for c in lagging.turn(2).state_changes] == ["context_model"]


def test_a_catalog_that_only_rewords_a_description_is_no_change() -> None:
    catalog = fragment(
        "skills_catalog",
        skills=[{"name": "demo-skill", "description": "Reworded.", "path": "/skills/demo-skill/SKILL.md"}],
    )
    a = _two_turns([message("developer", catalog)])
    assert a.turn(2).state_changes == []
    assert a.turn(2).state.value("skills")[0].description == "Reworded."
