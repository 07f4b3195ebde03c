"""A session file that cannot be written (a full disk) does not end the conversation: said once, held."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness.session.store import SessionStore

# Run in a child process: the file-size limit (RLIMIT_FSIZE) must not touch the test runner's own files.
_CHILD = """
import json, resource, sys
from pathlib import Path

from harness.session.store import SessionStore
from harness.session.store import SessionStore
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
        [sys.executable, "-c", _CHILD, str(tmp_path)], capture_output=True, text=True, timeout=120
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
