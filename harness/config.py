"""Harness settings: `config.toml` in the ctxscope home, overridden by command-line flags.

provider = "apikey"                 # apikey | chatgpt | script | <name of a [providers.X] table>
model = "gpt-5-codex"
sandbox = "workspace-write"         # read-only | workspace-write | danger-full-access
approval = "on-request"             # never | on-request | untrusted
skill_dirs = ["~/.ctxscope/skills"]
instructions_file = "base.md"       # base instructions for every model (default: shipped prompt)
instructions_placement = "input"    # input: input[0] developer message (Codex 0.169) | field: `instructions`
global_agents_file = "AGENTS.md"    # global AGENTS.md (default: AGENTS.md in the ctxscope home)
reasoning_effort = "medium"         # wins over the model catalog's entry (default: the catalog's)
reasoning_summary = "auto"          # likewise
max_steps = 50
file_tools = true                   # read_file / list_dir / grep_files (Codex has none: false to match it)
plan_profile = "codex"              # codex | claude | knightcode: how plan mode enters, submits, reviews
max_goal_turns = 50                 # most goal turns one /goal run starts by itself
model_context_window = 272000       # tokens; the model catalog's value when not set
model_auto_compact_token_limit = 200000   # default: 90 % of the context window
compaction = "local"                # local | remote (/responses/compact) | remote_v2 (compaction_trigger)

[models."gpt-5-codex"]              # the model catalog's entry: see harness/model_catalog.py
instructions_file = "codex.md"
verbosity = "low"

[retry]                             # the client's retry policy
max_retries = 4
backoff_base = 0.5                  # seconds; doubled per attempt, with jitter
backoff_max = 20.0
idle_timeout = 300.0

[shell_environment]                 # commands never see the agent's credentials (tools/shell_env.py)
allow = ["MY_TOKEN_COUNT"]          # names (globs) passed through even though they look like credentials

[chatgpt]
auth_file = "~/.codex/auth.json"
token_url = "https://auth.openai.com/oauth/token"

[providers.local]
base_url = "http://127.0.0.1:8000/v1"
env_key = "LOCAL_KEY"
headers = { "X-Team" = "a" }
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any

from harness.model_catalog import ModelInfo, model_info
from harness.plan_profiles import PLAN_PROFILES
from harness.request import RequestOptions
from harness.tools.call_context import APPROVAL_POLICIES, SANDBOX_MODES
from proxy.errors import ConfigError
from proxy.home import config_dir

__all__ = ["APPROVALS", "HarnessConfig", "RetrySettings", "SANDBOXES", "load_config"]

# One list of each, owned by the tools that enforce them.
SANDBOXES = SANDBOX_MODES
APPROVALS = APPROVAL_POLICIES
DEFAULT_INSTRUCTIONS = resources.files("harness") / "prompts" / "base_instructions.md"
"""The shipped base instructions (package data, read with importlib.resources)."""
COMPACTION_FORMS = ("local", "remote", "remote_v2")
DEFAULT_CONTEXT_WINDOW = 272_000
"""Tokens, for models with no window configured (Codex's GPT-5 family window)."""
AUTO_COMPACT_FRACTION = 0.9
"""Codex compacts at 90 % of the context window unless a lower limit is configured."""
INSTRUCTIONS_PLACEMENTS = ("input", "field")
"""Where the base prompt travels: input[0] as a developer message (what Codex CLI 0.169 sends), or
the request's `instructions` field (what other Responses clients use)."""


@dataclass(frozen=True)
class RetrySettings:
    max_retries: int = 4
    backoff_base: float = 0.5
    backoff_max: float = 20.0
    idle_timeout: float = 300.0
    connect_timeout: float = 30.0


@dataclass(frozen=True)
class HarnessConfig:
    """Everything the agent needs to start, after merging file and flags."""

    provider: str = "apikey"
    model: str = "gpt-5-codex"
    base_url: str | None = None
    script: Path | None = None
    sandbox: str = "workspace-write"
    approval: str = "on-request"
    skill_dirs: tuple[Path, ...] = ()
    instructions_file: Path | None = None
    instructions_placement: str = "input"
    global_agents_file: Path | None = None
    """Global AGENTS.md sent before the repo's (default: `AGENTS.md` in the ctxscope home, if present)."""
    developer_instructions: str | None = None
    reasoning_effort: str | None = None
    """None: the model catalog's entry decides (as for `reasoning_summary`, `parallel_tool_calls`)."""
    reasoning_summary: str | None = None
    parallel_tool_calls: bool | None = None
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    """`[models."<slug>"]` tables: catalog entries added or overridden (see `harness.model_catalog`)."""
    max_steps: int = 50
    file_tools: bool = True
    """Offer ctxscope's read_file / list_dir / grep_files; Codex has no such tools (`false` = its profile)."""
    plan_profile: str = "codex"
    """Which plan-mode system to follow: codex, claude or knightcode (`harness.modes.plan`)."""
    max_goal_turns: int = 50
    """Most goal turns one `/goal` run starts by itself (a bound, not a budget)."""
    context_window: int | None = None
    """`model_context_window`: the model's window in tokens (None: the default)."""
    auto_compact_token_limit: int | None = None
    """`model_auto_compact_token_limit`: compact when the context would pass it (None: 90 % of the window)."""
    compaction: str = "local"
    """`local`, `remote` (`/responses/compact`) or `remote_v2` (a `compaction_trigger` item)."""
    retry: RetrySettings = RetrySettings()
    providers: dict[str, dict[str, Any]] = field(default_factory=dict)
    chatgpt: dict[str, Any] = field(default_factory=dict)
    shell_env_allow: tuple[str, ...] = ()
    """`[shell_environment] allow`: variables commands get even though their names look like credentials."""
    source: Path | None = None
    """The config file these settings came from, if any."""

    def model_info(self, model: str) -> ModelInfo:
        """The catalog entry for `model`, with this config's `[models."<slug>"]` table applied."""
        return model_info(model, self.models, str(self.source or "config.toml"))

    def request_options(self, model: str) -> RequestOptions:
        """Request settings for `model`: its catalog entry, then what this config sets explicitly."""
        info = self.model_info(model)
        effort = self.reasoning_effort if self.reasoning_effort is not None else info.reasoning_effort
        summary = self.reasoning_summary if self.reasoning_summary is not None else info.reasoning_summary
        parallel = (
            self.parallel_tool_calls if self.parallel_tool_calls is not None else info.parallel_tool_calls
        )
        return RequestOptions(
            reasoning_effort=effort or None,
            reasoning_summary=summary or None,
            parallel_tool_calls=parallel,
            verbosity=info.verbosity,
            sandbox=self.sandbox,
        )

    def instructions_for(self, model: str) -> str:
        """Base instructions for `model`: per-model file, else the global file, else the shipped default."""
        # A per-model file wins over the global one: instructions are tuned per model, as in Codex.
        path = self.model_info(model).instructions_file or self.instructions_file
        if path is None:
            try:
                return DEFAULT_INSTRUCTIONS.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as e:
                # Not the user's config: the package itself is incomplete.
                raise ConfigError(
                    f"the default instructions ({e.__class__.__name__}) are missing from this installation "
                    "of ctxscope: reinstall it, or set instructions_file in config.toml"
                ) from e
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(
                f"cannot read instructions file {path} ({e.__class__.__name__}): "
                "fix instructions_file in config.toml"
            ) from e

    def context_window_for(self, model: str) -> int:
        """The context window of `model` in tokens: `model_context_window` when set, else the catalog's."""
        return self.context_window or self.model_info(model).context_window or DEFAULT_CONTEXT_WINDOW

    def auto_compact_limit(self, model: str) -> int:
        """Tokens past which the next request is compacted first: the configured limit, capped at
        90 % of the window (Codex's rule)."""
        cap = int(self.context_window_for(model) * AUTO_COMPACT_FRACTION)
        return min(self.auto_compact_token_limit, cap) if self.auto_compact_token_limit else cap

    def with_overrides(self, **flags: Any) -> HarnessConfig:
        """Flags win over the file; None means "not given"."""
        known = {f.name for f in fields(self)}
        given = {k: v for k, v in flags.items() if v is not None and k in known}
        merged = replace(self, **given)
        merged.validate()
        return merged

    def validate(self) -> None:
        if self.sandbox not in SANDBOXES:
            raise ConfigError(f"unknown sandbox {self.sandbox!r}: use one of {', '.join(SANDBOXES)}")
        if self.instructions_placement not in INSTRUCTIONS_PLACEMENTS:
            raise ConfigError(
                f"unknown instructions_placement {self.instructions_placement!r}: "
                f"use one of {', '.join(INSTRUCTIONS_PLACEMENTS)}"
            )
        if self.approval not in APPROVALS:
            raise ConfigError(f"unknown approval policy {self.approval!r}: use one of {', '.join(APPROVALS)}")
        if self.max_steps < 1:
            raise ConfigError("max_steps must be at least 1")
        if self.plan_profile not in PLAN_PROFILES:
            raise ConfigError(
                f"unknown plan profile {self.plan_profile!r}: use one of {', '.join(PLAN_PROFILES)}"
            )
        if self.max_goal_turns < 1:
            raise ConfigError("max_goal_turns must be at least 1")
        if self.compaction not in COMPACTION_FORMS:
            raise ConfigError(
                f"unknown compaction {self.compaction!r}: use one of {', '.join(COMPACTION_FORMS)}"
            )
        for name, value in (
            ("model_context_window", self.context_window),
            ("model_auto_compact_token_limit", self.auto_compact_token_limit),
        ):
            if value is not None and value < 1:
                raise ConfigError(f"{name} must be a positive number of tokens")
        retry = self.retry
        # A zero idle timeout fails every stream at once; a negative count retries forever or never.
        for name, number, low, strict in (
            ("max_retries", retry.max_retries, 0, False),
            ("backoff_base", retry.backoff_base, 0, False),
            ("backoff_max", retry.backoff_max, 0, False),
            ("idle_timeout", retry.idle_timeout, 0, True),
            ("connect_timeout", retry.connect_timeout, 0, True),
        ):
            if number != number or number < low or (strict and number == low):  # number != number: NaN
                bound = f"more than {low}" if strict else f"at least {low}"
                raise ConfigError(f"[retry] {name} must be {bound}, not {number!r}")


def _path(value: Any, base: Path, key: str) -> Path:
    if not isinstance(value, str):
        raise ConfigError(f"{key} must be a string path in config.toml")
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path


_STRING_KEYS = (
    "provider",
    "model",
    "base_url",
    "sandbox",
    "approval",
    "reasoning_effort",
    "reasoning_summary",
    "developer_instructions",
    "instructions_placement",
    "plan_profile",
    "compaction",
)
# config.toml name → field, for the whole-number settings (Codex's names for the compaction ones).
_INT_KEYS = {
    "max_steps": "max_steps",
    "max_goal_turns": "max_goal_turns",
    "model_context_window": "context_window",
    "model_auto_compact_token_limit": "auto_compact_token_limit",
}


def load_config(path: Path | None = None) -> HarnessConfig:
    """Read `config.toml` (default: in the ctxscope home); a missing default file means defaults."""
    explicit = path is not None
    path = path or config_dir() / "config.toml"
    if not path.is_file():
        if explicit:
            raise ConfigError(f"config file {path} does not exist")
        return HarnessConfig()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path} is not valid TOML ({e}): fix or remove it") from e
    base = path.parent
    kw: dict[str, Any] = {"source": path}
    # A wrong type would otherwise surface later as a traceback (int("a"), iterating a number ...).
    for key, kind, what in (
        *((k, str, "a string") for k in _STRING_KEYS),
        *((k, int, "a whole number") for k in _INT_KEYS),
        ("parallel_tool_calls", bool, "true or false"),
        ("file_tools", bool, "true or false"),
        ("skill_dirs", list, "a list of paths"),
        *((k, dict, "a table") for k in ("models", "retry", "providers", "chatgpt", "shell_environment")),
    ):
        if key in raw and (not isinstance(raw[key], kind) or (kind is int and isinstance(raw[key], bool))):
            raise ConfigError(f"{key} must be {what} in {path}")
    for key in (*_STRING_KEYS, "parallel_tool_calls", "file_tools"):
        if key in raw:
            kw[key] = raw[key]
    for key, name in _INT_KEYS.items():
        if key in raw:
            kw[name] = raw[key]
    if "skill_dirs" in raw:
        kw["skill_dirs"] = tuple(_path(p, base, "skill_dirs") for p in raw["skill_dirs"])
    for key in ("instructions_file", "global_agents_file"):
        if key in raw:
            kw[key] = _path(raw[key], base, key)
    models = raw.get("models") or {}
    kw["models"] = {}
    for name, spec in models.items():
        if not isinstance(spec, dict):
            raise ConfigError(f'[models."{name}"] must be a table in {path}')
        table = dict(spec)
        if "instructions_file" in table:
            table["instructions_file"] = _path(
                table["instructions_file"], base, f"models.{name}.instructions_file"
            )
        kw["models"][name] = table
        model_info(name, kw["models"], str(path))  # a bad key or value is reported now, not mid-session
    retry = raw.get("retry") or {}
    try:
        kw["retry"] = RetrySettings(**{k: type(getattr(RetrySettings(), k))(v) for k, v in retry.items()})
    except (TypeError, AttributeError, ValueError) as e:
        raise ConfigError(
            f"bad [retry] table in {path} ({e}): keys are "
            "max_retries, backoff_base, backoff_max, idle_timeout, connect_timeout"
        ) from e
    kw["providers"] = dict(raw.get("providers") or {})
    kw["chatgpt"] = dict(raw.get("chatgpt") or {})
    allow = (raw.get("shell_environment") or {}).get("allow", [])
    if not isinstance(allow, list) or not all(isinstance(name, str) for name in allow):
        raise ConfigError(f"[shell_environment] allow must be a list of variable names in {path}")
    kw["shell_env_allow"] = tuple(allow)
    config = HarnessConfig(**kw)
    config.validate()
    return config
