"""A session file that cannot be written (a full disk) does not end the conversation: said once, held."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from ctxscope.harness.cli import SESSION_NOT_SAVED
from ctxscope.harness.session.store import SessionStore
from tests.harness.harness_support import make_repo, write_config, write_script

# Run in a child process: the file-size limit (RLIMIT_FSIZE) must not touch the test runner's own files.
# The child runs with -B: a module it first imports under the limit would otherwise get a truncated
# .pyc in the source tree (a partial write is not an error), breaking every later import of it.
_CHILD = """
import json, resource, sys
from pathlib import Path

from ctxscope.harness.session.store import SessionStore
from ctxscope.harness.session.store import SessionStore
directory = Path(sys.argv[1])
store = SessionStore.create({"cwd": "/x"}, directory=directory)
size = store.path.stat().st_size
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 300, resource.RLIM_INFINITY))
for n in range(4):
    store.append("message", {"role": "user", "content": f"turn {n} " + "x" * 200})
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
store.append("message", {"role": "user", "content": "after the disk recovered"})
print(json.dumps({"path": str(store.path), "head": store.head}))
"""


def test_a_full_disk_holds_entries_and_writes_them_when_it_recovers(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-B", "-c", _CHILD, str(tmp_path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert sum("cannot write session file" in line for line in lines) == 1  # once, with the cause
    assert "File too large" in lines[0] and any("again" in line for line in lines)
    result = json.loads(done.stdout)
    entries = SessionStore.open(result["path"]).entries()  # a line torn by the failed write is skipped
    complete = [e.model_dump() for e in entries if e.type == "message"]
    contents = [e["payload"]["content"].split(" ")[0:2] for e in complete]
    assert contents[-1] == ["after", "the"]
    assert [c[1] for c in contents[:-1]] == ["0", "1", "2", "3"]  # nothing lost, in order
    assert complete[-1]["id"] == result["head"]


# ---- a failed write through the whole agent: said at once and at exit, non-zero, resume says so ----

_LIMITED = """
import resource, sys
limit = int(sys.argv.pop(1))
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
from ctxscope.cli import main
sys.argv[0] = "ctxscope"
main()
"""


def _agent(args: list[str], cwd: Path, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    code = ["-c", _LIMITED, str(limit)] if limit is not None else ["-m", "ctxscope.cli"]
    return subprocess.run(
        [sys.executable, "-B", *code, "agent", *args],  # -B: no .pyc written under the size limit
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )


def test_lost_session_writes_fail_the_run_and_the_resume_says_what_was_lost(
    tmp_path: Path, ctxscope_home: Path
) -> None:
    repo = make_repo(tmp_path)
    write_config(ctxscope_home, tmp_path / "skills")
    (repo / "big.txt").write_text("".join(f"line {n} " + "x" * 80 + "\n" for n in range(200)))
    read_big = {"function_call": {"name": "read_file", "arguments": {"path": "big.txt"}}}
    scripts = [
        write_script(tmp_path / f"s{n}.json", responses)
        for n, responses in enumerate(
            [[{"text": "one"}], [{"output": [read_big]}, {"text": "read"}], [{"text": "ok"}]]
        )
    ]
    common = ["--provider", "script", "--no-capture", "--script"]
    first = _agent(["-p", "first", *common, str(scripts[0])], repo)
    assert first.returncode == 0, first.stderr
    (path,) = (ctxscope_home / "sessions").glob("*.jsonl")
    sid, size = path.stem, path.stat().st_size
    # Room for the turn's start and the call, not for the 17 kB the call returns (nor what follows).
    second = _agent(
        ["--session", sid, "-p", "read big.txt", *common, str(scripts[1])], repo, limit=size + 3000
    )
    assert second.returncode == SESSION_NOT_SAVED and "Traceback" not in second.stderr
    said = [line for line in second.stderr.splitlines() if "session" in line and str(path) in line]
    assert "cannot write session file" in said[0] and "File too large" in said[0]  # at once
    lost = said[-1]  # and at exit, with the count
    assert re.search(
        rf"session {sid}: \d+ write\(s\) to {re.escape(str(path))} failed \(File too large\); ", lost
    )
    assert re.search(r"; [3-9] entries never reached it", lost)
    assert all(json.loads(line) for line in path.read_text().splitlines())  # no half line left
    third = _agent(["--session", sid, "-p", "again", *common, str(scripts[2])], repo)
    assert third.returncode == 0, third.stderr
    assert f"resumed session {sid}: the turn started at" in third.stderr
    assert "after the function_call read_file" in third.stderr and "nothing of it was saved" in third.stderr
    history = SessionStore.open(str(path)).load().history
    (output,) = [i for i in history if i.get("type") == "function_call_output"]
    assert output["output"].startswith("result not saved")  # not "aborted": the call did finish
