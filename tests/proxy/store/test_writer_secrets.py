"""What the writer itself must redact: provider headers named in config, placeholders across appends."""

from __future__ import annotations

from pathlib import Path

from ctxscope.proxy.model import Exchange
from ctxscope.proxy.store import RecordingWriter, read_recording
from tests.proxy.redact import samples_support as samples


def _exchange(headers: dict[str, str], text: str = "hi") -> Exchange:
    return Exchange(
        id=-1,
        started_at=1.0,
        ended_at=2.0,
        method="POST",
        url="https://api.example/v1/responses",
        endpoint="responses",
        status=200,
        request_headers=headers,
        request_body={"model": "m", "input": [{"type": "message", "role": "user", "content": text}]},
    )


def test_custom_provider_headers_from_config_are_redacted(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with RecordingWriter(path, secret_headers=["X-Team-Pass"]) as writer:
        writer.write(_exchange({"X-Team-Pass": "PLANTEDteam0001", "X-Team": "a"}))
    assert "PLANTEDteam0001" not in path.read_text()
    headers = read_recording(path).exchanges[0].request_headers
    assert headers["X-Team-Pass"] == "<redacted:password:1>" and headers["X-Team"] == "a"


def test_a_later_run_numbers_new_secrets_after_the_existing_ones(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with RecordingWriter(path) as writer:
        writer.write(_exchange({}, f"key {samples.OPENAI_KEY}"))
    with RecordingWriter(path) as writer:
        writer.write(_exchange({}, f"key {samples.ANTHROPIC_KEY}"))
    texts = [e.request_body["input"][0]["content"] for e in read_recording(path).exchanges]
    assert texts == ["key <redacted:api_key:1>", "key <redacted:api_key:2>"]
