"""A config file with several mistakes is reported in one run, in one line per run (all at once), and
a choice list never offers an empty value."""

from __future__ import annotations

from pathlib import Path

from tests.cli_support import run_cli


def test_every_problem_of_a_config_file_comes_in_one_line(tmp_path: Path, ctxscope_home: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('model_reasoning_effort = "extreme"\nmax_steps = -3\nbogus_key = 1\n', encoding="utf-8")
    done = run_cli("agent", "--config", str(config), "-p", "hi", "--no-capture")
    assert done.returncode != 0
    (line,) = [s for s in done.stderr.splitlines() if s.startswith("error:")]
    assert line.startswith(f"error: 3 problems in {config}: ")
    assert "unknown setting 'bogus_key'" in line and "max_steps must be at least 1, not -3" in line
    assert "unknown reasoning effort 'extreme': use one of none, minimal," in line
    assert "use one of ," not in line


def test_a_single_problem_reads_as_before(tmp_path: Path, ctxscope_home: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("max_steps = 0\n", encoding="utf-8")
    done = run_cli("agent", "--config", str(config), "-p", "hi", "--no-capture")
    assert done.returncode != 0 and f"error: max_steps must be at least 1, not 0 in {config}" in done.stderr
