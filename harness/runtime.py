"""Assemble a running agent from settings: config → provider → route (capture) → client → session → agent.

`AgentRuntime` is what the CLI (and tests, in-process) drive. It owns everything that must be
stopped: the capture proxy, the recording writer, the HTTP client. Use it as a context manager.
"""

from __future__ import annotations

import sys
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any

import httpx

from ctxscope.harness.agent import Agent
from ctxscope.harness.client import ResponsesClient
from ctxscope.harness.config import HarnessConfig, load_config
from ctxscope.harness.context import ContextSettings
from ctxscope.harness.events import EventSink, Notice, SessionStarted
from ctxscope.harness.modes import CurrentMode, DefaultMode
from ctxscope.harness.modes.plan import (
    PLAN_PROFILES,
    PlanController,
    PlanProfileName,
    PlanState,
    default_mode,
)
from ctxscope.harness.modes.plan.state import load_plan_state
from ctxscope.harness.modes.plan.tools import DECLARED_ON_FIRST_PLAN, REPLACED_BY_PROFILE, profile_tools
from ctxscope.harness.providers import make_provider
from ctxscope.harness.providers.base import Provider
from ctxscope.harness.route import Route, open_route
from ctxscope.harness.sandbox import capabilities, enforcement, unenforced
from ctxscope.harness.session.store import SessionStore
from ctxscope.harness.session_context import SessionContext
from ctxscope.harness.settings import check_overrides
from ctxscope.harness.tools import FILE_TOOLS, Approver, AskUser, ToolContext, ToolRouter, default_tools
from ctxscope.proxy.errors import ConfigError, MissingExtra, missing_extra
from ctxscope.proxy.home import ctxscope_home, new_recording_path, sessions_dir

__all__ = ["AgentOptions", "AgentRuntime"]


@dataclass(init=False)
class AgentOptions:
    """How to start the agent: the run's own choices, plus settings by name over config.toml.

    Settings are not declared here: any `HarnessConfig` setting (`provider`, `model`, `sandbox`,
    `skill_dirs`, ...) is taken by keyword and kept in `settings`, checked against the one declaration
    (a name that is no setting is refused with the closest one suggested). None means "not given"."""

    session: str | None = None
    """Resume this session (id, id prefix or file path)."""
    fork: str | None = None
    """Copy this session to a new id and continue the copy."""
    cwd: Path | None = None
    capture: Path | None = None
    no_capture: bool = False
    config_path: Path | None = None
    auth_file: Path | None = None
    goal_budget: int | None = None
    """Token budget for a goal set with `/goal <objective>` (`--goal-budget`)."""
    sessions_dir: Path | None = None
    approver: Approver | None = None
    """Interactive approval prompt for tools (None: headless, approvals refused)."""
    ask_user: AskUser | None = None
    """Answers `request_user_input` (None: headless, the recommended option is taken)."""
    plan: bool = False
    """`--plan`: a new session starts in plan mode (a resumed or forked one keeps its saved state)."""
    announce_mode: bool = False
    """Send the Default-mode fragment from the first request, as the Codex TUI does (the REPL);
    False sends none until a mode change, as `codex exec` does (`-p`)."""
    context_overrides: dict[str, Any] = field(default_factory=dict)
    """Extra `ContextSettings` fields (tests pin `now`, `timezone`, `shell`, `global_agents_file`)."""
    command_env: dict[str, str] | None = None
    """Variables laid over the environment of the commands the model runs (`ToolContext.env`)."""
    transport: httpx.BaseTransport | None = None
    """Send the model requests to this httpx transport instead of the network (a `CassetteTransport`:
    in-process replay, as a promoted test runs the agent); nothing is captured then."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Settings by field name over config.toml (`skill_dirs` add to the file's; a `--plan-profile`
    is ignored by a resumed session, which keeps the profile it planned with)."""

    def __init__(self, **given: Any) -> None:
        for spec in fields(AgentOptions):
            if spec.name in given:
                value = given.pop(spec.name)
            elif spec.default_factory is not MISSING:
                value = spec.default_factory()
            else:
                value = spec.default
            setattr(self, spec.name, value)
        self.settings = {
            **self.settings,
            **check_overrides({k: v for k, v in given.items() if v is not None}, HarnessConfig),
        }


class AgentRuntime:
    """A started agent plus the resources behind it."""

    def __init__(self, options: AgentOptions, emit: EventSink | None = None) -> None:
        self.options = options
        self.emit = emit
        base = load_config(options.config_path)
        settings = dict(options.settings)
        # Skill dirs given for this run add to those in config.toml (an extra, not a replacement).
        extra_skills = settings.pop("skill_dirs", None)
        if extra_skills:
            settings["skill_dirs"] = (*base.skill_dirs, *extra_skills)
        self.config: HarnessConfig = base.with_overrides(**settings)
        self.provider: Provider = make_provider(self.config, auth_file=options.auth_file)
        self.route: Route | None = None
        self.client: ResponsesClient | None = None
        self.agent: Agent | None = None
        self.plan: PlanController | None = None
        """The current session's plan state and actions (replaced with the agent by `/new`)."""
        self.session_write_failures: list[SessionStore] = []
        """Closed sessions of this run that had a failed write (said at close; see `session_entries_lost`)."""

    @property
    def capture_path(self) -> Path | None:
        return self.route.capture_path if self.route else None

    def start(self) -> AgentRuntime:
        """Check credentials, open the session, start capture; nothing is sent yet."""
        self.provider.check()
        store, resumed = self._open_session()
        quiet = self.options.no_capture or self.options.transport is not None
        capture = None if quiet else (self.options.capture or new_recording_path("agent"))
        # The last world-state snapshot knows about any /cd since the session started.
        last_cwd = ((resumed.world_state or {}).get("cwd") or resumed.meta.get("cwd")) if resumed else None
        cwd = self._cwd(last_cwd)
        # The capture's cwd lets strict replay map this checkout's paths onto another one.
        meta = {"session_id": store.session_id, "cwd": str(cwd)}
        try:
            if not cwd.is_dir():
                # A --cwd typo, or a resumed session whose directory is gone: say so before starting.
                raise ConfigError(f"working directory {cwd} does not exist: pass an existing one with --cwd")
            self.route = self._open_route(capture, meta)
            self.client = ResponsesClient(
                self.provider,
                base_url=self.route.base_url,
                retry=self.config.retry,
                transport=self.options.transport,
                notice=self._notice,
            )
            self.agent = self._make_agent(store, resumed, cwd)
            self._session_started(self.agent)  # the first event, before any mode or model change
            ctx = self.agent.router.ctx
            gaps = unenforced(ctx.sandbox_mode, ctx.network_access, ctx.sandbox_capabilities())
            if gaps:
                # Said once at start (and in /status): the rules the kernel cannot hold here.
                self._notice(
                    f"sandbox `{ctx.sandbox_mode}`: the operating system cannot enforce "
                    f"{', '.join(gaps)}; only the tool layer's checks apply to those"
                )
            model = self.options.settings.get("model")
            if resumed is not None and model and model != self.agent.model:
                # `--model` with `--session`/`--fork` is a switch, as `/model` is: the model-switch
                # fragment goes in and the history is kept (the session's own model would win otherwise).
                self.agent.switch_model(model)
            if self.options.plan and resumed is None:
                assert self.plan is not None
                self.plan.enter()
            elif self.options.plan:
                self._notice("--plan is ignored for a resumed session: it continues in its saved mode")
        except BaseException:
            self.close()
            store.close()
            if self.options.session is None:
                # A session file made a moment ago (new or forked) that will never hold a turn:
                # leave no empty session behind (e.g. a script cassette that does not load).
                store.path.unlink(missing_ok=True)
            raise
        return self

    def _open_route(self, capture: Path | None, meta: dict[str, Any]) -> Route:
        try:
            return open_route(self.provider, capture, meta=meta)
        except ModuleNotFoundError as err:
            needed = missing_extra(err)
            if needed is None:
                raise
        # the core install has no mitmproxy: capture needs the proxy extra, the agent itself does not
        raise MissingExtra(f"{needed}; or run the agent without capture: --no-capture")

    def _notice(self, message: str) -> None:
        if self.agent is not None:
            self.agent.notice(message)
        elif self.emit is not None:
            self.emit(Notice(message=message))

    def _cwd(self, resumed_cwd: str | None) -> Path:
        if self.options.cwd is not None:
            return self.options.cwd.expanduser().resolve()
        if resumed_cwd:
            return Path(resumed_cwd)
        return Path.cwd().resolve()

    def _open_session(self) -> tuple[SessionStore, Any]:
        directory = self.options.sessions_dir or sessions_dir()
        ref = self.options.fork or self.options.session
        if ref is None:
            return self._new_store(directory, self._cwd(None), self.config.model), None
        store = SessionStore.open(ref, directory=directory, credentials=self.provider.held_credentials)
        if self.options.fork:
            store = store.fork(directory=directory)  # the copy's writer; the original is only read
        else:
            store.hold()  # one agent per session: a second one is refused here, naming this one's pid
        try:
            # A contradictory plan state fails here, before any request, naming its line.
            return store, store.load(checks={"plan_state": load_plan_state})
        except BaseException:
            store.close()
            raise

    def _new_store(self, directory: Path, cwd: Path, model: str) -> SessionStore:
        return SessionStore.create(
            {
                "cwd": str(cwd),
                "provider": self.provider.name,
                "base_url": self.provider.base_url,
                "model": model,
                "originator": "ctxscope",
            },
            directory=directory,
            credentials=self.provider.held_credentials,
        )

    def _make_agent(self, store: SessionStore, resumed: Any, cwd: Path, model: str | None = None) -> Agent:
        assert self.client is not None
        global_agents = self.config.global_agents_file or ctxscope_home() / "AGENTS.md"
        overrides = {
            "global_agents_file": global_agents if global_agents.is_file() else None,
            **self.options.context_overrides,
        }
        # What the kernel enforces is probed once; the model and the person are told exactly that.
        os_sandbox = capabilities()
        # `[sandbox_workspace_write]` (Codex's table) widens workspace-write only, as in Codex.
        widen = self.config.sandbox_workspace_write if self.config.sandbox == "workspace-write" else None
        network = bool(overrides.get("network_enabled", widen is not None and widen.network_access))
        overrides.setdefault("network_enabled", network)
        extra_roots = list(widen.writable_roots) if widen is not None else []
        overrides.setdefault("extra_writable_roots", extra_roots)
        enforced = enforcement(self.config.sandbox, network, os_sandbox)
        overrides.setdefault("sandbox_enforcement", enforced)
        settings = ContextSettings(
            cwd=cwd,
            skill_dirs=list(self.config.skill_dirs),
            sandbox_mode=self.config.sandbox,
            approval_policy=self.config.approval,
            model=self.config.model,
            **overrides,
        )
        # One mode holder for the session: the agent switches it, the router and the context read it.
        mode = CurrentMode(self._initial_mode(resumed))
        context = SessionContext(
            settings, developer_instructions=self.config.developer_instructions, mode=mode
        )
        tool_ctx = ToolContext(
            cwd=cwd,
            sandbox_mode=self.config.sandbox,
            approval_policy=self.config.approval,
            approver=self.options.approver,
            ask_user=self.options.ask_user,
            mode=mode,
            env=self.options.command_env,
            env_allow=self.config.shell_env_allow,
            network_access=network,
            writable_roots=overrides.get("writable_roots"),
            extra_writable_roots=list(overrides["extra_writable_roots"]),
            os_sandbox=os_sandbox,
        )
        saved = resumed.plan_state if resumed is not None else None
        profile = self._plan_profile(saved)
        tools = [*default_tools(), *profile_tools(profile, self._plan_hooks)]
        # `file_tools = false` (Codex has no such tools) leaves ctxscope's file tools out of tools[].
        enabled = {t.name for t in tools} - (set() if self.config.file_tools else set(FILE_TOOLS))
        enabled -= REPLACED_BY_PROFILE.get(profile, frozenset())
        if not (isinstance(saved, dict) and (saved.get("cycles") or saved.get("active"))):
            # knightcode declares its planning tools when planning first starts (PlanController.enter).
            enabled -= DECLARED_ON_FIRST_PLAN.get(profile, frozenset())
        router = ToolRouter(tool_ctx, enabled, tools=tools)
        agent = Agent(
            config=self.config,
            client=self.client,
            session=store,
            context=context,
            router=router,
            model=model,
            emit=self.emit,
            resumed=resumed,
        )
        context.set_model(agent.model)
        router.set_apply_patch_tool(self.config.model_info(agent.model).apply_patch_tool)
        if saved is not None:
            # A malformed state fails here, before any request (a one-line error naming the file).
            self.plan = PlanController.restore(agent, saved, self._new_plan_session)
        else:
            self.plan = PlanController(agent, PlanState(profile=profile), self._new_plan_session)
        return agent

    def _plan_profile(self, saved: Any) -> PlanProfileName:
        if isinstance(saved, dict) and saved.get("profile") in PLAN_PROFILES:
            return saved["profile"]  # type: ignore[no-any-return]
        return self.config.plan_profile

    def _plan_hooks(self) -> PlanController:
        if self.plan is None:
            raise ConfigError("plan mode is not ready: the session has not started")
        return self.plan

    def _initial_mode(self, resumed: Any) -> DefaultMode:
        """Default mode; announced (its fragment sent) when asked to, or when the resumed session's
        last world state already carried it."""
        last = ((resumed.world_state or {}).get("collaboration_mode")) if resumed is not None else None
        return default_mode() if self.options.announce_mode or last is not None else DefaultMode()

    def _new_plan_session(self) -> PlanController:
        agent = self.new_session()
        # "Clear context and implement": Codex's new thread says its history was cleared.
        agent.history_initialization = "cleared"
        assert self.plan is not None
        return self.plan

    def new_session(self) -> Agent:
        """`/new`: a fresh session (new id, full context on the next request), same settings,
        model and working directory (a `/cd` is kept, as in Codex)."""
        assert self.agent is not None
        old = self.agent
        cwd = old.context.cwd
        store = self._new_store(old.session.path.parent, cwd, old.model)
        agent = self._make_agent(store, None, cwd, model=old.model)
        old.router.close()
        self._close_session(old.session)
        self.agent = agent
        self._session_started(agent)
        return agent

    def _close_session(self, store: SessionStore) -> None:
        """Release a session file; entries that never reached it are said now and counted for the exit."""
        store.close()
        if store.failed_writes:
            self.session_write_failures.append(store)
            lost = (
                f"{store.unwritten} entr{'y' if store.unwritten == 1 else 'ies'} never reached it "
                "(a resume continues from before them)"
                if store.unwritten
                else "all were written later"
            )
            self._say(
                f"session {store.session_id}: {store.failed_writes} write(s) to {store.path} failed "
                f"({store.last_error}); {lost}"
            )

    def _say(self, message: str) -> None:
        sys.stderr.write(f"ctxscope: {message}\n")
        sys.stderr.flush()

    @property
    def session_entries_lost(self) -> int:
        """Entries of this run's sessions that never reached their files (the exit is then non-zero)."""
        return sum(store.unwritten for store in self.session_write_failures)

    def _session_started(self, agent: Agent) -> None:
        """`session_started` for a session this runtime starts or resumes (at start, `/new`, a fresh
        plan handoff): the front ends print its id, and `--json` begins with it."""
        if self.emit is not None:
            capture = self.capture_path
            self.emit(
                SessionStarted(
                    session_id=agent.session_id,
                    session_file=str(agent.session.path),
                    model=agent.model,
                    provider=self.provider.name,
                    capture=str(capture) if capture else None,
                )
            )

    def close(self) -> None:
        if self.agent is not None:
            self.agent.router.close()  # no command outlives the agent
            if not self.agent.session.closed:
                self._close_session(self.agent.session)
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.route is not None:
            self.route.close()
            self.route = None

    def __enter__(self) -> AgentRuntime:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
