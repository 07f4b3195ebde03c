"""The typer application behind `ctxscope`: the top-level group that knows every command by name
(`ctxscope.cli.COMMANDS`) and imports a command's module only when that command runs or shows its
help, `--help` drawn from `ctxscope.cli.SUMMARIES`, `--version`, and typer's shell completion.

Kept apart from `ctxscope.cli` so that a command with a fast path of its own (`ctxscope index`, see
`ctxscope.cli.main`) starts without importing typer, click or rich.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator, Mapping
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from ctxscope.cli import COMMANDS, SUMMARIES
from ctxscope.proxy.version import installed_version

__all__ = ["_LazyCommands", "_module_commands", "app"]

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
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    # typer builds a group only for an app with commands or a callback; the commands come lazily.
    pass
