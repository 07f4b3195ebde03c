"""The structural verdict of `ctxscope compare`: wording differences are not structure, a changed
key set is."""

from __future__ import annotations

from pathlib import Path

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.inspector.analysis.compare import compare_analyses
from tests.cli_support import run_cli
from tests.inspector.exchange_support import Script, body, call, completed, initial_context, message


def recording(path: Path, instructions: str, metadata: dict[str, str]) -> Path:
    script = Script()
    first = [*initial_context(), message("user", "list the files")]
    script.request(body(first, instructions=instructions), response=completed("resp_1"))
    second = [*first, *call("call_1", "ls"), message("user", "thanks")]
    script.request(
        body(second, instructions=instructions, client_metadata=metadata), response=completed("resp_2")
    )
    return script.write(path)


def test_wording_is_not_structure_but_a_metadata_key_is(tmp_path: Path) -> None:
    a = recording(tmp_path / "a.jsonl", "You are a coding agent.", {"x-codex-installation-id": "1"})
    b = recording(
        tmp_path / "b.jsonl",
        "You are a helpful coding agent, worded differently.",
        {"x-codex-installation-id": "2", "root_turn_id": "t"},
    )

    pairs = compare_analyses(analyse_recording(a), analyse_recording(b)).turns
    assert [p.same_structure for p in pairs] == [True, False]
    assert pairs[0].instructions  # the wording does differ, and is reported as such
    assert pairs[1].structure == ["metadata keys: only a [], only b ['root_turn_id']"]

    result = run_cli("compare", str(a), str(b))
    assert result.returncode == 0, result.stderr
    assert "turn 1: same structure" in result.stdout
    assert "turn 2: structure differs: metadata keys: only a [], only b ['root_turn_id']" in result.stdout
    markdown = run_cli("compare", str(a), str(b), "--format", "markdown")
    assert "- turn 1: same structure" in markdown.stdout, markdown.stdout + markdown.stderr
    assert "- turn 2: metadata keys" in markdown.stdout
