"""The test `ctxscope promote` prints for an openai-python recording replays in the test's process.

openai-python takes an httpx transport, so the printed marker has `in_process=True` (the project's test
venv needs only the core install: no mitmproxy). With its client call filled in as its comments say,
the test passes in a project (pytest as a subprocess, as the project's CI runs it); after one line of
the prompt changes it is one failure (not a failure and an error), its first line naming the turn and
the base prompt, the changed line in the context diff. The same pasted test in a core-only venv with
openai 3.x is `test_core_install.py`'s. A client that cannot take a transport (Codex, Node) gets the
proxy marker and a note that its venv needs `ctxscope[proxy]`.
"""

from __future__ import annotations

from pathlib import Path

from ctxscope.promote import takes_transport
from ctxscope.proxy.store import read_recording
from tests.cli_support import run_cli
from tests.ctxscope.promote_support import (
    SDK_PROMPT,
    fill_in_sdk_call,
    project_pytest,
    recorded_sdk_project,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "inspector"


def test_the_promoted_openai_test_replays_in_process_and_one_prompt_line_is_one_failure(tmp_path: Path) -> None:
    project, recording = recorded_sdk_project(tmp_path)
    promoted = run_cli("promote", str(recording), "-t", "1", "-o", "tests/cassettes/sdk.jsonl", cwd=project)
    assert promoted.returncode == 0, promoted.stderr
    text = promoted.stdout
    assert '@pytest.mark.ctxscope_cassette("cassettes/sdk.jsonl", in_process=True, past_end="allow")' in text
    assert "ctxscope[proxy]" not in text
    test = project / "tests" / "test_sdk.py"
    test.write_text(text, encoding="utf-8")  # as pasted: it fails in one line until the call is added
    pasted = project_pytest(project)
    assert pasted.stdout.splitlines()[-1].startswith("1 failed") and "error" not in pasted.stdout.lower(), (
        pasted.stdout[-3000:]
    )
    assert "promoted test: add your client's call, on the transport for http://" in pasted.stdout

    test.write_text(fill_in_sdk_call(text), encoding="utf-8")
    passed = project_pytest(project)
    assert passed.returncode == 0 and passed.stdout.splitlines()[-1].startswith("1 passed"), passed.stdout[-3000:]

    prompt = project / "prompt.md"
    prompt.write_text(SDK_PROMPT.replace("Never guess.", "Always guess."), encoding="utf-8")
    failed = project_pytest(project)
    summary = failed.stdout.splitlines()[-1]
    assert failed.returncode == 1 and summary.startswith("1 failed in") and "error" not in summary, failed.stdout[
        -4000:
    ]
    first = next(line for line in failed.stdout.splitlines() if "ctxscope cassette sdk.jsonl" in line)
    assert "ctxscope cassette sdk.jsonl: turn 1 changed: " in first and "instructions" in first, first
    assert "- Never guess." in failed.stdout and "+ Always guess." in failed.stdout, failed.stdout[-4000:]
    assert "(the client's error on the refused request: BadRequestError: " in failed.stdout
    assert "Traceback" not in failed.stdout and "openai/_base_client.py" not in failed.stdout


def test_only_clients_that_cannot_take_a_transport_get_the_proxy_marker(tmp_path: Path) -> None:
    recording = FIXTURES / "backend_chatgpt.jsonl"  # Codex's headers (originator)
    assert not takes_transport(read_recording(recording).exchanges)
    out = run_cli("promote", str(recording), "-t", "1", "-o", str(tmp_path / "codex.jsonl"))
    assert out.returncode == 0, out.stderr
    assert '@pytest.mark.ctxscope_cassette("codex.jsonl", past_end="allow")' in out.stdout
    assert "this test's venv needs `pip install 'ctxscope[proxy]'`" in out.stdout
    over_http = read_recording(recording).exchanges[0].model_copy(update={"url": "https://api.test/v1/responses"})
    node = over_http.model_copy(update={"request_headers": {"x-stainless-lang": "js", "user-agent": "OpenAI/JS 6.1.0"}})
    assert not takes_transport([node])
    python = node.model_copy(
        update={"request_headers": {"x-stainless-lang": "python", "user-agent": "OpenAI/Python 2.5"}}
    )
    assert takes_transport([python])
    requests = node.model_copy(update={"request_headers": {"user-agent": "python-requests/2.32.3"}})
    assert not takes_transport([requests])  # requests takes no httpx transport
