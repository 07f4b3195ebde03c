"""A small model catalog: per-model facts that shape the request, editable in `config.toml`.

Codex keeps such a catalog (`codex debug models` prints it) and derives request settings from the
entry of the current model: the reasoning field, `text.verbosity`, `parallel_tool_calls`, the
apply_patch tool's type, the base prompt. Models it does not know get fallback settings. The
harness does the same with a few built-in entries; a `[models."<slug>"]` table in config.toml
adds a model or overrides any field of a known one:

    [models."gpt-5.5"]
    context_window = 272000
    reasoning_effort = "medium"       # "" = send no effort
    reasoning_summary = ""            # "auto" | "concise" | "detailed" | "" (none)
    verbosity = "low"                 # "" = send no `text`
    apply_patch_tool = "custom"       # custom (freeform grammar) | function | none
    parallel_tool_calls = true
    instructions_file = "gpt55.md"    # the base prompt for this model (default: the shipped one)

Values seen in Codex CLI 0.169's own catalog and on the wire: gpt-5.5 sends
`reasoning: {effort: "medium"}` and `text: {verbosity: "low"}` with a 272,000-token window and a
freeform apply_patch; an unknown model gets `reasoning: {summary: "auto"}` and no `text`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ctxscope.proxy.errors import ConfigError

__all__ = ["APPLY_PATCH_TOOLS", "BUILT_IN_MODELS", "FALLBACK", "ModelInfo", "model_info"]

APPLY_PATCH_TOOLS = ("custom", "function", "none")


@dataclass(frozen=True)
class ModelInfo:
    """What the harness knows about one model."""

    slug: str
    context_window: int = 272_000
    reasoning_effort: str | None = None
    """Sent as `reasoning.effort`; None sends no effort."""
    reasoning_summary: str | None = "auto"
    """Sent as `reasoning.summary`; None sends no summary."""
    verbosity: str | None = None
    """Sent as `text.verbosity`; None sends no `text`."""
    apply_patch_tool: str = "custom"
    """How apply_patch is offered: a freeform `custom` tool, a JSON `function`, or `none`."""
    parallel_tool_calls: bool = True
    instructions_file: Path | None = None
    """The base prompt for this model; None: the configured or shipped default."""
    known: bool = True
    """False for the fallback entry of a model neither built in nor configured."""

    @property
    def reasoning(self) -> dict[str, str]:
        """The request's `reasoning` object ({} when neither field is set)."""
        pairs = (("effort", self.reasoning_effort), ("summary", self.reasoning_summary))
        return {key: value for key, value in pairs if value}


FALLBACK = ModelInfo(slug="", known=False)
"""Settings for a model nobody described (Codex's fallback: summary "auto", no effort, no text)."""

BUILT_IN_MODELS: dict[str, ModelInfo] = {
    "gpt-5.5": ModelInfo(slug="gpt-5.5", reasoning_effort="medium", reasoning_summary=None, verbosity="low"),
}

_KINDS: dict[str, tuple[type, str]] = {
    "context_window": (int, "a whole number"),
    "reasoning_effort": (str, "a string"),
    "reasoning_summary": (str, "a string"),
    "verbosity": (str, "a string"),
    "apply_patch_tool": (str, "a string"),
    "parallel_tool_calls": (bool, "true or false"),
    "instructions_file": (Path, "a path"),
}


def _checked(slug: str, table: dict[str, Any], where: str) -> dict[str, Any]:
    """The fields of a `[models."<slug>"]` table, typed; a one-line error for a bad key or value."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key not in _KINDS:
            raise ConfigError(f'unknown key {key!r} in [models."{slug}"] of {where}: use {", ".join(_KINDS)}')
        kind, what = _KINDS[key]
        if kind is Path:
            if not isinstance(value, Path):
                raise ConfigError(f'models."{slug}".{key} must be {what} in {where}')
        elif not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ConfigError(f'models."{slug}".{key} must be {what} in {where}')
        if key == "apply_patch_tool" and value not in APPLY_PATCH_TOOLS:
            raise ConfigError(
                f'models."{slug}".apply_patch_tool must be one of {", ".join(APPLY_PATCH_TOOLS)} in {where}'
            )
        # An empty string switches a field off ("send no effort"), which TOML cannot say with null.
        out[key] = None if value == "" else value
    return out


def model_info(
    slug: str, overrides: dict[str, dict[str, Any]] | None = None, where: str = "config"
) -> ModelInfo:
    """The catalog entry for `slug`: built-in or fallback, then the config's table for it."""
    base = BUILT_IN_MODELS.get(slug) or replace(FALLBACK, slug=slug)
    table = (overrides or {}).get(slug)
    if not table:
        return base
    return replace(base, known=True, **_checked(slug, table, where))
