"""A changed tool is shown as its change: the field, its old and new text, in `compare` and `diff`, in
text, markdown and JSON. Checked on two real captures of the same task with Codex 0.169.0 and 0.171.0
(committed: `tests/fixtures/codex/make_codex_fixtures.py`), whose `exec_command` tool rewrote the
description of its `login` parameter."""

from __future__ import annotations

import json
from pathlib import Path

from ctxscope.proxy.replay.matching import json_diff
from ctxscope.proxy.replay.tool_diff import diff_tools
from tests.cli_support import run_cli

CODEX = Path(__file__).parents[1] / "fixtures" / "codex"
OLD = "True runs the shell with -l/-i semantics; false disables them. Defaults to true."
NEW = "Request login-shell startup. Omit to inherit."
PATH = "parameters.properties.login.description"


def _compare(*args: str) -> str:
    result = run_cli("compare", str(CODEX / "codex-0.169.0.jsonl"), str(CODEX / "codex-0.171.0.jsonl"), *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_compare_prints_the_login_description_old_and_new() -> None:
    text = _compare()
    lines = [line.strip() for line in text.splitlines()]
    at = lines.index(f"{PATH}:")
    assert lines[at + 1 : at + 3] == [f"-{OLD}", f"+{NEW}"], text
    assert lines[at - 1] == "~exec_command"


def test_compare_json_and_markdown_carry_the_change() -> None:
    doc = json.loads(_compare("--format", "json"))
    for pair in doc["turns"]:
        assert pair["tools"]["changed"] == {"exec_command": [f"{PATH}:", f"-{OLD}", f"+{NEW}"]}
    markdown = _compare("--format", "markdown")
    assert f"`-{OLD}`" in markdown and f"`+{NEW}`" in markdown


def test_diff_shows_a_tool_change_as_text() -> None:
    rec = Path(__file__).parents[1] / "fixtures" / "inspector" / "tools_reordered.jsonl"
    text = run_cli("diff", str(rec), "--turn", "3").stdout
    assert "tool exec_command changed:" in text and '+parameters.properties.workdir: {"type": "string"}' in text
    doc = json.loads(run_cli("diff", str(rec), "--format", "json").stdout)
    workdir = '+parameters.properties.workdir: {"type": "string"}'
    assert doc["turns"][2]["tools"]["changed"] == {"exec_command": [workdir]}


def test_strict_replay_and_the_inspector_read_one_diff() -> None:
    old = [{"type": "function", "name": "t", "parameters": {"required": ["a", "b"], "properties": {}}}]
    new = [{"type": "function", "name": "t", "parameters": {"required": ["b", "a"], "properties": {}}}]
    assert diff_tools(old, new).empty and json_diff(old, new) == [], "required is a set: order is no change"
    new[0]["description"] = "new"
    old[0]["description"] = "old"
    diff = diff_tools(old, new)
    assert diff.changed == {"t": ["description:", "-old", "+new"]}
    assert json_diff(old, new) == ["tools[name=t].description differs: at char 0: recorded 'old' vs live 'new'"]
