"""Plan approval needs a person: the chat's review picker, driven in a real terminal (a pty).

The real `ctxscope agent` chat runs on a pseudo-terminal against a local model whose planning answer
is held back (a gated stream), so the test can type while the turn still streams. An Enter (and a
`1`) typed then is discarded when the picker opens; an Enter at the picker keeps planning; `/plan` shows the
draft and opens the picker again; only the explicit choice `1` implements.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ctxscope.harness.modes.plan import IMPLEMENT_PROMPT
from ctxscope.harness.repl import STILL_PLANNING
from ctxscope.proxy.testing import (
    FakeUpstream,
    RecordedRequest,
    SseReply,
    function_call,
    response_stream,
    text_message,
)
from ctxscope.proxy.testing.upstream import Reply, default_reply
from tests.harness.harness_support import make_repo, write_config

ANSWER = "Looked around.\n<proposed_plan>\n# Greet\n1. Add greet() to pkg/greet.py\n</proposed_plan>\n"
WAIT_S = 60.0


class Terminal:
    """`ctxscope agent` on a pty: keys in, everything it printed out (stdout and stderr alike)."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ctxscope.cli", *args],
            cwd=cwd,
            env=env,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = ""

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def wait_for(self, text: str, count: int = 1) -> None:
        """Read output until `text` has appeared `count` times (bounded)."""
        deadline = time.monotonic() + WAIT_S
        while self.seen.count(text) < count:
            left = deadline - time.monotonic()
            if left <= 0 or self.proc.poll() is not None:
                pytest.fail(f"never saw {text!r} x{count}; the terminal showed:\n{self.seen}")
            ready, _, _ = select.select([self.master], [], [], min(left, 1.0))
            if ready:
                try:
                    self.seen += os.read(self.master, 65536).decode(errors="replace")
                except OSError:  # the child closed the terminal
                    pass

    def wait_quiet(self, seconds: float) -> None:
        """Read whatever arrives for `seconds`."""
        ready, _, _ = select.select([self.master], [], [], seconds)
        if ready:
            try:
                self.seen += os.read(self.master, 65536).decode(errors="replace")
            except OSError:
                pass

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=WAIT_S)
        os.close(self.master)


@pytest.fixture
def model() -> Iterator[tuple[FakeUpstream, list[RecordedRequest]]]:
    """The first model turn (the plan) waits for the gate; every later one answers "done"."""
    turns: list[RecordedRequest] = []

    def answer(request: RecordedRequest) -> Reply:
        if request.method != "POST" or not request.path.endswith("/responses"):
            return default_reply(request)
        turns.append(request)
        if len(turns) == 1:
            return SseReply(response_stream(text_message(ANSWER)), gated=True)
        return SseReply(response_stream(text_message("done")))

    with FakeUpstream(answer) as up:
        yield up, turns


def _enter_until(term: Terminal, done: Callable[[], bool], tries: int = 5) -> None:
    """Press Enter until `done()` (bounded): for a line the prompt holds, sent only once it is idle."""
    for _ in range(tries):
        time.sleep(1.0)
        if done():
            return
        term.type("\r")
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            if done():
                return
            term.wait_quiet(0.2)
    pytest.fail(f"Enter never took effect; the terminal showed:\n{term.seen}")


def _wait_until(check: object, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


def test_an_enter_typed_while_planning_approves_nothing(
    tmp_path: Path, ctxscope_home: Path, model: tuple[FakeUpstream, list[RecordedRequest]]
) -> None:
    upstream, turns = model
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills")
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-0123456789abcdefghij", "TERM": "dumb"}
    args = ["agent", "--provider", "apikey", "--base-url", f"{upstream.url}/v1", "--no-capture"]
    term = Terminal(args, repo, env)
    try:
        term.wait_for("› ")
        term.type("/plan add greet\r")
        _wait_until(lambda: len(turns) == 1, "the planning request")
        term.type("\r1\r")  # while the plan still streams: an Enter, even a choice, typed ahead
        upstream.gate.release(1000)
        term.wait_for("Implement this plan?")
        term.wait_for("keep planning]: ")
        term.type("\r")  # at the picker: an empty line keeps planning
        term.wait_for(STILL_PLANNING)
        assert len(turns) == 1
        term.wait_for("› ", count=2)
        term.type("/plan\r")  # shows the draft and opens the picker again
        term.wait_for("Implement this plan?", count=2)
        term.wait_for("keep planning]: ", count=2)
        term.type("1\r")
        term.wait_for("done")
        term.wait_for("› ", count=3)
        term.type("/quit\r")
        assert term.proc.wait(timeout=WAIT_S) == 0
    finally:
        term.close()
    assert len(turns) == 2
    last = turns[1].json()["input"][-1]
    assert json.dumps(last).count(IMPLEMENT_PROMPT) == 1
    assert term.seen.count("Implement this plan?") == 2
    # The codex profile drops type-ahead, and says so in one line.
    assert term.seen.count("note: dropped what was typed while the agent worked: '1'") == 1


def test_knightcode_keeps_type_ahead_for_the_prompt_and_never_for_the_picker(
    tmp_path: Path, ctxscope_home: Path
) -> None:
    turns: list[RecordedRequest] = []

    def answer(request: RecordedRequest) -> Reply:
        if request.method != "POST" or not request.path.endswith("/responses"):
            return default_reply(request)
        turns.append(request)
        if len(turns) == 1:
            plan = {"plan": "# Greet\n- pkg/greet.py\n"}
            return SseReply(response_stream(function_call("submit_plan", plan)), gated=True)
        return SseReply(response_stream(text_message("revising")))

    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills", extra='plan_profile = "knightcode"')
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-0123456789abcdefghij", "TERM": "dumb"}
    with FakeUpstream(answer) as upstream:
        args = ["agent", "--provider", "apikey", "--base-url", f"{upstream.url}/v1", "--no-capture"]
        term = Terminal(args, repo, env)
        try:
            term.wait_for("› ")
            term.type("/plan add greet\r")
            _wait_until(lambda: len(turns) == 1, "the planning request")
            term.type("1\rshorter please\r")  # typed while the plan streams: a choice, then a message
            upstream.gate.release(1000)
            term.wait_for("note: kept 2 line(s) typed ahead")
            term.wait_for("keep planning]: ")
            term.type("\r")  # the picker got none of it: an Enter keeps planning
            term.wait_for(STILL_PLANNING)
            assert len(turns) == 1
            # The next prompts hold the kept lines; only Enter sends each ("1" is a message now). An
            # Enter that lands while the turn still runs is itself type-ahead (not kept: it is empty),
            # so it is pressed again until the line goes.
            _enter_until(term, lambda: len(turns) == 2)
            _enter_until(term, lambda: len(turns) == 3)
            term.wait_for("revising", count=2)
            time.sleep(1.0)
            term.type("/quit\r")  # kept instead if the turn still ran: then an Enter sends it
            _enter_until(term, lambda: term.proc.poll() is not None)
            assert term.proc.wait(timeout=WAIT_S) == 0
        finally:
            term.close()
    sent = [json.dumps(t.json()["input"][-1]) for t in turns[1:]]
    assert '"1"' in sent[0] and "shorter please" in sent[1]
    assert all(IMPLEMENT_PROMPT not in s for s in sent)
