"""Taking a world-state snapshot from settings and the file system.

`ContextSettings` is what the agent knows about its environment (cwd, sandbox, model, ...);
`collect_world_state` reads AGENTS.md files and skills fresh each time, so an edit on disk shows
up as a change at the next request, and turns it into a `WorldState`.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field

from ctxscope.harness.sandbox.policy import default_writable_roots
from ctxscope.proxy.errors import ConfigError

from .agents_md import DEFAULT_MAX_BYTES, discover_agents_docs
from .skills import discover_skills
from .world_state import WorldState

__all__ = ["APPROVAL_POLICIES", "SANDBOX_MODES", "ContextSettings", "collect_world_state", "local_timezone"]

SANDBOX_MODES: tuple[str, ...] = ("read-only", "workspace-write", "danger-full-access")
APPROVAL_POLICIES: tuple[str, ...] = ("never", "on-request", "untrusted", "on-failure")


class ContextSettings(BaseModel):
    """Inputs of a world-state snapshot; `now`/`timezone`/`shell` make tests deterministic."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    cwd: Path
    repo_root: Path | None = None
    """None: found by walking up from cwd to a directory holding `.git`."""
    global_agents_file: Path | None = None
    skill_dirs: list[Path] = Field(default_factory=list)
    sandbox_mode: str = "workspace-write"
    approval_policy: str = "on-request"
    network_enabled: bool = False
    writable_roots: list[Path] | None = None
    """None: the cwd, /tmp and $TMPDIR in workspace-write mode, / without a sandbox, [] read-only."""
    extra_writable_roots: list[Path] = Field(default_factory=list)
    """Writable in workspace-write besides the defaults (`[sandbox_workspace_write] writable_roots`)."""
    sandbox_enforcement: str | None = None
    """How the OS enforces the sandbox (`ctxscope.harness.sandbox.enforcement`), told in the permissions
    fragment; None: not told."""
    collaboration_mode: str | None = None
    model: str = ""
    reasoning_effort: str | None = None
    shell: str | None = None
    """None: the basename of $SHELL, else "bash"."""
    now: datetime | None = None
    timezone: str | None = None
    """IANA name; None: the machine's zone."""
    goal: str | None = None
    agents_max_bytes: int = DEFAULT_MAX_BYTES
    """Budget shared by the project AGENTS.md files (the global file is not counted)."""


def local_timezone() -> str:
    """The machine's IANA zone name ($TZ, /etc/timezone, /etc/localtime link), else "UTC"."""
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    try:
        candidates.append(Path("/etc/timezone").read_text(encoding="utf-8").strip())
    except OSError:
        pass
    try:
        link = os.readlink("/etc/localtime")
        if "zoneinfo/" in link:
            candidates.append(link.split("zoneinfo/", 1)[1])
    except OSError:
        pass
    for name in candidates:
        if name:
            try:
                ZoneInfo(name)
                return name
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return "UTC"


def _current_date(now: datetime | None, timezone: str) -> str:
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError) as err:
        raise ConfigError(f"unknown timezone {timezone!r}; use an IANA name such as Europe/Paris") from err
    if now is None:
        now = datetime.now(zone)
    elif now.tzinfo is not None:
        now = now.astimezone(zone)
    return now.date().isoformat()


def _default_writable_roots(cwd: Path, sandbox_mode: str) -> list[str]:
    """Codex's defaults: commands may write the workspace and the temp directories."""
    if sandbox_mode == "danger-full-access":
        return ["/"]
    if sandbox_mode != "workspace-write":
        return []
    return default_writable_roots(str(cwd))


def collect_world_state(settings: ContextSettings, warnings: list[str] | None = None) -> WorldState:
    """Snapshot the world: AGENTS.md files and skills are read now; problems with skills and cut
    or non-UTF-8 AGENTS.md files go to `warnings`; a bad setting or an unreadable AGENTS.md raises
    `ConfigError` naming what to fix."""
    cwd = settings.cwd.expanduser().resolve()
    if not cwd.is_dir():
        raise ConfigError(f"working directory {cwd} does not exist; pass an existing directory")
    if settings.sandbox_mode not in SANDBOX_MODES:
        raise ConfigError(
            f"unknown sandbox mode {settings.sandbox_mode!r}; use one of {', '.join(SANDBOX_MODES)}"
        )
    if settings.approval_policy not in APPROVAL_POLICIES:
        raise ConfigError(
            f"unknown approval policy {settings.approval_policy!r}; use one of {', '.join(APPROVAL_POLICIES)}"
        )
    if settings.writable_roots is not None:
        roots = [str(Path(r).expanduser().resolve()) for r in settings.writable_roots]
    else:
        roots = _default_writable_roots(cwd, settings.sandbox_mode)
        if settings.sandbox_mode == "workspace-write":
            extra = (str(Path(r).expanduser().resolve()) for r in settings.extra_writable_roots)
            roots = list(dict.fromkeys([*roots, *extra]))
    timezone = settings.timezone or local_timezone()
    shell = settings.shell or Path(os.environ.get("SHELL") or "bash").name
    repo_root = settings.repo_root.expanduser().resolve() if settings.repo_root else None
    return WorldState(
        cwd=str(cwd),
        shell=shell,
        current_date=_current_date(settings.now, timezone),
        timezone=timezone,
        network_enabled=settings.network_enabled,
        sandbox_mode=settings.sandbox_mode,
        approval_policy=settings.approval_policy,
        writable_roots=roots,
        sandbox_enforcement=settings.sandbox_enforcement,
        collaboration_mode=settings.collaboration_mode,
        agents_docs=discover_agents_docs(
            cwd,
            repo_root,
            settings.global_agents_file,
            max_bytes=settings.agents_max_bytes,
            warnings=warnings,
        ),
        skills=discover_skills(settings.skill_dirs, warnings),
        model=settings.model,
        reasoning_effort=settings.reasoning_effort,
        goal=settings.goal,
    )
