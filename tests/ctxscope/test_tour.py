"""`ctxscope demo --tour`: every mechanism in one offline session through the real proxy, then the
recording used as a regression test (a strict replay through a real replay proxy, unchanged and with
an edited base prompt)."""

from __future__ import annotations

from pathlib import Path

from ctxscope.inspector.analysis import analyse_recording
from ctxscope.proxy.store import read_recording
from ctxscope.tour import CHANGED_LINE, CHAPTERS
from tests.cli_support import run_cli


def test_the_tour_shows_every_mechanism_and_catches_a_prompt_change(tmp_path: Path) -> None:
    capture = tmp_path / "tour.jsonl"
    work = tmp_path / "work"
    result = run_cli(
        "demo", "--tour", "--no-tui", "--workdir", str(work), "--capture", str(capture),
        env={"NO_COLOR": "1", "COLUMNS": "200"},
        timeout=240,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    err = result.stderr
    for number, chapter in enumerate(CHAPTERS, 1):
        assert f"chapter {number}: {chapter.title}" in err

    # The session: 16 model requests, one per script answer, across every mechanism.
    requests = read_recording(capture).model_requests()
    assert len(requests) == 16
    out = " ".join(result.stdout.split())
    for said in (
        "skill demo-skill selected",
        "AGENTS.md replaced: . → ./pkg",
        "model gpt-5-codex → gpt-5-mini",
        "mode default → plan",
        "plan submitted (revision 1)",
        "mode plan → default (plan revision 1 approved)",
        "goal set: check that greet and farewell both answer",
        "goal completed",
        "compaction request",
    ):
        assert said in out, said
    analysis = analyse_recording(capture)
    compaction = analysis.turns[-1].compaction
    assert compaction is not None, "the last request opens the compacted window"
    # What the rebuilt window lost is said once, as lost; AGENTS.md of ./pkg came back in plain form.
    assert (
        compaction.dropped_names[0] == "skill demo-skill"
        and "AGENTS.md of ./pkg" not in compaction.dropped_names
    )
    assert "goal no longer in context" in out and "model switch notice gpt-5-mini no longer in context" in out

    # The regression check: the unchanged run matches all of chapter 1, the edited prompt is caught,
    # and the change is named as the base prompt with the added line.
    assert "3 of 3 requests of chapter 1 matched a strict replay of the recording: the test passes" in err
    assert "the replay rejected the request at the recording's exchange 0" in err
    assert "input[0].content[0].text differs" in err
    assert "input[0] developer[<instructions>] (the base prompt): changed" in err
    assert f"+ {CHANGED_LINE}" in err

    # The tour's workspace is back where it was, with what the agent wrote; no regression copy is left.
    repo = work / "repo"
    greet = (repo / "pkg" / "greet.py").read_text()
    assert "def farewell(name: str) -> str:" in greet and (repo / "pkg" / "test_greet.py").is_file()
    assert sorted(p.name for p in work.iterdir()) == [
        "base-instructions-changed.md",
        "repo",
        "sessions",
        "shell-home",  # the commands' HOME: the machine's shell profile stays out of the tool outputs
        "skills",
        "tour-config.toml",
    ]
