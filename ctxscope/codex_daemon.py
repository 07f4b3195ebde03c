"""Codex's background app-server daemon, as `ctxscope run -- codex` meets it.

Observed with Codex 0.169.0 and 0.171.0 (docs/codex-versions.md): the interactive TUI (`codex`,
`codex resume`, `codex fork`) runs its turns in `codex app-server --listen unix:// --managed-daemon`,
a daemon it starts from `$CODEX_HOME/packages/` that outlives it (parent pid 1), with its pid in
`$CODEX_HOME/app-server-daemon/daemon.pid` (JSON, key `pid`) beside its updater's
(`daemon-updater.pid`). The daemon keeps the environment it was started with, so:

- a daemon started by a `ctxscope run` keeps the run's proxy address after the proxy is gone, and the
  next plain `codex` shows "Reconnecting… / Connection failed";
- a daemon started before the run never sees the proxy: the run records no model request at all.

`-c features.daemon_auto_start=false` does not help: with a daemon running the TUI refuses to start
("Cannot use the shared background server … rerun the same command with --no-daemon"). `--no-daemon`
("Run without the shared background server, even if it is already running"), which both releases
accept before any subcommand, runs the app-server inside the TUI's own process: its requests go through
the proxy, a running daemon is left as it is, and none is started. So `run` adds `--no-daemon` to a
Codex command line; a Codex without the flag is run unchanged when no daemon runs, and refused (one
line naming the daemon) when one does, rather than recording nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ctxscope.proxy.errors import ConfigError

__all__ = ["CodexDaemon", "CodexLaunch", "codex_home", "prepare_codex", "running_daemon"]

NO_DAEMON = "--no-daemon"
_CODEX_NAMES = ("codex", "codex.js", "codex.exe")
HELP_TIMEOUT_S = 30.0
"""`codex --help` answers in well under a second; a Codex that hangs on it is run unchanged."""


@dataclass(frozen=True)
class CodexDaemon:
    """A running app-server daemon: its pid, its updater's pid (if any), the CODEX_HOME it serves."""

    pid: int
    updater_pid: int | None
    home: Path

    def describe(self) -> str:
        return f"pid {self.pid}, CODEX_HOME {self.home}"

    def stop_hint(self) -> str:
        return f"CODEX_HOME={self.home} codex app-server daemon stop"


@dataclass
class CodexLaunch:
    """A command line as `run` starts it, and what it found of Codex's daemon before starting it."""

    command: list[str]
    home: Path | None = None
    """CODEX_HOME of a Codex command (None: not Codex)."""
    before: CodexDaemon | None = None
    """The daemon already running when the run began."""
    no_daemon: bool = False
    """`--no-daemon` is on the command line (added by `run` or given)."""

    def cause_of_nothing(self) -> str:
        """The likely reason why a run of this command recorded no model request."""
        if self.home is None:
            return (
                "the command sent none through the proxy: it made no model call, ignores HTTPS_PROXY "
                "(try --mode reverse for an OpenAI SDK client), or a server started before this run made "
                "the calls for it"
            )
        if self.before is not None and not self.no_daemon:
            return f"Codex's background app-server ({self.before.describe()}) served the run outside the proxy"
        if self.before is not None:
            return (
                "Codex sent none: no prompt was submitted, or the conversation is held by its background "
                f"app-server ({self.before.describe()}); close it there or start a new one"
            )
        return "Codex sent none: no prompt was submitted, or it could not reach the model"

    def stop_left_daemon(self, proxy_url: str) -> CodexDaemon | None:
        """Stop a daemon this run started (it would keep the dead proxy's address); the one stopped."""
        if self.home is None:
            return None
        now = running_daemon(self.home)
        if now is None or (self.before is not None and now.pid == self.before.pid):
            return None
        if not _started_behind(now.pid, proxy_url):
            return None  # someone else's, started meanwhile (or not readable): not ours to stop
        for pid in (now.pid, now.updater_pid):
            if pid is not None:
                try:
                    os.kill(pid, 15)
                except (ProcessLookupError, PermissionError):
                    pass
        return now


def codex_position(command: list[str]) -> int | None:
    """The index of the Codex executable in `command` (`codex …`, `node …/codex.js …`, `npx codex …`)."""
    for index, word in enumerate(command[:3]):
        if Path(word).name in _CODEX_NAMES:
            return index
    return None


def codex_home(env: Mapping[str, str]) -> Path:
    """The CODEX_HOME a Codex run with `env` uses (`~/.codex` by default)."""
    if env.get("CODEX_HOME"):
        return Path(env["CODEX_HOME"])
    return Path(env.get("HOME") or Path.home()) / ".codex"


def running_daemon(home: Path) -> CodexDaemon | None:
    """The app-server daemon running for `home`, from its pid file; None if none runs."""
    state = home / "app-server-daemon"
    pid = _live_pid(state / "daemon.pid", "app-server")
    if pid is None:
        return None
    return CodexDaemon(pid, _live_pid(state / "daemon-updater.pid", "app-server"), home)


def prepare_codex(command: list[str], env: Mapping[str, str]) -> CodexLaunch:
    """`command` as `run` starts it: a Codex command line gets `--no-daemon` (see the module doc).

    Raises `ConfigError` (one line naming the daemon) when a daemon runs and this Codex cannot be told
    to leave it alone: the run would record nothing.
    """
    at = codex_position(command)
    if at is None:
        return CodexLaunch(list(command))
    home = codex_home(env)
    launch = CodexLaunch(list(command), home=home, before=running_daemon(home))
    if NO_DAEMON in command:
        launch.no_daemon = True
        return launch
    if "--remote" in command or any(w.startswith("--remote=") for w in command):
        return launch  # the person chose an app-server of their own
    if _knows_no_daemon(command[: at + 1], env):
        launch.command = [*command[: at + 1], NO_DAEMON, *command[at + 1 :]]
        launch.no_daemon = True
    elif launch.before is not None:
        daemon = launch.before
        raise ConfigError(
            f"Codex's background app-server is running ({daemon.describe()}) and would make this run's model "
            f"requests outside the proxy, and this Codex has no {NO_DAEMON}; stop it first: {daemon.stop_hint()}"
        )
    return launch


def _knows_no_daemon(codex: list[str], env: Mapping[str, str]) -> bool:
    try:
        shown = subprocess.run(
            [*codex, "--help"],
            env=dict(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=HELP_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False  # not startable: `run` reports that itself when it starts the command
    return NO_DAEMON in shown.stdout


def _live_pid(pid_file: Path, marker: str) -> int | None:
    """The pid in a Codex pid file if that process is alive (and, where /proc shows it, is Codex's)."""
    try:
        pid = json.loads(pid_file.read_text()).get("pid")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(pid, int) or pid <= 1:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, another user's
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return pid  # no /proc (macOS): trust the pid file
    # An empty cmdline tells nothing (a zombie, or a read that met the process mid-exec or with its
    # memory map busy, seen once in a loaded test run): only a program named otherwise is a reused pid.
    if cmdline and marker not in cmdline:
        return None
    return pid


def _started_behind(pid: int, proxy_url: str) -> bool:
    """True if process `pid` was started with the proxy in its environment (read from /proc)."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")
    except OSError:
        return False
    return any(entry.endswith("=" + proxy_url) for entry in environ.split("\0"))
