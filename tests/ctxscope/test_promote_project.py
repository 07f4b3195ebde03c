"""The test `ctxscope promote` prints, pasted verbatim into a real project's tests/, runs there.

A project (a git checkout with AGENTS.md files) where ctxscope's agent ran a two-prompt session with
capture on; `promote --turn 2` from the project root prints the test; it is written as printed to
tests/test_<name>.py and pytest runs it in the project (a subprocess, as a user's CI would). It passes,
there and pasted into another project (it carries the AGENTS.md files the recording read); after the
AGENTS.md line it carries changes it fails, its first line naming AGENTS.md, and with
`GITHUB_STEP_SUMMARY` set the context diff lands there as markdown. A cassette test that sends nothing
fails ("not used") unless marked optional; the test for another client fails in one line until its
call is added. A dirty checkout and a new commit (Codex's git probe in the turn metadata) fail nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.proxy.replay import serve_cassette
from tests.cli_support import run_cli
from tests.ctxscope.promote_support import git as _git
from tests.ctxscope.promote_support import project_pytest as _pytest
from tests.ctxscope.promote_support import recorded_project
from tests.ctxscope.promote_support import session as _session


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, Path]:
    return recorded_project(tmp_path)


def test_the_printed_test_runs_as_pasted_and_fails_naming_agents_md(
    recorded: tuple[Path, Path], tmp_path: Path
) -> None:
    repo, recording = recorded
    promoted = run_cli(
        "promote", str(recording), "--turn", "2", "-o", "tests/cassettes/hello.jsonl", cwd=repo
    )
    assert promoted.returncode == 0, promoted.stderr
    assert "wrote tests/cassettes/hello.jsonl: 2 exchanges, 2 model requests" in promoted.stderr
    assert "# the test, for tests/test_hello.py:" in promoted.stderr
    text = promoted.stdout
    assert (
        '@pytest.mark.ctxscope_cassette("cassettes/hello.jsonl", in_process=True, past_end="allow")' in text
    )
    assert 'PROMPTS = ["say hi", "now say bye"]' in text
    (repo / "tests" / "test_hello.py").write_text(text, encoding="utf-8")  # pasted verbatim

    assert 'AGENTS_FILES = {\n    "AGENTS.md": "Run the tests before you finish.\\n",\n}' in text
    passed = _pytest(repo)
    assert passed.returncode == 0 and "1 passed" in passed.stdout, passed.stdout[-4000:]

    # pasted into another project (its own AGENTS.md, another tree), with the cassette: it passes too
    other = tmp_path / "elsewhere" / "other-project"
    (other / "tests" / "cassettes").mkdir(parents=True)
    (other / "AGENTS.md").write_text("Another project's rules.\n", encoding="utf-8")
    (other / "tests" / "cassettes" / "hello.jsonl").write_bytes((repo / "tests/cassettes/hello.jsonl").read_bytes())
    (other / "tests" / "test_hello.py").write_text(text, encoding="utf-8")
    elsewhere = _pytest(other)
    assert elsewhere.returncode == 0 and "1 passed" in elsewhere.stdout, elsewhere.stdout[-4000:]

    # the AGENTS.md line the test carries changes: it fails, naming AGENTS.md
    changed = text.replace("Run the tests before you finish.\\n", "Run the tests before you finish.\\nNever guess.\\n")
    assert changed != text
    (repo / "tests" / "test_hello.py").write_text(changed, encoding="utf-8")
    summary = tmp_path / "summary.md"
    failed = _pytest(repo, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert failed.returncode == 1 and "1 failed" in failed.stdout, failed.stdout[-4000:]
    lines = failed.stdout.splitlines()
    first = next((line for line in lines if "ctxscope cassette hello.jsonl" in line), failed.stdout[-4000:])
    assert "ctxscope cassette hello.jsonl: turn 1 changed: " in first and "AGENTS.md" in first, first
    assert "+ Never guess." in failed.stdout and "error" not in failed.stdout.splitlines()[-1]
    markdown = summary.read_text()
    assert markdown.startswith("### ctxscope: `tests/test_hello.py::test_hello` failed")
    assert "```diff" in markdown and "AGENTS.md" in markdown and "+ Never guess." in markdown


def test_a_dirty_checkout_and_a_new_commit_fail_no_promoted_replay(recorded: tuple[Path, Path]) -> None:
    repo, recording = recorded
    cassette = repo.parent / "turn2.jsonl"
    assert run_cli("promote", str(recording), "--turn", "2", "-o", str(cassette)).returncode == 0
    (repo / "build.log").write_text("artefact\n")  # untracked: has_changes true
    _git(repo, "commit", "-qm", "another", "--allow-empty")  # latest_git_commit_hash moves
    config = repo.parent / "config.toml"
    config.write_text('[providers.cassette]\nbase_url = "http://127.0.0.1:9/v1"\n')
    reports = []
    for match_on in (("method", "path", "body"), ("method", "path", "body", "metadata")):
        with serve_cassette(cassette, match="strict", match_on=match_on) as server:
            _session(
                repo, repo.parent, provider="cassette", base_url=f"{server.url}/v1", config_path=config,
                no_capture=True,
            )  # fmt: skip
            reports.append(server.report)
    assert reports[0].problems() == [] and reports[0].served == 2
    # asked to compare the client's bookkeeping too, the git probe differs, and the rejection says so
    [mismatch] = reports[1].mismatches
    assert "rejected (only client metadata differs (the model's context is the same))" in mismatch.line()
    assert any("has_changes differs" in d for d in mismatch.differences), mismatch.differences


def test_a_cassette_test_that_sends_nothing_fails_unless_optional(recorded: tuple[Path, Path]) -> None:
    repo, recording = recorded
    assert (
        run_cli("promote", str(recording), "-t", "1", "-o", "tests/cassettes/one.jsonl", cwd=repo).returncode
        == 0
    )
    (repo / "tests" / "test_nothing.py").write_text(
        "import pytest\n\n\n"
        '@pytest.mark.ctxscope_cassette("cassettes/one.jsonl")\n'
        "def test_sends_nothing(ctxscope_cassette):\n    pass\n\n\n"
        '@pytest.mark.ctxscope_cassette("cassettes/one.jsonl", optional=True)\n'
        "def test_may_send_nothing(ctxscope_cassette):\n    pass\n"
    )
    ran = _pytest(repo)
    assert ran.returncode == 1 and "2 passed" in ran.stdout and "1 error" in ran.stdout, ran.stdout[-3000:]
    assert (
        "ctxscope cassette one.jsonl was not used: none of its 1 requests arrived. Send the client to "
        "ctxscope_cassette.url"
    ) in ran.stdout
    assert "ERROR tests/test_nothing.py::test_sends_nothing" in ran.stdout


def test_the_test_for_another_client_fails_in_one_line_until_its_call_is_added(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "tests").mkdir(parents=True)
    recording = Path(__file__).resolve().parents[1] / "fixtures" / "inspector" / "world.jsonl"
    out = run_cli(
        "promote",
        str(recording),
        "-t",
        "1",
        "-o",
        "tests/cassettes/w.jsonl",
        "--test",
        "tests/test_w.py",
        cwd=project,
    )
    assert out.returncode == 0 and out.stdout == "", out.stderr
    assert "wrote tests/test_w.py" in out.stderr
    text = (project / "tests" / "test_w.py").read_text()
    # a hand-made recording names no client: it is taken as one that takes a transport, replayed in-process
    assert '@pytest.mark.ctxscope_cassette("cassettes/w.jsonl", in_process=True, past_end="allow")' in text
    ran = _pytest(project)
    assert ran.stdout.splitlines()[-1].startswith("1 failed") and "error" not in ran.stdout, ran.stdout[
        -3000:
    ]
    assert "\npromoted test: add your client's call, on the transport for http://" in ran.stdout
    again = run_cli(
        "promote",
        str(recording),
        "-t",
        "1",
        "-o",
        "tests/cassettes/x.jsonl",
        "--test",
        "tests/test_w.py",
        cwd=project,
    )
    assert (
        again.returncode == 2 and "tests/test_w.py exists: choose another --test, or --force" in again.stderr
    )
