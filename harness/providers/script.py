"""The offline provider: a script cassette served by the proxy's replayer, no network at all.

The "backend" is the in-process proxy itself: `ctxscope.harness.route` serves the script with
`ctxscope.proxy.replay.serve_script` and adds the recorder to that same proxy, so scripted runs are captured
exactly like live ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ctxscope.harness.providers.base import Provider
from ctxscope.proxy.errors import ConfigError

__all__ = ["SCRIPT_BASE_URL", "ScriptProvider"]

# Never contacted: reverse mode needs an upstream, but the replayer answers every request itself.
SCRIPT_BASE_URL = "http://127.0.0.1:9/v1"


@dataclass
class ScriptProvider(Provider):
    """Serves `script` (a ctxscope script cassette) through `ctxscope.proxy.replay`."""

    script: Path | None = None

    def check(self) -> None:
        if self.script is None:
            raise ConfigError("--provider script needs --script FILE (a ctxscope script cassette)")
        if not self.script.is_file():
            raise ConfigError(f"script cassette {self.script} does not exist: check the --script path")


def script_provider(script: Path | None) -> ScriptProvider:
    return ScriptProvider(name="script", base_url=SCRIPT_BASE_URL, script=script)
