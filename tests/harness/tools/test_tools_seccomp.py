"""The sandbox's syscall filter, probed from real commands: inside a workspace-write command
`io_uring_setup`, `add_key` and the rest fail with EPERM, while the same probe unconfined gets the
kernel's own answer; a 32-bit syscall on x86_64 (another numbering) kills the process. The filter
program itself is checked for both architectures by running it on a small classic-BPF interpreter."""

from __future__ import annotations

import errno
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from tools_support import call, make_router

from ctxscope.harness.sandbox import capabilities, enforcement, seccomp
from tests.harness.harness_support import make_repo, run_agent, write_script

CAPS = capabilities() if sys.platform.startswith("linux") else None
needs_seccomp = pytest.mark.skipif(CAPS is None or not CAPS.seccomp, reason="no seccomp filter here")
WAIT = {"login": False, "yield_time_ms": 60_000}

# The probe calls each syscall with harmless arguments and prints `name errno-name` per line.
PROBE = r"""
import ctypes, errno, os
numbers = {
    "x86_64": {"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "add_key": 248,
               "request_key": 249, "keyctl": 250, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
               "kexec_load": 246, "init_module": 175, "finit_module": 313, "delete_module": 176, "getpid": 39},
    "aarch64": {"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "add_key": 217,
                "request_key": 218, "keyctl": 219, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
                "kexec_load": 104, "init_module": 105, "finit_module": 273, "delete_module": 106, "getpid": 172},
}[os.uname().machine]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
args = {"io_uring_setup": (1, None), "add_key": (b"user", b"ctxscope-probe", b"x", 1, -2),
        "request_key": (b"user", b"ctxscope-probe", None, 0), "keyctl": (0, -2, 0),
        "userfaultfd": (0,), "perf_event_open": (None, 0, -1, -1, 0)}
for name, nr in numbers.items():
    ctypes.set_errno(0)
    result = libc.syscall(nr, *args.get(name, (0, 0, 0)))
    code = ctypes.get_errno() if result == -1 else 0
    print(name, errno.errorcode.get(code, "OK"))
"""


def _probe(router: object, tmp_path: Path) -> dict[str, str]:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    out = call(router, "exec_command", {"cmd": f"{sys.executable} -I {script}", **WAIT})  # type: ignore[arg-type]
    assert "Process exited with code 0" in out, out
    body = out.partition("\nOutput:\n")[2]
    return dict(line.split(" ", 1) for line in body.splitlines() if " " in line)


@needs_seccomp
def test_the_filtered_syscalls_fail_with_eperm_inside_a_command(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    router = make_router(ws, writable_roots=[ws])
    try:
        found = _probe(router, tmp_path)
    finally:
        router.close()
    assert found.pop("getpid") == "OK"  # the rest of the kernel answers as before
    assert set(found) == set(seccomp.BLOCKED) - {"kexec_file_load"}
    assert found == {name: "EPERM" for name in found}


@needs_seccomp
def test_unconfined_the_same_probe_gets_the_kernels_answer(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    router = make_router(ws, sandbox_mode="danger-full-access")
    try:
        found = _probe(router, tmp_path)
    finally:
        router.close()
    assert found["io_uring_setup"] == "EFAULT"  # its params pointer is NULL: the call itself ran
    assert found["add_key"] == "OK"  # a key in the process keyring


@needs_seccomp
@pytest.mark.skipif(os.uname().machine != "x86_64" or shutil.which("gcc") is None, reason="x86_64 with gcc")
def test_a_32_bit_syscall_kills_the_process(tmp_path: Path) -> None:
    # int 0x80 is the i386 table, where 286 is add_key and 20 getpid: the filter's arch check refuses
    # the whole table (numbers there name other calls), killing the process with SIGSYS.
    source = tmp_path / "int80.c"
    source.write_text(
        "#include <stdio.h>\nint main(void){long r; __asm__ volatile(\"int $0x80\" : \"=a\"(r) : \"a\"(20));"
        'printf("getpid via int 0x80: %ld\\n", r); return 0;}\n'
    )
    binary = tmp_path / "int80"
    subprocess.run(["gcc", "-O0", "-o", str(binary), str(source)], check=True, capture_output=True)
    unconfined = subprocess.run([str(binary)], capture_output=True, text=True, check=False)
    if unconfined.returncode != 0:
        pytest.skip("this kernel has no 32-bit syscall table (IA32 emulation off)")
    ws = tmp_path / "ws"
    ws.mkdir()
    router = make_router(ws, writable_roots=[ws])
    try:
        out = call(router, "exec_command", {"cmd": str(binary), **WAIT})
    finally:
        router.close()
    assert re.search(r"Process exited with code (-31|159)\b", out), out  # SIGSYS
    assert "getpid via int 0x80" not in out


@needs_seccomp
def test_through_the_agent_a_workspace_write_command_gets_eperm(tmp_path: Path, ctxscope_home: Path) -> None:
    repo = make_repo(tmp_path)
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    exec_call = {"name": "exec_command", "arguments": {"cmd": f"{sys.executable} -I {probe}", **WAIT}}
    script = write_script(tmp_path / "s.json", [{"output": [{"function_call": exec_call}]}, {"text": "ok"}])
    run = run_agent(repo, script, ["probe the kernel"], tmp_path / "cap.jsonl")
    (output,) = [i["output"] for i in run.bodies()[1]["input"] if i["type"] == "function_call_output"]
    assert "io_uring_setup EPERM\n" in output and "add_key EPERM\n" in output, output
    assert "getpid OK\n" in output
    permissions = [
        part["text"]
        for item in run.bodies()[0]["input"]
        if item.get("role") == "developer"
        for part in item["content"]
        if "<permissions instructions>" in part.get("text", "")
    ]
    assert CAPS is not None and enforcement("workspace-write", False, CAPS) in permissions[0]
    assert "fail with EPERM (a seccomp filter)" in permissions[0]


# ---- the program itself, on both architectures ---------------------------------------------------

_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_NUMBERS = {
    "x86_64": {"io_uring_setup": 425, "add_key": 248, "keyctl": 250, "bpf": 321, "kexec_file_load": 320},
    "aarch64": {"io_uring_setup": 425, "add_key": 217, "keyctl": 219, "bpf": 280, "kexec_file_load": 294},
}
_ALLOWED = {"x86_64": {"read": 0, "openat": 257, "execve": 59}, "aarch64": {"read": 63, "openat": 56, "execve": 221}}


def _run_bpf(program: bytes, nr: int, arch: int) -> int:
    """Classic BPF, the subset a seccomp filter here uses: load word, jeq/jge with a constant, ret."""
    insns = [struct.unpack("HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    data = struct.pack("iI", nr, arch)
    acc, pc = 0, 0
    for _ in range(len(insns) + 1):
        code, jt, jf, k = insns[pc]
        if code == 0x20:
            acc = struct.unpack_from("I", data, k)[0]
            pc += 1
        elif code in (0x15, 0x35):
            hit = acc == k if code == 0x15 else acc >= k
            pc += 1 + (jt if hit else jf)
        elif code == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
    raise AssertionError("the program does not end")


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_program_refuses_the_listed_calls_and_allows_the_rest(machine: str) -> None:
    program = seccomp.filter_program(machine)
    eperm = 0x00050000 | errno.EPERM
    for name, nr in _NUMBERS[machine].items():
        assert _run_bpf(program, nr, _ARCH[machine]) == eperm, name
    for name, nr in _ALLOWED[machine].items():
        assert _run_bpf(program, nr, _ARCH[machine]) == 0x7FFF0000, name
    other = _ARCH["aarch64" if machine == "x86_64" else "x86_64"]
    assert _run_bpf(program, 0, other) == 0x80000000  # another architecture's table: killed
    assert _run_bpf(program, 0x40000000 | 425, _ARCH[machine]) == (0x80000000 if machine == "x86_64" else 0x7FFF0000)
