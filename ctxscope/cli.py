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

Typer itself is imported only when the app is first needed (`app` is built on first use): `ctxscope
index` first tries its fast path (`ctxscope.inspector.index.run.run_fast`), which reads its few options
itself, so that a re-index with nothing changed starts without typer, click, rich or pydantic;
anything it does not know (`--help`, a typo) goes to typer as every other command does. `ctxscope info`
does the same (`ctxscope.inspector.info.run_fast`: typer's argument parsing alone was a third of it).
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ctxscope.proxy.errors import CtxscopeError, missing_extra
from ctxscope.proxy.version import installed_version

if TYPE_CHECKING:
    import typer

    app: typer.Typer
    """The top-level typer app (built on first use, by `__getattr__`)."""

__all__ = ["COMMANDS", "SUMMARIES", "app", "main"]

COMMANDS: dict[str, str] = {
    "run": "ctxscope.run",
    "proxy": "ctxscope.proxy.capture_cli",
    "replay": "ctxscope.proxy.replay.cli",
    "info": "ctxscope.inspector.info_command",
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

_SETTINGS: dict[str, Any] = {"pretty_exceptions_enable": False, "add_completion": False}
"""The registries each module's commands are built in: completion is the top-level app's alone."""


@functools.cache
def _module_commands(module: str) -> dict[str, Any]:
    """The click commands `module.register` adds, built as typer builds them for the main app."""
    import typer

    registry = typer.Typer(**_SETTINGS)
    importlib.import_module(module).register(registry)
    commands = dict(typer.main.get_group(registry).commands)
    for command in commands.values():
        _plain_flags(command)
    return commands


def _plain_flags(command: Any) -> None:
    """Show no value type for a flag (`--json`, `--help`): typer's help would print `<bool>` beside it,
    as if the flag took a value. An empty metavar is what its rich help shows instead."""
    params = command.get_params

    def get_params(ctx: Any) -> list[Any]:
        found: list[Any] = params(ctx)
        for param in found:  # duck-typed: typer ships its own copy of click's classes
            if getattr(param, "is_flag", False) and getattr(param, "metavar", "") is None:
                param.metavar = ""
        return found

    command.get_params = get_params


class _CommandTable(Mapping[str, Any]):
    """`COMMANDS` as the group's command mapping: every name is known, a command is built when looked up."""

    def __getitem__(self, name: str) -> Any:
        return _module_commands(COMMANDS[name])[name]

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


@functools.cache
def _build_app() -> typer.Typer:
    """The top-level app: typer (and click) are imported here, on first use, not when `main` starts."""
    import typer
    from typer.core import TyperCommand, TyperGroup

    class _LazyCommands(TyperGroup):
        """The top-level group: knows every command's name (typo suggestions too), imports on first use."""

        def __init__(self, **attrs: Any) -> None:
            super().__init__(**attrs)
            self.commands = _CommandTable()  # type: ignore[assignment]
            _plain_flags(self)

        _listing = False
        """True while the group's own help is drawn: a looked-up command is then only its name and summary."""

        def list_commands(self, ctx: Any) -> list[str]:
            return list(COMMANDS)  # the names only: the base class would build every command

        def get_command(self, ctx: Any, cmd_name: str) -> Any:
            if self._listing and cmd_name in SUMMARIES:
                return TyperCommand(name=cmd_name, help=SUMMARIES[cmd_name])
            return super().get_command(ctx, cmd_name)

        def format_help(self, ctx: Any, formatter: Any) -> None:
            """`ctxscope --help`: every command's name and summary, without importing a command module."""
            self._listing = True
            try:
                super().format_help(ctx, formatter)
            finally:
                self._listing = False

        def shell_complete(self, ctx: Any, incomplete: str) -> list[Any]:
            """`ctxscope <TAB>`: the command names from `COMMANDS`, none imported (the base class builds every
            matching command for its short help, as slow as `--help`); `ctxscope -<TAB>`: the options."""
            from click.shell_completion import CompletionItem

            if incomplete.startswith("-"):
                return list(super().shell_complete(ctx, incomplete))  # no command's name starts with "-"
            return [CompletionItem(name) for name in COMMANDS if name.startswith(incomplete)]

    app = typer.Typer(
        name="ctxscope",
        cls=_LazyCommands,
        help="See exactly what a coding agent sends to the model, turn by turn, and why it changed.",
        no_args_is_help=True,
        **{**_SETTINGS, "add_completion": True},
    )

    def _print_version(value: bool) -> None:
        if value:
            print(f"ctxscope {installed_version()}")
            raise typer.Exit()

    @app.callback()
    def _root(
        # a default, not `Annotated`: typer resolves annotations in this module's globals, where
        # typer is not imported (it is imported here, on first use)
        version: bool = typer.Option(
            False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ) -> None:
        # typer builds a group only for an app with commands or a callback; the commands come lazily.
        pass

    return app


def __getattr__(name: str) -> Any:
    if name == "app":  # built on first use: a fast path never imports typer
        return _build_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_FAST_PATHS: dict[str, str] = {
    "index": "ctxscope.inspector.index.run",
    "info": "ctxscope.inspector.info",
    "inspect": "ctxscope.inspector.tui.launch",
}
"""Command name → the module whose `run_fast(args)` runs that command without typer when it knows every
argument (and returns True); otherwise it does nothing and typer runs the command."""


def _dispatch(args: list[str]) -> None:
    fast = _FAST_PATHS.get(args[0]) if args else None
    if fast is not None and importlib.import_module(fast).run_fast(args[1:]):
        return
    _build_app()()


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
