"""The inspector on recordings made by the real proxy: openai-python and ctxscope's own harness."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from openai import OpenAI

from ctxscope.proxy.testing import CaptureSession, FakeUpstream
from tests.harness.harness_support import make_repo, write_config, write_script
from tests.inspector.one_account import assert_one_account

TIMEOUT_S = 120


def test_openai_python_chain_through_the_proxy(capture: CaptureSession, upstream: FakeUpstream) -> None:
    client = OpenAI(base_url=f"{capture.url}/v1", api_key="sk-test-inspector-0123456789", max_retries=0)
    with client.responses.stream(
        model="gpt-test", instructions="Be brief.", input=[{"role": "user", "content": "hello"}]
    ) as stream:
        first = stream.get_final_response()
    with client.responses.stream(
        model="gpt-test", previous_response_id=first.id, input=[{"role": "user", "content": "and again"}]
    ) as stream:
        stream.get_final_response()
    with client.responses.stream(model="gpt-test", input="a plain string prompt") as stream:
        assert stream.get_final_response().output_text == "ok"
    client.close()  # its pooled connection is not left to the collector
    capture.wait_for(3)
    capture.server.stop()
    capture.writer.close()

    analysis = assert_one_account(capture.path)
    assert [t.turn.status for t in analysis.turns] == ["completed"] * 3
    chained = analysis.turn(2)
    assert chained.turn.previous_response_id == first.id and chained.turn.chain_resolved
    assert [i.label for i in chained.turn.items] == ['user: "hello"', 'assistant: "ok"', 'user: "and again"']
    assert chained.change.kind == "append" and chained.turn.thread == analysis.turn(1).turn.thread
    assert analysis.turn(3).turn.items[0].label == 'user: "a plain string prompt"'
    assert analysis.turn(3).change.kind == "initial"
    assert all(i.kind != "unknown" for t in analysis.turns for i in t.turn.items)
    auth = chained.turn.exchange.request_headers.get("authorization", "")
    assert "sk-test-inspector" not in auth  # the recording the inspector reads is redacted


def test_harness_recording_classifies_completely(tmp_path: Path, ctxscope_home: Path) -> None:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills")
    script = write_script(
        tmp_path / "s.json",
        [
            {
                "output": [
                    {"reasoning": "look"},
                    {"function_call": {"name": "list_dir", "arguments": {"path": "."}}},
                ]
            },
            {"text": "Hi!"},
        ],
    )
    capture = tmp_path / "harness.jsonl"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ctxscope.cli",
            "agent",
            "-p",
            "say hello with $greet",
            "--provider",
            "script",
            "--script",
            str(script),
            "--capture",
            str(capture),
        ],
        cwd=repo,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    analysis = assert_one_account(capture)
    first, second = analysis.turns
    kinds = {p.kind for i in first.turn.items for p in i.fragments}
    assert {"permissions", "agents_md", "environment_context", "selected_skill"} <= kinds
    assert all(
        i.kind != "unknown" and all(p.kind != "unknown_part" for p in i.parts)
        for t in analysis.turns
        for i in t.turn.items
    )
    assert first.state.value("cwd") == str(repo) and "greet" in first.state.value("selected_skills")
    assert second.change.kind == "append"
    assert [i.kind for i in second.change.added][-2:] == ["function_call", "function_call_output"]
