"""The prompt-regression workflow in a test suite: a harness test recorded once, then a prompt edit
fails it with the context that changed (`ctxscope.pytest_plugin` answering the cassette plugin's hook).

pytest inside pytest (pytester): the inner test runs ctxscope's real agent against the cassette
fixture's real replay proxy; it records from a FakeUpstream the first time.
"""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest

from ctxscope.proxy.testing import FakeUpstream, SseReply, response_stream, text_message
from tests.cli_support import run_cli

pytest_plugins = ["pytester"]

AGENT_TEST = """
from pathlib import Path

import pytest

from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.proxy.errors import CtxscopeError

HERE = Path(__file__).parent


@pytest.mark.ctxscope_cassette("cassettes/agent.jsonl")
def test_the_agent_says_hi(ctxscope_cassette, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    config = tmp_path / "config.toml"
    config.write_text('[providers.cassette]\\nbase_url = "http://127.0.0.1:9/v1"\\n')
    options = AgentOptions(
        provider="cassette",
        base_url=ctxscope_cassette.url + "/v1",
        cwd=repo,
        no_capture=True,
        config_path=config,
        instructions_file=HERE / "prompt.md",
        sessions_dir=tmp_path / "sessions",
        approval="never",
    )
    with AgentRuntime(options) as runtime:
        try:
            runtime.agent.run_turn("say hi")
        except CtxscopeError:
            pass  # a rejected request: the cassette fixture fails the test with the reason
"""

PROMPT = "You are a careful agent.\nRead before you write.\nAnswer briefly.\n"


def _plugin_args() -> list[str]:
    """`-p` for the context plugin when this environment was installed before its entry point existed."""
    installed = any(e.value == "ctxscope.pytest_plugin" for e in entry_points(group="pytest11"))
    return [] if installed else ["-p", "ctxscope.pytest_plugin"]


def test_a_prompt_edit_fails_the_test_with_the_context_that_changed(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_agent=AGENT_TEST)
    prompt = pytester.path / "prompt.md"
    prompt.write_text(PROMPT)
    with FakeUpstream() as upstream:
        upstream.reply(SseReply(response_stream(text_message("hi"))))
        recorded = pytester.runpytest(
            *_plugin_args(), "--record-mode", "once", "--ctxscope-upstream", upstream.url
        )
        recorded.assert_outcomes(passed=1)
    assert (pytester.path / "cassettes" / "agent.jsonl").is_file()
    pytester.runpytest(*_plugin_args()).assert_outcomes(passed=1)  # unchanged: the replay matches

    prompt.write_text(PROMPT.replace("Read before you write.\n", "Read before you write.\nNever guess.\n"))
    result = pytester.runpytest(*_plugin_args())
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ctxscope replay went wrong:*",
            "*agent.jsonl exchange 0 (POST /v1/responses) rejected: "
            "input[[]0[]].content[[]0[]].text differs*",
            "*what changed in the model's context:*",
            "*input[[]0[]] developer[[]<instructions>[]] (the base prompt): changed*",
            "*  Read before you write.*",
            "*+ Never guess.*",
            "*  Answer briefly.*",
        ]
    )
    shown = result.stdout.str()
    assert "You are a careful agent." not in shown, "only the changed lines and their neighbours"
    # --ctxscope-report DIR: one HTML report of the recorded turns, then the refused request as the last
    # turn, so the report's own diff of that turn is the context that changed; named in the failure
    reports = pytester.path / "ctxscope-reports"
    result = pytester.runpytest(*_plugin_args(), "--ctxscope-report", str(reports))
    result.assert_outcomes(passed=1, errors=1)
    (page,) = reports.glob("*.html")
    assert "test_the_agent_says_hi" in page.name
    assert (
        "the recorded turns up to turn 1, then the refused request as turn 2 (its diff: against recorded "
        f"turn 1), as an HTML report: {page}"
    ) in result.stdout.str()
    from ctxscope.proxy.store import read_recording

    recorded = read_recording(pytester.path / "cassettes" / "agent.jsonl").exchanges
    inside = read_recording(page).exchanges  # the report carries the recording it shows
    assert [e.request_body for e in inside[:-1]] == [e.request_body for e in recorded]
    refused = inside[-1]
    assert refused.status == 400 and "Never guess." in refused.request_body["input"][0]["content"][0]["text"]
    assert "rejected: input[0].content[0].text differs" in refused.response_body["error"]["message"]
    shown = run_cli("diff", str(page), "--turn", "2")
    assert shown.returncode == 0, shown.stderr
    assert "+ Never guess." in shown.stdout and "Read before you write." in shown.stdout, shown.stdout
    assert "error" in shown.stdout.split("+ Never guess.")[1], "its answer: the replay's rejection"
