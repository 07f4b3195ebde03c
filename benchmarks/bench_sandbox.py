"""Benchmark: what the OS sandbox wrapper costs per command (`ctxscope.harness.sandbox.exec`).

Times `bash -c true`, interleaved round by round so the machine's load falls on every case alike,
as medians (and minimums) of N runs:

  bare                 subprocess.run(["bash", "-c", "true"]): no wrapper (what a command cost before)
  wrapper: <policy>    the same command under the wrapper, run directly (the wrapper's own cost)
  session: <policy>    through SessionManager, the path exec_command takes (start, wait, report)

plus the CPU time the children used (user + system, reaped children only), which the machine's
load does not inflate the way it does wall time.

Policies: tracking only (danger-full-access), workspace-write (with and without the seccomp filter:
its cost) and read-only, with the network off.
Run: .venv/bin/python -m benchmarks.bench_sandbox [--repeat 40]
A benchmark, not a test: it prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ctxscope.harness.sandbox import SandboxPolicy, capabilities, policy_for
from ctxscope.harness.sandbox.support import wrap_command
from ctxscope.harness.tools.exec_sessions import TRACK_ONLY, SessionManager


def _without_seccomp(policy: SandboxPolicy) -> SandboxPolicy:
    """`policy` without the syscall filter (what a command cost before it)."""
    return SandboxPolicy(
        confine=policy.confine,
        writable=policy.writable,
        network=policy.network,
        protect_git=policy.protect_git,
        landlock=policy.landlock,
        namespaces=policy.namespaces,
        seccomp=False,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    args = parser.parse_args()
    caps = capabilities()
    print(f"kernel: {caps.summary()}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        env = {"PATH": os.environ["PATH"]}
        write = policy_for("workspace-write", [str(ws)], network=False, caps=caps)
        policies = {
            "tracking only": TRACK_ONLY,
            "workspace-write": write,
            "ws-write, no seccomp": _without_seccomp(write),
            "read-only": policy_for("read-only", [], network=False, caps=caps),
        }
        manager = SessionManager()
        argv = ["bash", "-c", "true"]

        sink = os.open(os.devnull, os.O_WRONLY)  # where the wrapper's report goes here

        def wrapped(policy: SandboxPolicy) -> Callable[[], object]:
            command, fds = wrap_command(argv, policy, sink, grace=0.25)
            return lambda: subprocess.run(command, pass_fds=fds, check=True)

        def session(policy: SandboxPolicy) -> Callable[[], object]:
            return lambda: manager.collect(manager.start(argv, ws, env, False, policy), 10)

        cases: dict[str, Callable[[], object]] = {"bare": lambda: subprocess.run(argv, check=True)}
        for name, policy in policies.items():
            cases[f"wrapper: {name}"] = wrapped(policy)
            cases[f"session: {name}"] = session(policy)
        times: dict[str, list[float]] = {name: [] for name in cases}
        cpu: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.repeat):
            for name, fn in cases.items():
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                fn()
                times[name].append((time.perf_counter() - start) * 1000)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                cpu[name].append(used * 1000)
        manager.close()
        os.close(sink)
    bare = statistics.median(times["bare"])
    print(f"{'case':<28} {'median ms':>10} {'min ms':>8} {'vs bare':>9} {'child CPU ms':>13}")
    for name, values in times.items():
        median = statistics.median(values)
        used = statistics.median(cpu[name])
        print(f"{name:<28} {median:>10.1f} {min(values):>8.1f} {median - bare:>+9.1f} {used:>13.1f}")


if __name__ == "__main__":
    main()
