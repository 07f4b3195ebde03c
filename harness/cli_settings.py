"""The `ctxscope agent` options that are settings, derived from their one declaration.

Each `HarnessConfig` setting whose `Setting` has a `flag` becomes a typer option here (its help, its
flag, a type typer can parse), so a setting is declared once for config.toml, the command line and
`AgentOptions` (`ctxscope.harness.settings`). Values are checked by the same model as config.toml (an unknown
`--sandbox yolo` gets the same one-line error, with the closest choice); a path flag names a file
relative to where the command runs and, where the setting says so, must exist.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import typer

from ctxscope.harness.config import HarnessConfig
from ctxscope.harness.settings import Setting, choices_of, flags
from ctxscope.proxy.errors import ConfigError

__all__ = ["with_setting_options"]


def with_setting_options(command: Callable[..., None]) -> Callable[..., None]:
    """`command` (which takes `settings=`) with one more option per flagged setting; the given ones
    reach it as `settings`, by field name."""
    declared = flags(HarnessConfig)
    own = inspect.signature(command, eval_str=True)
    params = [p for p in own.parameters.values() if p.name != "settings"]
    for name, (info, setting) in declared.items():
        kind = _cli_type(info.annotation)
        option = typer.Option(setting.flag, help=_help(name, info.annotation, setting))
        params.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Annotated[kind | None, option]
            )
        )

    def run(**given: Any) -> None:
        settings = {}
        for name, (_info, setting) in declared.items():
            value = given.pop(name, None)
            if value is None or value == []:
                continue  # not given: config.toml (or the default) decides
            settings[name] = _checked(value, setting)
        command(**given, settings=settings)

    run.__signature__ = own.replace(parameters=params)  # type: ignore[attr-defined]
    run.__doc__ = command.__doc__
    run.__name__ = command.__name__.lstrip("_")
    return run


def _cli_type(annotation: Any) -> Any:
    """What typer parses for a setting: enum-like values as text (the model checks them), lists of paths."""
    base = _without_none(annotation)
    if get_origin(base) is Literal:
        return str
    if get_origin(base) is tuple:
        return list[_cli_type(get_args(base)[0])]  # type: ignore[misc]
    if get_origin(base) is Annotated:
        return get_args(base)[0]
    return base


def _without_none(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        return args[0] if len(args) == 1 else annotation
    return annotation


def _help(name: str, annotation: Any, setting: Setting) -> str:
    choices = choices_of(annotation)
    text = setting.help if not choices or " | " in setting.help else f"{' | '.join(choices)}. {setting.help}"
    where = setting.key or name
    return f"{text} (config.toml: {where}{f', Codex: {setting.codex}' if setting.codex else ''})"


def _checked(value: Any, setting: Setting) -> Any:
    """A flag's value as the setting takes it: paths from the cwd, existing where it must."""
    if isinstance(value, list):
        return tuple(_checked(v, setting) for v in value)
    if not isinstance(value, Path):
        return value
    if setting.exists == "file" and not value.is_file():
        raise ConfigError(f"{setting.flag} {value} is not a file: give an existing file")
    if setting.exists == "dir" and not value.is_dir():
        raise ConfigError(f"{setting.flag} {value} is not a directory: give an existing directory")
    return value.resolve() if setting.exists else value
