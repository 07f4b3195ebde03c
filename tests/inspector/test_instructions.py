"""The base prompt is recognised as the instructions wherever it travels: the `instructions` field,
input[0] as a plain developer message (Codex CLI 0.169, the harness's default), or the body of a
`<model_switch>` fragment; "instructions changed", the show pane and token attribution follow it."""

from __future__ import annotations

from typing import Any

from ctxscope.inspector.analysis import analyse_exchanges
from ctxscope.inspector.reports.build import diff_report, show_report
from tests.inspector.exchange_support import Script, body, completed, fragment, initial_context, message

BASE_A = "You are agent A. Be careful.\n"
BASE_B = "You are agent B. Be quick.\n"


def _without_field(items: list[dict[str, Any]]) -> dict[str, Any]:
    request = body(items)
    del request["instructions"]
    return request


def _thread() -> Script:
    script = Script()
    first = [message("developer", BASE_A), *initial_context(), message("user", "hi")]
    script.request(_without_field(first), response=completed("r1"))
    second = [*first, message("assistant", "done."), message("user", "again")]
    script.request(_without_field(second), response=completed("r2"))
    switch = fragment("model_switch", previous_model="gpt-a", model="gpt-b", instructions=BASE_B)
    third = [*second, message("assistant", "done."), message("developer", switch), message("user", "more")]
    script.request(_without_field(third), response=completed("r3"))
    return script


def test_input0_base_prompt_is_the_instructions() -> None:
    analysis = analyse_exchanges(_thread().exchanges)
    first = analysis.turns[0]
    assert first.turn.items[0].label == "developer[<instructions>]"
    assert first.turn.items[0].kind == "instructions"
    assert first.tokens.by_kind["instructions"] > 0
    assert "developer_message" not in first.tokens.by_kind
    assert show_report(analysis, 1).instructions == BASE_A


def test_model_switch_body_changes_the_instructions() -> None:
    analysis = analyse_exchanges(_thread().exchanges)
    assert analysis.turns[1].instructions_diff == []
    diff = analysis.turns[2].instructions_diff
    assert "-You are agent A. Be careful." in diff and "+You are agent B. Be quick." in diff
    assert [t.instructions_changed for t in diff_report(analysis).turns] == [False, False, True]
    # input[0] stays the old base prompt; what is in effect is the switch's.
    assert show_report(analysis, 3).instructions == BASE_B.rstrip("\n")


def test_plain_developer_input0_with_an_instructions_field_is_not_the_base_prompt() -> None:
    script = Script()
    script.request(
        body([message("developer", "Extra developer text."), message("user", "hi")]), response=completed("r")
    )
    (turn,) = analyse_exchanges(script.exchanges).turns
    assert turn.turn.items[0].kind == "developer_message"
    assert turn.tokens.by_kind["instructions"] > 0  # the field's text
