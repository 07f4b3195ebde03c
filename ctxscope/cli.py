"""The `ctxscope` command: argument parsing and wiring only; each package registers its commands.

A command's module is imported only when that command runs or shows its help, so `ctxscope diff`
never pays for the agent's HTTP client, mitmproxy or Textual. `COMMANDS` names, in the order
`ctxscope --help` lists them, the module whose `register(app)` adds each command; `SUMMARIES` holds each
command's one-line help, so `ctxscope --help` lists them all without importing any command module
(a test holds each summary equal to the help the command itself declares).

Errors meant for a person (`CtxscopeError`) print one line and exit with status 2, never a traceback.
`ctxscope --version` prints the installed distribution's version; `--install-completion` /
`--show-completion` (typer's) set up shell completion, whose command names come from `COMMANDS` without
importing any command module.

The typer application itself is `ctxscope.typer_app` (`app` here names it, loaded on first use):
`ctxscope index` first tries its fast path (`ctxscope.inspector.index.run.run_fast`), which reads
its few options itself, so that a re-index with nothing changed starts without typer, click, rich or
pydantic; anything it does not know (`--help`, a typo) goes to typer as every other command does.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ctxscope.proxy.errors import CtxscopeError, missing_extra

if TYPE_CHECKING:
    from ctxscope.typer_app import app

__all__ = ["COMMANDS", "SUMMARIES", "app", "main"]

COMMANDS: dict[str, str] = {
    "run": "ctxscope.run",
    "proxy": "ctxscope.proxy.capture_cli",
    "replay": "ctxscope.proxy.replay.cli",
    "info": "ctxscope.inspector.info",
    "export": "ctxscope.proxy.store.cli",
    "import": "ctxscope.import_trace",
    "verify": "ctxscope.import_trace",
    "agent": "ctxscope.harness.cli",
    "diff": "ctxscope.inspector.cli",
    "compare": "ctxscope.inspector.cli",
    "show": "ctxscope.inspector.cli",
    "inspect": "ctxscope.inspector.cli",
    "context": "ctxscope.inspector.context_cli",
    "cache": "ctxscope.inspector.context_cli",
    "cost": "ctxscope.inspector.cost_cli",
    "report": "ctxscope.inspector.html.cli",
    "otel": "ctxscope.inspector.otel.cli",
    "index": "ctxscope.inspector.index.cli",
    "query": "ctxscope.inspector.index.cli",
    "resend": "ctxscope.resend",
    "bisect": "ctxscope.bisect.command",
    "promote": "ctxscope.promote",
    "demo": "ctxscope.demo",
}
"""Command name → the module whose `register(app)` adds it; the order is the order of `--help`."""

SUMMARIES: dict[str, str] = {
    "run": "Run COMMAND behind the recording proxy and record what it sends to the model.",
    "proxy": "Record every exchange between a client and the model backend, passing SSE through as it arrives.",
    "replay": "Serve a recording or a script cassette as the model backend, for any client (Codex, SDKs, harness).",
    "info": "Summarise a recording: exchanges, threads and turns, models, sizes, errors.",
    "export": "Write each request body (or response, or exchange) as one JSON line, for jq.",
    "import": "Import Codex's own rollout trace (CODEX_ROLLOUT_TRACE_ROOT) as a ctxscope recording.",
    "verify": "Hold a recording against Codex's own trace of the same session, request by request.",
    "agent": "Run ctxscope's Codex-style coding agent (with capture on by default).",
    "diff": "The timeline: per turn its change kind, fragments and world state changed, tools, tokens; "
    "with --turn, that turn against its predecessor and the answer it got.",
    "compare": "Two recordings of the same task aligned turn by turn: endpoint, headers, defaults, tools, items.",
    "show": "The full context of one request as a compact labelled layout, then the answer it got.",
    "inspect": "The inspector TUI: walk a recording turn by turn (keys: ? in the app).",
    "context": "What fills the context: each turn's tokens by kind, the largest items, growth and findings.",
    "cache": "Why the prompt cache missed: predicted vs reported cached tokens, where each prefix broke and why.",
    "cost": "What each model request cost, from its reported usage at per-model prices.",
    "report": "One self-contained HTML file: timeline, diffs, answers, composition and cache; the recording inside.",
    "otel": "Export a recording as OpenTelemetry traces: a trace per thread, a span per model request.",
    "index": "Index recordings (incrementally) into an embedded DuckDB database for questions across sessions.",
    "query": "Ask the index: SQL over its tables (docs/index.md), or a named question.",
    "resend": "Send a recorded request again (edited with --set/--delete/--model/--body) and compare the answers.",
    "bisect": "Find the smallest change to a turn's context that flips the model's answer (delta debugging).",
    "promote": "Make a cassette of a recording up to turn N, and the pytest test that replays it.",
    "demo": "Run the agent offline on a demo repo with capture on, then show what changed turn by turn.",
}
"""Command name → the first paragraph of its help, as `ctxscope --help` lists it (the command's own
docstring or `help=` is the source: `tests/ctxscope/test_lazy_commands.py` holds the two equal)."""

_FAST_PATHS: dict[str, str] = {"index": "ctxscope.inspector.index.run"}
"""Command name → the module whose `run_fast(args)` runs that command without typer when it knows every
argument (and returns True); otherwise it does nothing and typer runs the command."""


def __getattr__(name: str) -> Any:
    # `app` and the typer machinery load on first use: a fast path never imports typer
    if name in ("app", "_module_commands", "_LazyCommands"):
        from ctxscope import typer_app

        return getattr(typer_app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _dispatch(args: list[str]) -> None:
    fast = _FAST_PATHS.get(args[0]) if args else None
    if fast is not None:
        import importlib

        if importlib.import_module(fast).run_fast(args[1:]):
            return
    from ctxscope.typer_app import app

    app()


def main() -> None:
    try:
        _dispatch(sys.argv[1:])
    except CtxscopeError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    except ModuleNotFoundError as err:
        # the core install leaves the proxy and the TUI out: say which extra brings them
        needed = missing_extra(err)
        if needed is None:
            raise
        print(f"error: {needed}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:  # Ctrl-C before a command installed its own handling
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:  # `ctxscope export ... | head`
        sys.stderr.close()
        sys.exit(0)


if __name__ == "__main__":
    main()
