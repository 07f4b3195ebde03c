"""Sessions fail closed: a damaged line, a broken parent chain or a contradictory plan or goal state is
one line naming the file and line, and no request reaches the model; only a torn last line is
skipped. One writer per session: a second agent on the same session is refused, naming the holder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.harness.session import SessionStore
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.testing import FakeUpstream, SseReply, response_stream, text_message
from tests.harness.harness_support import PINNED_CONTEXT, make_repo, write_config

TIMEOUT_S = 120


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills", extra="[providers.local]\n")
    return repo


def _options(repo: Path, upstream: FakeUpstream, **kw: object) -> AgentOptions:
    return AgentOptions(
        provider="local",
        base_url=f"{upstream.url}/v1",
        cwd=repo,
        no_capture=True,
        context_overrides=dict(PINNED_CONTEXT),
        **kw,
    )  # type: ignore[arg-type]


def _session(repo: Path, upstream: FakeUpstream) -> Path:
    """A real session file: two turns against the local upstream."""
    upstream.reply(
        SseReply(response_stream(text_message("one"))), SseReply(response_stream(text_message("two")))
    )
    with AgentRuntime(_options(repo, upstream)) as runtime:
        assert runtime.agent is not None
        runtime.agent.run_turn("first")
        runtime.agent.run_turn("second")
        path = runtime.agent.session.path
    assert len(upstream.requests) == 2
    return path


def _resume_is_refused(repo: Path, upstream: FakeUpstream, path: Path, match: str) -> str:
    before = len(upstream.requests)
    with pytest.raises(ConfigError, match=match) as refused:
        with AgentRuntime(_options(repo, upstream, session=str(path))) as runtime:
            assert runtime.agent is not None
            runtime.agent.run_turn("third")
    assert len(upstream.requests) == before  # nothing was sent
    message = str(refused.value)
    assert "\n" not in message and str(path) in message
    return message


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def _middle(lines: list[str]) -> int:
    """A response_item line in the middle of the file (the base prompt, permissions, ...)."""
    items = [n for n, line in enumerate(lines) if '"type":"response_item"' in line]
    return items[len(items) // 2]


def test_a_line_cut_in_the_middle_is_refused_and_nothing_is_sent(repo: Path, upstream: FakeUpstream) -> None:
    path = _session(repo, upstream)
    lines = _lines(path)
    n = _middle(lines)
    lines[n] = lines[n][: len(lines[n]) // 2] + "\n"  # one line cut short, the rest intact
    path.write_text("".join(lines), encoding="utf-8")
    message = _resume_is_refused(repo, upstream, path, f"line {n + 1}: the line is not a session entry")
    assert message.endswith("nothing was sent)")


def test_a_line_removed_from_the_middle_breaks_the_chain_and_is_refused(
    repo: Path, upstream: FakeUpstream
) -> None:
    path = _session(repo, upstream)
    lines = _lines(path)
    n = _middle(lines)
    del lines[n]
    path.write_text("".join(lines), encoding="utf-8")
    _resume_is_refused(
        repo, upstream, path, rf"line {n + 1}: the parent chain is broken: .*a line was cut out"
    )


def test_two_writers_interleaved_are_refused(repo: Path, upstream: FakeUpstream) -> None:
    path = _session(repo, upstream)
    lines = _lines(path)
    lines[-2], lines[-1] = lines[-1], lines[-2]  # what two appenders at once leave
    path.write_text("".join(lines), encoding="utf-8")
    _resume_is_refused(repo, upstream, path, "the parent chain is broken")


def _append_entry(path: Path, type: str, payload: dict[str, object]) -> int:
    store = SessionStore.open(str(path))
    store.append(type, payload)
    store.close()
    return len(_lines(path))


@pytest.mark.parametrize(
    ("state", "why"),
    [
        ({"revisions": ["the plan"], "approved": 7}, "approved revision 7 of 1"),
        ({"revisions": ["the plan"], "cycles": -3}, "cycles"),
        ({"revisions": ["p"], "active": True, "approved": 1, "cycles": 1}, "already approved"),
        ({"active": True, "cycles": 0}, "cycle 0"),
    ],
)
def test_a_contradictory_plan_state_is_refused_naming_its_line(
    repo: Path, upstream: FakeUpstream, state: dict[str, object], why: str
) -> None:
    path = _session(repo, upstream)
    line = _append_entry(path, "plan_state", {"version": 1, "profile": "codex", **state})
    message = _resume_is_refused(repo, upstream, path, f"line {line}: the saved plan state is malformed")
    assert why in message


@pytest.mark.parametrize(
    ("goal", "why"),
    [
        ({"created_at": 200, "updated_at": 100}, "updated_at 100 is before created_at 200"),
        ({"status": "budget_limited"}, "budget_limited without a token_budget"),
        ({"tokens_used": -5}, "tokens_used"),
    ],
)
def test_a_contradictory_goal_is_refused_naming_its_line(
    repo: Path, upstream: FakeUpstream, goal: dict[str, object], why: str
) -> None:
    path = _session(repo, upstream)
    full = {"thread_id": "t", "objective": "ship it", "created_at": 100, "updated_at": 100, **goal}
    line = _append_entry(path, "goal", {"goal": full})
    message = _resume_is_refused(repo, upstream, path, f"line {line} has a damaged goal entry")
    assert why in message


@pytest.mark.parametrize(
    ("type", "payload", "why"),
    [
        ("response_item", {"oops": 1}, "without an item object"),
        ("compacted", {"history": "x", "window": 1}, "not a list of items"),
        ("compacted", {"history": [], "window": 0}, "it only grows"),
        ("model_switch", {"from": "a"}, "without the model"),
    ],
)
def test_a_known_entry_of_the_wrong_shape_is_refused(
    repo: Path, upstream: FakeUpstream, type: str, payload: dict[str, object], why: str
) -> None:
    path = _session(repo, upstream)
    line = _append_entry(path, type, payload)
    _resume_is_refused(repo, upstream, path, f"line {line}: .*{why}")


def test_only_a_torn_last_line_is_skipped_with_a_warning(
    repo: Path, upstream: FakeUpstream, capfd: pytest.CaptureFixture[str]
) -> None:
    path = _session(repo, upstream)
    total = len(_lines(path))
    with path.open("a", encoding="utf-8") as f:
        f.write('{"id":"e99999-abcdef","parent_id":"e0')  # a writer killed mid-line
    upstream.reply(SseReply(response_stream(text_message("three"))))
    with AgentRuntime(_options(repo, upstream, session=str(path))) as runtime:
        assert runtime.agent is not None
        assert runtime.agent.run_turn("third").final_text == "three"
    assert f"line {total + 1} is torn" in capfd.readouterr().err
    assert len(upstream.requests) == 3
    assert all(json.loads(line) for line in _lines(path))  # the torn line was cut, not buried


# ---- one writer per session ------------------------------------------------------------------


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "ctxscope.cli", "agent", *args]


def test_a_second_agent_on_the_same_session_is_refused_naming_the_first(
    repo: Path, upstream: FakeUpstream, ctxscope_home: Path
) -> None:
    path = _session(repo, upstream)
    sid = path.stem
    common = ["--provider", "local", "--base-url", f"{upstream.url}/v1", "--no-capture", "--cwd", str(repo)]
    env = {**os.environ, "LOCAL_API_KEY": "x"}
    first = subprocess.Popen(
        _cli("--session", sid, *common),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert first.stderr is not None and first.stdin is not None
        line = first.stderr.readline()  # "session: <id>": started, the lock is held
        assert line.startswith("session: "), line + first.stderr.read()
        second = subprocess.run(
            _cli("--session", sid, "-p", "hi", *common),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            env=env,
        )
        assert second.returncode == 2, second.stderr
        assert second.stderr.strip().splitlines() == [
            f"error: session {sid} is in use by another ctxscope (pid {first.pid}): end that agent first, "
            f"or continue a copy with --fork {sid}"
        ]
        assert len(upstream.requests) == 2  # the second one sent nothing
        _out, err = first.communicate("", timeout=TIMEOUT_S)  # end of input: it leaves, releasing the lock
        assert first.returncode == 0, err
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate()
    upstream.reply(SseReply(response_stream(text_message("now mine"))))
    third = subprocess.run(
        _cli("--session", sid, "-p", "hi", *common),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
    )
    assert third.returncode == 0 and third.stdout == "now mine\n", third.stderr


def test_a_fork_of_a_session_in_use_is_allowed(repo: Path, upstream: FakeUpstream) -> None:
    path = _session(repo, upstream)
    holder = SessionStore.open(str(path))
    holder.hold()
    try:
        upstream.reply(SseReply(response_stream(text_message("copy"))))
        with AgentRuntime(_options(repo, upstream, fork=str(path))) as runtime:
            assert runtime.agent is not None and runtime.agent.session.path != path
            assert runtime.agent.run_turn("go on").final_text == "copy"
        with pytest.raises(ConfigError, match=rf"in use by this process \(pid {os.getpid()}\)"):
            AgentRuntime(_options(repo, upstream, session=str(path))).start()
    finally:
        holder.close()
