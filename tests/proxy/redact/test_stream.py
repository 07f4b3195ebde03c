"""Streamed deltas are redacted against the text they assemble to; a stream without secrets is untouched."""

from __future__ import annotations

import json

from proxy.redact import Redactor, redact_events
from tests.proxy.redact import samples_support as samples


def _delta(text: str, kind: str = "response.output_text.delta", **extra: object) -> str:
    event = {"type": kind, "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": text, **extra}
    return json.dumps(event, separators=(",", ":"))


def test_a_key_split_across_deltas_is_redacted_and_the_deltas_join_to_the_redacted_text() -> None:
    key = samples.OPENAI_KEY
    pieces = ["ok: sk", "-proj-", key[8:40], key[40:], " is it"]
    datas = [_delta(p) for p in pieces]
    done = json.dumps({"type": "response.output_text.done", "text": "".join(pieces)}, separators=(",", ":"))
    red = Redactor()
    out = redact_events(red, [*datas, done])
    joined = "".join(json.loads(d)["delta"] for d in out[:-1])
    assert joined == "ok: <redacted:api_key:1> is it"
    assert json.loads(out[-1])["text"] == joined  # the done event agrees with its deltas
    for chunk in (key[8:20], key[30:42], key[-12:]):
        assert not any(chunk in d for d in out)


def test_function_call_argument_deltas_and_logprobs() -> None:
    key = samples.GITHUB_CLASSIC
    args = json.dumps({"cmd": f"GH_TOKEN={key} gh pr list"})
    cut = [args[:20], args[20:30], args[30:]]
    datas = [_delta(c, "response.function_call_arguments.delta") for c in cut]
    text_pieces = [["ok ", key[:10]], [key[10:]]]
    datas += [
        _delta("".join(toks), logprobs=[{"token": t, "logprob": -1.0, "top_logprobs": []} for t in toks])
        for toks in text_pieces
    ]
    out = redact_events(Redactor(), datas)
    for d in out:
        assert key[4:20] not in d and key[-10:] not in d
    args_out = "".join(json.loads(d)["delta"] for d in out[:3])
    assert json.loads(args_out) == {"cmd": "GH_TOKEN=<redacted:github_token:1> gh pr list"}
    tokens = [lp["token"] for d in out[3:] for lp in json.loads(d)["logprobs"]]
    assert "".join(tokens) == "ok <redacted:github_token:1>"


def test_a_stream_without_secrets_is_kept_byte_for_byte() -> None:
    datas = [_delta(p) for p in ["Use the ", "sk-button", " class and ", "git checkout sk-fix-1"]]
    datas.append('{"type": "response.completed", "response": {"id": "resp_1", "output": []}}')
    datas.append("[DONE]")
    assert redact_events(Redactor(), datas) == datas
