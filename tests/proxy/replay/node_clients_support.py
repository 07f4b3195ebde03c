"""Node clients for replay tests: openai-node and the Vercel AI SDK, pinned, installed once (cached).

Installed with npm into `CTXSCOPE_TEST_CACHE` (default `~/.cache/ctxscope-tests`) under
`node-clients-<versions>`; without npm or registry access the test is skipped, saying why. A script runs
from inside that directory (ES modules resolve packages from the script's own location).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

PACKAGES = ("openai@7.55.0", "ai@7.0.173", "@ai-sdk/openai@4.0.118")
INSTALL_TIMEOUT_S = 600
RUN_TIMEOUT_S = 120


def node_clients() -> Path:
    """The directory holding `node_modules` with `PACKAGES`, installed on first use; skip when impossible."""
    cache = Path(os.environ.get("CTXSCOPE_TEST_CACHE", Path.home() / ".cache" / "ctxscope-tests"))
    prefix = cache / ("node-clients-" + "-".join(p.rsplit("@", 1)[-1] for p in PACKAGES))
    marker = prefix / "installed"
    if marker.exists():
        return prefix
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.skip("node and npm are needed to run openai-node and the AI SDK")
    prefix.mkdir(parents=True, exist_ok=True)
    try:
        proc = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), *PACKAGES],
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm install {' '.join(PACKAGES)} took over {INSTALL_TIMEOUT_S} s")
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"npm install {' '.join(PACKAGES)} failed: {last}")
    marker.write_text("\n".join(PACKAGES) + "\n")
    return prefix


def run_node(prefix: Path, name: str, source: str, *args: str) -> str:
    """Write `source` as `prefix/name` (an ES module) and run it with `args`; its stdout."""
    script = prefix / name
    script.write_text(source, encoding="utf-8")
    proc = subprocess.run(
        ["node", str(script), *args],
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    return proc.stdout
