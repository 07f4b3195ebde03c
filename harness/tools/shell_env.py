"""The environment a model-written command runs with: the agent's own, minus its credentials.

One `env` or `printenv` would otherwise put every credential of the agent's shell into a tool output,
and from there into the model's context, the session and the recording. The rule:

- by name: a variable whose name marks a credential is withheld. That is the redactor's rule
  (`ctxscope.proxy.redact.is_secret_name`: `password`, `secret`, `credential`, `cookie`, `dsn`, `jwt`, ...
  anywhere, or ending in `_TOKEN`, `_KEY`, `_AUTH`, `_PAT`, `_PASS`, `_PWD`: `OPENAI_API_KEY`,
  `GH_PAT`, `SENTRY_DSN`, `DB_PWD`) plus what environment names do that JSON keys do not: words glued
  together (`PGPASSWORD`, `HTPASSWD`, `SSHPASS`, `GHTOKEN`) and `auth` anywhere (`DOCKER_AUTH_CONFIG`,
  `NPM_CONFIG__AUTH`, `REDISCLI_AUTH`);
- by value: a value that holds a secret-shaped string (a vendor key, a JWT, a credential assignment
  such as the `"auth"` of a Docker config), or is a URL with a password in its userinfo
  (`REDIS_URL=redis://:pw@cache`, `DATABASE_URL=postgres://app:pw@db/x`), is withheld whatever its name;
- names on the allow-list (`[shell_environment] allow` in config.toml; `*` matches any run of
  characters, `MY_TOKEN_*`) pass through on purpose, and so does anything the caller sets explicitly.

The shell profile: commands run in a login shell (`bash -lc`, as Codex does), which sources the user's
profile. That profile belongs to the machine, not to the session: on one with pyenv it runs
`pyenv init`, whose `mktemp` in `~/.pyenv/shims` fails inside the workspace-write sandbox, and every
tool output starts with that error. A run that must show only its own outputs (the demo, the tour)
gives commands `without_user_profile(home)`: an empty HOME of its own and no `BASH_ENV`/`ENV`, so
the login shell reads the system profile only.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from ctxscope.proxy.redact import Redactor, is_secret_name
from ctxscope.proxy.redact.names import name_words

__all__ = ["command_environment", "withheld", "without_user_profile"]

_GLUED = ("password", "passwd", "passphrase", "secret", "credential")
"""A name word containing one of these marks a credential (`PGPASSWORD`, `HTPASSWD`)."""
_GLUED_ENDINGS = ("pass", "token")
"""A name word ending in one of these does too (`SSHPASS`, `GHTOKEN`) ..."""
_NOT_CREDENTIAL_WORDS = frozenset({"askpass", "bypass", "compass", "passthrough"})
"""... but not these: `SSH_ASKPASS` names a program, not a secret."""
_ANYWHERE = frozenset({"auth", "oauth"})


def _secret_env_name(name: str) -> bool:
    if is_secret_name(name, "env"):
        return True
    for word in name_words(name):
        if word in _NOT_CREDENTIAL_WORDS:
            continue
        if word in _ANYWHERE or any(part in word for part in _GLUED):
            return True
        # Only glued: `TOKEN_COUNT` is a counter (a lone `token` or `pass` is `is_secret_name`'s to judge).
        if word.endswith(_GLUED_ENDINGS) and word not in _GLUED_ENDINGS:
            return True
    return False


def _url_password(value: str) -> bool:
    """Whether `value` is a URL whose userinfo holds a password (`scheme://[user]:pw@host`)."""
    if "://" not in value or "@" not in value:
        return False
    try:
        return bool(urlsplit(value.strip()).password)
    except ValueError:  # a malformed port or bracket: not a URL this can read; the shape check still runs
        return False


_REDACTOR = Redactor()


def _secret_env_value(value: str) -> bool:
    # The redactor's text rules (shapes and credential assignments) find what it would redact in a
    # recording; a command is not handed what a recording would not keep.
    return _url_password(value) or _REDACTOR.text(value) != value


def withheld(name: str, value: str, allow: Iterable[str] = ()) -> bool:
    """True when `name=value` is a credential a command should not see (see the module docstring)."""
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in allow):
        return False
    return _secret_env_name(name) or _secret_env_value(value)


def command_environment(base: Mapping[str, str], allow: Iterable[str] = ()) -> dict[str, str]:
    """`base` without the variables `withheld` names."""
    patterns = tuple(allow)
    return {name: value for name, value in base.items() if not withheld(name, value, patterns)}


def without_user_profile(home: Path) -> dict[str, str]:
    """Variables that keep the user's shell profile out of a login shell: HOME is `home` (created,
    empty), and `BASH_ENV` / `ENV` (read by non-interactive bash and sh) are emptied. Laid over a
    command's environment (`ToolContext.env`)."""
    home.mkdir(parents=True, exist_ok=True)
    return {"HOME": str(home), "BASH_ENV": "", "ENV": ""}
