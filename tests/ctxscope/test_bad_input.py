"""The bad-input sweep: every input below gets a one-line error (or a warning and a result), never a
traceback, and no input file is modified. In-process through `ctxscope.cli.main`."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxscope.proxy.model import Exchange
from ctxscope.proxy.store import RecordingWriter
from tests.cli_support import CliResult, run_cli

DEEP = 100_000


def _recording(path: Path, text: str = "hello", usage: object = None) -> Path:
    response = {"id": "resp_1", "status": "completed", "output": [], "usage": usage or {"input_tokens": 3}}
    with RecordingWriter(path) as writer:
        for turn in range(2):
            writer.write(
                Exchange(
                    id=-1,
                    started_at=1.0 + turn,
                    ended_at=2.0 + turn,
                    method="POST",
                    url="http://127.0.0.1/v1/responses",
                    endpoint="responses",
                    status=200,
                    request_body={
                        "model": "m",
                        "input": [{"type": "message", "role": "user", "content": f"{text} {turn}"}],
                    },
                    response=response,
                )
            )
    return path


def _append(path: Path, line: str) -> Path:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    return path


def _surrogate(path: Path) -> Path:
    """A recording whose user message holds a lone surrogate (valid JSON, not valid Unicode)."""
    rec = _recording(path)
    rec.write_text(rec.read_text(encoding="utf-8").replace("hello 1", "hello \\ud800 1"), encoding="utf-8")
    return rec


def _session(path: Path, entry_type: str, payload: str) -> Path:
    """A session file whose second entry has a payload of the wrong shape."""
    meta = '{"session_id":"s1","cwd":"/tmp"}'
    path.write_text(
        f'{{"id":"e1","parent_id":null,"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{meta}}}\n'
        f'{{"id":"e2","parent_id":"e1","timestamp":"2026-01-01T00:00:00Z","type":"{entry_type}",'
        f'"payload":{payload}}}\n'
    )
    return path


def _agent_on(d: Path, session: Path) -> list[str]:
    config = d / "config.toml"
    config.write_text('[providers.local]\nbase_url = "http://127.0.0.1:9/v1"\n')  # never reached
    return ["agent", "--config", str(config), "--provider", "local", "--session", str(session), "-p", "hi"]


LONG_NAME = "x" * 5000


def _script(path: Path, responses: object, raw: str | None = None) -> Path:
    path.write_text(
        raw if raw is not None else json.dumps({"format": "ctxscope-script", "responses": responses})
    )
    return path


Maker = Callable[[Path], list[str]]

CASES: dict[str, Maker] = {
    "deep JSON line in a recording (info)": lambda d: [
        "info",
        str(
            _append(_recording(d / "r.jsonl"), '{"kind":"blob","h":"x","v":' + "[" * DEEP + "]" * DEEP + "}")
        ),
    ],
    "deep JSON line in a recording (show)": lambda d: [
        "show",
        str(_append(_recording(d / "r.jsonl"), "[" * DEEP + "]" * DEEP)),
        "--turn",
        "1",
    ],
    "deep JSON header": lambda d: ["info", str(_append(d / "r.jsonl", "[" * DEEP + "]" * DEEP))],
    "$items is not an object": lambda d: [
        "export",
        str(
            _append(
                _recording(d / "r.jsonl"),
                '{"kind":"exchange","id":7,"method":"POST","url":"http://x/v1/responses","endpoint":"responses",'
                '"started_at":1,"ended_at":2,"request_body":{"input":{"$items":"oops"}}}',
            )
        ),
    ],
    "non-numeric usage (info)": lambda d: [
        "info",
        str(_recording(d / "r.jsonl", usage={"input_tokens": "lots"})),
    ],
    "a recording that is /dev/zero (info)": lambda d: ["info", "/dev/zero"],
    "a recording that is /dev/zero (export)": lambda d: ["export", "/dev/zero"],
    "a recording that is /dev/zero (diff)": lambda d: ["diff", "/dev/zero"],
    "a cassette that is /dev/zero (replay)": lambda d: ["replay", "/dev/zero"],
    "export -o /dev/full": lambda d: ["export", str(_recording(d / "r.jsonl")), "-o", "/dev/full"],
    "export onto its input": lambda d: ["export", str(_recording(d / "r.jsonl")), "-o", str(d / "r.jsonl")],
    "script: chunks is not a number": lambda d: [
        "replay",
        str(_script(d / "s.json", [{"text": "hi", "chunks": "many"}])),
    ],
    "script: an integer id": lambda d: ["replay", str(_script(d / "s.json", [{"text": "hi", "id": 7}]))],
    "script: a lone surrogate": lambda d: [
        "replay",
        str(_script(d / "s.json", None, raw='{"format": "ctxscope-script", "responses": ["\\ud800"]}')),
    ],
    "script: bad usage values": lambda d: [
        "replay",
        str(_script(d / "s.json", [{"text": "hi", "usage": {"input_tokens": "many"}}])),
    ],
    "script: nested 100k deep": lambda d: [
        "replay",
        str(
            _script(
                d / "s.json",
                None,
                raw='{"format": "ctxscope-script", "responses": ' + "[" * DEEP + "]" * DEEP + "}",
            )
        ),
    ],
    "proxy --upstream http://[::1": lambda d: [
        "proxy",
        "--listen",
        "127.0.0.1:0",
        "--upstream",
        "http://[::1",
    ],
    "replay --report in a read-only place": lambda d: [
        "replay",
        str(_recording(d / "r.jsonl")),
        "--listen",
        "127.0.0.1:0",
        "--report",
        "/proc/ctxscope-report.json",
    ],
    "replay --listen 0.0.0.0 without --allow-remote": lambda d: [
        "replay",
        str(_recording(d / "r.jsonl")),
        "--listen",
        "0.0.0.0:0",
    ],
    "demo --workdir /sys/x": lambda d: ["demo", "--workdir", "/sys/ctxscope-x"],
    # issue 21
    **{
        f"lone surrogate in a recording ({' '.join(cmd)})": (
            lambda d, cmd=cmd: [cmd[0], str(_surrogate(d / "r.jsonl")), *cmd[1:]]
        )
        for cmd in (["info"], ["export"], ["diff"], ["show", "--turn", "2"])
    },
    "lone surrogate in a recording (promote)": lambda d: [
        "promote",
        str(_surrogate(d / "r.jsonl")),
        "--turn",
        "1",
        "-o",
        str(d / "out" / "cassette.jsonl"),
    ],
    "lone surrogate in a recording (compare)": lambda d: [
        "compare",
        str(_surrogate(d / "r.jsonl")),
        str(_recording(d / "b.jsonl")),
    ],
    "lone surrogate in a recording (otel)": lambda d: [
        "otel",
        str(_surrogate(d / "r.jsonl")),
        "-o",
        str(d / "out" / "traces.json"),
    ],
    "lone surrogate in a recording (inspect --snapshot)": lambda d: [
        "inspect",
        str(_surrogate(d / "r.jsonl")),
        "--snapshot",
        str(d / "out" / "shot.svg"),
    ],
    "a 5,000-character file name (info)": lambda d: ["info", str(d / LONG_NAME)],
    "a 5,000-character file name (inspect)": lambda d: ["inspect", str(d / LONG_NAME)],
    "a 5,000-character file name (replay)": lambda d: ["replay", str(d / LONG_NAME)],
    "a 5,000-character file name (export -o)": lambda d: [
        "export",
        str(_recording(d / "r.jsonl")),
        "-o",
        str(d / LONG_NAME),
    ],
    "resend --body /dev/zero": lambda d: [
        "resend",
        str(_recording(d / "r.jsonl")),
        "--turn",
        "1",
        "--body",
        "/dev/zero",
        "--no-capture",
    ],
    "inspect --snapshot --size 100000x100000": lambda d: [
        "inspect",
        str(_recording(d / "r.jsonl")),
        "--snapshot",
        str(d / "out" / "shot.svg"),
        "--size",
        "100000x100000",
    ],
    "otel REC -o REC": lambda d: ["otel", str(_recording(d / "r.jsonl")), "-o", str(d / "r.jsonl")],
    "inspect REC --snapshot REC": lambda d: [
        "inspect",
        str(_recording(d / "r.jsonl")),
        "--snapshot",
        str(d / "r.jsonl"),
    ],
    "replay --report REC (refused at start)": lambda d: [
        "replay",
        str(_recording(d / "r.jsonl")),
        "--listen",
        "127.0.0.1:0",
        "--report",
        str(d / "r.jsonl"),
    ],
    "session: response_item without an item object": lambda d: _agent_on(
        d, _session(d / "s1.jsonl", "response_item", '{"item": "oops"}')
    ),
    "session: world_state whose state is a string": lambda d: _agent_on(
        d, _session(d / "s1.jsonl", "world_state", '{"state": "x"}')
    ),
    "session: compacted whose history is a number": lambda d: _agent_on(
        d, _session(d / "s1.jsonl", "compacted", '{"history": 5, "window": 1}')
    ),
    "session: model_switch to a number": lambda d: _agent_on(
        d, _session(d / "s1.jsonl", "model_switch", '{"to": 7}')
    ),
    # ---- agent config.toml (issue 20/21, sessions branch): keep these rows together ----
    "config: a typo (sandbox_mod)": lambda d: _agent_with_config(d, 'sandbox_mod = "read-only"\n'),
    "config: nested 100k deep": lambda d: _agent_with_config(d, "a = " + "[" * DEEP + "]" * DEEP + "\n"),
    "config: nested inline tables": lambda d: _agent_with_config(
        d, "a = " + "{b = " * 2000 + "1" + "}" * 2000
    ),
    "config: instructions_file = /dev/zero": lambda d: _agent_with_config(
        d, 'instructions_file = "/dev/zero"\n'
    ),
    "config: a value out of range": lambda d: _agent_with_config(d, "max_steps = 0\n"),
    "config: --config /dev/zero": lambda d: [
        *_agent_with_config(d, "")[:1],
        "--config",
        "/dev/zero",
        "-p",
        "hi",
    ],
}


def _agent_with_config(d: Path, text: str) -> list[str]:
    """`ctxscope agent -p` with this config.toml and a script model (nothing may be sent or hang)."""
    (d / "config.toml").write_text(text)
    script = _script(d / "s.json", [{"text": "hi"}])
    return [
        "agent",
        "--config",
        str(d / "config.toml"),
        "-p",
        "hi",
        "--provider",
        "script",
        "--script",
        str(script),
        "--no-capture",
    ]


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_a_one_line_error_and_leaves_inputs_alone(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "out").mkdir()
    args = CASES[case](tmp_path)
    before = _snapshot(tmp_path)
    started = time.monotonic()
    result: CliResult = run_cli(*args)  # fails on any traceback
    assert time.monotonic() - started < 60, "no hang: a bad input is refused at once"
    after = _snapshot(tmp_path)
    assert {p: after.get(p) for p in before} == before, "an input was modified"
    if result.returncode != 0:
        errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert result.returncode == 2 and len(errors) == 1, result.stderr
    else:  # a damaged line is skipped (or a lone surrogate shown as U+FFFD) and the rest is read
        assert case.startswith(("deep JSON line", "$items", "non-numeric", "lone surrogate")), result.stdout


def test_strings_over_a_megabyte_are_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = _recording(tmp_path / "big.jsonl", text="word " * 250_000)
    for args in (["show", str(rec), "--turn", "2"], ["diff", str(rec)], ["compare", str(rec), str(rec)]):
        result = run_cli(*args)
        assert result.returncode == 0, result.stderr


def test_a_remote_listen_address_warns_for_capture() -> None:
    from ctxscope.proxy.capture_cli import remote_warning

    assert remote_warning("127.0.0.1") is None and remote_warning("::1") is None
    assert remote_warning("localhost") is None
    warning = remote_warning("0.0.0.0")
    assert warning is not None and "reachable from the network" in warning


def test_resend_shows_string_usage_fields_as_written(tmp_path: Path) -> None:
    from ctxscope.proxy.testing import FakeUpstream, SseReply, response_stream, text_message

    rec = _recording(tmp_path / "r.jsonl", usage={"input_tokens": "lots", "output_tokens": "few"})
    before = rec.read_bytes()
    config = tmp_path / "config.toml"
    with FakeUpstream() as upstream:
        config.write_text(f'[providers.local]\nbase_url = "{upstream.url}/v1"\n')
        upstream.reply(SseReply(response_stream(text_message("ok"))))
        result = run_cli(
            "resend", str(rec), "--turn", "1", "--no-capture", "--config", str(config), "--provider", "local"
        )
    assert result.returncode == 0, result.stderr
    assert "input 'lots'" in result.stdout and "output 'few' tokens" in result.stdout
    assert rec.read_bytes() == before


def test_resend_refuses_to_capture_into_its_input_before_sending(tmp_path: Path) -> None:
    from ctxscope.proxy.testing import FakeUpstream, SseReply, response_stream, text_message

    rec = _recording(tmp_path / "r.jsonl")
    before = rec.read_bytes()
    config = tmp_path / "config.toml"
    with FakeUpstream() as upstream:
        config.write_text(f'[providers.local]\nbase_url = "{upstream.url}/v1"\n')
        upstream.reply(SseReply(response_stream(text_message("ok"))))
        result = run_cli(
            "resend",
            str(rec),
            "--turn",
            "1",
            "--capture",
            str(rec),
            "--config",
            str(config),
            "--provider",
            "local",
        )
        sent = len(upstream.requests)
    assert result.returncode == 2 and "is the input" in result.stderr, result.stderr
    assert sent == 0 and rec.read_bytes() == before
