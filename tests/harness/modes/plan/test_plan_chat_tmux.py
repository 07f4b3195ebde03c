"""Each plan profile in the real chat (`ctxscope agent` in tmux), against a local model that first tries
an edit while planning and then does what the refusal tells it.

Per profile: plan mode is entered the profile's way (Shift+Tab in codex and claude, and left and
entered again; `/plan` in knightcode), the task is typed with a Ctrl-L in it, the edit is refused
before it runs (the file never appears), the plan the model submits as the refusal says is reviewed:
a wrong choice asks again, Esc keeps planning, `/plan` reopens the review, `1` implements. claude then
re-enters with Shift+Tab after the implementation and gets the re-entry reminder and revision 2.
Then `ctxscope diff` of the capture names exactly the submissions and approvals the chat printed, with
the same revision numbers, and no request carries a control character.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ctxscope.harness.context import classify_text
from ctxscope.harness.modes.plan import IMPLEMENT_PROMPT
from ctxscope.harness.repl import STILL_PLANNING
from ctxscope.harness.tools import recognise_still_planning
from ctxscope.proxy.testing import (
    FakeUpstream,
    RecordedRequest,
    SseReply,
    custom_tool_call,
    function_call,
    response_stream,
    text_message,
)
from ctxscope.proxy.testing.upstream import Reply, default_reply
from tests.cli_support import run_cli
from tests.harness.harness_support import make_repo, write_config

pytestmark = pytest.mark.slow

PLAN = "# Greet\n\n## Changes\n- pkg/greet.py: add greet()\n\n## Verify\n- pytest -q\n"
PATCH = "*** Begin Patch\n*** Add File: edited-while-planning.txt\n+no\n*** End Patch"
WAIT_S = 90.0
TMUX = ["tmux", "-L", f"ctxscope-plan-test-{os.getpid()}", "-f", "/dev/null"]
"""A tmux server of the test's own: another server's clients and options never resize its windows."""


def _planning(body: dict[str, Any]) -> bool:
    """Whether the request's latest collaboration-mode fragment is plan."""
    mode = "default"
    for item in body.get("input", []):
        for part in item.get("content", []) if isinstance(item.get("content"), list) else []:
            match = classify_text(part.get("text", ""), item.get("role", "any"))
            if match is not None and match.kind == "collaboration_mode":
                mode = str(match.values.get("mode"))
    return mode == "plan"


def _submission(refusal: str, plan: str) -> list[Any]:
    """The plan, submitted the way the refusal says (the model knows nothing else of the profile)."""
    if "in a <proposed_plan> block" in refusal:
        return text_message(f"As the refusal says.\n<proposed_plan>\n{plan}</proposed_plan>\n")
    tool = next(t for t in ("exit_plan_mode", "submit_plan") if f"with {t}(plan)" in refusal)
    return function_call(tool, {"plan": plan})


class Model:
    """The fake model: while planning it tries an edit; refused, it submits as the refusal says (it is
    told nothing of the profile)."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: RecordedRequest) -> Reply:
        if request.method != "POST" or not request.path.endswith("/responses"):
            return default_reply(request)
        body = request.json()
        self.bodies.append(body)
        last = body["input"][-1]
        if last.get("type", "").endswith("_call_output"):
            output = str(last.get("output"))
            if recognise_still_planning(output) is not None:
                revision = 1 + sum(1 for b in self.bodies[:-1] if _refused(b))
                return SseReply(response_stream(_submission(output, PLAN + f"- revision {revision}\n")))
            return SseReply(response_stream(text_message("Submitted; waiting for your review.")))
        if IMPLEMENT_PROMPT in json.dumps(last):
            return SseReply(response_stream(text_message("done")))
        if _planning(body):
            return SseReply(response_stream(custom_tool_call("apply_patch", PATCH)))
        return SseReply(response_stream(text_message("ok")))


def _refused(body: dict[str, Any]) -> bool:
    last = body["input"][-1]
    return last.get("type", "").endswith("_call_output") and recognise_still_planning(str(last["output"])) is not None


class Chat:
    """`ctxscope agent` in a detached tmux session; everything it prints is also logged to a file."""

    def __init__(self, name: str, cwd: Path, env: dict[str, str], args: list[str], log: Path) -> None:
        self.name, self.log = name, log
        command = ["env", *(f"{k}={v}" for k, v in env.items()), sys.executable, "-m", "ctxscope.cli", *args]
        subprocess.run(
            [*TMUX, "new-session", "-d", "-s", name, "-x", "150", "-y", "50", "-c", str(cwd), *command],
            check=True,
        )
        # The size again, explicitly: a session made while the previous one's server shuts down has
        # come up at tmux's default 80x24.
        subprocess.run([*TMUX, "resize-window", "-t", name, "-x", "150", "-y", "50"], check=True)
        subprocess.run([*TMUX, "pipe-pane", "-o", "-t", name, f"cat >> {log}"], check=True)

    def keys(self, *keys: str, literal: bool = False) -> None:
        subprocess.run([*TMUX, "send-keys", "-t", self.name, *(["-l"] if literal else []), *keys], check=True)

    def text(self) -> str:
        raw = self.log.read_text(errors="replace") if self.log.exists() else ""
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]", "", raw).replace("\r", "")

    def screen(self) -> str:
        done = subprocess.run([*TMUX, "capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return done.stdout

    def wait_for(self, text: str, count: int = 1) -> None:
        deadline = time.monotonic() + WAIT_S
        while self.text().count(text) < count:
            if time.monotonic() > deadline or not self.alive():
                pytest.fail(f"never saw {text!r} x{count}; the chat printed:\n{self.text()[-4000:]}")
            time.sleep(0.2)

    def alive(self) -> bool:
        return subprocess.run([*TMUX, "has-session", "-t", self.name], capture_output=True).returncode == 0

    def wait_closed(self) -> None:
        deadline = time.monotonic() + WAIT_S
        while self.alive():
            if time.monotonic() > deadline:
                pytest.fail(f"the chat did not end; it printed:\n{self.text()[-4000:]}")
            time.sleep(0.2)

    def close(self) -> None:
        subprocess.run([*TMUX, "kill-session", "-t", self.name], capture_output=True)


def _enter_plan_mode(chat: Chat, profile: str) -> None:
    if profile == "knightcode":
        chat.keys("/plan", literal=True)
        chat.keys("Enter")
        chat.wait_for("plan mode on")
        return
    chat.keys("BTab")  # Shift+Tab: on, off, on again
    chat.wait_for("plan mode on")
    chat.keys("BTab")
    chat.wait_for("plan mode off")
    chat.keys("BTab")
    chat.wait_for("plan mode on", count=2)


def _review(chat: Chat, seen: int) -> None:
    """A wrong choice asks again, Esc keeps planning, /plan reopens the review, 1 implements."""
    chat.wait_for("Implement this plan?", count=seen)
    chat.wait_for("keep planning]:")
    time.sleep(0.5)
    chat.keys("9", literal=True)
    chat.keys("Enter")
    chat.wait_for("'9' is not one of the choices", count=(seen + 1) // 2)
    chat.keys("Escape")
    chat.wait_for(STILL_PLANNING, count=(seen + 1) // 2)
    chat.keys("/plan", literal=True)
    chat.keys("Enter")
    chat.wait_for("Implement this plan?", count=seen + 1)
    time.sleep(0.5)
    chat.keys("1", literal=True)
    chat.keys("Enter")


_TOLD = re.compile(r"plan submitted \(revision \d+\)|mode plan → default \(plan revision \d+ approved\)")


def _tui_told(capture: Path, turns: int, env: dict[str, str], log: Path) -> list[str]:
    """The submissions and approvals `ctxscope inspect` shows in each turn's view, turn by turn."""
    command = [sys.executable, "-m", "ctxscope.cli", "inspect", str(capture)]
    # The size in the environment too: Textual falls back to 80x25 where it cannot read the pane's.
    sized = {**env, "COLUMNS": "150", "LINES": "50"}
    tui = Chat(f"ctxscope-inspect-{os.getpid()}", capture.parent, sized, command[3:], log)
    told: list[str] = []
    try:
        for n in range(1, turns + 1):
            deadline = time.monotonic() + WAIT_S
            while f"Turn {n} " not in tui.screen():
                if time.monotonic() > deadline:
                    size = subprocess.run(
                        [*TMUX, "display", "-p", "-t", tui.name, "#{window_width}x#{window_height}"],
                        capture_output=True,
                        text=True,
                    ).stdout
                    pytest.fail(f"the inspector never showed turn {n} ({size.strip()}):\n{tui.screen()}")
                time.sleep(0.2)
            time.sleep(0.3)
            # The timeline prints each row's events in full (issue 31), so a screen shows other turns'
            # too: a sentence counts where it first appears, which follows the turns in order.
            seen = dict.fromkeys(m.group(0) for m in _TOLD.finditer(tui.screen()))
            told += [sentence for sentence in seen if sentence not in told]
            tui.keys("Down")
        tui.keys("q")
        tui.wait_closed()
    finally:
        tui.close()
    return told


@pytest.mark.parametrize("profile", ["codex", "claude", "knightcode"])
def test_each_profile_plans_in_a_real_terminal(tmp_path: Path, ctxscope_home: Path, profile: str) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: cannot drive the chat in a terminal")
    repo = make_repo(tmp_path / "ws")
    write_config(ctxscope_home, tmp_path / "skills", extra=f'plan_profile = "{profile}"')
    capture = tmp_path / "chat.jsonl"
    model = Model()
    env = {
        "OPENAI_API_KEY": "sk-test-0123456789abcdefghij",
        "TERM": "xterm-256color",
        "CTXSCOPE_HOME": str(ctxscope_home),
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "PATH": os.environ.get("PATH", ""),
    }
    with FakeUpstream(model) as upstream:
        args = ["agent", "--provider", "apikey", "--base-url", f"{upstream.url}/v1", "--capture", str(capture)]
        chat = Chat(f"ctxscope-chat-{profile}-{os.getpid()}", repo, env, args, tmp_path / "chat.log")
        try:
            chat.wait_for("ctxscope agent — type a task")
            time.sleep(0.5)
            _enter_plan_mode(chat, profile)
            chat.keys("add gr", literal=True)
            chat.keys("C-l")  # clears the screen; never a form feed in the prompt
            chat.keys("eet", literal=True)
            chat.keys("Enter")
            _review(chat, 1)
            chat.wait_for("done")
            if profile == "claude":  # re-entry after an implementation: the reminder, revision 2
                chat.keys("BTab")
                chat.wait_for("plan mode on", count=3)
                chat.keys("add docs", literal=True)
                chat.keys("Enter")
                _review(chat, 3)
                chat.wait_for("done", count=2)
            time.sleep(0.5)
            chat.keys("/quit", literal=True)
            chat.keys("Enter")
            chat.wait_closed()
        finally:
            chat.close()
    printed = chat.text()
    cycles = 2 if profile == "claude" else 1
    # Refused before it ran: the edit never happened.
    assert not (repo / "edited-while-planning.txt").exists()
    # Per cycle: the task (an edit attempt), the refusal (the submission), the implement request.
    assert len(model.bodies) == 3 * cycles
    users = [
        part.get("text", "")
        for body in model.bodies
        for item in body["input"]
        if item.get("role") == "user"
        for part in item.get("content", [])
    ]
    assert "add greet" in users and not any("\x0c" in u or "\x1b" in u for u in users)
    # What the chat printed, and what `diff` tells of the capture: the same submissions and approvals.
    shown = re.findall(r"proposed plan \(revision (\d+)\)|plan revision (\d+) approved", printed)
    assert shown == [(str(n), "") if k == 0 else ("", str(n)) for n in range(1, cycles + 1) for k in (0, 1)]
    doc = json.loads(run_cli("diff", str(capture), "--format", "json").stdout)
    said = [s for t in doc["turns"] for e in t["mode_events"] if (s := e["sentence"])]
    told = [s for s in said if "submitted" in s or "approved" in s]
    assert told == [
        sentence
        for n in range(1, cycles + 1)
        for sentence in (f"plan submitted (revision {n})", f"mode plan → default (plan revision {n} approved)")
    ]
    # The inspector's TUI, in the same terminal, shows the same ones on the same turns.
    assert _tui_told(capture, len(doc["turns"]), env, tmp_path / "inspect.log") == told
    assert said.count("tool apply_patch blocked while planning") == cycles
    if profile == "claude":
        assert "plan re-entry reminder (the previous plan)" in said
