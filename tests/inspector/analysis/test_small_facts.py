"""Base instructions, mode marks and context windows."""

from __future__ import annotations

from collections.abc import Callable

from ctxscope.inspector.analysis import Analysis, analyse_exchanges
from ctxscope.inspector.analysis.instructions import base_instructions
from ctxscope.inspector.analysis.marks import mode_marks
from ctxscope.inspector.analysis.window import context_window, fill_ratio
from tests.inspector.exchange_support import Script, body, completed, message


def test_base_prompt_from_the_instructions_field(analysed: Callable[[str], Analysis]) -> None:
    turn = analysed("world").turns[0].turn
    assert base_instructions(turn).source == "instructions"
    assert base_instructions(turn).text == "You are a coding agent."


def test_base_prompt_sent_as_the_first_developer_message() -> None:
    script = Script()
    items = [message("developer", "You are Codex, a coding agent."), message("user", "hi")]
    script.request(body(items, instructions=""), response=completed("r1"))
    turn = analyse_exchanges(script.exchanges).turns[0].turn
    base = base_instructions(turn)
    assert (base.source, base.text) == ("first developer message", "You are Codex, a coding agent.")


def test_mode_messages_are_marked_where_they_enter(analysed: Callable[[str], Analysis]) -> None:
    turns = analysed("world").turns
    assert [mode_marks(t) for t in turns] == [[], ["mode default → plan"], ["goal"]]


def test_context_window_by_model_name() -> None:
    assert context_window("gpt-5-codex").tokens == 272_000 and context_window("gpt-5-codex").known
    assert context_window("gpt-4o-mini").tokens == 128_000
    assert not context_window("my-local-model").known
    assert fill_ratio(136_000, "gpt-5") == 0.5
    assert fill_ratio(None, "gpt-5") == 0.0
    assert fill_ratio(10**9, "gpt-5") == 1.0
