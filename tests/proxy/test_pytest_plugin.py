"""The pytest plugin, exercised the way users run it: pytest inside pytest (pytester).

Inner test sessions talk to a real FakeUpstream when they record and to the real replayer otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxscope.proxy.replay import load_cassette
from ctxscope.proxy.testing import FakeUpstream, SseReply, response_stream, text_message

pytest_plugins = ["pytester"]

RECORDINGS = Path(__file__).resolve().parents[2] / "recordings"

ASK = """
import httpx, pytest

def ask(base, prompt):
    r = httpx.post(base + "/v1/responses", json={"model": "m", "input": prompt, "stream": True}, timeout=30)
    return r.status_code, r.text
"""


def _greeting(text: str) -> SseReply:
    return SseReply(response_stream(text_message(text)))


def test_record_once_then_replay_without_the_upstream(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_a=ASK
        + """
@pytest.mark.ctxscope_cassette("cassettes/hello.jsonl")
def test_hello(ctxscope_cassette):
    status, text = ask(ctxscope_cassette.url, "say hello")
    assert status == 200 and "hello from upstream" in text
"""
    )
    with FakeUpstream() as upstream:
        upstream.reply(_greeting("hello from upstream"))
        first = pytester.runpytest("--record-mode", "once", "--ctxscope-upstream", upstream.url)
        first.assert_outcomes(passed=1)
        assert len(upstream.requests) == 1
    cassette = pytester.path / "cassettes" / "hello.jsonl"
    assert len(load_cassette(cassette).model_entries) == 1
    # the upstream is gone: replay alone must serve it (default mode none)
    second = pytester.runpytest()
    second.assert_outcomes(passed=1)


def test_missing_cassette_fails_in_mode_none(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_b="""
import pytest

@pytest.mark.ctxscope_cassette("cassettes/absent.jsonl")
def test_x(ctxscope_cassette):
    pass
"""
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*cassette*absent.jsonl does not exist; record it with --record-mode once*"])


def test_recording_needs_an_upstream(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CTXSCOPE_UPSTREAM", raising=False)
    pytester.makepyfile(test_c="def test_x(ctxscope_cassette):\n    pass\n")
    result = pytester.runpytest("--record-mode", "once")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*record mode 'once' needs an upstream*--ctxscope-upstream*"])


def test_a_strict_mismatch_fails_the_test_with_the_paths(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_d=ASK
        + """
@pytest.mark.ctxscope_cassette("cassettes/d.jsonl")
def test_d(ctxscope_cassette):
    ask(ctxscope_cassette.url, "PROMPT")
"""
    )
    with FakeUpstream() as upstream:
        upstream.reply(_greeting("hi"))
        pytester.runpytest("--record-mode", "once", "--ctxscope-upstream", upstream.url).assert_outcomes(passed=1)
    test_file = pytester.path / "test_d.py"
    test_file.write_text(test_file.read_text().replace('"PROMPT"', '"ANOTHER PROMPT"'))
    result = pytester.runpytest()
    # the client swallowed the 400, so the plugin fails the test at teardown
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*ctxscope replay went wrong:*", "*d.jsonl exchange 0 (POST*rejected: input differs*"])


def test_default_cassette_path_and_script_cassettes(pytester: pytest.Pytester) -> None:
    script = json.loads((RECORDINGS / "script-example.json").read_text())
    cassette_dir = pytester.path / "cassettes" / "test_e"
    cassette_dir.mkdir(parents=True)
    (cassette_dir / "test_script.jsonl").write_text(json.dumps(script))
    pytester.makepyfile(
        test_e="""
from openai import OpenAI

def test_script(ctxscope_cassette):
    client = OpenAI(base_url=str(ctxscope_cassette) + "/v1", api_key="x", max_retries=0)
    texts = []
    for _ in range(3):
        response = client.responses.create(model="gpt-5-codex", input="go")
        texts.append([item.type for item in response.output])
    assert texts[0] == ["reasoning", "function_call"]
    assert ctxscope_cassette.report.served == 3
"""
    )
    # a script is never recorded, whatever the mode
    pytester.runpytest("--record-mode", "all", "--ctxscope-upstream", "http://127.0.0.1:9").assert_outcomes(passed=1)


def test_record_mode_new_appends_only_what_comes_after(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_f=ASK
        + """
@pytest.mark.ctxscope_cassette("cassettes/f.jsonl")
def test_f(ctxscope_cassette):
    for prompt in PROMPTS:
        status, text = ask(ctxscope_cassette.url, prompt)
        assert status == 200

PROMPTS = ["one"]
"""
    )
    cassette = pytester.path / "cassettes" / "f.jsonl"
    with FakeUpstream() as upstream:
        upstream.reply(_greeting("first"), _greeting("second"))
        pytester.runpytest("--record-mode", "once", "--ctxscope-upstream", upstream.url).assert_outcomes(passed=1)
        test_file = pytester.path / "test_f.py"
        test_file.write_text(test_file.read_text().replace('PROMPTS = ["one"]', 'PROMPTS = ["one", "two"]'))
        result = pytester.runpytest("--record-mode", "new", "--ctxscope-upstream", upstream.url)
        result.assert_outcomes(passed=1)
        assert [r.json()["input"] for r in upstream.requests] == ["one", "two"]
    entries = load_cassette(cassette).model_entries
    assert [e.request_body["input"] for e in entries] == ["one", "two"]
    pytester.runpytest().assert_outcomes(passed=1)  # and now both replay


def test_record_mode_all_records_again(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_g=ASK
        + """
@pytest.mark.ctxscope_cassette("cassettes/g.jsonl")
def test_g(ctxscope_cassette):
    assert ctxscope_cassette.recording
    status, text = ask(ctxscope_cassette.url, "hi")
    assert status == 200
"""
    )
    cassette = pytester.path / "cassettes" / "g.jsonl"
    with FakeUpstream() as upstream:
        upstream.reply(_greeting("old answer"), _greeting("new answer"))
        for _ in range(2):
            pytester.runpytest("--record-mode", "all", "--ctxscope-upstream", upstream.url).assert_outcomes(passed=1)
        assert len(upstream.requests) == 2
    [entry] = load_cassette(cassette).model_entries
    assert b"new answer" in entry.render("", None, "fast").stream_bytes()
    assert not (pytester.path / "cassettes" / "g.jsonl.partial").exists()


def test_in_process_replay_and_match_on_through_the_marker(pytester: pytest.Pytester) -> None:
    """`in_process=True` serves the cassette through a CassetteTransport (no proxy); `match_on` and a
    registered matcher decide what counts as a mismatch; a mismatch fails the test at teardown."""
    pytester.makepyfile(
        test_h=ASK
        + """
@pytest.mark.ctxscope_cassette("cassettes/h.jsonl")
def test_record(ctxscope_cassette):
    ask(ctxscope_cassette.url, "PROMPT")
"""
    )
    with FakeUpstream() as upstream:
        upstream.reply(_greeting("hi"))
        pytester.runpytest("--record-mode", "once", "--ctxscope-upstream", upstream.url).assert_outcomes(passed=1)
    pytester.makeconftest(
        """
from ctxscope.proxy.replay import register_matcher

def same_model(live, recorded):
    return [] if live.body.get("model") == recorded.body.get("model") else ["model differs"]

register_matcher("same_model", same_model)
"""
    )
    (pytester.path / "test_h.py").unlink()
    pytester.makepyfile(
        test_i="""
import httpx, pytest

def ask(fixture, prompt, model="m"):
    with httpx.Client(transport=fixture.transport, base_url=fixture.url) as client:
        r = client.post("/v1/responses", json={"model": model, "input": prompt, "stream": True})
    return r.status_code

@pytest.mark.ctxscope_cassette("cassettes/h.jsonl", in_process=True, match_on=["method", "same_model"])
def test_other_prompt_same_model(ctxscope_cassette):
    assert ctxscope_cassette.server is None  # no proxy was started
    assert ask(ctxscope_cassette, "ANOTHER PROMPT") == 200
    assert ctxscope_cassette.report.served == 1

@pytest.mark.ctxscope_cassette("cassettes/h.jsonl", in_process=True)
def test_other_prompt_strict(ctxscope_cassette):
    assert ask(ctxscope_cassette, "ANOTHER PROMPT") == 400

@pytest.mark.ctxscope_cassette("cassettes/h.jsonl", in_process=True, match_on=["method", "nope"])
def test_unknown_matcher(ctxscope_cassette):
    pass
"""
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, errors=2)
    went_wrong = ["*ctxscope replay went wrong:*", "*h.jsonl exchange*rejected: input differs*"]
    result.stdout.fnmatch_lines(went_wrong)
    result.stdout.fnmatch_lines(["*ctxscope cassette marker: unknown matcher 'nope'*"])
    assert "During handling" not in result.stdout.str()


def test_past_end_allow_lets_the_client_go_on_after_the_cassette(pytester: pytest.Pytester) -> None:
    """A cassette of a session's first turns (`ctxscope promote`): requests after its end are answered
    410, and fail the test only without `past_end="allow"`."""
    body = """
@pytest.mark.ctxscope_cassette("cassettes/first.jsonl"{extra})
def test_first(ctxscope_cassette):
    assert ask(ctxscope_cassette.url, "one")[0] == 200
    assert ask(ctxscope_cassette.url, "two")[0] == 410
"""
    record = body.format(extra="").replace('    assert ask(ctxscope_cassette.url, "two")[0] == 410\n', "")
    pytester.makepyfile(test_one=ASK + record)
    with FakeUpstream() as upstream:
        upstream.reply(_greeting("one"))
        pytester.runpytest("--record-mode", "once", "--ctxscope-upstream", upstream.url, "-k", "first")
    pytester.makepyfile(test_one=ASK + body.format(extra=""))
    strict = pytester.runpytest()
    strict.assert_outcomes(passed=1, errors=1)
    strict.stdout.fnmatch_lines(["*cassette exhausted, no answer for POST /v1/responses*"])
    pytester.makepyfile(test_one=ASK + body.format(extra=', past_end="allow"'))
    pytester.runpytest().assert_outcomes(passed=1)
    pytester.makepyfile(test_one=ASK + body.format(extra=', past_end="maybe"'))
    wrong = pytester.runpytest()
    wrong.assert_outcomes(errors=1)
    wrong.stdout.fnmatch_lines(["*past_end='maybe': use 'fail' or 'allow'*"])


def test_a_client_raising_on_the_refused_request_is_one_failure(pytester: pytest.Pytester) -> None:
    """The client's own error on the 400 (here httpx's `raise_for_status`) and the replay's verdict are
    one failure, reported as the verdict (the changed request), through the proxy and in-process."""
    pytester.makepyfile(
        test_a=ASK
        + """
@pytest.mark.ctxscope_cassette("cassettes/r.jsonl")
def test_record(ctxscope_cassette):
    assert ask(ctxscope_cassette.url, "say hello")[0] == 200
"""
    )
    with FakeUpstream() as upstream:
        upstream.reply(_greeting("hello"))
        pytester.runpytest("--record-mode", "once", "--ctxscope-upstream", upstream.url).assert_outcomes(passed=1)
    pytester.makepyfile(
        test_a="""
import httpx, pytest

BODY = {"model": "m", "input": "say goodbye", "stream": True}

@pytest.mark.ctxscope_cassette("cassettes/r.jsonl")
def test_through_the_proxy(ctxscope_cassette):
    httpx.post(ctxscope_cassette.url + "/v1/responses", json=BODY, timeout=30).raise_for_status()

@pytest.mark.ctxscope_cassette("cassettes/r.jsonl", in_process=True)
def test_in_process(ctxscope_cassette):
    with httpx.Client(transport=ctxscope_cassette.transport) as client:
        client.post(ctxscope_cassette.url + "/v1/responses", json=BODY).raise_for_status()
"""
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=2, errors=0)
    result.stdout.fnmatch_lines(
        [
            "*ctxscope cassette r.jsonl: turn 1 changed: *",
            "*r.jsonl exchange 0 (POST /v1/responses) rejected: input differs*",
            "(the client's error on the refused request: HTTPStatusError: Client error '400 *",
        ]
    )
    # Count in the failure reports only: the short summary repeats each message in full where pytest does not
    # truncate it (with $CI set, as on the project's CI), and that repetition is pytest's, not a second failure.
    reports = result.stdout.str().split("short test summary info")[0]
    assert reports.count("ctxscope replay went wrong:") == 2
