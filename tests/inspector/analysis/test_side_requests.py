"""Codex's session-title requests (`thread_source: "thread_title"`) are side requests, folded together."""

from __future__ import annotations

import json
from pathlib import Path

from inspector.analysis import analyse_recording
from tests.cli_support import run_cli
from tests.inspector.exchange_support import Script, body, completed, initial_context, message


def _headers(thread: str, source: str) -> dict[str, str]:
    meta = {"thread_id": thread, "thread_source": source, "request_kind": "turn"}
    return {"session-id": thread, "x-codex-turn-metadata": json.dumps(meta)}


def _recording(path: Path) -> Path:
    script = Script()
    context = initial_context()
    first = [*context, message("user", "fix the parser")]
    second = [*first, message("assistant", "done."), message("user", "now the lexer")]
    for number, (items, ask) in enumerate(((first, "fix the parser"), (second, "now the lexer")), start=1):
        main = _headers("main", "user")
        script.request(body(items), response=completed(f"resp_main{number}"), headers=main)
        title = [message("user", f"Write a short title for: {ask}")]
        script.request(
            body(title, tools=[]),
            response=completed(f"resp_title{number}", [message("assistant", "Parser fix")]),
            headers=_headers(f"title-{number}", "thread_title"),  # each on a thread of its own
        )
    return script.write(path)


def test_title_requests_are_side_requests_in_one_folded_thread(tmp_path: Path) -> None:
    analysis = analyse_recording(_recording(tmp_path / "titles.jsonl"))
    [main, side] = analysis.threads
    assert main.side is None and [t.number for t in main.turns] == [1, 3]
    assert side.side == "thread_title" and [t.number for t in side.turns] == [2, 4]
    assert [t.turn.side for t in analysis.turns] == [None, "thread_title", None, "thread_title"]
    # the conversation's second turn still follows its first
    assert analysis.turns[2].change.kind == "append"

    out = run_cli("diff", str(tmp_path / "titles.jsonl")).stdout
    assert "thread S1  2 side requests (thread_title), folded: turns 2, 4" in out
    assert "turn 2 " not in out and "turn 3 " in out
    doc = json.loads(run_cli("diff", str(tmp_path / "titles.jsonl"), "--format", "json").stdout)
    assert [t["side"] for t in doc["threads"]] == [None, "thread_title"]
