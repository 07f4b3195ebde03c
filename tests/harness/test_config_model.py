"""Configuration is one typed model: unknown keys refused with the closest one suggested, Literal
values and ranges checked, Codex's key names read the same, and each setting declared once for
config.toml, the `ctxscope agent` options and `AgentOptions`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxscope.harness.config import HarnessConfig, load_config
from ctxscope.harness.runtime import AgentOptions, AgentRuntime
from ctxscope.harness.settings import flags, settings_of
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.testing import FakeUpstream, SseReply, response_stream, text_message
from tests.cli_support import run_cli
from tests.harness.harness_support import PINNED_CONTEXT, make_repo, write_script


def _load(tmp_path: Path, text: str) -> HarnessConfig:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def _refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as err:
        _load(tmp_path, text)
    message = str(err.value)
    assert "\n" not in message and str(tmp_path / "config.toml") in message
    return message


def test_a_typo_is_refused_with_the_closest_key(tmp_path: Path) -> None:
    message = _refused(tmp_path, 'sandbox_mod = "read-only"\n')
    assert (
        message
        == f"unknown setting 'sandbox_mod' in {tmp_path / 'config.toml'} (did you mean 'sandbox_mode'?)"
    )
    assert "did you mean 'approval_policy'" in _refused(tmp_path, 'aproval_policy = "never"\n')
    assert "did you mean 'max_retries'" in _refused(tmp_path, "[retry]\nmax_retrys = 1\n")
    assert "in [retry]" in _refused(tmp_path, "[retry]\nmax_retrys = 1\n")


def test_a_config_typo_through_the_agent_is_one_line_and_exit_2(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('sandbox_mod = "read-only"\n', encoding="utf-8")
    script = write_script(tmp_path / "s.json", [{"text": "hi"}])
    result = run_cli(
        "agent",
        "--config",
        str(config),
        "-p",
        "hi",
        "--provider",
        "script",
        "--script",
        str(script),
        "--no-capture",
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"error: unknown setting 'sandbox_mod' in {config} (did you mean 'sandbox_mode'?)"
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'sandbox = "read-onyl"',
            "unknown sandbox 'read-onyl' in .*: use one of read-only, "
            "workspace-write, danger-full-access \\(did you mean 'read-only'\\?\\)",
        ),
        ('approval_policy = "on-failure"', "unknown approval policy 'on-failure'"),
        ('model_reasoning_effort = "extreme"', "unknown reasoning effort 'extreme'"),
        ('compaction = "cloud"', "unknown compaction 'cloud'"),
        ('plan_profile = "cursor"', "unknown plan profile 'cursor'"),
        ("max_steps = 0", "max_steps must be at least 1, not 0"),
        ("model_context_window = -5", "model_context_window must be at least 1, not -5"),
        ("max_goal_turns = true", "max_goal_turns must be a whole number"),
        ('file_tools = "yes"', "file_tools must be true or false"),
        ("[retry]\nidle_timeout = 0", r"\[retry\] idle_timeout must be more than 0"),
        ("[shell_environment]\nallow = [1]", "must be a list of strings"),
        (
            '[model_providers.local]\nbase_url = "http://x"\nrequest_max_retries = 0',
            "unknown key 'request_max_retries'",
        ),
        ('[model_providers.local]\nwire_api = "chat"', "unknown .*'chat'"),
        (
            'sandbox = "read-only"\nsandbox_mode = "read-only"',
            "sandbox and sandbox_mode .* are the same setting",
        ),
        ('[models."m"]\ncolour = 1', "unknown key 'colour'"),
    ],
)
def test_values_are_typed_and_ranged(tmp_path: Path, text: str, message: str) -> None:
    import re

    assert re.search(message, _refused(tmp_path, text + "\n"))


CODEX_CONFIG = """\
model = "gpt-5.5"
model_provider = "local"
sandbox_mode = "read-only"
approval_policy = "never"
model_reasoning_effort = "high"
model_reasoning_summary = "detailed"
model_verbosity = "medium"
developer_instructions = "Be brief."
model_instructions_file = "BASE_MD"

[model_providers.local]
name = "local"
base_url = "BASE"
wire_api = "responses"
env_key = "LOCAL_KEY"
http_headers = { "X-Team" = "blue" }
"""

OWN_CONFIG = """\
model = "gpt-5.5"
provider = "local"
sandbox = "read-only"
approval = "never"
reasoning_effort = "high"
reasoning_summary = "detailed"
verbosity = "medium"
developer_instructions = "Be brief."
instructions_file = "BASE_MD"

[providers.local]
name = "local"
base_url = "BASE"
wire_api = "responses"
env_key = "LOCAL_KEY"
headers = { "X-Team" = "blue" }
"""


def test_a_codex_config_reads_the_same_and_its_request_carries_it(
    tmp_path: Path, ctxscope_home: Path, upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = f"{upstream.url}/v1"
    prompt = tmp_path / "base.md"
    prompt.write_text("You are a careful agent.\n", encoding="utf-8")
    codex = _load(tmp_path, CODEX_CONFIG.replace("BASE_MD", str(prompt)).replace("BASE", base))
    (tmp_path / "own").mkdir()
    own = _load(tmp_path / "own", OWN_CONFIG.replace("BASE_MD", str(prompt)).replace("BASE", base))
    assert codex.model_dump(exclude={"source"}) == own.model_dump(exclude={"source"})
    assert (codex.sandbox, codex.approval, codex.provider) == ("read-only", "never", "local")
    monkeypatch.setenv("LOCAL_KEY", "k-123456789")
    upstream.reply(SseReply(response_stream(text_message("ok"))))
    repo = make_repo(tmp_path)
    options = AgentOptions(
        cwd=repo,
        config_path=tmp_path / "config.toml",
        no_capture=True,
        context_overrides=dict(PINNED_CONTEXT),
    )
    with AgentRuntime(options) as runtime:
        assert runtime.agent is not None
        runtime.agent.run_turn("hi")
    (request,) = upstream.requests
    body = request.json()
    assert body["reasoning"] == {"effort": "high", "summary": "detailed"} and body["text"] == {
        "verbosity": "medium"
    }
    assert request.headers["x-team"] == "blue" and request.headers["authorization"] == "Bearer k-123456789"
    metadata = json.loads(body["client_metadata"]["x-codex-turn-metadata"])
    assert metadata["sandbox_mode"] == "read-only"
    assert "Be brief." in json.dumps(body["input"])
    assert body["input"][0]["content"][0]["text"] == "You are a careful agent.\n"  # the base prompt


def test_deep_nesting_and_special_files_are_one_line_errors(tmp_path: Path) -> None:
    assert "nested too deeply" in _refused(tmp_path, "a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    config = _load(tmp_path, 'instructions_file = "/dev/zero"\n')
    with pytest.raises(ConfigError, match="instructions file /dev/zero is not a regular file"):
        config.instructions_for("m")
    big = tmp_path / "big.md"
    with big.open("wb") as f:
        f.truncate((4 << 20) + 1)  # sparse: no 4 MiB written
    with pytest.raises(ConfigError, match="is over 4 MiB"):
        _load(tmp_path, f'instructions_file = "{big}"\n').instructions_for("m")
    with pytest.raises(ConfigError, match="is not a regular file"):
        load_config(Path("/dev/zero"))


def test_one_declaration_serves_the_file_the_flags_and_agent_options(
    tmp_path: Path, ctxscope_home: Path
) -> None:
    declared = settings_of(HarnessConfig)
    # Each flag of `ctxscope agent` that is a setting comes from the declaration, with its help.
    shown = run_cli("agent", "--help").stdout
    for _name, (_info, setting) in flags(HarnessConfig).items():
        assert setting.flag is not None and setting.flag in shown
    assert "Codex: sandbox_mode" in shown
    # AgentOptions takes any declared setting by name, and refuses what is none.
    options = AgentOptions(sandbox="read-only", compaction="remote", max_goal_turns=3)
    assert options.settings == {"sandbox": "read-only", "compaction": "remote", "max_goal_turns": 3}
    with pytest.raises(ConfigError, match=r"unknown setting 'sandbox_mod' \(did you mean 'sandbox'\?\)"):
        AgentOptions(sandbox_mod="read-only")
    script = write_script(tmp_path / "s.json", [{"text": "hi"}])
    repo = make_repo(tmp_path)
    options = AgentOptions(
        provider="script", script=script, cwd=repo, no_capture=True, **{"compaction": "remote"}
    )
    with AgentRuntime(options) as runtime:
        assert runtime.config.compaction == "remote" and runtime.config.script == script
    with pytest.raises(ConfigError, match="unknown compaction 'cloud': use one of local, remote, remote_v2"):
        AgentRuntime(AgentOptions(provider="script", script=script, compaction="cloud"))
    assert {"sandbox", "approval", "model", "retry", "providers"} <= set(declared)
