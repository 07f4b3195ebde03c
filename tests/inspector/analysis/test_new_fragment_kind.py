"""A fragment kind with a world-state meaning, added in one package: the spec and its declared
fields are defined here (as an extension would define them for the harness) and registered; the
inspector recognises it, folds it, records its changes and reports them with no edit of its own."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Annotated, Any

import pytest

from ctxscope.harness.context import (
    FragmentSpec,
    StateField,
    WorldMeaning,
    register_fragment,
    render_fragment,
    unregister_fragment,
)
from ctxscope.inspector.analysis import Analysis, StateChange, analyse_exchanges
from ctxscope.inspector.reports import diff_report, render_markdown, show_report
from ctxscope.inspector.reports.schema import report_schema
from tests.inspector.exchange_support import Script, body, completed, initial_context, message


def _recognise(text: str) -> dict[str, Any] | None:
    found = re.fullmatch(r'<weather celsius="([^"]*)">(.*)</weather>', text.strip(), re.DOTALL)
    return {"sky": found.group(2), "celsius": found.group(1)} if found else None


WEATHER = FragmentSpec(
    kind="weather",
    roles=("user",),
    recognise=_recognise,
    render=lambda values: f'<weather celsius="{values["celsius"]}">{values["sky"]}</weather>',
    label=lambda values: f"weather:{values['sky']}",
    description="what the sky looks like where the user is",
    world=WorldMeaning(
        lambda values, state: {"sky": values["sky"], "celsius": values["celsius"]},
        fields={
            "sky": Annotated[str, StateField("sky")],
            "celsius": Annotated[int, StateField("temperature (°C)")],
        },
    ),
)


@pytest.fixture
def weather() -> Iterator[None]:
    register_fragment(WEATHER)
    try:
        yield
    finally:
        unregister_fragment("weather")


def _session(*reports: tuple[str, str]) -> Analysis:
    """One turn per (sky, celsius) report, each appending a weather fragment to the same thread."""
    s = Script()
    items = list(initial_context())
    for n, (sky, celsius) in enumerate(reports, start=1):
        items += [message("user", render_fragment("weather", {"sky": sky, "celsius": celsius}))]
        items += [message("user", f"turn {n}")]
        s.request(body(list(items)), response=completed(f"resp_{n}"))
        items += [message("assistant", "ok")]
    return analyse_exchanges(s.exchanges)


def test_the_timeline_reports_a_new_kinds_change_with_no_inspector_edit(weather: None) -> None:
    a = _session(("sunny", "21"), ("rain", "14"))
    assert a.turn(2).turn.items[-2].kind == "weather"
    assert a.turn(2).state_changes == [StateChange("sky", "sunny", "rain"), StateChange("celsius", 21, 14)]
    report = diff_report(a, turn=2).wire()
    assert report["turns"][1]["world_state_changes"] == ["sky sunny → rain", "temperature (°C) 21 → 14"]
    assert report["detail"]["world_state"]["sky"] == "rain"
    assert show_report(a, 1).world_state.wire()["celsius"] == 21
    assert "sky sunny → rain" in render_markdown(report)
    # The generated schema documents it too (under its own name: it has no published alias).
    assert report_schema()["$defs"]["WorldStateDoc"]["properties"]["celsius"]["description"].startswith(
        "temperature (°C)"
    )


def test_a_value_that_does_not_fit_its_field_keeps_the_previous_one(weather: None) -> None:
    a = _session(("sunny", "21"), ("fog", "chilly"))
    assert a.turn(2).state.value("celsius") == 21
    assert a.turn(2).state_changes == [StateChange("sky", "sunny", "fog")]


def test_without_the_registration_the_fragment_is_plain_text() -> None:
    s = Script()
    text = WEATHER.render({"sky": "sunny", "celsius": "21"})
    s.request(body([*initial_context(), message("user", text)]), response=completed("resp_1"))
    (turn,) = analyse_exchanges(s.exchanges).turns
    assert turn.turn.items[-1].kind == "user_message" and turn.state.value("sky") is None
