"""What a tool call may see and touch: the `ToolContext` the agent loop hands to every tool.

The context is one mutable object per session. The agent loop changes `cwd` and the permissions
between turns; tools read it at call time, so a change takes effect at the next call. The mode is
not copied here: `mode` is the session's mode holder (`ctxscope.harness.modes.CurrentMode`, seen through the
`ModeView` protocol so this layer does not import the modes above it). `plan` and `goal` are the
state tools write (`update_plan`, the goal tools).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, ParamSpec, Protocol, TypeVar

from ctxscope.harness.goal.state import GoalBook
from ctxscope.harness.sandbox.policy import default_writable_roots
from ctxscope.harness.sandbox.support import Capabilities, capabilities
from ctxscope.harness.tools.gate import GateRule
from ctxscope.proxy.errors import ConfigError

SandboxMode = Literal["read-only", "workspace-write", "danger-full-access"]
ApprovalPolicy = Literal["never", "on-request", "untrusted"]
PlanStatus = Literal["pending", "in_progress", "completed"]

SANDBOX_MODES: tuple[str, ...] = ("read-only", "workspace-write", "danger-full-access")
APPROVAL_POLICIES: tuple[str, ...] = ("never", "on-request", "untrusted")
PLAN_STATUSES: tuple[str, ...] = ("pending", "in_progress", "completed")


@dataclass(frozen=True)
class ApprovalRequest:
    """One question to the person at the keyboard: may this action run?"""

    tool: str
    """The tool asking (`exec_command`, `apply_patch`)."""
    summary: str
    """What would happen, e.g. the command line or `A new.txt, M src/x.py`."""
    reason: str
    """Why approval is needed (which sandbox mode / policy rule asked)."""
    cwd: Path
    justification: str | None = None
    """The model's own explanation, when it gave one."""


@dataclass(frozen=True)
class QuestionOption:
    """One choice of a structured question; the first option is the recommended one."""

    label: str
    description: str


@dataclass(frozen=True)
class Question:
    """One structured question of `request_user_input`."""

    id: str
    header: str
    """A short tag (at most 12 characters) a UI can show as a chip or column title."""
    question: str
    options: tuple[QuestionOption, ...]
    multi_select: bool = False
    """Several options may be chosen (Claude Code's `multiSelect`); the answer is then a list."""


@dataclass
class PlanStep:
    """One checklist line of `update_plan`."""

    step: str
    status: PlanStatus


@dataclass
class PlanState:
    """The model's TODO checklist, replaced as a whole by each `update_plan` call."""

    steps: list[PlanStep] = field(default_factory=list)
    explanation: str | None = None
    revision: int = 0
    """How many times the plan was updated; 0 = never."""

    def render(self) -> str:
        """A compact text checklist for status lines and logs."""
        marks = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}
        return "\n".join(f"{marks[s.status]} {s.step}" for s in self.steps)


Approver = Callable[[ApprovalRequest], bool]
"""The interactive approval prompt: True lets the action run."""
Answer = str | list[str]
"""A question's answer: the chosen option's label or free text, or several labels."""
AskUser = Callable[[list[Question]], dict[str, Answer]]
"""Answers `request_user_input`: `{question_id: answer}`; missing ids count as unanswered."""


class ModeView(Protocol):
    """What the tool layer reads of the session's current mode, at call time."""

    @property
    def name(self) -> str:
        """Matched by the gate's rules."""
        ...

    def gate_rules(self) -> Sequence[GateRule]:
        """Rules the mode adds, checked before the router's own gate."""
        ...


@dataclass(frozen=True)
class NamedMode:
    """A fixed mode for a tool context used on its own (scripts, tests): a name and optional rules."""

    name: str = "default"
    rules: tuple[GateRule, ...] = ()

    def gate_rules(self) -> Sequence[GateRule]:
        return self.rules


@dataclass
class ToolContext:
    """Everything the tools need from the session.

    `approver` is the interactive approval prompt; None means headless, and anything that needs
    approval is refused with a message saying so. `ask_user` answers `request_user_input`; None means
    headless, and the recommended (first) option is taken and the answer says so. `ask_user` returns
    `{question_id: label or [labels]}`; missing ids count as unanswered.
    """

    cwd: Path
    workspace_roots: list[Path] = field(default_factory=list)
    sandbox_mode: str = "workspace-write"
    approval_policy: str = "on-request"
    approver: Approver | None = None
    ask_user: AskUser | None = None
    mode: ModeView = field(default_factory=NamedMode)
    """The session's current mode; the agent's `CurrentMode`, shared with the session context."""
    plan: PlanState = field(default_factory=PlanState)
    goal: GoalBook = field(default_factory=GoalBook)
    """The thread goal the goal tools read and change (the agent records each change)."""
    env: dict[str, str] | None = None
    """Extra environment for commands, laid over the harness's own environment."""
    env_allow: tuple[str, ...] = ()
    """Names (`*` globs) of the harness's variables commands get even if they look like credentials."""
    network_access: bool = False
    """Whether commands may use the network (off: the OS sandbox cuts it, loopback included)."""
    writable_roots: list[Path] | None = None
    """Where commands may write in workspace-write; None: the workspace roots, /tmp and $TMPDIR
    (Codex's defaults, the same the permissions fragment names)."""
    extra_writable_roots: list[Path] = field(default_factory=list)
    """Writable in workspace-write besides those (`[sandbox_workspace_write] writable_roots`)."""
    os_sandbox: Capabilities | None = None
    """What the kernel enforces; None: probed when the first command runs."""

    def __post_init__(self) -> None:
        self.cwd = Path(self.cwd).absolute()
        # The cwd is always writable in workspace-write, as in Codex; callers may add more roots.
        roots = [Path(r).absolute() for r in self.workspace_roots] or [self.cwd]
        self.workspace_roots = roots
        # Calls of one batch may run concurrently: the person answers one prompt at a time.
        prompts = threading.Lock()
        if self.approver is not None:
            self.approver = _one_at_a_time(self.approver, prompts)
        if self.ask_user is not None:
            self.ask_user = _one_at_a_time(self.ask_user, prompts)
        self.validate()

    def command_writable_roots(self) -> list[Path]:
        """The roots a command may write beneath in workspace-write."""
        if self.writable_roots is not None:
            return [Path(r).absolute() for r in self.writable_roots]
        roots = [str(r) for r in self.workspace_roots]
        defaults = [r for r in default_writable_roots(str(self.cwd)) if r != str(self.cwd)]
        extra = [str(Path(r).expanduser().absolute()) for r in self.extra_writable_roots]
        return [Path(r) for r in dict.fromkeys([*roots, *defaults, *extra])]

    def sandbox_capabilities(self) -> Capabilities:
        """What the OS enforces for commands here (probed once per process unless set)."""
        if self.os_sandbox is None:
            self.os_sandbox = capabilities()
        return self.os_sandbox

    def validate(self) -> None:
        """Raise `ConfigError` for an unknown sandbox mode or approval policy."""
        if self.sandbox_mode not in SANDBOX_MODES:
            raise ConfigError(
                f"unknown sandbox mode {self.sandbox_mode!r}; use one of {', '.join(SANDBOX_MODES)}"
            )
        if self.approval_policy not in APPROVAL_POLICIES:
            raise ConfigError(
                f"unknown approval policy {self.approval_policy!r}; use one of {', '.join(APPROVAL_POLICIES)}"
            )


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _one_at_a_time(prompt: Callable[_P, _R], lock: threading.Lock) -> Callable[_P, _R]:
    """`prompt`, callable from several threads, asking the person once at a time."""

    def asked(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with lock:
            return prompt(*args, **kwargs)

    return asked
