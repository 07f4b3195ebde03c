"""ctxscope behaves as a command-line tool from a package index is expected to.

`ctxscope --version` and `python -m ctxscope --version` print the installed version (from the
distribution's metadata); shell completion offers the command names without importing a command module;
the project metadata is complete (an SPDX license expression with its LICENSE file, classifiers, project
URLs), the development tools are a dependency group and not a published extra, the README's links work
away from the repository (absolute, derived from the `Repository` URL), its extras table names every
extra, and CI runs exactly the README's test command. The built wheel's metadata is checked in
`test_packaging.py`.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

from ctxscope.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(args),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        cwd=ROOT.parent,
    )


def test_the_console_script_and_python_m_print_the_installed_version() -> None:
    expected = f"ctxscope {version('ctxscope')}\n"
    script = Path(sys.executable).with_name("ctxscope")
    for command in ([str(script)], [sys.executable, "-m", "ctxscope"]):
        done = _run(*command, "--version")
        assert (done.returncode, done.stdout, done.stderr) == (0, expected, ""), command


def test_completion_offers_the_command_names_without_importing_a_command(tmp_path: Path) -> None:
    out = tmp_path / "modules.json"
    code = (
        "import json, os, sys\n"
        "from ctxscope.cli import app\n"
        "try:\n"
        "    app(prog_name='ctxscope')\n"
        "except SystemExit:\n"
        "    pass\n"
        f"open({str(out)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n"
    )
    words = {"_CTXSCOPE_COMPLETE": "complete_bash", "COMP_WORDS": "ctxscope ", "COMP_CWORD": "1"}
    done = _run(sys.executable, "-c", code, env=words)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == list(COMMANDS)
    imported = set(json.loads(out.read_text()))
    assert [m for m in dict.fromkeys(COMMANDS.values()) if m in imported] == []
    # a command's own options complete too (that command's module loads then)
    script = str(Path(sys.executable).with_name("ctxscope"))
    options = _run(
        script,
        env={"_CTXSCOPE_COMPLETE": "complete_bash", "COMP_WORDS": "ctxscope diff --fo", "COMP_CWORD": "2"},
    )
    assert options.stdout.split() == ["--format"], options.stdout + options.stderr[-2000:]
    # typer finds the shell among the command's parent processes (shellingham), so ask from a real bash:
    # a test process with no shell above it (a detached CI job) would otherwise get "Shell  not supported"
    shown = _run("bash", "-c", f"{shlex.quote(script)} --show-completion; exit $?")
    assert shown.returncode == 0 and "_CTXSCOPE_COMPLETE=complete_bash" in shown.stdout, shown.stderr[-2000:]


def test_the_metadata_is_complete_and_dev_tools_are_a_group_not_an_extra() -> None:
    project = PYPROJECT["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    requires = PYPROJECT["build-system"]["requires"]
    assert requires == ["setuptools>=77"]  # the first setuptools that takes the SPDX expression unwarned
    classifiers = project["classifiers"]
    assert not any(c.startswith("License ::") for c in classifiers)  # PEP 639: the expression, not these
    assert {"Programming Language :: Python :: 3.11", "Programming Language :: Python :: 3.13"} <= set(classifiers)
    assert {"Homepage", "Repository", "Documentation", "Issues"} <= set(project["urls"])
    assert "dev" not in project["optional-dependencies"]
    assert {"pytest", "ruff", "mypy"} <= {re.split(r"[<>=\[]", r)[0] for r in PYPROJECT["dependency-groups"]["dev"]}


def test_the_readme_links_work_from_the_package_index() -> None:
    repository = PYPROJECT["project"]["urls"]["Repository"]
    targets = re.findall(r"\]\(([^)\s]+)\)", README)
    assert targets, "the README links to docs/"
    relative = [t for t in targets if "://" not in t]
    assert relative == [], "relative links break on the package index's page: " + ", ".join(relative)
    for target in targets:
        if target.startswith(repository):
            rest = target[len(repository) :]
            found = re.fullmatch(r"/(?:blob|raw)/main/([^#]+)(#.*)?|#[\w-]+", rest)
            assert found, target
            if found[1]:
                assert (ROOT / found[1]).is_file(), target


def test_the_readme_extras_table_names_every_extra_and_ci_runs_its_test_command() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    table = README[README.index("| extra | brings | for |") :].split("\n\n")[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", table, flags=re.MULTILINE))
    assert set(rows) == set(extras)
    inside = set(re.findall(r"\[([\w,]+)\]", extras["all"][0])[0].split(","))
    # `cost` (genai-prices, on httpx2) cannot install beside mitmproxy 11: the README says so in its row
    apart = {"cost"}
    lines = {line.split("|")[1].strip(): line for line in table.splitlines() if line.startswith("| `")}
    assert all("not in `all`" in lines[f"`{name}`"] for name in apart)
    assert inside == set(extras) - {"all"} - apart and all(f"`{name}`" in rows["all"] for name in inside)
    assert f"all {['', 'one', 'two', 'three', 'four', 'five'][len(inside)]}" in rows["all"]
    blocks = re.findall(r"Run the tests:\n\n```sh\n(.+?)\n```", README, flags=re.DOTALL)
    assert len(blocks) == 1 and "--group dev" in blocks[0] and '-m "not slow"' in blocks[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == blocks[0]
