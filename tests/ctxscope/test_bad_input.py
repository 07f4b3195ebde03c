"""The bad-input sweep: every input below gets a one-line error (or a warning and a result), never a
traceback, and no input file is modified. In-process through `ctxscope.cli.main`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from proxy.model import Exchange
from proxy.store import RecordingWriter
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
    args = CASES[case](tmp_path)
    before = _snapshot(tmp_path)
    result: CliResult = run_cli(*args)  # fails on any traceback
    assert _snapshot(tmp_path) == before, "an input was modified"
    if result.returncode != 0:
        errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert result.returncode == 2 and len(errors) == 1, result.stderr
    else:  # a damaged line is skipped and the rest is read
        assert case.startswith(("deep JSON line", "$items", "non-numeric")), result.stdout


def test_strings_over_a_megabyte_are_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = _recording(tmp_path / "big.jsonl", text="word " * 250_000)
    for args in (["show", str(rec), "--turn", "2"], ["diff", str(rec)], ["compare", str(rec), str(rec)]):
        result = run_cli(*args)
        assert result.returncode == 0, result.stderr


def test_a_remote_listen_address_warns_for_capture() -> None:
    from proxy.capture_cli import remote_warning

    assert remote_warning("127.0.0.1") is None and remote_warning("::1") is None
    assert remote_warning("localhost") is None
    warning = remote_warning("0.0.0.0")
    assert warning is not None and "reachable from the network" in warning
