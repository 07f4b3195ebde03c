"""The model catalog drives the request settings (reasoning, `text.verbosity`, parallel tool calls,
the apply_patch tool type, the base prompt), is editable in config.toml, and a model switch
changes them as Codex does; checked on the requests the real proxy recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.harness.config import load_config
from ctxscope.harness.model_catalog import model_info
from ctxscope.proxy.errors import ConfigError
from tests.harness.harness_support import labels, make_repo, run_agent, write_config, write_script


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def test_catalog_entries_shape_the_request(repo: Path, tmp_path: Path, ctxscope_home: Path) -> None:
    (tmp_path / "mini.md").write_text("Mini base prompt.\n", encoding="utf-8")
    write_config(
        ctxscope_home,
        tmp_path / "skills",
        extra=(
            '[models."gpt-mini"]\nverbosity = "high"\napply_patch_tool = "function"\n'
            'reasoning_effort = "low"\nreasoning_summary = ""\n'
            f'instructions_file = "{tmp_path / "mini.md"}"\n'
        ),
    )
    script = write_script(tmp_path / "s.json", [{"text": "one"}, {"text": "two"}, {"text": "three"}])
    models = {0: "gpt-5.5", 1: "gpt-mini", 2: "gpt-unknown"}

    def switch(runtime: object, i: int) -> None:
        runtime.agent.switch_model(models[i])  # type: ignore[attr-defined]

    run = run_agent(repo, script, ["a", "b", "c"], tmp_path / "cap.jsonl", commands=switch)
    known, configured, unknown = run.bodies()
    # gpt-5.5 as Codex 0.169 sends it: effort, low verbosity, parallel calls, freeform apply_patch.
    assert known["reasoning"] == {"effort": "medium"} and known["text"] == {"verbosity": "low"}
    assert known["parallel_tool_calls"] is True
    assert list(known)[:4] == ["model", "stream", "input", "tools"]
    patch = {t["name"]: t for t in known["tools"]}["apply_patch"]
    assert patch["type"] == "custom"
    # The config's table: its own reasoning, verbosity, a JSON apply_patch and its base prompt.
    assert configured["reasoning"] == {"effort": "low"} and configured["text"] == {"verbosity": "high"}
    patch = {t["name"]: t for t in configured["tools"]}["apply_patch"]
    assert patch["type"] == "function" and list(patch["parameters"]["properties"]) == ["input"]
    # The switch fragment carries the new base prompt; the skills catalog is re-sent after it.
    switch_text = configured["input"][-3]["content"][0]["text"]
    assert labels(configured, repo)[-2] == "developer[<skills_catalog>]"
    assert (
        labels(configured, repo)[-3].startswith("developer[<model_switch")
        and "Mini base prompt." in switch_text
    )
    # A model nobody described gets Codex's fallback: a reasoning summary, no `text`.
    assert unknown["reasoning"] == {"summary": "auto"} and "text" not in unknown


def test_explicit_config_settings_win_over_the_catalog(ctxscope_home: Path, tmp_path: Path) -> None:
    path = write_config(ctxscope_home, tmp_path / "skills", extra='reasoning_effort = "high"\n')
    options = load_config(path).request_options("gpt-5.5")
    assert (options.reasoning_effort, options.verbosity) == ("high", "low")


def test_apply_patch_can_be_withheld(repo: Path, tmp_path: Path, ctxscope_home: Path) -> None:
    write_config(ctxscope_home, tmp_path / "skills", extra='[models."gpt-test"]\napply_patch_tool = "none"\n')
    script = write_script(
        tmp_path / "s.json",
        [
            {"function_call": {"name": "apply_patch", "arguments": {"input": "*** Begin Patch"}}},
            {"text": "ok"},
        ],
    )
    run = run_agent(repo, script, ["a"], tmp_path / "cap.jsonl")
    first, second = run.bodies()
    assert "apply_patch" not in [t.get("name") for t in first["tools"]]
    assert "unknown tool 'apply_patch'" in second["input"][-1]["output"]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("colour = 1", "unknown key 'colour'"),
        ('context_window = "big"', "context_window must be a whole number"),
        ('apply_patch_tool = "diff"', "apply_patch_tool must be one of custom, function, none"),
        ("verbosity = 3", "verbosity must be a string"),
    ],
)
def test_bad_catalog_tables_are_one_line_errors(
    ctxscope_home: Path, tmp_path: Path, table: str, message: str
) -> None:
    path = write_config(ctxscope_home, tmp_path / "skills", extra=f'[models."m"]\n{table}\n')
    with pytest.raises(ConfigError, match=message) as err:
        load_config(path)
    assert "\n" not in str(err.value)


def test_built_in_entry_and_fallback() -> None:
    assert model_info("gpt-5.5").context_window == 272_000
    fallback = model_info("nobody-knows")
    assert not fallback.known and fallback.reasoning == {"summary": "auto"} and fallback.verbosity is None
