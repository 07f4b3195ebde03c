"""World state, defined once: every field (WorldState's and fragment-declared) in one table with its
`StateField`, and every fragment's world meaning projecting onto fields of that table with values
of the field's type."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from pydantic import TypeAdapter

from ctxscope.harness.context import (
    FRAGMENT_SPECS,
    ChangeStyle,
    FragmentSpec,
    StateField,
    WorldMeaning,
    WorldState,
    classify_text,
    fragment_specs,
    get_spec,
    register_fragment,
    render_fragment,
    unregister_fragment,
    world_fields,
    world_meaning,
)
from tests.harness.context.test_ctx_fragments import ROLE, SAMPLES


def _marker_given(annotation_metadata: list[Any]) -> bool:
    return any(isinstance(m, StateField) for m in annotation_metadata)


def test_every_world_state_field_says_how_its_change_reads() -> None:
    assert all(_marker_given(info.metadata) for info in WorldState.model_fields.values())
    fields = world_fields()
    assert list(fields)[: len(WorldState.model_fields)] == list(WorldState.model_fields)
    declared = {name: f.declared_by for name, f in fields.items() if f.declared_by}
    assert declared == {
        "context_model": "model_switch",
        "personality": "personality",
        "agents_md": "agents_md",
        "selected_skills": "selected_skill",
        "goal_events": "goal_status",
    }
    assert fields["goal_events"].marker == StateField(
        "goal", ChangeStyle.EVENTS, on_first_turn=True, short="goal log"
    )
    assert fields["selected_skills"].marker == StateField(
        "skill", ChangeStyle.SELECTED, on_first_turn=True, short="selected"
    )
    assert fields["network_enabled"].marker.words == ("restricted", "enabled")


@pytest.mark.parametrize(
    ("kind", "values"),
    [(kind, values) for kind, many in SAMPLES.items() for values in many if get_spec(kind).world],
)
def test_each_meaning_sets_known_fields_with_values_of_their_type(kind: str, values: dict[str, Any]) -> None:
    match = classify_text(render_fragment(kind, values), ROLE[kind])
    assert match is not None
    meaning = world_meaning(kind)
    assert meaning is not None
    fields = world_fields()
    update = meaning.project(match.values, {"cwd": "/repo"})
    assert update, f"{kind} sets no field"
    for name, value in update.items():
        assert name in fields, name
        TypeAdapter(fields[name].annotation | None).validate_python(value, strict=True)
    assert set(meaning.replaces) <= set(fields)


def test_the_environment_and_permissions_fragments_carry_the_harness_values() -> None:
    state = WorldState(cwd="/repo", current_date="2026-11-30", writable_roots=["/repo"])
    env = render_fragment("environment_context", {"cwd": state.cwd, "current_date": state.current_date})
    match = classify_text(env, "user")
    assert match is not None
    assert world_meaning("environment_context").project(match.values, {}) == {  # type: ignore[union-attr]
        "cwd": "/repo",
        "current_date": "2026-11-30",
    }


def test_kinds_without_world_meaning_are_the_event_fragments() -> None:
    silent = {spec.kind for spec in FRAGMENT_SPECS if spec.world is None}
    # deferred_tools (Codex's <tools> notice) is state, but the harness offers no deferred namespaces
    # and the world state has no field for them yet: it is recognised and labelled only.
    assert silent == {
        "turn_aborted",
        "user_shell_command",
        "plan_mode_reminder",
        "compaction_summary",
        "compaction_prompt",
        "deferred_tools",
    }


def _spec(kind: str, fields: dict[str, Any]) -> FragmentSpec:
    return FragmentSpec(
        kind=kind,
        roles=("user",),
        recognise=lambda text: None,
        render=lambda values: "",
        label=lambda values: kind,
        world=WorldMeaning(lambda values, state: {}, fields),
    )


@pytest.fixture
def registered() -> Iterator[list[str]]:
    kinds: list[str] = []
    yield kinds
    for kind in kinds:
        unregister_fragment(kind)


def test_a_registered_kind_adds_its_declared_field(registered: list[str]) -> None:
    before = world_fields()
    register_fragment(_spec("weather", {"weather": Annotated[str, StateField("weather")]}))
    registered.append("weather")
    assert fragment_specs()[-1].kind == "weather" and get_spec("weather").kind == "weather"
    assert "weather" in world_fields() and "weather" not in before
    unregister_fragment("weather")
    registered.clear()
    assert "weather" not in world_fields()


def test_a_field_has_one_definition(registered: list[str]) -> None:
    with pytest.raises(ValueError, match="declares 'cwd', a WorldState field"):
        register_fragment(_spec("cwd_again", {"cwd": Annotated[str, StateField("cwd")]}))
    assert "cwd_again" not in {spec.kind for spec in fragment_specs()}  # refused whole
    register_fragment(_spec("mood_a", {"mood": Annotated[str, StateField("mood")]}))
    registered.append("mood_a")
    with pytest.raises(ValueError, match="redefines world-state field 'mood'"):
        register_fragment(_spec("mood_b", {"mood": Annotated[int, StateField("mood")]}))
    assert world_fields()["mood"].annotation is str and world_fields()["mood"].declared_by == "mood_a"
    # The same definition shared by two kinds (like the AGENTS.md forms) is one field.
    register_fragment(_spec("mood_c", {"mood": Annotated[str, StateField("mood")]}))
    registered.append("mood_c")
    assert world_fields()["mood"].declared_by == "mood_a"


def test_registering_refuses_a_known_kind_and_keeps_built_ins() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_fragment(FRAGMENT_SPECS[0])
    with pytest.raises(ValueError, match="built in"):
        unregister_fragment("permissions")
