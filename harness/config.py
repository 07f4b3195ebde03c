"""Harness settings: `config.toml` in the ctxscope home, overridden by command-line flags.

`HarnessConfig` is one typed pydantic model: each setting is declared once, with its type (Literal
values for the enum-like ones), range, default and `Setting` (help, Codex's key, CLI flag;
`ctxscope.harness.settings`), and config.toml, the `ctxscope agent` options and `AgentOptions` all derive from
it. Unknown keys are refused with the closest known key suggested; Codex's names are accepted too
(`sandbox_mode`, `approval_policy`, `model_reasoning_effort`, `model_reasoning_summary`,
`model_verbosity`, `model_instructions_file`, `model_provider`, `[model_providers.X]`,
`openai_base_url`), so a Codex config.toml
reads the same.

provider = "apikey"                 # apikey | chatgpt | script | <name of a [providers.X] table>
model = "gpt-5-codex"
sandbox = "workspace-write"         # read-only | workspace-write | danger-full-access (Codex: sandbox_mode)
approval = "on-request"             # never | on-request | untrusted (Codex: approval_policy)
skill_dirs = ["~/.ctxscope/skills"]
instructions_file = "base.md"       # base instructions for every model (default: shipped prompt)
instructions_placement = "input"    # input: input[0] developer message (Codex 0.169) | field: `instructions`
global_agents_file = "AGENTS.md"    # global AGENTS.md (default: AGENTS.md in the ctxscope home)
reasoning_effort = "medium"         # wins over the model catalog's entry (Codex: model_reasoning_effort)
reasoning_summary = "auto"          # likewise (Codex: model_reasoning_summary)
verbosity = "low"                   # likewise, `text.verbosity` (Codex: model_verbosity)
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

[sandbox_workspace_write]           # Codex's table: what workspace-write lets commands do (harness/sandbox)
network_access = false              # true: commands may use the network (off: none, loopback included)
writable_roots = ["~/scratch"]      # writable besides the working directory, /tmp and $TMPDIR

[chatgpt]
auth_file = "~/.codex/auth.json"
token_url = "https://auth.openai.com/oauth/token"

[providers.local]
base_url = "http://127.0.0.1:8000/v1"
env_key = "LOCAL_KEY"
headers = { "X-Team" = "a" }
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from ctxscope.harness.model_catalog import ModelInfo, model_info
from ctxscope.harness.plan_profiles import PlanProfileName
from ctxscope.harness.request import RequestOptions
from ctxscope.harness.settings import ConfigPath, Setting, check_overrides, one_line, read_toml, toml_fields
from ctxscope.harness.tools.call_context import APPROVAL_POLICIES, SANDBOX_MODES, ApprovalPolicy, SandboxMode
from ctxscope.proxy.errors import ConfigError
from ctxscope.proxy.home import config_dir

__all__ = [
    "APPROVALS",
    "ChatGptTable",
    "HarnessConfig",
    "ProviderTable",
    "RetrySettings",
    "SANDBOXES",
    "ShellEnvironment",
    "load_config",
]

# One list of each, owned by the tools that enforce them.
SANDBOXES = SANDBOX_MODES
APPROVALS = APPROVAL_POLICIES
DEFAULT_INSTRUCTIONS = resources.files("ctxscope.harness") / "prompts" / "base_instructions.md"
"""The shipped base instructions (package data, read with importlib.resources)."""
COMPACTION_FORMS = ("local", "remote", "remote_v2")
DEFAULT_CONTEXT_WINDOW = 272_000
"""Tokens, for models with no window configured (Codex's GPT-5 family window)."""
AUTO_COMPACT_FRACTION = 0.9
"""Codex compacts at 90 % of the context window unless a lower limit is configured."""
INSTRUCTIONS_PLACEMENTS = ("input", "field")
"""Where the base prompt travels: input[0] as a developer message (what Codex CLI 0.169 sends), or
the request's `instructions` field (what other Responses clients use)."""
MAX_INSTRUCTIONS_BYTES = 4 << 20
"""A base-instructions file larger than this is refused (`/dev/zero` would never end)."""

_STRICT = ConfigDict(strict=True, extra="forbid", frozen=True)
"""No coercion ("yes" is not true, "3" is not 3), no unknown keys, immutable once loaded."""


class RetrySettings(BaseModel):
    """`[retry]`: the client's retry policy."""

    model_config = _STRICT

    max_retries: int = Field(default=4, ge=0)
    backoff_base: float = Field(default=0.5, ge=0)
    """Seconds; doubled per attempt, with jitter."""
    backoff_max: float = Field(default=20.0, ge=0)
    idle_timeout: float = Field(default=300.0, gt=0)
    """A zero idle timeout would fail every stream at once."""
    connect_timeout: float = Field(default=30.0, gt=0)


class ProviderTable(BaseModel):
    """`[providers.NAME]` (Codex: `[model_providers.NAME]`): a Responses-compatible endpoint."""

    model_config = _STRICT

    base_url: str | None = None
    env_key: str | None = None
    """The environment variable holding the key (no Authorization header when absent)."""
    headers: dict[str, str] = Field(
        default_factory=dict, validation_alias=AliasChoices("headers", "http_headers")
    )
    name: str | None = None
    """Codex's display name of the provider (not sent)."""
    wire_api: Literal["responses"] | None = None
    """Codex's wire protocol; ctxscope speaks the Responses API only."""


class ChatGptTable(BaseModel):
    """`[chatgpt]`: where the ChatGPT login is and how its token is refreshed."""

    model_config = _STRICT

    auth_file: ConfigPath | None = None
    token_url: str | None = None
    client_id: str | None = None


class ShellEnvironment(BaseModel):
    """`[shell_environment]`: what commands see of the agent's environment (tools/shell_env.py)."""

    model_config = _STRICT

    allow: Annotated[tuple[str, ...], Field(strict=False)] = ()
    """Names (globs) passed through even though they look like credentials."""


class SandboxWorkspaceWrite(BaseModel):
    """`[sandbox_workspace_write]` (Codex's table and keys): what workspace-write lets commands do."""

    model_config = _STRICT

    network_access: bool = False
    """Commands may use the network; off, the OS sandbox cuts it, loopback included."""
    writable_roots: Annotated[tuple[ConfigPath, ...], Field(strict=False)] = ()
    """Writable besides the working directory, /tmp and $TMPDIR."""


Effort = Literal["", "none", "minimal", "low", "medium", "high", "xhigh"]
Summary = Literal["", "none", "auto", "concise", "detailed"]
Verbosity = Literal["", "low", "medium", "high"]


class HarnessConfig(BaseModel):
    """Everything the agent needs to start, after merging file and flags (one declaration each)."""

    model_config = _STRICT

    provider: Annotated[
        str,
        Setting(
            "apikey | chatgpt | script | a custom provider named in config.toml",
            codex="model_provider",
            flag="--provider",
        ),
    ] = "apikey"
    model: Annotated[str, Setting("Model slug.", flag="--model")] = "gpt-5-codex"
    base_url: Annotated[
        str | None, Setting("Override the provider's base URL.", codex="openai_base_url", flag="--base-url")
    ] = None
    script: Annotated[
        ConfigPath | None, Setting("Script cassette for --provider script.", flag="--script")
    ] = None
    sandbox: Annotated[
        SandboxMode,
        Setting("read-only | workspace-write | danger-full-access", codex="sandbox_mode", flag="--sandbox"),
    ] = "workspace-write"
    approval: Annotated[
        ApprovalPolicy,
        Setting(
            "never | on-request | untrusted",
            codex="approval_policy",
            flag="--approval",
            label="approval policy",
        ),
    ] = "on-request"
    skill_dirs: Annotated[
        tuple[ConfigPath, ...],
        Field(strict=False),
        Setting("Extra skill directory (repeatable).", flag="--skill-dir", exists="dir"),
    ] = ()
    instructions_file: Annotated[
        ConfigPath | None,
        Setting(
            "Base instructions file (instead of config / the shipped default).",
            codex="model_instructions_file",
            flag="--instructions",
            exists="file",
        ),
    ] = None
    instructions_placement: Annotated[
        Literal["input", "field"],
        Setting("input: input[0] developer message (Codex 0.169) | field: the `instructions` field"),
    ] = "input"
    global_agents_file: Annotated[
        ConfigPath | None,
        Setting("Global AGENTS.md sent before the repo's (default: AGENTS.md in the ctxscope home)."),
    ] = None
    developer_instructions: Annotated[
        str | None, Setting("Extra developer instructions.", codex="developer_instructions")
    ] = None
    reasoning_effort: Annotated[
        Effort | None,
        Setting(
            'reasoning.effort; wins over the model catalog\'s entry ("" sends none)',
            codex="model_reasoning_effort",
            label="reasoning effort",
        ),
    ] = None
    """None: the model catalog's entry decides (likewise `reasoning_summary`, `verbosity`, ...)."""
    reasoning_summary: Annotated[
        Summary | None,
        Setting(
            'reasoning.summary; wins over the catalog\'s ("" or none sends none)',
            codex="model_reasoning_summary",
            label="reasoning summary",
        ),
    ] = None
    verbosity: Annotated[
        Verbosity | None,
        Setting('text.verbosity; wins over the catalog\'s ("" sends none)', codex="model_verbosity"),
    ] = None
    parallel_tool_calls: Annotated[bool | None, Setting("parallel_tool_calls; wins over the catalog's.")] = (
        None
    )
    models: Annotated[
        dict[str, dict[str, Any]], Setting('[models."<slug>"] tables: catalog entries added or overridden.')
    ] = Field(default_factory=dict)
    max_steps: Annotated[int, Field(ge=1), Setting("Most model requests per turn.", flag="--max-steps")] = 50
    file_tools: Annotated[
        bool, Setting("Offer read_file / list_dir / grep_files (Codex has none: false matches it).")
    ] = True
    plan_profile: Annotated[
        PlanProfileName,
        Setting(
            "codex | claude | knightcode: which plan-mode system to follow.",
            flag="--plan-profile",
            label="plan profile",
        ),
    ] = "codex"
    max_goal_turns: Annotated[
        int, Field(ge=1), Setting("Most goal turns one /goal run starts by itself (a bound, not a budget).")
    ] = 50
    context_window: Annotated[
        int | None,
        Field(ge=1),
        Setting("The model's window in tokens (default: the catalog's).", key="model_context_window"),
    ] = None
    auto_compact_token_limit: Annotated[
        int | None,
        Field(ge=1),
        Setting(
            "Compact when the context would pass it (default: 90 % of the window).",
            key="model_auto_compact_token_limit",
        ),
    ] = None
    compaction: Annotated[
        Literal["local", "remote", "remote_v2"],
        Setting("local | remote (/responses/compact) | remote_v2 (a compaction_trigger item)"),
    ] = "local"
    retry: Annotated[RetrySettings, Setting("[retry]: the client's retry policy.")] = RetrySettings()
    providers: Annotated[
        dict[str, ProviderTable], Setting("[providers.NAME] endpoints.", codex="model_providers")
    ] = Field(default_factory=dict)
    chatgpt: Annotated[ChatGptTable, Setting("[chatgpt]: the ChatGPT login.")] = ChatGptTable()
    shell_environment: Annotated[
        ShellEnvironment, Setting("[shell_environment]: what commands see of the environment.")
    ] = ShellEnvironment()
    sandbox_workspace_write: Annotated[
        SandboxWorkspaceWrite,
        Setting("[sandbox_workspace_write]: network access and extra writable roots in workspace-write."),
    ] = SandboxWorkspaceWrite()
    source: Path | None = None
    """The config file these settings came from, if any (not a setting)."""

    @field_validator("models", mode="after")
    @classmethod
    def _check_models(
        cls, models: dict[str, dict[str, Any]], info: ValidationInfo
    ) -> dict[str, dict[str, Any]]:
        """Each catalog table's paths resolved and its keys checked now, not mid-session."""
        context = info.context or {}
        where = str(context.get("where") or "config")
        base = context.get("base")
        checked: dict[str, dict[str, Any]] = {}
        for name, table in models.items():
            if not isinstance(table, dict):
                raise ConfigError(f'[models."{name}"] must be a table in {where}')
            table = dict(table)
            path = table.get("instructions_file")
            if isinstance(path, str):
                resolved = Path(path).expanduser()
                table["instructions_file"] = (
                    resolved if resolved.is_absolute() or base is None else base / resolved
                )
            checked[name] = table
            model_info(name, checked, where)
        return checked

    @property
    def shell_env_allow(self) -> tuple[str, ...]:
        """`[shell_environment] allow`."""
        return self.shell_environment.allow

    def model_info(self, model: str) -> ModelInfo:
        """The catalog entry for `model`, with this config's `[models."<slug>"]` table applied."""
        return model_info(model, self.models, str(self.source or "config.toml"))

    def request_options(self, model: str) -> RequestOptions:
        """Request settings for `model`: its catalog entry, then what this config sets explicitly."""
        info = self.model_info(model)
        effort = self.reasoning_effort if self.reasoning_effort is not None else info.reasoning_effort
        summary = self.reasoning_summary if self.reasoning_summary is not None else info.reasoning_summary
        verbosity = self.verbosity if self.verbosity is not None else info.verbosity
        parallel = (
            self.parallel_tool_calls if self.parallel_tool_calls is not None else info.parallel_tool_calls
        )
        return RequestOptions(
            reasoning_effort=effort or None,
            # Codex's "none" summary sends no summary (the API has no such value).
            reasoning_summary=None if summary in (None, "", "none") else summary,
            parallel_tool_calls=parallel,
            verbosity=verbosity or None,
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
        return _read_instructions(path)

    def context_window_for(self, model: str) -> int:
        """The context window of `model` in tokens: `model_context_window` when set, else the catalog's."""
        return self.context_window or self.model_info(model).context_window or DEFAULT_CONTEXT_WINDOW

    def auto_compact_limit(self, model: str) -> int:
        """Tokens past which the next request is compacted first: the configured limit, capped at
        90 % of the window (Codex's rule)."""
        cap = int(self.context_window_for(model) * AUTO_COMPACT_FRACTION)
        return min(self.auto_compact_token_limit, cap) if self.auto_compact_token_limit else cap

    def with_overrides(self, **flags: Any) -> HarnessConfig:
        """Settings given by name win over the file (None means "not given"); checked like the file."""
        given = check_overrides({k: v for k, v in flags.items() if v is not None}, HarnessConfig)
        try:
            return HarnessConfig.model_validate({**dict(self), **given})
        except ValidationError as e:
            raise one_line(e, HarnessConfig, None) from None


def _read_instructions(path: Path) -> str:
    """A regular file of bounded size (a FIFO or `/dev/zero` would hang or never end)."""
    fix = "fix instructions_file in config.toml (or --instructions)"
    try:
        if not path.is_file():
            raise ConfigError(f"instructions file {path} is not a regular file: {fix}")
        with path.open("rb") as f:
            data = f.read(MAX_INSTRUCTIONS_BYTES + 1)
        if len(data) > MAX_INSTRUCTIONS_BYTES:
            raise ConfigError(f"instructions file {path} is over {MAX_INSTRUCTIONS_BYTES >> 20} MiB: {fix}")
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read instructions file {path} ({e.__class__.__name__}): {fix}") from e


def load_config(path: Path | None = None) -> HarnessConfig:
    """Read `config.toml` (default: in the ctxscope home); a missing default file means defaults."""
    explicit = path is not None
    path = path or config_dir() / "config.toml"
    if not path.exists():
        if explicit:
            raise ConfigError(f"config file {path} does not exist")
        return HarnessConfig()
    raw = read_toml(path)
    problems: list[str] = []
    values, keys = toml_fields(raw, HarnessConfig, str(path), problems)
    try:
        config = HarnessConfig.model_validate(
            {**values, "source": path}, context={"base": path.parent, "where": str(path)}
        )
    except ValidationError as e:
        raise one_line(e, HarnessConfig, str(path), keys, problems) from None
    if problems:
        raise one_line(None, HarnessConfig, str(path), keys, problems)
    return config
