"""A lone surrogate in a recording, JSON-escaped (`\\ud800`) or as raw bytes (`ED A0 80`): every command
reads it the same way (shown as U+FFFD, with a warning), through the one line decoder, and so does
`inspect --follow` on a real terminal. Each command runs as the real `ctxscope` in a subprocess."""

from __future__ import annotations

import os
import pty
import re
import select
import sys
import time
from pathlib import Path

import pytest

from ctxscope.proxy.model import Exchange
from ctxscope.proxy.store import RecordingWriter, read_recording
from ctxscope.proxy.store.follow import RecordingFollower
from tests.cli_support import run_cli_process

pytestmark = pytest.mark.slow

FORMS = {"escaped": b"hello \\ud800 1", "raw": b"hello \xed\xa0\x80 1"}
REPAIRED = "hello \ufffd 1"


def _recording(path: Path, form: str) -> Path:
    """Two turns; the second's user message holds a lone surrogate in the given form."""
    with RecordingWriter(path) as writer:
        for turn in range(2):
            writer.write(
                Exchange(
                    id=-1,
                    started_at=1.0 + turn,
                    ended_at=2.0 + turn,
                    method="POST",
                    url="http://127.0.0.1/v1/responses",
                    endpoint="responses",
                    status=200,
                    request_body={
                        "model": "m",
                        "input": [{"type": "message", "role": "user", "content": f"hello {turn}"}],
                    },
                    response={"id": f"resp_{turn}", "status": "completed", "output": [], "usage": {"input_tokens": 3}},
                )
            )
    path.write_bytes(path.read_bytes().replace(b"hello 1", FORMS[form]))
    return path


COMMANDS: dict[str, list[str]] = {
    "info": ["info", "{r}"],
    "export": ["export", "{r}"],
    "diff": ["diff", "{r}"],
    "diff --turn 2": ["diff", "{r}", "--turn", "2"],
    "show": ["show", "{r}", "--turn", "2"],
    "context": ["context", "{r}"],
    "cache": ["cache", "{r}", "--format", "json"],
    "compare": ["compare", "{r}", "{r}"],
    "otel": ["otel", "{r}", "-o", "{d}/traces.json"],
    "report": ["report", "{r}", "-o", "{d}/report.html"],
    "promote": ["promote", "{r}", "--turn", "2", "-o", "{d}/cassette/c.jsonl"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_reads_both_forms_the_same_way(command: str, tmp_path: Path) -> None:
    outputs = []
    for form in FORMS:
        where = tmp_path / form
        where.mkdir()
        rec = _recording(where / "r.jsonl", form)
        args = [a.format(r=rec, d=where) for a in COMMANDS[command]]
        result = run_cli_process(*args)
        assert "Traceback" not in result.stderr, result.stderr
        assert result.returncode == 0, result.stderr
        text = (result.stdout + "\n--\n" + result.stderr).replace(str(where), "<d>")
        # the two files differ in size by the surrogate's form (6 bytes escaped, 3 raw), nothing else
        outputs.append(re.sub(r"size +\S+ \S*B on disk", "size <n> on disk", text))
    assert outputs[0] == outputs[1], "the two forms read differently"
    if command in ("info", "diff"):
        assert "line 4: a lone surrogate (not Unicode) shown as U+FFFD" in outputs[0], outputs[0]
    if command in ("export", "show"):
        assert REPAIRED in outputs[0]


def test_the_reader_and_the_follower_agree(tmp_path: Path) -> None:
    for form in FORMS:
        rec = _recording(tmp_path / f"{form}.jsonl", form)
        loaded = read_recording(rec)
        follower = RecordingFollower(rec)
        followed = follower.poll()
        assert [e.model_dump() for e in followed] == [e.model_dump() for e in loaded.exchanges]
        assert follower.warnings == loaded.warnings and len(loaded.warnings) == 1
        assert loaded.exchanges[1].request_body["input"][0]["content"] == REPAIRED


def _split(path: Path) -> tuple[bytes, bytes]:
    """The file up to its first exchange line, and the rest (the second turn's lines)."""
    lines = path.read_bytes().splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if b'"kind":"exchange"' in line)
    return b"".join(lines[: first + 1]), b"".join(lines[first + 1 :])


def _screen(out: bytes) -> str:
    return re.sub(rb"\x1b\[[0-9;?<>=]*[a-zA-Z~]", b"", out).decode("utf-8", "replace")


@pytest.mark.parametrize("form", list(FORMS))
def test_inspect_follow_on_a_terminal_shows_the_repaired_turn(form: str, tmp_path: Path) -> None:
    head, rest = _split(_recording(tmp_path / "whole.jsonl", form))
    live = tmp_path / "live.jsonl"
    live.write_bytes(head)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real command, the pty its terminal
        env = {**os.environ, "COLUMNS": "120", "LINES": "40"}
        os.execve(sys.executable, [sys.executable, "-m", "ctxscope.cli", "inspect", "--follow", str(live)], env)
    out, appended, quit_sent = b"", False, False
    deadline = time.monotonic() + 60  # bounded; the loop ends as soon as the app exits
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:  # the terminal closed: the app exited
                break
            if not data:
                break
            out += data
            if not appended and "hello 0" in _screen(out):
                with live.open("ab") as fh:  # the second turn arrives while the app follows
                    fh.write(rest)
                appended = True
            if appended and not quit_sent and REPAIRED in _screen(out):
                os.write(fd, b"q")
                quit_sent = True
    finally:
        os.close(fd)
        if not quit_sent:
            os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
    screen = _screen(out)
    assert "Traceback" not in screen and "UnicodeEncodeError" not in screen, screen[-2000:]
    assert quit_sent, f"the followed turn never showed: {screen[-2000:]}"
    assert os.waitstatus_to_exitcode(status) == 0
