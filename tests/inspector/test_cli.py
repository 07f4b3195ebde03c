"""`ctxscope diff / show / compare` as a real subprocess: formats, the JSON schema, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxscope.inspector.analysis import analyse_recording
from tests.cli_support import run_cli, run_cli_process


def test_diff_text_tells_what_changed(edge: Callable[[str], Path]) -> None:
    result = run_cli_process("diff", str(edge("world")), "--no-color")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "\x1b[" not in out
    assert "paths ./… are relative to /repo" in out
    for sentence in (
        "cwd . → ./pkg",
        "AGENTS.md replaced: . → ./pkg",
        "writable roots changed",
        "skill demo-skill selected",
        "goal set: ship the parser",
    ):
        assert sentence in out
    assert "turn 2" in out and "#2" not in out and "append" in out


def test_diff_colour_when_forced(edge: Callable[[str], Path]) -> None:
    result = run_cli("diff", str(edge("compaction")), "--color")
    assert result.returncode == 0, result.stderr
    assert "\x1b[" in result.stdout
    assert "compaction (request_kind compaction): 5 of 8 history items summarised" in result.stdout


def test_diff_json_follows_the_schema(edge: Callable[[str], Path]) -> None:
    result = run_cli("diff", str(edge("compaction")), "--format", "json", "--turn", "5")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["schema"] == "ctxscope-report/1" and doc["report"] == "diff"
    assert doc["tokenizer"] == {"name": "o200k_base", "estimated": False}
    assert [t["change"]["kind"] for t in doc["turns"]] == [
        "initial",
        "append",
        "append",
        "append",
        "compaction",
    ]
    row = doc["turns"][4]
    assert set(row) >= {
        "turn",
        "thread",
        "exchange",
        "transport",
        "endpoint",
        "model",
        "request_kind",
        "status",
        "error",
        "items",
        "sent_items",
        "change",
        "fragments_changed",
        "world_state_changes",
        "instructions_changed",
        "tools",
        "params",
        "tokens",
        "compaction",
        "notes",
    }
    assert row["compaction"]["trigger"] == "request_kind compaction"
    assert row["compaction"]["summarised"] == 5
    detail = doc["detail"]
    assert detail["turn"] == 5 and detail["compaction"]["summarised_items"]
    assert detail["removed_items"] and detail["added_items"][0]["parts"][0]["text"]
    [thread] = doc["threads"]
    assert thread == {"name": "T1", "id": "sess-A", "turns": [1, 2, 3, 4, 5], "forked_from": None} | {
        "side": None
    }


def test_diff_thread_filter_and_markdown(edge: Callable[[str], Path]) -> None:
    path = edge("fork")
    result = run_cli("diff", str(path), "--thread", "T2", "--format", "json")
    assert [t["turn"] for t in json.loads(result.stdout)["turns"]] == [3]
    md = run_cli("diff", str(path), "--format", "markdown")
    assert md.returncode == 0
    assert md.stdout.startswith("# ctxscope diff") and "| 3 | T2 | fork |" in md.stdout


def test_show_layout_and_raw(edge: Callable[[str], Path]) -> None:
    path = edge("world")
    result = run_cli("show", str(path), "--turn", "2", "--no-color")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.strip().startswith("0  developer[<permissions>, <skills_catalog>]") for line in lines)
    # paths relative to the first cwd, as `diff` writes them; the JSON keeps them absolute
    assert lines[1] == "paths ./… are relative to /repo"
    assert any("user[<agents_md:.>, <environment_context:cwd=.>]" in line for line in lines)
    assert any('user: "look around"' in line for line in lines)
    assert any("user[<selected_skill:demo-skill>]" in line for line in lines)
    raw = run_cli("show", str(path), "--turn", "2", "--raw")
    assert json.loads(raw.stdout)["model"] == "gpt-5.1-codex"
    # the body as sent, its input whole (read as a shared input, written as the list it reads as)
    sent = analyse_recording(path).turn(2).turn.exchange.request_body
    assert raw.stdout == json.dumps(sent, indent=2, ensure_ascii=False) + "\n" and json.loads(raw.stdout)["input"]
    doc = json.loads(run_cli("show", str(path), "--turn", "1", "--format", "json").stdout)
    assert doc["report"] == "show" and doc["layout"][0] == "developer[<permissions>, <skills_catalog>]"


def test_compare_two_recordings(edge: Callable[[str], Path], tmp_path: Path) -> None:
    a = edge("tools_reordered")
    b = edge("world")
    doc = json.loads(run_cli("compare", str(a), str(b), "--format", "json").stdout)
    assert doc["report"] == "compare" and doc["summary"]["turns_a"] == 3
    first = doc["turns"][0]
    assert first["items_diff"] == ['- user: "hi"', '+ user: "look around"']
    assert first["params"] == {} and first["headers"]["changed"] == {} and not first["tools"]["added"]
    second = doc["turns"][1]
    assert second["same"] is False and second["params"]["model"] == {"a": "gpt-5-codex", "b": "gpt-5.1-codex"}
    assert second["items_diff"]
    text = run_cli("compare", str(a), str(a), "--no-color")
    assert text.returncode == 0 and text.stdout.count(": same structure") == 3
    assert text.stdout.count(" same") - text.stdout.count(": same structure") == 3


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda p: p.write_text("hello, not json\n"), "is not a ctxscope recording"),
        (lambda p: p.write_text('{"some": "json"}\n'), "is not a ctxscope recording"),
        (lambda p: p.write_text(""), "is empty"),
        (lambda p: None, "does not exist"),
    ],
)
def test_bad_files_fail_with_one_line(tmp_path: Path, make: Callable[[Path], object], expected: str) -> None:
    path = tmp_path / "bad.jsonl"
    make(path)
    commands = [["diff", str(path)]]
    if expected == "is empty":  # every command goes through the same reader; check each once
        commands += [["show", str(path), "--turn", "1"], ["compare", str(path), str(path)]]
    for args in commands:
        result = run_cli(*args)
        assert result.returncode == 2
        assert result.stderr.startswith("error: ") and expected in result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_truncated_recording_loads_what_is_complete(edge: Callable[[str], Path]) -> None:
    path = edge("world")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 40])  # tear the last line
    result = run_cli("diff", str(path), "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert any("incomplete" in w for w in doc["warnings"])
    assert [t["turn"] for t in doc["turns"]] == [1, 2]


def test_turn_out_of_range_and_unknown_thread(edge: Callable[[str], Path]) -> None:
    path = edge("world")
    result = run_cli("show", str(path), "--turn", "9")
    assert result.returncode == 2 and result.stderr == f"error: there is no turn 9: {path} has turns 1–3\n"
    result = run_cli("diff", str(path), "--thread", "T7")
    assert result.returncode == 2 and "there is no thread 'T7'" in result.stderr


def test_non_responses_recording_reports_and_shows_unknowns(edge: Callable[[str], Path]) -> None:
    path = edge("odd_input")
    result = run_cli("diff", str(path), "--no-color")
    assert result.returncode == 0, result.stderr
    assert "is not a Responses request; skipped" in result.stdout
    shown = run_cli("show", str(path), "--turn", "1", "--no-color")
    assert "unknown:mystery_item" in shown.stdout and "unknown_part:input_audio" in shown.stdout


def test_compare_api_key_with_chatgpt_backend(edge: Callable[[str], Path]) -> None:
    a, b = str(edge("backend_apikey")), str(edge("backend_chatgpt"))
    doc = json.loads(run_cli("compare", a, b, "--format", "json").stdout)
    repeated = ["endpoint", "transport", "headers", "params"]  # the same way in both turns, nothing else
    summary = doc["summary"]
    assert summary.pop("raw") is False and "A's working directory /repo (<cwd>)" in summary.pop("normalised")
    assert summary == {
        "turns_a": 2,
        "turns_b": 2,
        "same_turns": 0,
        "repeated_differences": repeated,
        "identical_apart_from": repeated,
        "verdicts": {"same_apart": 2},  # one verdict, as the TUI counts it too
    }
    first = doc["turns"][0]
    assert first["endpoint"] == [
        "https://api.openai.com/v1/responses",
        "wss://chatgpt.com/backend-api/codex/responses",
    ]
    assert first["transport"] == ["http", "websocket"]
    assert first["headers"]["only_a"] == ["openai-organization"]
    assert first["headers"]["only_b"] == ["chatgpt-account-id"]
    assert first["params"] == {"service_tier": {"a": None, "b": "priority"}}
    assert first["body_keys"] == {"only_a": [], "only_b": []}
    assert first["items_diff"] == [] and first["instructions_diff"] == [] and not first["tools"]["changed"]
    md = run_cli("compare", a, b, "--format", "markdown")
    assert "**Identical apart from:** endpoint, transport, headers, params" in md.stdout
    assert md.stdout.count("- endpoint https://api.openai.com/v1/responses ≠ wss://") == 1
    assert "| 1 | apart from the above |  |" in md.stdout and "| 2 | apart from the above |  |" in md.stdout


def test_without_the_tokenizer_counts_are_labelled_estimates(edge: Callable[[str], Path]) -> None:
    code = (
        "import sys, json; sys.modules['bpe_openai'] = None\n"  # as if the package were not installed
        "from inspector import analyse_recording, diff_report\n"
        f"doc = diff_report(analyse_recording({str(edge('world'))!r})).wire()\n"
        "print(json.dumps([doc['tokenizer'], doc['turns'][0]['tokens']['estimated'],"
        " doc['turns'][0]['tokens']['total']]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    tokenizer, estimated, total = json.loads(proc.stdout)
    assert tokenizer == {"name": "estimate (chars/4)", "estimated": True} and estimated is True and total > 0


def test_compare_says_a_difference_every_turn_shares_once(edge: Callable[[str], Path]) -> None:
    # Different tasks (items differ per turn), but every aligned turn has the same endpoint and header
    # difference: said once before the turns, not on each, and not "identical apart from".
    a, b = str(edge("backend_apikey")), str(edge("world"))
    doc = json.loads(run_cli("compare", a, b, "--format", "json").stdout)
    assert doc["summary"]["repeated_differences"] == ["endpoint", "headers"]
    assert doc["summary"]["identical_apart_from"] is None
    assert all(p["endpoint"] for p in doc["turns"] if p["a_turn"] and p["b_turn"])
    text = run_cli("compare", a, b, "--no-color", env={"COLUMNS": "200"}).stdout
    assert "every aligned turn differs in: endpoint, headers" in text
    assert text.count("· endpoint: ") == 1 and text.count("· headers: ") == 1
    assert text.count(" differs\n") == 2 and "identical apart from" not in text
    md = run_cli("compare", a, b, "--format", "markdown").stdout
    assert "**Every aligned turn differs in:** endpoint, headers" in md and md.count("- endpoint ") == 1
    assert "| 1 | no | items - user:" in md  # the rows keep what differs only there
