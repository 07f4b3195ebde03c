"""The real Codex CLI for tests: a pinned version from the test cache, one `codex exec` run, the TUI in tmux.

The CLI is installed with npm into `CTXSCOPE_TEST_CACHE` (default `~/.cache/ctxscope-tests`) under
`codex-<version>`, once; without npm or registry access the test is skipped, saying which release was
missing. `CODEX_VERSION` is what the suite pins; `NEWEST` is the newest release tried (see
docs/codex-versions.md); tests that must hold for every release take `CODEX_VERSIONS`.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

CODEX_VERSION = "0.169.0"
NEWEST = "0.171.0"
CODEX_VERSIONS = (CODEX_VERSION, NEWEST)
RUN_TIMEOUT_S = 120
INSTALL_TIMEOUT_S = 600


def codex_binary(version: str = CODEX_VERSION) -> Path:
    """`codex` at `version` from the test cache, installed with npm on first use; skip when impossible."""
    cache = Path(os.environ.get("CTXSCOPE_TEST_CACHE", Path.home() / ".cache" / "ctxscope-tests"))
    prefix = cache / f"codex-{version}"
    binary = prefix / "node_modules" / ".bin" / "codex"
    if binary.exists():
        return binary
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"Codex {version} is missing: npm is not installed to install @openai/codex@{version}")
    prefix.mkdir(parents=True, exist_ok=True)
    try:
        proc = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), f"@openai/codex@{version}"],
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"Codex {version} is missing: npm install @openai/codex@{version} took over {INSTALL_TIMEOUT_S} s")
    if proc.returncode != 0 or not binary.exists():
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"Codex {version} is missing: npm install @openai/codex@{version} failed: {last}")
    return binary


def write_config(home: Path, base_url: str, extra: str = "", model: str = "gpt-5-codex") -> None:
    """A CODEX_HOME whose provider is `base_url` + `/v1` (no retries, so a mismatch fails at once)."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        f'model = "{model}"\nmodel_provider = "local"\n{extra}'
        '[model_providers.local]\nname = "local"\n'
        f'base_url = "{base_url}/v1"\n'
        'wire_api = "responses"\nenv_key = "LOCAL_KEY"\nrequest_max_retries = 0\nstream_max_retries = 0\n'
    )


@dataclass(frozen=True)
class CodexRun:
    """What one `codex exec` printed: stdout holds only the final message, stderr the session log."""

    stdout: str
    stderr: str


def exec_codex(binary: Path, home: Path, user: Path, cwd: Path, *args: str) -> CodexRun:
    """One `codex exec` with its own CODEX_HOME and HOME, in its own process group; fails unless exit 0."""
    # A HOME of its own: the login shell Codex runs commands in must not source the user's profile.
    env = {**os.environ, "CODEX_HOME": str(home), "HOME": str(user), "LOCAL_KEY": "x"}
    proc = subprocess.Popen(
        [str(binary), "exec", "--skip-git-repo-check", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"codex exec {' '.join(args)} did not finish in {RUN_TIMEOUT_S} s")
    assert proc.returncode == 0, (out + err)[-3000:]
    return CodexRun(out, err)


def run_codex(binary: Path, home: Path, user: Path, cwd: Path, *args: str) -> str:
    """One `codex exec` (see `exec_codex`); stdout + stderr."""
    run = exec_codex(binary, home, user, cwd, *args)
    return run.stdout + run.stderr


SCREEN_TIMEOUT_S = 120  # generous: the TUI (and its daemon) start slowly on a loaded machine


class CodexTui:
    """One detached tmux session (120x40) running a command line: keys in, screen text out.

    The pane stays once the command exits (`remain-on-exit`), so its last lines can still be read.
    """

    def __init__(self, name: str, cwd: Path, command: list[str], env: dict[str, str]) -> None:
        if shutil.which("tmux") is None:
            pytest.skip("tmux is not installed: cannot drive the Codex TUI")
        self.name = name
        settings = [f"{k}={v}" for k, v in env.items()]
        subprocess.run(
            [
                "tmux",
                "new-session",
                "-d",
                "-s",
                name,
                "-x",
                "120",
                "-y",
                "40",
                "-c",
                str(cwd),
                "env",
                *settings,
                *command,
                ";",
                "set-option",
                "-t",
                name,
                "remain-on-exit",
                "on",
            ],
            check=True,
        )

    def keys(self, *keys: str, literal: bool = False) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *(["-l"] if literal else []), *keys], check=True)

    def screen(self) -> str:
        done = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return done.stdout

    def exited(self) -> bool:
        shown = subprocess.run(
            ["tmux", "display-message", "-p", "-t", self.name, "#{pane_dead}"], capture_output=True, text=True
        )
        return shown.stdout.strip() != "0"

    def wait_for(self, text: str) -> str:
        """Poll until `text` is on screen, answering the first-launch pickers on the way."""
        deadline = time.monotonic() + SCREEN_TIMEOUT_S
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            if self.exited():
                break
            self._answer_pickers(screen)
            time.sleep(0.5)
        pytest.fail(f"the Codex TUI never showed {text!r}; last screen:\n{self.screen()}")

    def _answer_pickers(self, screen: str) -> bool:
        """Answer a first-launch picker on `screen` (trust, model upgrade); whether there was one."""
        if "Trust this folder?" in screen or "Do you trust" in screen:
            self.keys("Enter")
            return True
        if "Use existing model" in screen:
            self.keys("Down")
            time.sleep(0.3)
            self.keys("Enter")
            return True
        return False

    def ask(self, prompt: str, answer: str) -> None:
        """Type `prompt` once the composer shows, submit it, wait for `answer`."""
        self.submit(prompt, answer)

    def submit(self, prompt: str, until: str) -> str:
        """Type `prompt` once the composer shows and submit it; the first screen showing `until`.

        Enter is pressed again while the composer still holds the prompt: a picker that opens
        between typing and Enter (the model-upgrade notice comes once the model list arrives)
        takes the key, and on a loaded machine the TUI can read the typed text and Enter as one
        paste. Seen in CI: the prompt left typed, never sent.
        """
        self.wait_for("Ask Codex")
        self.keys(prompt, literal=True)
        time.sleep(0.5)
        typed = f"\u203a {prompt}"
        presses, pressed_at = 0, 0.0
        deadline = time.monotonic() + SCREEN_TIMEOUT_S
        while time.monotonic() < deadline:
            screen = self.screen()
            if until in screen:
                return screen
            if self.exited():
                break
            if self._answer_pickers(screen):
                time.sleep(0.5)
                continue
            composer = [line.strip() for line in screen.splitlines() if line.strip().startswith("\u203a")]
            waited = time.monotonic() - pressed_at
            if composer and composer[-1] == typed and presses < 5 and (presses == 0 or waited > 5):
                self.keys("Enter")
                presses, pressed_at = presses + 1, time.monotonic()
            time.sleep(0.5)
        pytest.fail(f"the Codex TUI never showed {until!r} (Enter pressed {presses}x); last screen:\n{self.screen()}")

    def quit(self) -> str:
        """`/quit`, then wait for the command to exit; its last screen."""
        self.keys("/quit", literal=True)
        time.sleep(0.3)
        self.keys("Enter")
        deadline = time.monotonic() + SCREEN_TIMEOUT_S
        while time.monotonic() < deadline and not self.exited():
            time.sleep(0.3)
        assert self.exited(), self.screen()
        return self.screen()

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def processes_with(setting: str) -> list[int]:
    """The pids of live processes whose environment holds `setting` (`NAME=value`)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if setting in (entry / "environ").read_bytes().decode(errors="replace").split("\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def stop_processes(pids: list[int]) -> None:
    """SIGTERM, then SIGKILL after a bounded wait, to processes this test started."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        for _ in range(50):
            if not any(Path(f"/proc/{pid}").exists() for pid in pids):
                return
            time.sleep(0.1)
