"""Session files keep the conversation exactly (a resume sends what the model saw), owner-only, while
the credentials the harness holds itself are withheld; the shared capture recording stays redacted."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest

from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.harness.session import WITHHELD, SessionStore
from ctxscope.proxy.store.reader import read_recording
from ctxscope.proxy.testing import FakeUpstream, SseReply, function_call, response_stream, text_message
from tests.harness.harness_support import PINNED_CONTEXT, make_repo, write_config
from tests.harness.providers.test_providers import jwt, write_auth
from tests.harness.test_cli import ctxscope
from tests.proxy.redact import samples_support as samples

TYPED_KEY = samples.OPENAI_KEY  # a secret-looking string the user types: the recordings' redactor catches it
FILE_KEY = samples.ANTHROPIC_KEY  # one a tool returns


@pytest.fixture
def repo(tmp_path: Path, ctxscope_home: Path) -> Path:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills", extra="[providers.local]\n")
    return repo


def _options(repo: Path, upstream: FakeUpstream, tmp_path: Path, **kw: object) -> AgentOptions:
    return AgentOptions(
        provider="local",
        base_url=f"{upstream.url}/v1",
        cwd=repo,
        context_overrides=dict(PINNED_CONTEXT),
        sessions_dir=tmp_path / "sessions",
        **kw,
    )  # type: ignore[arg-type]


def test_store_keeps_content_exactly_and_withholds_held_credentials(tmp_path: Path) -> None:
    held = ["held-token-0123456789", "short"]
    store = SessionStore.create({"cwd": "/w"}, directory=tmp_path, credentials=lambda: held)
    item = {"type": "message", "role": "user", "content": f"{TYPED_KEY} and held-token-0123456789 x"}
    store.append("response_item", {"item": item})
    held.append("rotated-refresh-abcdef")  # asked at each append: a refreshed token counts from then on
    store.append("event", {"rotated-refresh-abcdef": "Bearer rotated-refresh-abcdef short"})
    text = store.path.read_text(encoding="utf-8")
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert "held-token-0123456789" not in text and "rotated-refresh-abcdef" not in text
    (loaded,) = SessionStore.open(str(store.path)).load().history
    assert loaded["content"] == f"{TYPED_KEY} and {WITHHELD} x"  # the typed key stays, exactly
    last = store.entries()[-1].payload
    assert last == {WITHHELD: f"Bearer {WITHHELD} short"}  # under 8 characters: not a credential
    # A store without credentials to withhold writes payloads untouched (and forks keep the rule).
    fork = store.fork()
    assert fork.credentials is store.credentials and fork.load().history == [loaded]


def test_resume_sends_byte_identical_context_while_the_recording_is_redacted(
    repo: Path, tmp_path: Path, upstream: FakeUpstream
) -> None:
    (repo / "notes.txt").write_text(f"deploy key: {FILE_KEY}\n", encoding="utf-8")
    upstream.reply(
        SseReply(response_stream(function_call("read_file", {"path": "notes.txt"}))),
        SseReply(response_stream(text_message(f"noted {TYPED_KEY[:12]}"))),
        SseReply(response_stream(text_message("resumed"))),
    )
    first_capture, second_capture = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    with AgentRuntime(_options(repo, upstream, tmp_path, capture=first_capture)) as runtime:
        assert runtime.agent is not None
        runtime.agent.run_turn(f"use {TYPED_KEY} and read notes.txt")
        session_id, session_file = runtime.agent.session_id, runtime.agent.session.path
    with AgentRuntime(_options(repo, upstream, tmp_path, capture=second_capture, session=session_id)) as rt:
        assert rt.agent is not None
        assert rt.agent.run_turn("go on").final_text == "resumed"

    first, second, resumed = (r.json() for r in upstream.requests)
    seen = second["input"]  # what the model saw last: the prompt with the key, the tool output with its key
    assert TYPED_KEY in json.dumps(seen) and FILE_KEY in json.dumps(seen)
    answer = {"type": "message", "role": "assistant"}
    prefix = resumed["input"][: len(seen)]
    assert json.dumps(prefix, ensure_ascii=False) == json.dumps(seen, ensure_ascii=False)
    after = resumed["input"][len(seen)]
    assert {k: after[k] for k in answer} == answer and after["content"][0][
        "text"
    ] == f"noted {TYPED_KEY[:12]}"
    assert stat.S_IMODE(session_file.stat().st_mode) == 0o600
    assert TYPED_KEY in session_file.read_text(encoding="utf-8")  # the agent's memory is exact
    for capture in (first_capture, second_capture):  # recordings (shared) are redacted
        data = capture.read_text(encoding="utf-8")
        assert TYPED_KEY not in data and FILE_KEY not in data and "<redacted:" in data
    (recorded,) = [
        e.request_body for e in read_recording(second_capture).exchanges if e.endpoint == "responses"
    ]
    assert len(recorded["input"]) == len(resumed["input"])  # the same request, redacted
    assert "<redacted:" in json.dumps(recorded["input"][: len(seen)])


def test_every_held_credential_planted_in_prompt_and_tool_output_is_withheld(
    repo: Path, tmp_path: Path, ctxscope_home: Path, upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    """API key (built-in and custom env var), configured header value, ChatGPT tokens and account id."""
    api_key, local_key, header = "plain-api-key-0001XYZ", "plain-local-key-0002XYZ", "team-header-0003XYZ"
    access, refresh = jwt(time.time() + 3600), "plain-refresh-0004XYZ"
    auth = write_auth(tmp_path / "auth.json", access)
    data = json.loads(auth.read_text())
    data["tokens"].update(refresh_token=refresh, account_id="acct-planted-0005XYZ")
    auth.write_text(json.dumps(data))
    write_config(
        ctxscope_home,
        tmp_path / "skills",
        extra=f'[providers.local]\nenv_key = "LOCAL_KEY"\nheaders = {{ "X-Team" = "{header}" }}\n',
    )
    monkeypatch.setenv("OPENAI_API_KEY", api_key)
    monkeypatch.setenv("LOCAL_KEY", local_key)
    cases: list[tuple[AgentOptions, list[str]]] = [
        (_options(repo, upstream, tmp_path, no_capture=True), [local_key, header]),
        (
            AgentOptions(
                provider="apikey",
                base_url=f"{upstream.url}/v1",
                cwd=repo,
                no_capture=True,
                sessions_dir=tmp_path / "sessions",
            ),
            [api_key],
        ),
        (
            AgentOptions(
                provider="chatgpt",
                base_url=f"{upstream.url}/backend-api/codex",
                auth_file=auth,
                cwd=repo,
                no_capture=True,
                sessions_dir=tmp_path / "sessions",
            ),
            [access, refresh, "acct-planted-0005XYZ"],
        ),
    ]
    for options, held in cases:
        planted = " ".join(held)
        (repo / "creds.txt").write_text(f"found: {planted}\n", encoding="utf-8")
        upstream.reply(
            SseReply(response_stream(function_call("read_file", {"path": "creds.txt"}))),
            SseReply(response_stream(text_message(f"echo {planted}"))),
        )
        with AgentRuntime(options) as runtime:
            assert runtime.agent is not None
            runtime.agent.run_turn(f"my creds: {planted}")
            session_file = runtime.agent.session.path
        sent = json.dumps(upstream.requests[-1].json())
        text = session_file.read_text(encoding="utf-8")
        for value in held:
            assert value in sent  # the model got them (the user typed them, the tool read them)
            assert value not in text, (options.provider, value)
        assert text.count(WITHHELD) >= 3 * len(held)  # prompt, tool output, answer
        assert "found: " in text and "my creds: " in text  # the rest stays as it was


def test_cli_resume_sends_byte_identical_context(repo: Path, tmp_path: Path, upstream: FakeUpstream) -> None:
    """`ctxscope agent -p` then `--session ID -p` as real subprocesses, through the capture proxy."""
    upstream.reply(
        SseReply(response_stream(text_message(f"got {TYPED_KEY}"))),
        SseReply(response_stream(text_message("again"))),
    )
    common = ["--provider", "local", "--base-url", f"{upstream.url}/v1"]
    first = ctxscope(
        "agent",
        "-p",
        f"remember {TYPED_KEY}",
        "--json",
        *common,
        "--capture",
        str(tmp_path / "a.jsonl"),
        cwd=repo,
    )
    assert first.returncode == 0, first.stderr
    session_id = json.loads(first.stdout.splitlines()[0])["session_id"]
    second = ctxscope(
        "agent",
        "-p",
        "again",
        "--session",
        session_id,
        *common,
        "--capture",
        str(tmp_path / "b.jsonl"),
        cwd=repo,
    )
    assert second.returncode == 0 and second.stdout == "again\n", second.stderr
    seen, resumed = (r.json()["input"] for r in upstream.requests)
    # Everything the model saw, then its answer: byte for byte, the typed key included.
    assert json.dumps(resumed[: len(seen)], ensure_ascii=False) == json.dumps(seen, ensure_ascii=False)
    assert resumed[len(seen)]["content"][0]["text"] == f"got {TYPED_KEY}"
    for capture in ("a.jsonl", "b.jsonl"):
        assert TYPED_KEY not in (tmp_path / capture).read_text(encoding="utf-8")
