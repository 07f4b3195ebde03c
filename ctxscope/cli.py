"""The `ctxscope` command: argument parsing and wiring only; each package registers its commands.

A command's module is imported only when that command runs or shows its help, so `ctxscope diff`
never pays for the agent's HTTP client, mitmproxy or Textual. `COMMANDS` names, in the order
`ctxscope --help` lists them, the module whose `register(app)` adds each command; `ctxscope --help`
loads them all (it shows every command's help text, which lives with the command).

Errors meant for a person (`CtxscopeError`) print one line and exit with status 2, never a traceback.
`ctxscope --version` prints the installed distribution's version; `--install-completion` /
`--show-completion` (typer's) set up shell completion, whose command names come from `COMMANDS` without
importing any command module.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Iterator, Mapping
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from ctxscope.proxy.errors import CtxscopeError, missing_extra
from ctxscope.proxy.version import installed_version

__all__ = ["COMMANDS", "app", "main"]

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

_SETTINGS: dict[str, Any] = {"pretty_exceptions_enable": False, "add_completion": False}
"""The registries each module's commands are built in: completion is the top-level app's alone."""


@functools.cache
def _module_commands(module: str) -> dict[str, Any]:
    """The click commands `module.register` adds, built as typer builds them for the main app."""
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


class _LazyCommands(TyperGroup):
    """The top-level group: knows every command's name (typo suggestions too), imports on first use."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _CommandTable()  # type: ignore[assignment]
        _plain_flags(self)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)  # the names only: the base class would build every command

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
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    # typer builds a group only for an app with commands or a callback; the commands come lazily.
    pass


def main() -> None:
    try:
        app()
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
