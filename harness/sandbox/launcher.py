"""How the wrapper is started, so that nothing a confined command can write steers the next one.

A command may write its workspace, and the workspace may hold ctxscope's own source (an editable
install) or the virtualenv the agent runs from. If the wrapper loaded its code from there, a
command could rewrite `harness/sandbox/exec.py` (or a venv's `pyvenv.cfg`, which picks the standard
library) and the next wrapper would run that. So:

- the wrapper's modules are compiled once, when the agent first needs them, and carried to every
  wrapper in a sealed memfd (`memfd_create` + `F_SEAL_WRITE`: no process can change it, not even
  the agent); the wrapper reads its code from that fd and imports nothing of the harness from disk;
- the interpreter is the base Python, not a virtualenv's (`sys._base_executable`), started with
  `-I` (no PYTHON* variables, no user site, no cwd on the path) and `-S` (no site-packages); its
  standard library lies outside the writable roots unless the workspace is the Python install.

Where memfds are missing (not Linux) the wrapper is imported from the source tree as before.
The `ctxscope`, `ctxscope.harness` and `ctxscope.harness.sandbox` packages are entered as bare modules
either way, so their `__init__` (logging, the lazy tables) is not paid by every command.
"""

from __future__ import annotations

import fcntl
import marshal
import os
import sys
import threading

__all__ = ["wrapper_argv", "wrapper_fds"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_MODULES = ("policy", "landlock", "namespaces", "seccomp", "tree", "exec")
"""The wrapper's modules, in the order they are executed (each imports only earlier ones)."""

# argv[1] is the memfd holding {module: code}; the rest are the wrapper's own options.
_BOOT_MEMFD = """import sys, os, marshal, types
fd = int(sys.argv.pop(1))
codes = marshal.loads(os.pread(fd, os.fstat(fd).st_size, 0))
os.close(fd)
for name in ("ctxscope", "ctxscope.harness", "ctxscope.harness.sandbox"):
    sys.modules[name] = types.ModuleType(name)
for short, code in codes:
    module = types.ModuleType("ctxscope.harness.sandbox." + short)
    sys.modules[module.__name__] = module
    setattr(sys.modules["ctxscope.harness.sandbox"], short, module)
    exec(code, module.__dict__)
sys.exit(sys.modules["ctxscope.harness.sandbox.exec"].main())
"""
_BOOT_FILES = (
    "import sys, types\n"
    "for name in ('ctxscope', 'ctxscope.harness'):\n"
    "    package = types.ModuleType(name); package.__path__ = []; sys.modules[name] = package\n"
    "package = types.ModuleType('ctxscope.harness.sandbox'); package.__path__ = ["
    f"{_HERE!r}]; sys.modules[package.__name__] = package\n"
    "from ctxscope.harness.sandbox.exec import main\n"
    "sys.exit(main())"
)

_lock = threading.Lock()
_memfd: int | None = None
_tried = False


def _code_memfd() -> int | None:
    """The sealed memfd with the wrapper's compiled modules (made once per process), or None."""
    global _memfd, _tried
    with _lock:
        if not _tried:
            _tried = True
            _memfd = _make_memfd()
        return _memfd


def _make_memfd() -> int | None:
    if not hasattr(os, "memfd_create") or not hasattr(fcntl, "F_ADD_SEALS"):
        return None
    codes = []
    for short in _MODULES:
        path = os.path.join(_HERE, f"{short}.py")
        with open(path, encoding="utf-8") as f:
            codes.append((short, compile(f.read(), path, "exec")))
    data = marshal.dumps(codes)
    try:
        fd = os.memfd_create("ctxscope-sandbox-wrapper", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    except OSError:
        return None
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    except OSError:
        os.close(fd)
        return None
    return fd


def _interpreter() -> str:
    """The base interpreter: a virtualenv's `pyvenv.cfg` (in the workspace, maybe) is not read."""
    base = getattr(sys, "_base_executable", None)
    return base if isinstance(base, str) and os.path.isfile(base) else sys.executable


def wrapper_fds() -> tuple[int, ...]:
    """The fds a wrapper started by `wrapper_argv` must inherit (`Popen(pass_fds=...)`)."""
    fd = _code_memfd()
    return () if fd is None else (fd,)


def wrapper_argv(args: list[str]) -> list[str]:
    """The command line that runs the wrapper with `args` (pass `wrapper_fds()` to it)."""
    fd = _code_memfd()
    # -B: the wrapper never writes bytecode. Imported from the source tree (no memfd, or one that
    # could not be written: a memfd is subject to RLIMIT_FSIZE too), it would write a .pyc there
    # under the command's limits, and a partial write leaves a truncated .pyc every later import
    # of the module fails on.
    if fd is None:
        return [_interpreter(), "-I", "-S", "-B", "-c", _BOOT_FILES, *args]
    return [_interpreter(), "-I", "-S", "-B", "-c", _BOOT_MEMFD, str(fd), *args]
