"""Where ctxscope keeps its files: recordings, sessions, config, the proxy's CA.

Everything lives under one per-user directory so a person can find (and delete) it in one place.
`CTXSCOPE_HOME` overrides it — tests use that to stay inside a temporary directory.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

import platformdirs

__all__ = [
    "ctxscope_home",
    "recordings_dir",
    "sessions_dir",
    "config_dir",
    "mitmproxy_confdir",
    "new_recording_path",
]


def ctxscope_home() -> Path:
    """The per-user ctxscope directory (`$CTXSCOPE_HOME`, else the platform's user data dir)."""
    override = os.environ.get("CTXSCOPE_HOME")
    home = Path(override).expanduser() if override else Path(platformdirs.user_data_dir("ctxscope"))
    if not home.exists():
        # recordings and sessions hold repository text and prompts: the user's alone
        home.mkdir(parents=True, mode=0o700, exist_ok=True)
    return home


def _subdir(name: str) -> Path:
    path = ctxscope_home() / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def recordings_dir() -> Path:
    """Where captures go unless a path is given."""
    return _subdir("recordings")


def sessions_dir() -> Path:
    """Where the harness keeps its session files."""
    return _subdir("sessions")


def config_dir() -> Path:
    """Where `config.toml` lives (the home itself)."""
    return ctxscope_home()


def mitmproxy_confdir() -> Path:
    """mitmproxy's confdir: holds the interception CA. Only the user may read it (the CA key is there)."""
    path = _subdir("mitmproxy")
    path.chmod(0o700)
    return path


def new_recording_path(prefix: str = "capture") -> Path:
    """A new, not yet existing recording path in `recordings_dir()`: `<prefix>-YYYYMMDD-HHMMSS-<hex>.jsonl`.

    The random suffix keeps processes started in the same second apart: each checks that its name is
    free before any of them creates its file, so a name from the time alone collided (the second
    agent then found the file "being recorded by another ctxscope").
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    directory = recordings_dir()
    for _ in range(100):
        candidate = directory / f"{prefix}-{stamp}-{secrets.token_hex(3)}.jsonl"
        if not candidate.exists():
            return candidate
    raise FileExistsError(f"no free recording name {prefix}-{stamp}-* in {directory}")
