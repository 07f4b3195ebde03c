"""The environment a model-written command runs with: the agent's own, minus its credentials.

One `env` or `printenv` would otherwise put every credential of the agent's shell into a tool output,
and from there into the model's context, the session and the recording. The rule:

- a variable whose name marks a credential is withheld (`proxy.redact.is_secret_name`: names with
  `password`, `secret`, `credential`, `cookie`, `dsn`, `jwt`, ... anywhere, or ending in `_TOKEN`,
  `_KEY`, `_AUTH`, `_PAT`, `_PASS`, `_PWD`: `OPENAI_API_KEY`, `GH_PAT`, `SENTRY_DSN`, `DB_PWD`);
- so is a variable whose value holds a secret-shaped string (a vendor key, a JWT, a URL with a
  password: `DATABASE_URL=postgres://app:pw@db/x`), whatever its name;
- names on the allow-list (`[shell_environment] allow` in config.toml; `*` matches any run of
  characters, `MY_TOKEN_*`) pass through on purpose, and so does anything the caller sets explicitly.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping

from proxy.redact import find_secrets, is_secret_name

__all__ = ["command_environment", "withheld"]


def withheld(name: str, value: str, allow: Iterable[str] = ()) -> bool:
    """True when `name=value` is a credential a command should not see (see the module docstring)."""
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in allow):
        return False
    return is_secret_name(name, "env") or bool(find_secrets(value))


def command_environment(base: Mapping[str, str], allow: Iterable[str] = ()) -> dict[str, str]:
    """`base` without the variables `withheld` names."""
    patterns = tuple(allow)
    return {name: value for name, value in base.items() if not withheld(name, value, patterns)}
