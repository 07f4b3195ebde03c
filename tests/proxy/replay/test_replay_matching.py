"""The matchers and the JSON diff: a mismatch names the JSON paths that differ."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.proxy.replay.matching import (
    MAX_DIFFERENCES,
    RequestView,
    json_diff,
    match_requests,
    metadata_only,
    request_path,
)
from ctxscope.proxy.replay.report import Mismatch


def _req(body: object, path: str = "/v1/responses", method: str = "POST") -> RequestView:
    return RequestView(method, path, body)


def test_equal_requests_match() -> None:
    body = {"model": "m", "input": [{"type": "message", "role": "user", "content": [{"text": "hi"}]}]}
    assert match_requests(_req(body), _req(body)) == []


def test_changed_text_names_the_item_and_shows_where() -> None:
    rec = {"input": [{"content": [{"text": "please fix the bug in parser.py"}]}]}
    live = {"input": [{"content": [{"text": "please fix the bug in lexer.py"}]}]}
    [line] = json_diff(rec, live)
    assert line.startswith("input[0].content[0].text differs: at char 22:")
    # the snippets start shortly before the first difference
    assert line.endswith("recorded '…ease fix the bug in parser.py' vs live '…ease fix the bug in lexer.py'")


def test_items_added_and_missing_at_the_end() -> None:
    rec = {"input": [{"type": "message", "role": "user"}]}
    live = {
        "input": [
            {"type": "message", "role": "user"},
            {"type": "function_call", "name": "exec_command"},
            {"type": "message", "role": "developer"},
        ]
    }
    assert json_diff(rec, live) == [
        "input: 2 items added at the end (input[1] function_call exec_command, input[2] message/developer)"
    ]
    assert json_diff(live, rec) == [
        "input: 2 recorded items missing at the end "
        "(input[1] function_call exec_command, input[2] message/developer)"
    ]


def test_tools_are_compared_by_name() -> None:
    rec = {
        "tools": [{"type": "function", "name": "a", "description": "x"}, {"type": "function", "name": "b"}]
    }
    live = {
        "tools": [{"type": "function", "name": "a", "description": "y"}, {"type": "custom", "name": "foo"}]
    }
    assert json_diff(rec, live) == [
        "tools: added foo; removed b",
        "tools[name=a].description differs: at char 0: recorded 'x' vs live 'y'",
    ]


def test_tool_order_change_is_reported() -> None:
    a, b = {"type": "function", "name": "a"}, {"type": "function", "name": "b"}
    assert json_diff({"tools": [a, b]}, {"tools": [b, a]}) == [
        "tools: order differs: recorded a, b vs live b, a"
    ]


def test_keys_added_removed_and_type_changes() -> None:
    rec = {"reasoning": {"effort": "high"}, "store": False, "n": 1}
    live = {"reasoning": {"effort": "high", "summary": "auto"}, "store": None, "n": 1.0}
    assert json_diff(rec, live) == [
        "reasoning.summary added (live 'auto')",
        "store differs: recorded bool vs live null",
    ]


def test_odd_keys_are_quoted() -> None:
    assert json_diff({"a b": 1}, {"a b": 2}) == ['["a b"] differs: recorded 1 vs live 2']


def test_method_and_path_matchers() -> None:
    assert match_requests(_req({}, "/v1/responses"), _req({}, "/responses")) == [
        "path differs: recorded /responses vs live /v1/responses"
    ]
    assert match_requests(_req({}, method="GET"), _req({})) == ["method differs: recorded POST vs live GET"]


def test_differences_are_capped() -> None:
    rec = {f"k{i}": i for i in range(50)}
    live = {f"k{i}": i + 1 for i in range(50)}
    found = match_requests(_req(live), _req(rec))
    assert len(found) == MAX_DIFFERENCES + 1
    assert found[-1] == f"... and {50 - MAX_DIFFERENCES} more differences"


def test_request_path_keeps_the_query() -> None:
    assert request_path("https://api.openai.com/v1/models?client_version=1") == "/v1/models?client_version=1"
    assert request_path("/v1/responses") == "/v1/responses"
    assert request_path("http://h") == "/"


def test_a_changed_context_fragment_is_named() -> None:
    rec = {
        "input": [{"content": [{"text": "<environment_context>\n  <cwd>/a</cwd>\n</environment_context>"}]}]
    }
    live = {
        "input": [{"content": [{"text": "<environment_context>\n  <cwd>/b</cwd>\n</environment_context>"}]}]
    }
    [line] = json_diff(rec, live)
    assert line.startswith("input[0].content[0].text (environment_context) differs: at char 30:")
    agents = "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>"
    [line] = json_diff({"t": agents + "a"}, {"t": agents + "b"})
    assert line.startswith("t (AGENTS.md) differs")


def _codex(workspaces: dict[str, object] | None, arguments: object = None) -> dict[str, object]:
    """A normalised Codex body: turn metadata (parsed, as normalisation leaves it) and a tool call."""
    metadata: dict[str, object] = {"request_kind": "compaction", "turn_id": "<turn_id>"}
    if workspaces is not None:
        metadata["workspaces"] = workspaces
    return {
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {"type": "function_call", "name": "exec_command", "arguments": arguments or {}},
        ],
        "client_metadata": {"x-codex-turn-metadata": metadata},
    }


def test_codex_git_probe_is_client_bookkeeping_compared_only_with_the_metadata_matcher() -> None:
    probed = _codex({"<root>/repo": {"has_changes": True, "latest_git_commit_hash": "<hex>"}})
    dirty = _codex({"<root>/repo": {"has_changes": False}})
    # by default only what the model sees counts: a dirty checkout, another commit, no probe at all
    for live in (dirty, _codex(None)):
        assert match_requests(_req(live), _req(probed)) == []
    strict = ("method", "path", "body", "metadata")
    # Codex adds `workspaces` when its git probe finished in time: one run has it, the next may not
    assert match_requests(_req(_codex(None)), _req(probed), strict) == []
    assert match_requests(_req(probed), _req(_codex(None)), strict) == []
    # sent on both sides, the metadata matcher compares it, and a mismatch says the context is the same
    found = match_requests(_req(dirty), _req(probed), strict)
    assert found == [
        'client_metadata.x-codex-turn-metadata.workspaces["<root>/repo"].latest_git_commit_hash removed '
        "(recorded '<hex>')",
        'client_metadata.x-codex-turn-metadata.workspaces["<root>/repo"].has_changes differs: '
        "recorded true vs live false",
    ]
    assert metadata_only(found)
    line = Mismatch("c.jsonl", "exchange 0 (POST /v1/responses)", 0, found, served=False).line()
    assert line.startswith(
        "c.jsonl exchange 0 (POST /v1/responses) rejected (only client metadata differs (the model's "
        "context is the same)): client_metadata."
    )
    # only there: a `workspaces` key anywhere else still counts
    assert match_requests(_req(_codex(None, {"workspaces": 1})), _req(_codex(None))) == [
        "input[1].arguments.workspaces added (live 1)"
    ]
    assert not metadata_only(["input[1].arguments.workspaces added (live 1)", *found])


def test_a_clients_responses_metadata_is_bookkeeping_too(tmp_path: Path) -> None:
    # A real openai-python client tags its requests with the Responses `metadata` field (its git state,
    # a run id): recorded through the proxy, replayed strictly with other tags, it is served; the
    # `metadata` matcher still compares it, naming the field.
    from openai import APIStatusError, OpenAI

    from ctxscope.proxy.replay import serve_cassette
    from ctxscope.proxy.testing import FakeUpstream, capture_proxy

    def ask(base_url: str, run: str) -> str:
        # closed here, not left to the collector: its pooled socket, collected during the proxy's
        # stop, was an unraisable ResourceWarning that failed this test one run in many
        tags = {"run": run, "git": run * 3}
        with (
            OpenAI(api_key="sk-meta-test", base_url=f"{base_url}/v1", max_retries=0, timeout=30) as client,
            client.responses.create(model="gpt-test", input="hello", metadata=tags, stream=True) as stream,
        ):
            return "".join(event.delta for event in stream if event.type == "response.output_text.delta")

    capture = tmp_path / "meta.jsonl"
    with FakeUpstream() as upstream, capture_proxy(upstream.url, capture) as proxy:
        recorded = ask(proxy.url, "1")
    with serve_cassette(capture, match="strict") as server:
        assert ask(server.url, "2") == recorded == "ok"
        assert server.report.problems() == []
    strict = ["method", "path", "body", "metadata"]
    with serve_cassette(capture, match="strict", match_on=strict) as server:
        with pytest.raises(APIStatusError):
            ask(server.url, "2")
        [mismatch] = server.report.mismatches
    assert metadata_only(mismatch.differences)
    assert mismatch.differences[0].startswith("metadata.run differs: ")
