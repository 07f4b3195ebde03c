"""The wrapper every model command runs under: `python -m ctxscope.harness.sandbox.exec [POLICY] -- CMD…`.

Why a separate process rather than `preexec_fn`: the agent has threads (tool batches, readers),
and code run between fork and exec in a threaded parent can deadlock. The wrapper is a fresh,
single-threaded interpreter; it forks once, and the child confines itself and `exec`s the command:

1. the wrapper makes itself a child subreaper and asks for a signal when the agent dies
   (`PR_SET_PDEATHSIG`), so a killed agent still takes every command's processes with it;
2. the policy comes as options (`SandboxPolicy.to_args`); the child enters new namespaces
   (`namespaces.enter`: no network, read-only `.git`), then confines itself with Landlock
   (`landlock.restrict_self`), then filters syscalls (`seccomp.install`), then `exec`s; if a
   promised layer cannot be set up the command is not run (exit 126, a one-line reason on its output);
3. the wrapper waits for the command; when it exits, processes it left behind get a short grace
   to finish, then the whole tree is killed and named in the report (`--report-fd`, lines of text:
   `code N`, then `left PID NAME` each); SIGTERM from the agent kills the tree at once.

`--probe` prints what this kernel offers instead (`landlock_abi N`, `namespaces 0|1`, `seccomp 0|1`).
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import sys
import time

from ctxscope.harness.sandbox import landlock, namespaces, seccomp
from ctxscope.harness.sandbox.policy import SandboxPolicy
from ctxscope.harness.sandbox.tree import has_children, kill_tree

__all__ = ["main"]

_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36
NOT_RUN = 126
"""Exit code when the command could not be confined and so was not run."""
_DEATH_SIGNAL = signal.SIGUSR2
"""What the kernel sends when the agent thread that started us exits (the agent may still live)."""


_TERMINAL_SIGNALS = (signal.SIGINT, signal.SIGQUIT, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU)


def _take_terminal() -> None:
    """Make a terminal on stdin this session's controlling terminal (the agent started the wrapper
    as a session leader), so what is typed there (Ctrl-C) signals the command as it would in a shell."""
    if not os.isatty(0):
        return
    import fcntl
    import termios

    try:
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    except OSError:
        pass  # not a session leader, or the terminal belongs to another session: typing still works


class _Stop(Exception):
    """Raised in the wrapper's main loop when the tree must be killed now."""


def confine(policy: SandboxPolicy) -> None:
    """Apply `policy` to this process (single-threaded, about to exec). Raises OSError."""
    if not policy.confine:
        return
    if policy.namespaces:
        namespaces.enter(network=policy.network, read_only=policy.protect_git)
    if policy.landlock:
        landlock.restrict_self(policy.writable, network=policy.network)
    if policy.seccomp:
        seccomp.install()  # last: the layers above need calls (mount, unshare) it does not refuse anyway


def _run_child(policy: SandboxPolicy, argv: list[str], error_fd: int) -> None:
    """In the forked child: confine, exec; never returns."""
    try:
        for sig in (signal.SIGTERM, _DEATH_SIGNAL, signal.SIGHUP, signal.SIGPIPE, *_TERMINAL_SIGNALS):
            signal.signal(sig, signal.SIG_DFL)
        try:
            confine(policy)
        except OSError as e:
            os.write(error_fd, f"sandbox: could not confine the command ({e}); it was not run\n".encode())
            os._exit(NOT_RUN)
        os.execvp(argv[0], argv)
    except OSError as e:
        code = 127 if isinstance(e, FileNotFoundError) else NOT_RUN
        os.write(error_fd, f"{argv[0]}: {e.strerror or e}\n".encode())
        os._exit(code)
    finally:
        os._exit(NOT_RUN)


def _exit_code(status: int) -> int:
    """Popen's convention: the exit status, or minus the signal that killed it."""
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _supervise(
    policy: SandboxPolicy, argv: list[str], parent: int, grace: float
) -> tuple[int | None, dict[int, str]]:
    """Run the command; (its exit code or None when it was stopped, what was killed: pid → name)."""
    libc = ctypes.CDLL(None, use_errno=True)
    # Linux only: elsewhere the command's process group is all that is tracked (and killed).
    prctl = getattr(libc, "prctl", None) if sys.platform == "linux" else None
    if prctl is not None:
        prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    stop = False

    def on_stop(signum: int, frame: object) -> None:
        nonlocal stop
        # The death signal also comes when only the agent *thread* that forked us ended; the
        # agent is gone only once we were re-parented to another process.
        if signum == _DEATH_SIGNAL and os.getppid() == parent:
            return
        if not stop:
            stop = True
            raise _Stop

    # SIGHUP: the agent closed the command's terminal. Ctrl-C, Ctrl-backslash and Ctrl-Z typed into it
    # reach the whole foreground group, the wrapper too: they are for the command.
    for sig in (signal.SIGTERM, _DEATH_SIGNAL, signal.SIGHUP):
        signal.signal(sig, on_stop)
    for sig in _TERMINAL_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    _take_terminal()
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, int(_DEATH_SIGNAL), 0, 0, 0)
    me = os.getpid()
    code: int | None = None
    main_pid = 0
    try:
        if os.getppid() != parent:  # the agent died before the death signal was armed
            raise _Stop
        read_end, write_end = os.pipe()  # close-on-exec (PEP 446): EOF once the command runs
        main_pid = os.fork()
        if main_pid == 0:
            os.close(read_end)
            _run_child(policy, argv, write_end)
        os.close(write_end)
        # EOF at exec (close-on-exec); a message when the child could not confine itself or exec.
        with os.fdopen(read_end, "rb") as errors:
            message = errors.read()
        if message:
            os.write(2, message)
        while code is None:
            pid, status = os.waitpid(-1, 0)
            if pid == main_pid:
                code = _exit_code(status)
        # Output in flight from what the command left behind gets a moment before the kill.
        deadline = time.monotonic() + grace
        while has_children() and time.monotonic() < deadline:
            time.sleep(0.01)
    except _Stop:
        pass
    except ChildProcessError:
        pass
    killed = kill_tree(me)
    killed.pop(main_pid, None)
    return code, killed


def probe() -> dict[str, object]:
    """What confinement this kernel allows an unprivileged process, tried for real in children."""
    import tempfile  # only here: the wrapper's start is paid by every command

    abi = landlock.abi_version()
    result: dict[str, object] = {"landlock_abi": abi, "namespaces": False, "namespace_error": None}
    with tempfile.TemporaryDirectory() as tmp:
        git = os.path.join(tmp, ".git")
        os.mkdir(git)
        pid = os.fork()
        if pid == 0:
            try:
                namespaces.enter(network=False, read_only=[git])
            except OSError:
                os._exit(1)
            try:
                open(os.path.join(git, "x"), "w").close()
            except OSError as e:
                os._exit(0 if e.errno == errno.EROFS else 2)  # EROFS: the read-only bind held
            os._exit(2)
        _, status = os.waitpid(pid, 0)
        ok = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        result["namespaces"] = ok
        if not ok:
            result["namespace_error"] = "user, network or mount namespaces are not available"
    result["seccomp"] = _probe_seccomp()
    return result


def _probe_seccomp() -> bool:
    """Whether the filter installs and holds: a child installs it and calls `io_uring_setup`."""
    if not seccomp.supported():
        return False
    pid = os.fork()
    if pid == 0:
        try:
            seccomp.install()
            libc = ctypes.CDLL(None, use_errno=True)
            refused = libc.syscall(425, 0, None) == -1 and ctypes.get_errno() == errno.EPERM
            os._exit(0 if refused else 2)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


_USAGE = (
    "usage: python -m ctxscope.harness.sandbox.exec [--confine --network --landlock --namespaces --seccomp "
    "--writable PATH --protect-git PATH --report-fd N --parent PID --grace S] -- COMMAND..., or --probe"
)
_FLAG_OPTIONS = {"--confine", "--network", "--landlock", "--namespaces", "--seccomp", "--probe"}
_VALUE_OPTIONS = {"--report-fd", "--parent", "--grace"}
_PATH_OPTIONS = {"--writable", "--protect-git"}


def _options(args: list[str]) -> tuple[set[str], dict[str, str], dict[str, list[str]], list[str]]:
    """(flags, single values, repeated paths, command): the options up to `--`, then the command
    (argparse costs the wrapper's start, which every command pays)."""
    flags: set[str] = set()
    values: dict[str, str] = {}
    paths: dict[str, list[str]] = {"writable": [], "protect-git": []}
    i = 0
    while i < len(args) and args[i] != "--":
        name = args[i]
        if name in _FLAG_OPTIONS:
            flags.add(name[2:])
            i += 1
            continue
        if name not in _VALUE_OPTIONS | _PATH_OPTIONS or i + 1 >= len(args):
            raise ValueError(f"unknown or incomplete option {name!r}")
        if name in _PATH_OPTIONS:
            paths[name[2:]].append(args[i + 1])
        else:
            values[name[2:]] = args[i + 1]
        i += 2
    return flags, values, paths, args[i + 1 :]


def format_report(code: int | None, left: dict[int, str]) -> str:
    """The report's text: `code N` (or `code none`), then one `left PID NAME` line per process."""
    lines = [f"code {'none' if code is None else code}"]
    lines += [f"left {pid} {name.replace(chr(10), '?')}" for pid, name in sorted(left.items())]
    return "\n".join(lines) + "\n"


def parse_report(text: str) -> tuple[int | None, dict[int, str]] | None:
    """`format_report`'s text read back; None when there is none (the wrapper died first)."""
    code: int | None = None
    left: dict[int, str] = {}
    seen = False
    for line in text.splitlines():
        word, _, rest = line.partition(" ")
        if word == "code":
            seen = True
            code = None if rest == "none" else int(rest)
        elif word == "left":
            pid, _, name = rest.partition(" ")
            left[int(pid)] = name
    return (code, left) if seen else None


def main(args: list[str] | None = None) -> int:
    try:
        flags, values, paths, argv = _options(sys.argv[1:] if args is None else args)
        if "probe" in flags:
            found = probe()
            print(f"landlock_abi {found['landlock_abi']}\nnamespaces {int(bool(found['namespaces']))}")
            print(f"seccomp {int(bool(found['seccomp']))}")
            return 0
        if not argv:
            raise ValueError("give the command after --")
        policy = SandboxPolicy.from_args(flags, paths["writable"], paths["protect-git"])
        parent = int(values.get("parent", os.getppid()))
        grace = float(values.get("grace", "0.25"))
        report_fd = int(values["report-fd"]) if "report-fd" in values else None
    except ValueError as e:
        sys.stderr.write(f"ctxscope.harness.sandbox.exec: {e} ({_USAGE})\n")
        return 2
    if report_fd is not None:
        os.set_inheritable(report_fd, False)  # the command must not hold the report open
    code, left = _supervise(policy, argv, parent, grace)
    if report_fd is not None:
        with os.fdopen(report_fd, "w") as f:
            f.write(format_report(code, left))
    if code is None:
        return 137
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
