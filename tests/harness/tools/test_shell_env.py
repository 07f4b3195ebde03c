"""The model's shell does not inherit the agent's credentials: a documented rule plus a config allow-list."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_support import call, make_router

from ctxscope.harness.config import load_config
from ctxscope.harness.tools.shell_env import command_environment

PLANTED = {
    "GH_PAT": "ghpat0123456789abcdef",
    "DATABASE_URL": "postgres://app:PLANTEDdbpass@db:5432/prod",
    "MY_SERVICE_AUTH": "PLANTEDauth",
    "ORACLE_PWD": "PLANTEDpwd",
    "SENTRY_DSN": "https://PLANTEDdsn@o1.example.io/4",
    "GH_TOKEN": "PLANTEDtoken",
    "AWS_SECRET_ACCESS_KEY": "PLANTEDaws",
    "SOME_SETTING": "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5q" * 3,  # a key under an innocent name
    # Names glued together or with `auth` inside, as tools spell them.
    "PGPASSWORD": "PLANTEDpg",
    "SSHPASS": "PLANTEDssh",
    "TWINE_PASSWORD": "PLANTEDtwine",
    "LDAP_BIND_PASSWD": "PLANTEDldap",
    "HTPASSWD": "PLANTEDht",
    "DOCKER_AUTH_CONFIG": '{"auths":{"registry.example":{"auth":"dXNlcjpQTEFOVEVE"}}}',
    "REDISCLI_AUTH": "PLANTEDredis",
    "CODECOV_TOKEN": "PLANTEDcodecov",
    "GHTOKEN": "PLANTEDgh",
    # Values: URLs with a password in their userinfo (no user, percent-encoded), under innocent names.
    "REDIS_URL": "redis://:PLANTEDrpw@cache:6379/0",
    "BROKER": "amqp://guest:PLANTED%40pw@mq.example:5672/",
    "HTTPS_PROXY": "http://me:PLANTEDproxy@proxy.example:3128",
    "REGISTRY_CONFIG": '{"username":"u","password":"PLANTEDjson"}',
}
KEPT = {
    "PWD": "/home/u/repo",
    "OLDPWD": "/home/u",
    "HOME": "/home/u",
    "TOKEN_COUNT": "5",
    "TOKENIZERS_PARALLELISM": "false",
    "APP_URL": "https://app.example/x",
    "REDIS_HOST_URL": "redis://cache:6379/0",
    "MIRROR": "https://user@mirror.example/simple",  # a user name, no password
    "SSH_ASKPASS": "/usr/bin/ssh-askpass",
    "HTTP_PROXY": "http://proxy.example:3128",
}


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
