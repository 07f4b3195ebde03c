"""How a setting is declared once and read from config.toml, the command line and `AgentOptions`.

A setting is a field of a pydantic model (`ctxscope.harness.config.HarnessConfig`) whose `Annotated` metadata
holds a `Setting`: its help text, its config.toml key when that differs from the field name, Codex's
key for the same setting (so a Codex config.toml reads the same), and its `ctxscope agent` flag if it
has one. Everything else is derived from that one declaration:

- `read_toml` + `toml_fields` turn a config.toml table into field values: an unknown key is refused
  with the closest known key suggested (difflib), two keys for one setting are refused, paths are
  relative to the config file's folder;
- `one_line` turns a pydantic `ValidationError` into the one-line message a person sees (the key as
  they wrote it, what it must be, the closest choice of an enum-like value);
- the CLI builds its options from `flags` (`ctxscope.harness.cli`), and `AgentOptions` takes any setting by
  name, checked against the same fields (`check_overrides`).
"""

from __future__ import annotations

import difflib
import tomllib
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import AfterValidator, BaseModel, Strict, ValidationError, ValidationInfo
from pydantic.fields import FieldInfo

from ctxscope.proxy.errors import ConfigError

__all__ = [
    "MAX_CONFIG_BYTES",
    "ConfigPath",
    "Setting",
    "check_overrides",
    "choices_of",
    "flags",
    "one_line",
    "read_toml",
    "settings_of",
    "suggest",
    "toml_fields",
]

MAX_CONFIG_BYTES = 1 << 20
"""A config.toml larger than this is refused (it is a settings file, not data)."""


@dataclass(frozen=True)
class Setting:
    """The declaration of one setting, beside its type and default (see the module docstring)."""

    help: str
    key: str | None = None
    """The config.toml key when it is not the field name (`model_context_window`)."""
    codex: str | None = None
    """Codex's config.toml key for the same setting (`sandbox_mode`), accepted too."""
    flag: str | None = None
    """The `ctxscope agent` option (`--sandbox`); None: config.toml only."""
    label: str | None = None
    """How an error names the setting (`plan profile`); default: its key."""
    exists: Literal["file", "dir"] | None = None
    """A path given as a flag must name an existing file or directory (checked at once)."""


def _relative_to_config(value: Path, info: ValidationInfo) -> Path:
    """A path in config.toml is relative to the file's folder (`context["base"]`); `~` is expanded."""
    value = value.expanduser()
    base = (info.context or {}).get("base")
    return value if value.is_absolute() or base is None else Path(base) / value


ConfigPath = Annotated[Path, Strict(False), AfterValidator(_relative_to_config)]
"""A path setting: a string in config.toml, resolved against the config file's folder."""


def settings_of(model: type[BaseModel]) -> dict[str, tuple[FieldInfo, Setting]]:
    """The model's settings by field name (fields without a `Setting` are not settings)."""
    found = {}
    for name, info in model.model_fields.items():
        setting = next((m for m in info.metadata if isinstance(m, Setting)), None)
        if setting is not None:
            found[name] = (info, setting)
    return found


def flags(model: type[BaseModel]) -> dict[str, tuple[FieldInfo, Setting]]:
    """The settings that have a command-line flag."""
    return {name: pair for name, pair in settings_of(model).items() if pair[1].flag}


def choices_of(annotation: Any) -> tuple[str, ...]:
    """The values of a Literal setting (inside `| None` too); () when it is not one."""
    if get_origin(annotation) is Literal:
        return tuple(str(a) for a in get_args(annotation))
    if get_origin(annotation) in (Union, types.UnionType):
        for arg in get_args(annotation):
            if get_origin(arg) is Literal:
                return choices_of(arg)
    return ()


def suggest(word: str, known: list[str]) -> str:
    """` (did you mean 'x'?)` for the closest known word, or ""."""
    close = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def read_toml(path: Path) -> dict[str, Any]:
    """config.toml as a table: a regular file, of bounded size and nesting; one line when it is not."""
    try:
        if not path.is_file():
            raise ConfigError(f"config file {path} is not a regular file: give a config.toml")
        with path.open("rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{path} is larger than {MAX_CONFIG_BYTES // 1024} KiB: not a config.toml")
        return tomllib.loads(data.decode("utf-8"))
    except RecursionError:
        # tomllib recurses per nesting level: a hostile file would end in a traceback.
        raise ConfigError(f"{path} is nested too deeply to be a config.toml: fix or remove it") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path} is not valid TOML ({e}): fix or remove it") from e


def toml_fields(
    raw: Mapping[str, Any], model: type[BaseModel], where: str, problems: list[str] | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """Field values from a config.toml table, and the key each field was given as (for errors).

    `problems`: unknown or repeated keys are added to it (and left out) instead of raised, so the
    caller can report them with the values' own problems, all at once."""
    keys: dict[str, str] = {}
    for name, (_info, setting) in settings_of(model).items():
        keys[setting.key or name] = name
        if setting.codex:
            keys[setting.codex] = name
    values: dict[str, Any] = {}
    used: dict[str, str] = {}
    for key, value in raw.items():
        field = keys.get(key)
        if field is None or field in used:
            problem = (
                f"unknown setting {key!r} in {where}{suggest(key, sorted(keys))}"
                if field is None
                else f"{used[field]} and {key} in {where} are the same setting: keep one"
            )
            if problems is None:
                raise ConfigError(problem)
            problems.append(problem)
            continue
        used[field] = key
        values[field] = value
    return values, used


def check_overrides(overrides: Mapping[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    """`overrides` by field name, refused (with a suggestion) when one is not a setting."""
    known = sorted(settings_of(model))
    for name in overrides:
        if name not in known:
            raise ConfigError(f"unknown setting {name!r}{suggest(name, known)}")
    return dict(overrides)


# ---- one line from a ValidationError ---------------------------------------------------------------

_WHAT = {
    "string_type": "a string",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "bool_type": "true or false",
    "float_type": "a number",
    "float_parsing": "a number",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
    "list_type": "a list",
    "tuple_type": "a list",
    "path_type": "a path (a string)",
}

_PLURAL = {
    "a string": "strings",
    "a whole number": "whole numbers",
    "a number": "numbers",
    "true or false": "true/false values",
    "a table": "tables",
    "a path (a string)": "paths",
}


def one_line(
    err: ValidationError | None,
    model: type[BaseModel],
    where: str | None,
    keys: Mapping[str, str] | None = None,
    earlier: Sequence[str] = (),
) -> ConfigError:
    """Every problem of `err` (and the `earlier` ones, found while reading keys) in one line, each
    naming the key as the person wrote it: a file with three mistakes is fixed in one go."""
    errors = err.errors() if err is not None else []
    if len(errors) == 1 and not earlier:
        return _problem(errors[0], model, where, keys)
    problems = [*earlier, *(str(_problem(e, model, None, keys)) for e in errors)]
    if len(problems) == 1:
        return ConfigError(problems[0])
    return ConfigError(f"{len(problems)} problems{f' in {where}' if where else ''}: {'; '.join(problems)}")


def _problem(first: Any, model: type[BaseModel], where: str | None, keys: Mapping[str, str] | None) -> ConfigError:
    """One problem of a validation error as one line."""
    raw = list(first["loc"])
    item = next((n for n, p in enumerate(raw) if isinstance(p, int) and n), None)
    if item is not None and first["type"] in _WHAT:
        # An item of a list is wrong: say what the list must hold, naming the list.
        loc = [str(p) for p in raw[:item]]
        label = loc[0] if len(loc) == 1 else f"[{'.'.join(loc[:-1])}] {loc[-1]}"
        key = (keys or {}).get(loc[0]) or _key_of(model, loc[0])
        label = label.replace(loc[0], key, 1)
        plural = _PLURAL.get(_WHAT[first["type"]], "values of one type")
        return ConfigError(f"{label} must be a list of {plural}{f' in {where}' if where else ''}")
    loc = [str(p) for p in raw]
    suffix = f" in {where}" if where else ""
    if not loc:  # a model validator: fields that contradict each other
        return ConfigError(f"{first['msg'].removeprefix('Value error, ')}{suffix}")
    name = loc[0]
    key = (keys or {}).get(name) or _key_of(model, name)
    label = key if len(loc) == 1 else f"[{'.'.join([key, *loc[1:-1]])}] {loc[-1]}"
    kind, ctx, value = first["type"], first.get("ctx") or {}, first.get("input")
    if kind == "extra_forbidden":
        table = f"[{'.'.join([key, *loc[1:-1]])}]"
        fields = _nested_fields(model, loc)
        return ConfigError(f"unknown key {loc[-1]!r} in {table}{suffix}{suggest(loc[-1], fields)}")
    if kind == "literal_error":
        choices = _literal_choices(model, name)
        setting = settings_of(model).get(name)
        named = setting[1].label if setting and setting[1].label and len(loc) == 1 else label
        shown = [c for c in choices if c != ""]  # an empty value means "not set": no choice to list
        close = suggest(str(value), shown) if isinstance(value, str) else ""
        return ConfigError(f"unknown {named} {value!r}{suffix}: use one of {', '.join(shown)}{close}")
    if kind in ("greater_than", "greater_than_equal", "less_than_equal", "less_than"):
        bound = {
            "greater_than": f"more than {ctx.get('gt')}",
            "greater_than_equal": f"at least {ctx.get('ge')}",
            "less_than": f"less than {ctx.get('lt')}",
            "less_than_equal": f"at most {ctx.get('le')}",
        }[kind]
        return ConfigError(f"{label} must be {bound}, not {value!r}{suffix}")
    if kind in _WHAT:
        what = _WHAT[kind]
        if kind in ("list_type", "tuple_type") and len(loc) == 1:
            what = _list_what(model, name)
        return ConfigError(f"{label} must be {what}{suffix}")
    return ConfigError(f"{label}: {first['msg']}{suffix}")


def _key_of(model: type[BaseModel], name: str) -> str:
    setting = settings_of(model).get(name)
    return (setting[1].key if setting else None) or name


def _literal_choices(model: type[BaseModel], name: str) -> tuple[str, ...]:
    info = model.model_fields.get(name)
    return choices_of(info.annotation) if info else ()


def _list_what(model: type[BaseModel], name: str) -> str:
    info = model.model_fields.get(name)
    args = [a for a in get_args(info.annotation) if a is not Ellipsis] if info else []
    item: Any = get_origin(args[0]) or args[0] if args else None
    if item is Annotated:
        item = get_args(args[0])[0]
    return "a list of paths" if item is Path else "a list of strings" if item is str else "a list"


def _nested_fields(model: type[BaseModel], loc: list[str]) -> list[str]:
    """The field names of the table an unknown nested key was found in (for the suggestion)."""
    current: Any = model
    for part in loc[:-1]:
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            current = None
            break
        info = current.model_fields.get(part)
        annotation = info.annotation if info else None
        while annotation is not None and get_origin(annotation) is not None:
            annotation = get_args(annotation)[-1]  # dict[str, X] → X
        current = annotation
    if isinstance(current, type) and issubclass(current, BaseModel):
        return sorted(
            {*current.model_fields, *(a for f in current.model_fields.values() for a in _aliases(f))}
        )
    return []


def _aliases(info: FieldInfo) -> list[str]:
    alias = info.validation_alias
    if alias is None:
        return []
    choices = getattr(alias, "choices", None)
    return [str(c) for c in choices] if choices else [str(alias)]
