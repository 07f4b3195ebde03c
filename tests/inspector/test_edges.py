"""Change kinds, threads and forensics on the hand-made edge recordings (real files, real reader)."""

from __future__ import annotations

from collections.abc import Callable

from ctxscope.inspector.analysis import Analysis


def kinds(analysis: Analysis) -> list[str]:
    return [t.change.kind for t in analysis.turns]


def test_local_compaction_is_named_and_explained(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("compaction")
    assert kinds(a) == ["initial", "append", "append", "append", "compaction"]
    request = a.turn(4)
    assert request.turn.request_kind == "compaction"
    assert request.tools.empty, "a compaction request's missing tools are not a tool change"
    assert any("compaction request (request_kind compaction)" in n for n in request.notes)
    report = a.turn(5).compaction
    assert report is not None
    assert report.trigger == "request_kind compaction"
    assert report.request_turn == 4
    # Summarised: the two calls, their outputs and the assistant message; the prompt is not history.
    assert sorted(i.kind for i in report.summarised) == [
        "assistant_message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]
    assert report.summary == "The user asked to fix a failing test; pytest showed a.py is wrong."
    assert [i.label for i in report.rematerialised] == [
        "developer[<permissions>, <skills_catalog>]",
        "user[<agents_md:/repo>, <environment_context:cwd=/repo>]",
    ]
    assert [i.label for i in report.kept] == ['user: "fix the failing test"']
    assert report.tokens_before > report.tokens_after > 0
    # The history's 8 items accounted for once each: 5 summarised, 1 kept, 2 context items re-sent.
    assert report.history == 8 and report.resent + len(report.dropped_context) == 2
    assert report.sentence.startswith(
        "compaction (request_kind compaction): 5 of 8 history items summarised, 1 recent message kept, "
        "2 context items re-sent; context re-materialised: permissions, skills catalog, AGENTS.md of /repo, "
        "environment (4 fragments in 2 items); "
    )
    assert report.sentence.endswith(" (input items, tools not counted)")
    assert a.turn(5).tools.empty, "tools are compared with the turn before the compaction request"


def test_remote_compaction_endpoint_and_item(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("remote_compaction")
    assert kinds(a) == ["initial", "append", "append", "compaction"]
    assert a.turn(3).turn.endpoint == "responses/compact"
    assert a.turn(3).tools.empty and a.turn(3).state_changes == []
    report = a.turn(4).compaction
    assert report is not None and report.trigger == "remote /responses/compact"
    assert [i.kind for i in report.summary_items] == ["compaction"]
    assert a.turn(4).state_changes == []


def test_fork_without_ids_branches_from_the_turn_it_continues(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("fork")
    assert [(t.name, t.forked_from) for t in a.threads] == [("T1", None), ("T2", 1)]
    assert kinds(a) == ["initial", "append", "fork", "append"]
    fork = a.turn(3)
    assert fork.turn.thread == "T2" and fork.change.previous == 1
    assert [i.label for i in fork.change.added] == ['assistant: "Plan: A then B."', 'user: "do B instead"']
    assert a.turn(4).turn.thread == "T1" and a.turn(4).change.previous == 2


def test_fork_with_session_ids(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("fork_with_ids")
    assert [(t.name, t.hint, t.forked_from) for t in a.threads] == [
        ("T1", "sess-A", None),
        ("T2", "sess-B", 2),
    ]
    assert kinds(a) == ["initial", "append", "fork"]
    assert a.turn(3).change.kept == len(a.turn(2).turn.items)


def test_rewrite_in_the_middle(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("rewrite")
    assert kinds(a) == ["initial", "append", "rewrite"]
    change = a.turn(3).change
    assert change.kept == 4
    assert [i.label for i in change.removed][0] == 'function_call_output: "ran pytest"'
    assert [i.label for i in change.added][0] == 'function_call_output: "[output truncated]"'
    assert len(a.threads) == 1


def test_previous_response_id_chain_rebuilds_full_context(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("chain")
    second, third, orphan = a.turn(2), a.turn(3), a.turn(4)
    assert second.turn.sent_items == 1 and len(second.turn.items) == 5
    assert [i.kind for i in second.turn.items[-2:]] == ["function_call", "function_call_output"]
    assert second.change.kind == "append" and second.change.kept == 3
    assert third.turn.transport == "websocket" and third.turn.sent_items == 1
    assert len(third.turn.items) == 7 and third.change.kind == "append"
    assert third.turn.thread == second.turn.thread == a.turn(1).turn.thread
    assert not orphan.turn.chain_resolved
    assert any("resp_missing" in w for w in a.warnings)
    assert any("context incomplete" in n for n in orphan.notes)


def test_failed_streams_are_turns_with_a_status(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("failed_stream")
    statuses = [t.turn.status for t in a.turns]
    assert statuses == ["failed", "incomplete stream", "transport error", "http 429", "completed"]
    assert a.turn(1).turn.error == "context_length_exceeded: too long"
    assert "upstream_reset" in (a.turn(3).turn.error or "")
    assert "rate_limit_exceeded" in (a.turn(4).turn.error or "")
    assert any("same input as turn 4" in n for n in a.turn(5).notes)


def test_tools_reordered_is_not_a_change(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("tools_reordered")
    reordered = a.turn(2).tools
    assert reordered.empty and reordered.reordered
    # a reordered tools list breaks the cached prefix after the instructions (laid out before the tools)
    assert a.turn(2).tokens.shared_prefix == a.turn(2).tokens.by_kind["instructions"]
    changed = a.turn(3).tools
    assert changed.added == ["web_search"] and changed.removed == ["apply_patch"]
    assert list(changed.changed) == ["exec_command"]
    assert "workdir" in changed.changed["exec_command"][0]


def test_odd_input_is_shown_never_fatal(analysed: Callable[[str], Analysis]) -> None:
    a = analysed("odd_input")
    assert any("chat/completions) is not a Responses request; skipped" in w for w in a.warnings)
    assert any("no Responses request body" in w for w in a.warnings)
    items = a.turn(1).turn.items
    assert [i.kind for i in items] == [
        "unknown",
        "user_message",
        "user_message",
        "user_message",
        "unknown",
        "reasoning",
        "custom_tool_call",
        "custom_tool_call_output",
        "compaction_trigger",
    ]
    assert items[0].label == "unknown:mystery_item"
    assert items[1].parts[0].kind == "unknown_part" and items[1].parts[0].label == "unknown_part:input_audio"
    assert items[4].label == "unknown:not-an-object"
    assert a.turn(2).turn.items[0].label == 'user: "just a string prompt"'


def test_compaction_names_what_it_dropped_and_a_replaced_summary() -> None:
    """A second compaction: the earlier summary is replaced, the selected skill is not brought back."""
    from ctxscope.inspector.analysis import analyse_exchanges
    from ctxscope.inspector.reports import describe_changes
    from tests.inspector.exchange_support import Script, body, completed, fragment, initial_context, message

    s = Script()
    ctx = initial_context()
    skill = message(
        "user",
        fragment("selected_skill", name="demo-skill", path="/skills/demo-skill/SKILL.md", text="Say DEMO."),
    )
    old_summary = message("user", fragment("compaction_summary", summary="Earlier: the parser was fixed."))
    history = [
        *ctx,
        old_summary,
        message("user", "now use $demo-skill"),
        skill,
        message("assistant", "DEMO."),
    ]
    s.request(body(history), response=completed("resp_1"))
    summary = "Later: the skill said DEMO."
    s.request(body([*history, message("user", "Summarise.")], tools=[]), response=completed("resp_2"))
    s.request(body([*ctx, message("user", fragment("compaction_summary", summary=summary))]))
    analysis = analyse_exchanges(s.exchanges)
    report = analysis.turn(3).compaction
    assert report is not None and report.replaced_summary and report.dropped_names == ["skill demo-skill"]
    assert "(previous summary replaced)" in report.sentence
    assert ", 1 context item dropped (skill demo-skill)" in report.sentence
    assert "skill demo-skill no longer in context" in describe_changes(analysis.turn(3).state_changes)
