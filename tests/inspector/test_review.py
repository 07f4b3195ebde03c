"""Rough edges found in review: odd but possible requests, and how reports word them."""

from __future__ import annotations

from pathlib import Path

from inspector.analysis import analyse_recording
from tests.inspector.builders import Script, body, completed, initial_context, message
from tests.inspector.helpers import invoke


def test_instructions_that_are_not_a_string_are_diffed_and_counted(tmp_path: Path) -> None:
    script = Script()
    items = [*initial_context(), message("user", "hi")]
    listed = [{"type": "message", "role": "system", "content": "be brief"}]
    script.request(body(items, instructions=listed), response=completed("r1"))  # type: ignore[arg-type]
    script.request(
        body([*items, message("assistant", "ok"), message("user", "more")]), response=completed("r2")
    )
    path = script.write(tmp_path / "listed.jsonl")

    second = analyse_recording(path).turn(2)
    assert any('"content": "be brief"' in line for line in second.instructions_diff)
    assert analyse_recording(path).turn(1).tokens.by_kind["instructions"] > 0
    for args in (["diff", str(path), "--turn", "2"], ["show", str(path), "--turn", "1"]):
        proc = invoke(*args, "--no-color")
        assert proc.returncode == 0, proc.stderr
