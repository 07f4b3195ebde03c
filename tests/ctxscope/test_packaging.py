"""The built wheel works on its own: installed into a fresh venv, `ctxscope demo` and `agent --help` run.

The wheel is built from this checkout without build isolation (offline, with the test environment's
setuptools) and installed with `--no-deps` into a new venv that borrows the test environment's
dependencies through a path entry (not its editable ctxscope: `.pth` files on that path are not
run). Commands run from a directory outside the checkout, so nothing can come from the source tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 300

pytestmark = pytest.mark.slow


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL
    )


def _build_wheel(out: Path) -> Path:
    """Build from a copy of the sources, so no build/ or egg-info lands in the checkout (or comes from it)."""
    import setuptools

    if tuple(int(p) for p in setuptools.__version__.split(".")[:2]) < (70, 1):
        pytest.skip(f"setuptools {setuptools.__version__} cannot build wheels alone: pip install -e '.[dev]'")
    source = out.parent / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    # ctxscope/proxy, ctxscope/harness and ctxscope/inspector are symlinks: copytree copies what they name
    shutil.copytree(ROOT / "ctxscope", source / "ctxscope", ignore=shutil.ignore_patterns("__pycache__"))
    args = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out)]
    built = _run([*args, str(source)], cwd=out)
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = out.glob("ctxscope-*.whl")
    return wheel


def test_the_wheel_carries_its_data_and_runs_from_a_fresh_venv(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    dist.mkdir()
    wheel = _build_wheel(dist)
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"ctxscope/harness/prompts/base_instructions.md", "ctxscope/data/demo-script.json"} <= names
    typed = {"ctxscope/py.typed"} | {f"ctxscope/{package}/py.typed" for package in ("proxy", "harness", "inspector")}
    assert typed <= names
    # nothing but ctxscope at the top level: no other distribution can overwrite a ctxscope file
    assert {name.split("/")[0] for name in names} == {"ctxscope", wheel.name.split("-")[0] + "-0.1.0.dist-info"}

    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    python = target / "bin" / "python"
    site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp_path
        ).stdout.strip()
    )
    # the dependencies come from the test environment; ctxscope itself only from the wheel
    (site / "borrowed-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    installed = _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
        tmp_path,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]

    where = _run([str(python), "-c", "import ctxscope.harness, ctxscope; print(ctxscope.__file__)"], tmp_path)
    assert where.returncode == 0 and where.stdout.startswith(str(site)), where.stdout + where.stderr
    command = [str(target / "bin" / "ctxscope")]  # the console script the wheel declares
    env = {**os.environ, "CTXSCOPE_HOME": str(tmp_path / "home"), "NO_COLOR": "1", "COLUMNS": "200"}
    env.pop("PYTHONPATH", None)
    helped = _run([*command, "agent", "--help"], tmp_path, env)
    assert helped.returncode == 0 and "--provider" in helped.stdout, helped.stderr[-2000:]
    demo = _run([*command, "demo", "--workdir", str(tmp_path / "work")], tmp_path, env)
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "What the model saw, turn by turn" in demo.stdout and "initial" in demo.stdout
    assert (tmp_path / "work" / "repo" / "pkg" / "greet.py").is_file()


def _installed_files(site: Path) -> dict[str, bytes]:
    """{path: content} of every file ctxscope's wheel installed, read from its RECORD."""
    [record] = site.glob("ctxscope-*.dist-info/RECORD")
    paths = [line.split(",")[0] for line in record.read_text().splitlines() if line]
    return {p: (site / p).read_bytes() for p in paths if (site / p).is_file() and not p.endswith(".pyc")}


def test_installing_and_removing_proxy_py_beside_the_wheel_leaves_every_ctxscope_file(tmp_path: Path) -> None:
    # proxy.py owns the top-level import name `proxy`; ctxscope installs only `ctxscope`, so the two meet nowhere
    dist = tmp_path / "dist"
    dist.mkdir()
    wheel = _build_wheel(dist)
    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    python = target / "bin" / "python"
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(_run([str(python), "-c", purelib], tmp_path).stdout.strip())
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    assert _run([*pip, "install", "--no-deps", "-q", str(wheel)], tmp_path).returncode == 0
    before = _installed_files(site)
    assert "ctxscope/proxy/__init__.py" in before and "ctxscope/proxy/py.typed" in before
    added = _run([*pip, "install", "--no-deps", "-q", "proxy.py"], tmp_path)
    if added.returncode != 0:
        pytest.skip(f"proxy.py could not be installed from the package index: {added.stderr.strip()[-300:]}")
    assert (site / "proxy" / "__init__.py").is_file()  # it really took the name `proxy`
    assert _installed_files(site) == before
    removed = _run([*pip, "uninstall", "-y", "-q", "proxy.py"], tmp_path)
    assert removed.returncode == 0, removed.stderr[-2000:]
    assert not (site / "proxy").exists()
    assert _installed_files(site) == before
    (site / "borrowed-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    imported = _run([str(python), "-c", "import ctxscope.proxy.store, ctxscope.proxy.replay"], tmp_path)
    assert imported.returncode == 0, imported.stderr[-2000:]
