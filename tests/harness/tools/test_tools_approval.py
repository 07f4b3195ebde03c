"""Sandbox modes × approval policies for exec_command, headless and interactive."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_support import Approver, call, make_router

from ctxscope.harness.sandbox import Capabilities
from ctxscope.harness.tools import ToolContext, is_known_safe_command
from ctxscope.proxy.errors import ConfigError

SAFE = "ls"
UNSAFE = "touch marker"

# (sandbox mode, approval policy, command, escalate, needs approval)
CASES = [
    ("read-only", "on-request", SAFE, False, False),
    ("read-only", "on-request", UNSAFE, False, True),
    ("read-only", "never", SAFE, False, False),
    ("read-only", "never", UNSAFE, False, True),
    ("read-only", "untrusted", UNSAFE, False, True),
    ("read-only", "untrusted", SAFE, False, False),
    ("workspace-write", "on-request", UNSAFE, False, False),
    ("workspace-write", "on-request", UNSAFE, True, True),
    ("workspace-write", "never", UNSAFE, False, False),
    ("workspace-write", "never", UNSAFE, True, True),
    ("workspace-write", "untrusted", SAFE, False, False),
    ("workspace-write", "untrusted", UNSAFE, False, True),
    ("danger-full-access", "on-request", UNSAFE, True, False),
    ("danger-full-access", "never", UNSAFE, True, False),
    ("danger-full-access", "untrusted", UNSAFE, False, True),
    ("danger-full-access", "untrusted", SAFE, False, False),
]


@pytest.mark.parametrize("who", ["headless", "approves", "declines"])
@pytest.mark.parametrize(("mode", "policy", "cmd", "escalate", "needs"), CASES)
def test_exec_matrix(
    tmp_path: Path, mode: str, policy: str, cmd: str, escalate: bool, needs: bool, who: str
) -> None:
    approver = None if who == "headless" else Approver(who == "approves")
    router = make_router(tmp_path, sandbox_mode=mode, approval_policy=policy, approver=approver)
    args = {"cmd": cmd, "justification": "testing", "yield_time_ms": 120_000}  # wait for the exit
    if escalate:
        args["sandbox_permissions"] = "require_escalated"
    out = call(router, "exec_command", args)
    ran = out.startswith("Chunk ID: ")
    asked = approver.asked if approver else []
    if not needs:
        assert ran and "Approval:" not in out
        assert asked == []
    elif policy == "never":
        assert not ran and "approval policy is `never`" in out
        assert asked == []
    elif approver is None:
        assert not ran and "headless, so no one can approve it" in out
    elif approver.answer:
        assert ran and "Approval: approved by the user (" in out and f"approval policy `{policy}`" in out
        assert len(asked) == 1 and asked[0].summary == cmd and asked[0].justification == "testing"
    else:
        assert not ran and "The user declined" in out
        assert len(asked) == 1
    if cmd == UNSAFE:
        assert (tmp_path / "marker").exists() == ran
    if not ran:
        assert out.startswith("exec_command was not run: ")


def test_refusal_names_the_rule(tmp_path: Path) -> None:
    # The reason says whether the OS sandbox holds on this machine, never more than that.
    bare = make_router(tmp_path, sandbox_mode="read-only", os_sandbox=Capabilities())
    out = call(bare, "exec_command", {"cmd": UNSAFE})
    assert "sandbox `read-only`" in out and "no OS-level sandbox is available" in out
    confined = make_router(tmp_path, sandbox_mode="read-only", os_sandbox=Capabilities(7, True))
    out = call(confined, "exec_command", {"cmd": UNSAFE})
    assert "only known-safe read-only commands run without approval" in out and "OS-level" not in out
    router = make_router(tmp_path, approval_policy="untrusted")
    assert "approval policy `untrusted`" in call(router, "exec_command", {"cmd": UNSAFE})
    router = make_router(tmp_path, approval_policy="never")
    out = call(router, "exec_command", {"cmd": UNSAFE, "sandbox_permissions": "require_escalated"})
    assert "outside the `workspace-write` sandbox" in out and "`never`" in out


def test_broken_approver_is_a_refusal(tmp_path: Path) -> None:
    def broken(_request: object) -> bool:
        raise RuntimeError("tty gone")

    router = make_router(tmp_path, sandbox_mode="read-only", approver=broken)
    out = call(router, "exec_command", {"cmd": UNSAFE})
    assert "approval prompt failed (RuntimeError: tty gone)" in out
    assert not (tmp_path / "marker").exists()


@pytest.mark.parametrize(
    "cmd",
    [
        "ls -la",
        "cat a.txt | grep foo | wc -l",
        "git status && git log --oneline -5; git diff HEAD",
        "find . -name '*.py'",
        "rg -n pattern src",
        "head -5 x && tail -n 2 y",
        "pwd",
    ],
)
def test_known_safe(cmd: str) -> None:
    assert is_known_safe_command(cmd)


@pytest.mark.parametrize(
    "cmd",
    [
        "rm -rf x",
        "ls > out.txt",
        "cat a >> b",
        "echo $(rm x)",
        "echo `rm x`",
        "ls\nrm x",
        "find . -delete",
        "find . -exec rm {} +",
        "rg --pre cat x",
        "git commit -m x",
        "git diff --output=x",
        "FOO=1 ls",
        "ls &",
        "(ls)",
        "cat 'unbalanced",
        "",
        "python -c 'print(1)'",
    ],
)
def test_not_known_safe(cmd: str) -> None:
    assert not is_known_safe_command(cmd)


def test_unknown_mode_or_policy_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown sandbox mode 'open'"):
        ToolContext(cwd=tmp_path, sandbox_mode="open")
    with pytest.raises(ConfigError, match="unknown approval policy 'always'"):
        ToolContext(cwd=tmp_path, approval_policy="always")
