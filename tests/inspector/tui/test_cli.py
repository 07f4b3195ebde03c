"""`ctxscope inspect`: the snapshot mode writes an SVG; bad input is a one-line error."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from ctxscope.inspector.tui.launch import launch
from ctxscope.inspector.tui.loader import newest_recording
from ctxscope.proxy.errors import ConfigError, RecordingError
from tests.cli_support import run_cli, run_cli_process, run_routed
from tests.inspector.tui.conftest import recording


def test_snapshot_writes_an_svg_of_the_asked_turn_and_view(tmp_path: Path) -> None:
    out = tmp_path / "shot.svg"
    result = run_cli(
        "inspect",
        str(recording("compaction")),
        "--snapshot",
        str(out),
        "--turn",
        "5",
        "--view",
        "compaction",
        "--size",
        "100x30",
    )
    assert result.returncode == 0, result.stdout
    svg = out.read_text()
    assert svg.startswith("<svg") and "Compaction&#160;at&#160;turn&#160;5" in svg
    assert str(tmp_path) not in svg and "compaction.jsonl" in svg
    assert stat.S_IMODE(out.stat().st_mode) == 0o600  # owner-only, like every file ctxscope writes


def test_bad_options_and_inputs_are_one_line_errors(tmp_path: Path) -> None:
    out = tmp_path / "x.svg"
    with pytest.raises(ConfigError, match="--size"):
        launch([recording("world")], snapshot=out, size="wide")
    with pytest.raises(ConfigError, match="--view"):
        launch([recording("world")], snapshot=out, view="graphs")
    with pytest.raises(RecordingError, match="no such file"):
        launch([tmp_path / "missing.jsonl"], snapshot=out)
    with pytest.raises(RecordingError, match="there is no turn 9"):
        launch([recording("world")], snapshot=out, turn=9)
    not_one = tmp_path / "notes.jsonl"
    not_one.write_text("hello\n")
    with pytest.raises(RecordingError, match="not a ctxscope recording"):
        launch([not_one], snapshot=out)
    assert not out.exists() and not_one.read_text() == "hello\n"


def test_the_real_command_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    missing, svg = tmp_path / "missing.jsonl", tmp_path / "x.svg"
    result = run_cli_process("inspect", str(missing), "--snapshot", str(svg))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"error: {tmp_path / 'missing.jsonl'}: no such file"]


def test_without_a_file_the_newest_recording_in_the_home_is_opened(tmp_path: Path) -> None:
    folder = tmp_path / "recordings"
    folder.mkdir()
    with pytest.raises(ConfigError, match="no recordings in"):
        newest_recording(folder)
    old, new = folder / "a.jsonl", folder / "b.jsonl"
    old.write_text(recording("world").read_text())
    new.write_text(recording("compaction").read_text())
    os.utime(old, (1_000, 1_000))
    assert newest_recording(folder) == new


def test_the_readme_key_table_is_the_help_screen() -> None:
    from ctxscope.inspector.tui.screens.help import KEYS

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    assert all(f"| {action} |" in readme for _, action in KEYS)
    assert "docs/inspect-main.svg" in readme and "docs/inspect-compaction.svg" in readme


def _inspect(args: list[str], tmp: Path, *, through_typer: bool) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    return run_routed(["inspect", *args], tmp, through_typer=through_typer)


def test_inspect_without_typer_draws_what_the_typer_command_draws(tmp_path: Path) -> None:
    """`inspect` starts the app without typer, click or the report renderers (`run_fast`): the same
    screen, option for option, as the typer command draws."""
    world, other = recording("world"), recording("chain")
    cases = [
        [str(world), "--turn", "2", "--view", "world", "--size", "100x30"],
        [f"--turn={3}", "--view=tokens", str(world)],
        ["-t", "1", str(world), str(other), "--size=90x24"],
    ]
    for n, args in enumerate(cases):
        fast_svg, slow_svg = tmp_path / f"fast-{n}.svg", tmp_path / f"slow-{n}.svg"
        fast, modules = _inspect([*args, "--snapshot", str(fast_svg)], tmp_path, through_typer=False)
        slow, _ = _inspect([*args, "--snapshot", str(slow_svg)], tmp_path, through_typer=True)
        assert fast.returncode == slow.returncode == 0, fast.stderr[-2000:] + slow.stderr[-2000:]
        assert fast_svg.read_text() == slow_svg.read_text() and "<svg" in fast_svg.read_text()
        assert not {"typer", "click", "ctxscope.inspector.cli", "ctxscope.inspector.reports.text"} & modules


def test_what_the_inspect_fast_path_does_not_take_goes_to_typer(tmp_path: Path) -> None:
    world = str(recording("world"))
    done, modules = _inspect(["--bogus", world], tmp_path, through_typer=False)
    assert done.returncode == 2 and "No such option: --bogus" in done.stderr and "typer" in modules
    done, _ = _inspect(["--help"], tmp_path, through_typer=False)
    assert done.returncode == 0 and "The inspector TUI" in done.stdout
    done, _ = _inspect(["--turn", "two", world, "--snapshot", str(tmp_path / "x.svg")], tmp_path, through_typer=False)
    assert done.returncode == 2 and "Invalid value for '--turn'" in done.stderr
    for args in (["--turn", "0", world], [str(tmp_path / "missing.jsonl")], [world, world, world]):
        fast, _ = _inspect([*args, "--snapshot", str(tmp_path / "y.svg")], tmp_path, through_typer=False)
        slow, _ = _inspect([*args, "--snapshot", str(tmp_path / "y.svg")], tmp_path, through_typer=True)
        assert fast.returncode != 0 and "Traceback" not in fast.stderr, fast.stderr
        # one line, the message the typer command raises (there with no `main` to print it)
        line = fast.stderr.strip().splitlines()[-1]
        assert line.startswith("error: ") and line.removeprefix("error: ") in slow.stderr, (fast.stderr, slow.stderr)
