"""Streamed deltas are redacted against the text they assemble to; a stream without secrets is untouched."""

from __future__ import annotations

import json

from ctxscope.proxy.redact import Redactor, redact_events
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


def _joined(datas: list[str]) -> str:
    return "".join(json.loads(d)["delta"] for d in datas if d.startswith("{") and '"delta"' in d)


def test_a_stream_cut_inside_a_key_keeps_none_of_it() -> None:
    key = samples.OPENAI_KEY
    for cut_at in (6, 12, 19, 27):  # inside the prefix, at 19 (what survived before), further on
        red = Redactor()
        text = f"use {key[:cut_at]}"
        out = redact_events(red, [_delta(c) for c in text])  # one character per delta, no `.done`
        joined = _joined(out)
        assert joined == "use <redacted:cut:1>", cut_at
        # the response folded from the same events holds the stub too: it is found there as well
        assert red.text(f"output: {key[:cut_at]}") == "output: <redacted:cut:1>"
        if cut_at <= 12:  # ...as a token of its own: the same letters starting a longer name stay
            assert red.text(f"{key[:cut_at]}button-primary") == f"{key[:cut_at]}button-primary"


def test_a_finished_stream_ending_in_a_name_is_untouched_and_a_cut_prose_ending_too() -> None:
    done = json.dumps(
        {"type": "response.output_text.done", "item_id": "msg_1", "output_index": 0, "content_index": 0}
    )
    finished = [_delta(c) for c in "run git checkout sk-fix-1"] + [done]
    assert redact_events(Redactor(), finished) == finished
    prose = [_delta(c) for c in "the answer is interesting"]
    assert redact_events(Redactor(), prose) == prose


def test_a_key_streamed_one_character_per_delta_leaves_no_piece() -> None:
    for secret, text in [(samples.HF_QUOTED, f"token: {samples.HF_QUOTED} ok"), *samples.IN_TEXT[:6]]:
        done = json.dumps(
            {"type": "response.output_text.done", "item_id": "msg_1", "output_index": 0, "content_index": 0}
        )
        out = redact_events(Redactor(), [*(_delta(c) for c in text), done])
        joined = _joined(out)
        assert "<redacted:" in joined and not any(
            secret[i : i + 12] in joined for i in range(len(secret) - 11)
        )
