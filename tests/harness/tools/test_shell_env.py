"""The model's shell does not inherit the agent's credentials: a documented rule plus a config allow-list."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_support import call, make_router

from harness.config import load_config
from harness.tools.shell_env import command_environment

PLANTED = {
    "GH_PAT": "ghpat0123456789abcdef",
    "DATABASE_URL": "postgres://app:PLANTEDdbpass@db:5432/prod",
    "MY_SERVICE_AUTH": "PLANTEDauth",
    "ORACLE_PWD": "PLANTEDpwd",
    "SENTRY_DSN": "https://PLANTEDdsn@o1.example.io/4",
    "GH_TOKEN": "PLANTEDtoken",
    "AWS_SECRET_ACCESS_KEY": "PLANTEDaws",
    "SOME_SETTING": "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5q" * 3,  # a key under an innocent name
}
KEPT = {"PWD": "/home/u/repo", "HOME": "/home/u", "TOKEN_COUNT": "5", "APP_URL": "https://app.example/x"}


def test_the_rule_withholds_credentials_by_name_and_by_value() -> None:
    env = command_environment({**PLANTED, **KEPT})
    assert env == KEPT


def test_the_allow_list_passes_names_on_purpose() -> None:
    env = command_environment({**PLANTED, **KEPT}, allow=["GH_*", "ORACLE_PWD"])
    assert env["GH_PAT"] == PLANTED["GH_PAT"] and env["GH_TOKEN"] == PLANTED["GH_TOKEN"]
    assert env["ORACLE_PWD"] == PLANTED["ORACLE_PWD"] and "DATABASE_URL" not in env


def test_env_in_a_command_shows_none_of_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {**PLANTED, **KEPT}.items():
        monkeypatch.setenv(name, value)
    out = call(make_router(tmp_path), "exec_command", {"cmd": "env"})
    for value in PLANTED.values():
        assert value not in out
    assert "TOKEN_COUNT=5" in out


def test_the_allow_list_comes_from_config(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[shell_environment]\nallow = ["GH_PAT"]\n')
    assert load_config(config).shell_env_allow == ("GH_PAT",)
    config.write_text('[shell_environment]\nallow = "GH_PAT"\n')
    with pytest.raises(Exception, match=r"allow must be a list"):
        load_config(config)
