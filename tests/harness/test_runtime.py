"""The assembled runtime: capture in front of a live (local) backend, no-capture, the REPL commands."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from ctxscope.harness.errors import UpstreamError
from ctxscope.harness.events import AgentEvent, TurnError
from ctxscope.harness.repl import run_repl
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.proxy.errors import ConfigError, CtxscopeError
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream, SseReply, function_call, response_stream, text_message
from tests.harness.harness_support import PINNED_CONTEXT, labels, make_repo, write_config, write_script

SECRET = "sk-live-abcdefghijklmnopqrstuvwxyz0123"


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills")
    return repo


def _local_options(repo: Path, upstream: FakeUpstream, **kw: object) -> AgentOptions:
    return AgentOptions(
        provider="local",
        base_url=f"{upstream.url}/v1",
        cwd=repo,
        context_overrides=dict(PINNED_CONTEXT),
        **kw,
    )  # type: ignore[arg-type]


def test_capture_in_front_of_a_custom_backend_keeps_secrets_off_disk(
    repo: Path, tmp_path: Path, ctxscope_home: Path, upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(
        ctxscope_home,
        tmp_path / "skills",
        extra='[providers.local]\nenv_key = "LOCAL_KEY"\nheaders = { "X-Team" = "blue" }\n',
    )
    monkeypatch.setenv("LOCAL_KEY", SECRET)
    upstream.reply(
        SseReply(response_stream(function_call("list_dir", {"path": "."}))),
        SseReply(response_stream(text_message("all good"))),
    )
    with AgentRuntime(_local_options(repo, upstream)) as runtime:
        assert runtime.agent is not None and runtime.capture_path is not None
        assert runtime.capture_path.parent == ctxscope_home / "recordings"
        result = runtime.agent.run_turn("look")
        capture, session_file = runtime.capture_path, runtime.agent.session.path
    assert result.final_text == "all good"
    first, second = upstream.requests
    assert first.path == "/v1/responses" and first.headers["authorization"] == f"Bearer {SECRET}"
    assert first.headers["x-team"] == "blue" and first.headers["originator"] == "ctxscope"
    recording = read_recording(capture)
    assert [e.request_body for e in recording.exchanges] == [first.json(), second.json()]
    assert recording.exchanges[0].url == f"{upstream.url}/v1/responses"
    for path in (capture, session_file):
        assert SECRET not in path.read_text(encoding="utf-8")


def test_no_capture_talks_to_the_backend_directly(
    repo: Path, upstream: FakeUpstream, ctxscope_home: Path, tmp_path: Path
) -> None:
    write_config(ctxscope_home, tmp_path / "skills", extra="[providers.local]\n")
    upstream.reply(SseReply(response_stream(text_message("direct"))))
    with AgentRuntime(_local_options(repo, upstream, no_capture=True)) as runtime:
        assert runtime.agent is not None
        assert runtime.capture_path is None and runtime.agent.client.base_url == f"{upstream.url}/v1"
        assert runtime.agent.run_turn("hi").final_text == "direct"
    assert list((ctxscope_home / "recordings").glob("*")) == []


def test_repl_slash_commands(repo: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "one"}, {"text": "two"}, {"text": "three"}])
    lines = iter(
        [
            "/status",
            "hello",
            "/model gpt-other",
            "/model",
            "again",
            "/bogus",
            "/new",
            "fresh",
            "/quit",
            "never read",
        ]
    )
    err = io.StringIO()
    options = AgentOptions(
        provider="script",
        script=script,
        cwd=repo,
        capture=tmp_path / "cap.jsonl",
        context_overrides=dict(PINNED_CONTEXT),
    )
    with AgentRuntime(options) as runtime:
        first_session = runtime.agent.session_id  # type: ignore[union-attr]
        run_repl(runtime, read=lambda _prompt: next(lines), err=err)
        assert runtime.agent is not None and runtime.agent.session_id != first_session
        assert runtime.agent.model == "gpt-other"  # /new keeps the model
    out = err.getvalue()
    assert f"session_id: {first_session}" in out and "model: gpt-other (usage: /model NAME)" in out
    assert "unknown command /bogus" in out and "new session " in out
    bodies = [e.request_body for e in read_recording(tmp_path / "cap.jsonl").exchanges]
    assert [b["model"] for b in bodies] == ["gpt-test", "gpt-other", "gpt-other"]
    assert labels(bodies[2], repo)[:2] == labels(bodies[0], repo)[:2]  # /new: full context again
    assert bodies[2]["prompt_cache_key"] != bodies[0]["prompt_cache_key"]


def test_chatgpt_backend_through_capture_redacts_tokens(
    repo: Path, tmp_path: Path, upstream: FakeUpstream
) -> None:
    import time

    from tests.harness.providers.test_providers import jwt, write_auth

    token = jwt(time.time() + 3600)
    auth = write_auth(tmp_path / "auth.json", token)
    upstream.reply(SseReply(response_stream(text_message("from chatgpt"))))
    options = AgentOptions(
        provider="chatgpt",
        base_url=f"{upstream.url}/backend-api/codex",
        auth_file=auth,
        cwd=repo,
        capture=tmp_path / "cap.jsonl",
    )
    with AgentRuntime(options) as runtime:
        assert runtime.agent is not None
        assert runtime.agent.run_turn("hi").final_text == "from chatgpt"
    (received,) = upstream.requests
    assert received.path == "/backend-api/codex/responses"
    assert received.headers["chatgpt-account-id"] == "acct-42"
    (exchange,) = read_recording(tmp_path / "cap.jsonl").exchanges
    assert exchange.url.endswith("/backend-api/codex/responses")
    on_disk = (tmp_path / "cap.jsonl").read_text(encoding="utf-8")
    assert token not in on_disk and "acct-42" not in on_disk


def test_status_shows_rate_limit_headers(
    repo: Path, upstream: FakeUpstream, ctxscope_home: Path, tmp_path: Path
) -> None:
    write_config(ctxscope_home, tmp_path / "skills", extra="[providers.local]\n")
    upstream.reply(
        SseReply(
            response_stream(text_message("hi")),
            headers={"x-codex-primary-used-percent": "12.5", "x-request-id": "req_1"},
        )
    )
    with AgentRuntime(_local_options(repo, upstream, no_capture=True)) as runtime:
        assert runtime.agent is not None
        runtime.agent.run_turn("hi")
        assert runtime.agent.status()["rate_limits"] == {"x-codex-primary-used-percent": "12.5"}


def test_failed_turn_is_an_error_entry_in_the_session(repo: Path, tmp_path: Path) -> None:
    # the backend refuses the request (a 400 is not retried): the turn fails
    refusal = {"message": "Invalid input: bad item.", "type": "invalid_request_error", "code": "bad_item"}
    script = write_script(tmp_path / "s.json", [{"http_status": 400, "body": {"error": refusal}}])
    events: list[AgentEvent] = []
    options = AgentOptions(provider="script", script=script, cwd=repo, no_capture=True)
    with AgentRuntime(options, emit=events.append) as runtime:
        assert runtime.agent is not None
        with pytest.raises(UpstreamError):
            runtime.agent.run_turn("hi")
        entries = runtime.agent.session.entries()
    assert entries[-1].type == "event" and entries[-1].payload["kind"] == "error"
    assert isinstance(events[-1], TurnError) and "Invalid input" in events[-1].message


def test_new_session_keeps_the_cwd_after_cd(repo: Path, tmp_path: Path, ctxscope_home: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "one"}])
    lines = iter(["/cd pkg", "/new", "fresh", "/quit"])
    options = AgentOptions(
        provider="script",
        script=script,
        cwd=repo,
        capture=tmp_path / "cap.jsonl",
        context_overrides=dict(PINNED_CONTEXT),
    )
    with AgentRuntime(options) as runtime:
        run_repl(runtime, read=lambda _prompt: next(lines), err=io.StringIO())
        assert runtime.agent is not None
        assert runtime.agent.context.cwd == runtime.agent.router.ctx.cwd == (repo / "pkg").resolve()
        meta = runtime.agent.session.entries()[0].payload
    assert meta["cwd"] == str((repo / "pkg").resolve())
    (body,) = [e.request_body for e in read_recording(tmp_path / "cap.jsonl").exchanges]
    assert any("agents_md" in label and "pkg" in label for label in labels(body, repo))


def test_failed_start_leaves_no_session_or_recording(tmp_path: Path, ctxscope_home: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a cassette"}', encoding="utf-8")
    capture = tmp_path / "cap.jsonl"
    sessions = tmp_path / "sessions"
    options = AgentOptions(
        provider="script", script=bad, cwd=tmp_path, capture=capture, sessions_dir=sessions
    )
    with pytest.raises(CtxscopeError, match="neither a ctxscope recording nor a script cassette"):
        AgentRuntime(options).start()
    with pytest.raises(ConfigError, match="does not exist"):
        AgentRuntime(
            AgentOptions(
                provider="script", script=bad, cwd=tmp_path / "nosuch", capture=capture, sessions_dir=sessions
            )
        ).start()
    assert list(sessions.glob("*")) == [] and not capture.exists()


def test_resuming_a_session_whose_directory_is_gone_says_so(tmp_path: Path, ctxscope_home: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"text": "one"}])
    gone = tmp_path / "gone"
    gone.mkdir()
    sessions = tmp_path / "sessions"
    options = AgentOptions(provider="script", script=script, cwd=gone, no_capture=True, sessions_dir=sessions)
    with AgentRuntime(options) as runtime:
        assert runtime.agent is not None
        runtime.agent.run_turn("hi")
        session_id = runtime.agent.session_id
    gone.rmdir()
    resume = AgentOptions(
        provider="script", script=script, session=session_id, no_capture=True, sessions_dir=sessions
    )
    with pytest.raises(ConfigError, match=f"working directory {gone} does not exist: .* --cwd"):
        AgentRuntime(resume).start()
    assert (sessions / f"{session_id}.jsonl").is_file()  # a resumed session is never removed


def test_status_shows_the_backend_and_the_capture_proxy_apart(
    repo: Path, upstream: FakeUpstream, ctxscope_home: Path, tmp_path: Path
) -> None:
    from ctxscope.harness.commands import run_command

    write_config(ctxscope_home, tmp_path / "skills", extra="[providers.local]\n")
    captured, plain = io.StringIO(), io.StringIO()
    with AgentRuntime(_local_options(repo, upstream, capture=tmp_path / "cap.jsonl")) as runtime:
        run_command("/status", runtime, captured)
        proxy_url = runtime.route.base_url if runtime.route else ""
    with AgentRuntime(_local_options(repo, upstream, no_capture=True)) as runtime:
        run_command("/status", runtime, plain)
    shown = dict(line.strip().split(": ", 1) for line in captured.getvalue().splitlines())
    assert shown["backend"] == f"{upstream.url}/v1"
    assert shown["capture_proxy"] == proxy_url and proxy_url.startswith("http://127.0.0.1:")
    assert proxy_url != shown["backend"] and "base_url" not in shown
    assert "  capture_proxy: none" in plain.getvalue() and f"  backend: {upstream.url}/v1" in plain.getvalue()
