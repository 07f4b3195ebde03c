"""The mode hooks the loop offers, driven by small real modes through the real agent and proxy.

Each mode here is what a later issue's mode does in miniature: strip a tagged block from the visible
stream (plan mode's `<proposed_plan>`), end the step after a tool outcome and block the sibling calls
(a plan submission), carry an item into the new window at compaction (the plan recovery message).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.agent import Agent, user_message
from ctxscope.harness.events import AgentEvent, AssistantMessage, TextDelta, ToolOutput
from ctxscope.harness.modes import EndStep
from ctxscope.harness.modes.default import DefaultMode
from ctxscope.harness.output import InteractivePrinter
from ctxscope.harness.tools import GateRule, ToolOutcome, in_modes
from tests.harness.harness_support import assert_calls_paired, labels, make_repo, run_agent, write_script

OPEN, CLOSE = "<draft>", "</draft>"


def _partial_open(text: str) -> int:
    """Length of the longest end of `text` that could be the start of the opening tag."""
    for size in range(min(len(OPEN) - 1, len(text)), 0, -1):
        if text.endswith(OPEN[:size]):
            return size
    return 0


@dataclass
class Drafting(DefaultMode):
    """Streams the text without its `<draft>` block; keeps each block it took out."""

    name: str = "drafting"
    collaboration_mode: str | None = "drafting"
    drafts: list[str] = field(default_factory=list)
    _held: str = ""
    _inside: bool = False

    def transform_event(self, agent: Agent, event: AgentEvent) -> Sequence[AgentEvent]:
        if isinstance(event, TextDelta):
            shown = self._feed(event.delta)
            return [TextDelta(delta=shown)] if shown else []
        if isinstance(event, AssistantMessage):
            # The message is complete: a held-back "<dra" was plain text after all.
            rest = "" if self._inside else self._held
            self._held, self._inside = "", False
            released: list[AgentEvent] = [TextDelta(delta=rest)] if rest else []
            return [*released, AssistantMessage(text=_strip(event.text))]
        return [event]

    def _feed(self, text: str) -> str:
        self._held += text
        shown = ""
        while True:
            if self._inside:
                end = self._held.find(CLOSE)
                if end < 0:
                    return shown
                self.drafts.append(self._held[:end])
                self._held, self._inside = self._held[end + len(CLOSE) :], False
                continue
            start = self._held.find(OPEN)
            if start >= 0:
                shown += self._held[:start]
                self._held, self._inside = self._held[start + len(OPEN) :], True
                continue
            keep = _partial_open(self._held)
            shown += self._held[: len(self._held) - keep]
            self._held = self._held[len(self._held) - keep :]
            return shown


def _strip(text: str) -> str:
    start, end = text.find(OPEN), text.find(CLOSE)
    return text if start < 0 or end < 0 else text[:start] + text[end + len(CLOSE) :]


@dataclass
class Submitting(DefaultMode):
    """A successful `update_plan` call submits: the step ends and the rest of the batch is blocked."""

    name: str = "submitting"
    parallel_tool_calls: bool = False  # only a sequential batch keeps the later siblings from running
    outcomes: list[str] = field(default_factory=list)

    def gate_rules(self) -> Sequence[GateRule]:
        return [GateRule("grep_files", in_modes("submitting"), "grep_files: not while submitting")]

    def on_tool_outcome(self, agent: Agent, outcome: ToolOutcome) -> EndStep | None:
        self.outcomes.append(outcome.tool)
        if outcome.tool == "update_plan" and outcome.result.success:
            return EndStep("blocked: the plan was submitted; wait for the user")
        return None


@dataclass
class Recovering(DefaultMode):
    """Carries a frozen reminder into every new context window."""

    name: str = "recovering"
    compactions: int = 0

    def on_compaction(self, agent: Agent) -> Sequence[dict[str, Any]]:
        self.compactions += 1
        return [user_message(f"<reminder>window {agent.window}: keep the draft</reminder>")]


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    return make_repo(tmp_path / "repo")


def _switch_to(mode: DefaultMode) -> Any:
    def commands(runtime: Any, i: int) -> None:
        if i == 0:
            runtime.agent.set_mode(mode)

    return commands


def test_a_mode_strips_a_block_from_what_is_shown_not_from_the_history(repo: Path, tmp_path: Path) -> None:
    answer = "Looked around.\n<draft>\n1. add greet()\n2. test it\n</draft>\nReady when you are."
    script = write_script(tmp_path / "s.json", [{"text": answer}, {"text": "ok"}])
    mode = Drafting()
    run = run_agent(repo, script, ["plan it", "next"], tmp_path / "cap.jsonl", commands=_switch_to(mode))
    deltas = [e.delta for e in run.events if isinstance(e, TextDelta)]
    messages = [e.text for e in run.events if isinstance(e, AssistantMessage)]
    assert len(deltas) > 1  # the block arrived in pieces and was still found
    assert "".join(deltas) == "Looked around.\n\nReady when you are.ok"
    assert messages == ["Looked around.\n\nReady when you are.", "ok"]
    assert mode.drafts == ["\n1. add greet()\n2. test it\n"]
    # The model's own words stay in the history exactly as sent.
    second = run.bodies()[1]["input"]
    assert answer in [part["text"] for i in second if i.get("role") == "assistant" for part in i["content"]]
    # A terminal front end shows the stripped text once.
    out = io.StringIO()
    printer = InteractivePrinter(out, io.StringIO())
    for event in run.events:
        printer(event)
    assert "<draft>" not in out.getvalue() and out.getvalue().count("Ready when you are.") == 1


def test_a_held_back_tag_start_is_released_when_it_was_plain_text() -> None:
    mode = Drafting()
    agent: Any = None
    shown = [
        *mode.transform_event(agent, TextDelta(delta="a <dr")),
        *mode.transform_event(agent, TextDelta(delta="y")),
    ]
    shown += mode.transform_event(agent, AssistantMessage(text="a <dry"))
    assert [e.delta for e in shown if isinstance(e, TextDelta)] == ["a ", "<dry"]
    assert shown[-1] == AssistantMessage(text="a <dry")


def test_a_tool_outcome_ends_the_step_and_blocks_the_siblings(repo: Path, tmp_path: Path) -> None:
    batch = {
        "output": [
            {"function_call": {"name": "grep_files", "arguments": {"pattern": "x"}}},
            {
                "function_call": {
                    "name": "update_plan",
                    "arguments": {"plan": [{"step": "a", "status": "pending"}]},
                }
            },
            {"function_call": {"name": "list_dir", "arguments": {"path": "."}}},
            {
                "custom_tool_call": {
                    "name": "apply_patch",
                    "input": "*** Begin Patch\n*** Add File: x.txt\n+x\n*** End Patch",
                }
            },
        ]
    }
    script = write_script(tmp_path / "s.json", [batch, {"text": "never sent this turn"}, {"text": "next"}])
    mode = Submitting()
    run = run_agent(repo, script, ["plan", "go on"], tmp_path / "cap.jsonl", commands=_switch_to(mode))
    first, second = run.results
    assert (first.stopped, first.steps, first.final_text) == ("ended_by_mode", 1, "")
    assert second.final_text == "never sent this turn"  # the next response went to the next turn
    assert mode.outcomes == ["grep_files", "update_plan"]  # the siblings after the submission never ran
    assert not (repo / "x.txt").exists()
    body = run.bodies()[1]["input"]
    assert_calls_paired(body)
    outputs = [i["output"] for i in body if i["type"].endswith("_call_output")]
    assert outputs == [
        "grep_files: not while submitting",  # the mode's own gate rule, checked first
        "Plan updated",
        "blocked: the plan was submitted; wait for the user",
        "blocked: the plan was submitted; wait for the user",
    ]
    shown = [e.output for e in run.events if isinstance(e, ToolOutput)]
    assert shown == outputs


def test_compaction_carries_the_modes_items_into_the_new_window(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "one"}, {"text": "two"}, {"text": "three"}])
    mode = Recovering()

    def commands(runtime: Any, i: int) -> None:
        if i == 0:
            runtime.agent.set_mode(mode)
        if i == 1:
            runtime.agent.reset_context()

    run = run_agent(repo, script, ["a", "b", "c"], tmp_path / "cap.jsonl", commands=commands)
    first, second, third = run.bodies()
    added = second["input"][len(first["input"]) :]
    added_labels = labels({"input": added}, repo)
    # The new window: the full context again, then the carried reminder, then the prompt.
    assert added_labels[1:3] == labels(first, repo)[1:3]  # input[0] (the base prompt) is kept
    assert added[3]["content"][0]["text"] == "<reminder>window 1: keep the draft</reminder>"
    assert added_labels[-1] == 'user: "b"' and len(added) == 5
    assert mode.compactions == 1
    # Carried once: the next request of the same window only appends.
    assert labels({"input": third["input"][len(second["input"]) :]}, repo) == [
        'assistant: "two"',
        'user: "c"',
    ]
