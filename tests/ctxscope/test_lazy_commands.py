"""The `ctxscope` command loads a command's module only when that command runs.

`ctxscope diff` on a recording whose token counts are cached must not import the agent runtime, its
HTTP client, mitmproxy, Textual or the tokenizer (start-up time is measured in
`benchmarks/bench_report_startup.py`, not here); `--help` must read exactly as it did when every
module was imported at start.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ctxscope.cli import COMMANDS, SUMMARIES, _module_commands, app
from tests.cli_support import run_cli

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "inspector" / "world.jsonl"

NOT_FOR_REPORTS = (
    "ctxscope.harness.agent",
    "ctxscope.harness.client",
    "ctxscope.harness.runtime",
    "ctxscope.harness.events",
    "ctxscope.harness.tools.router",
    "ctxscope.proxy.capture_filter",
    "ctxscope.proxy.recorder",
    "httpx",
    "mitmproxy",
    "textual",
    "tiktoken",
    "bpe_openai",
)


def _imported_by(args: list[str], home: Path, out: Path) -> set[str]:
    """The modules a real `ctxscope ARGS` process had imported when it finished."""
    code = (
        "import json, sys\n"
        "from ctxscope.cli import main\n"
        f"sys.argv = ['ctxscope', *{args!r}]\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        f"    open({str(out)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "CTXSCOPE_HOME": str(home), "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(out.read_text()))


def _loaded(modules: set[str], prefix: str) -> bool:
    return any(m == prefix or m.startswith(prefix + ".") for m in modules)


def test_diff_with_cached_token_counts_imports_no_runtime_client_proxy_or_tokenizer(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cold = _imported_by(["diff", str(FIXTURE)], home, tmp_path / "cold.json")
    warm = _imported_by(["diff", str(FIXTURE)], home, tmp_path / "warm.json")
    assert _loaded(warm, "ctxscope.inspector.analysis") and _loaded(warm, "ctxscope.inspector.reports")
    assert [m for m in NOT_FOR_REPORTS if _loaded(warm, m)] == []
    # The first run counted the tokens (with the encoding, when it is installed) and cached them.
    if importlib.util.find_spec("bpe_openai") is not None:
        assert _loaded(cold, "bpe_openai")
    assert (home / "cache").is_dir()


def test_show_and_compare_import_no_runtime_client_or_proxy(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _imported_by(["diff", str(FIXTURE)], home, tmp_path / "warmup.json")
    for args in (["show", str(FIXTURE), "-t", "2"], ["compare", str(FIXTURE), str(FIXTURE)]):
        modules = _imported_by(args, home, tmp_path / "modules.json")
        assert [m for m in NOT_FOR_REPORTS if _loaded(modules, m)] == [], args


def _eager_app() -> typer.Typer:
    """The app as it was built before commands loaded lazily: every module registered at start (with the
    same root options: `--version`, typer's completion options)."""
    eager = typer.Typer(
        name="ctxscope",
        help=app.info.help,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=True,
    )
    assert app.registered_callback is not None and app.registered_callback.callback is not None
    eager.callback()(app.registered_callback.callback)
    for module in dict.fromkeys(COMMANDS.values()):
        importlib.import_module(module).register(eager)
    return eager


def test_the_command_table_names_what_each_module_registers_in_help_order() -> None:
    registered: list[str] = []
    for module in dict.fromkeys(COMMANDS.values()):
        registry = typer.Typer()
        importlib.import_module(module).register(registry)
        names = [info.name for info in registry.registered_commands]
        assert all(COMMANDS.get(name) == module for name in names), (module, names)
        registered += names
    assert registered == list(COMMANDS)


def test_every_module_that_registers_commands_is_in_the_table() -> None:
    # A new command module that is not in `COMMANDS` would never be loaded: its commands would vanish.
    root = Path(__file__).resolve().parents[2]
    # the three folders are ctxscope.proxy/.harness/.inspector (ctxscope/<name> is a symlink to each)
    registering = {
        ".".join(("ctxscope", *path.relative_to(root).with_suffix("").parts)).replace("ctxscope.ctxscope.", "ctxscope.")
        for package in ("proxy", "harness", "inspector", "ctxscope")
        for path in (root / package).rglob("*.py")
        if "def register(app: typer.Typer)" in path.read_text(encoding="utf-8")
    }
    assert registering == set(COMMANDS.values())


def _words(text: str) -> list[str]:
    """The words of a help screen, without its box drawing (so re-wrapped lines compare equal)."""
    return [w for w in text.replace("│", " ").split() if not set(w) <= set("╭╮╰╯─│")]


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_help_reads_as_it_did_with_every_module_imported(command: str) -> None:
    args = [command, "--help"] if command else ["--help"]
    env = {"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}
    lazy = CliRunner().invoke(app, args, env=env)
    eager = CliRunner().invoke(_eager_app(), args, env=env)
    assert lazy.exit_code == eager.exit_code == 0
    # the same words; only the `<bool>` typer prints beside plain flags is gone (and the columns with it)
    assert "<bool>" not in lazy.output
    assert _words(lazy.output) == [w for w in _words(eager.output) if w != "<bool>"]
    if not command:
        assert all(f" {name} " in lazy.output for name in COMMANDS)


def test_a_mistyped_command_is_still_suggested() -> None:
    result = run_cli("dif", "x.jsonl")
    assert result.returncode == 2
    assert "No such command 'dif'" in result.stderr and "Did you mean 'diff'?" in result.stderr


def test_each_summary_is_the_first_paragraph_of_the_commands_own_help() -> None:
    # `ctxscope --help` lists SUMMARIES without importing the commands: each must say what the command does
    assert list(SUMMARIES) == list(COMMANDS)
    for name, module in COMMANDS.items():
        command = _module_commands(module)[name]
        own = inspect.cleandoc(command.short_help or command.help or "").split("\n\n")[0]
        assert SUMMARIES[name] == own.replace("\n", " ").strip(), name


def test_help_imports_no_command_module(tmp_path: Path) -> None:
    modules = _imported_by(["--help"], tmp_path / "home", tmp_path / "modules.json")
    assert [m for m in dict.fromkeys(COMMANDS.values()) if m in modules] == []
    assert not _loaded(modules, "ctxscope.inspector.analysis") and not _loaded(modules, "mitmproxy")


def test_the_inspector_package_names_resolve_on_first_use() -> None:
    inspector = importlib.import_module("ctxscope.inspector")
    assert sorted(inspector.__all__) == sorted(inspector._PUBLIC)
    assert all(callable(getattr(inspector, name)) or name == "SCHEMA" for name in inspector.__all__)
