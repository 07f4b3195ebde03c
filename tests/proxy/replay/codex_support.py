"""The real Codex CLI for replay tests: a pinned version from the test cache, and one `codex exec` run.

The CLI is installed with npm into `CTXSCOPE_TEST_CACHE` (default `~/.cache/ctxscope-tests`) under
`codex-<version>`, once; without npm or registry access the test is skipped, saying why.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

CODEX_VERSION = "0.169.0"
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
        pytest.skip(f"npm is not installed: cannot install @openai/codex@{version}")
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
        pytest.skip(f"npm install @openai/codex@{version} took over {INSTALL_TIMEOUT_S} s")
    if proc.returncode != 0 or not binary.exists():
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"npm install @openai/codex@{version} failed: {last}")
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
