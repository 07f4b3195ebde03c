"""Real-client cross-check: the bodies the harness builds are what openai-python accepts and sends.

Two checks on bodies taken from a real agent run (a turn with reasoning, a tool call and its output):
the body validates against openai-python's `ResponseCreateParamsStreaming` TypedDict, and
`OpenAI(...).responses.create(**body)` sent through the recording proxy arrives at the upstream
byte-for-byte equal as JSON.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI
from openai.types.responses.response_create_params import ResponseCreateParamsStreaming
from pydantic import TypeAdapter

from ctxscope.proxy.testing import FakeUpstream, SseReply, capture_proxy, response_stream, text_message
from tests.harness.harness_support import make_repo, run_agent, write_config, write_script

# Fields Codex sends that openai-python 2.x does not model (it passes them via extra_body).
CODEX_EXTENSIONS = {"client_metadata"}


@pytest.fixture
def bodies(tmp_path: Path, ctxscope_home: Path) -> list[dict[str, Any]]:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills")
    script = write_script(
        tmp_path / "s.json",
        [
            {
                "output": [
                    {"reasoning": "check"},
                    {"function_call": {"name": "read_file", "arguments": {"path": "README.md"}}},
                ]
            },
            {"text": "done"},
        ],
    )
    return run_agent(repo, script, ["read the readme, $greet"], tmp_path / "cap.jsonl").bodies()


def test_bodies_validate_against_openai_types(bodies: list[dict[str, Any]]) -> None:
    adapter = TypeAdapter(ResponseCreateParamsStreaming)
    known = set(ResponseCreateParamsStreaming.__annotations__) | {
        k
        for base in ResponseCreateParamsStreaming.__orig_bases__
        for k in getattr(base, "__annotations__", {})
    }
    for body in bodies:
        assert set(body) - known <= CODEX_EXTENSIONS
        validated = adapter.validate_python({k: v for k, v in body.items() if k not in CODEX_EXTENSIONS})
        list(validated["input"])  # `Iterable` fields validate lazily: drain them
        list(validated["tools"])
        assert validated["model"] == body["model"] and validated["stream"] is True
    # The check has teeth: a call item without its call_id is refused.
    broken = dict(bodies[-1])
    broken["input"] = [
        {k: v for k, v in i.items() if k != "call_id"} if i["type"] == "function_call" else i
        for i in broken["input"]
    ]
    broken.pop("client_metadata")
    with pytest.raises(ValueError):
        list(adapter.validate_python(broken)["input"])


def test_openai_client_sends_the_same_body(bodies: list[dict[str, Any]], tmp_path: Path) -> None:
    body = bodies[-1]
    with FakeUpstream() as upstream, capture_proxy(upstream.url, tmp_path / "oa.jsonl") as capture:
        upstream.reply(SseReply(response_stream(text_message("ok"))))
        client = OpenAI(base_url=f"{capture.url}/v1", api_key="sk-test", max_retries=0)
        extra = {k: body[k] for k in CODEX_EXTENSIONS}
        params = {k: v for k, v in body.items() if k not in CODEX_EXTENSIONS}
        stream = client.responses.create(**params, extra_body=extra)
        kinds = [event.type for event in stream]
        client.close()
        capture.wait_for(1)
    assert kinds[-1] == "response.completed"
    (received,) = upstream.requests
    assert received.json() == body
