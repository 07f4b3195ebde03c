"""Real Codex CLI captures for the inspector's terminal tests: `codex exec` behind `ctxscope run`,
answered by a local WebSocket upstream (`WsUpstream`). Skipped where the Codex binary is not installed."""

from __future__ import annotations

from pathlib import Path

from ctxscope.proxy.testing import WsUpstream
from tests.cli_support import run_cli
from tests.proxy.replay.codex_support import codex_binary


def capture_codex_exec(folder: Path, name: str, *codex_args: str, prompt: str = "say hi") -> Path:
    """`ctxscope run --out folder/NAME.jsonl -- codex exec ARGS PROMPT` against a fresh upstream, with a
    CODEX_HOME, HOME and working directory of its own under `folder/NAME`; the recording's path."""
    binary = codex_binary()
    root = folder / name
    home, user, work = root / "home", root / "user", root / "work"
    for where in (home, user, work):
        where.mkdir(parents=True)
    out = folder / f"{name}.jsonl"
    env = {"CODEX_HOME": str(home), "HOME": str(user), "CODEX_API_KEY": "sk-inspect-test-key"}
    with WsUpstream() as upstream:
        (home / "config.toml").write_text(f'model = "gpt-5.5"\nopenai_base_url = "{upstream.url}/v1"\n')
        command = [str(binary), "exec", "--skip-git-repo-check", *codex_args, prompt]
        result = run_cli("run", "--out", str(out), "--", *command, cwd=work, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    return out
