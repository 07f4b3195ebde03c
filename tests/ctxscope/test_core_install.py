"""The core installs beside current clients: `pip install <checkout>` with openai 3.x, on each Python.

openai 3.x is built on httpx2, which needs h11>=0.16; mitmproxy 11 (the newest on Python 3.11) pins
h11<=0.14. So the recording proxy and the TUI are extras and the core (analysis, cassettes, in-process
replay, the pytest plugin, the agent) needs neither. Each Python gets a fresh venv, resolved by pip
from the registry as a user's would be; in it `openai3_replay.py` replays a stream recorded here (by
openai-python 2.x through the real Recorder) into openai 3.x on httpx2, strictly, sync and async,
streaming and not, and shows that neither mitmproxy nor Textual is installed or imported. Then the
test `ctxscope promote` prints for an agent session (recorded here, with capture) runs in a project
with that venv's pytest, as pasted: it passes, and fails after an AGENTS.md line changes. And the test
promote prints for an openai-python recording (in_process=True: the core is enough), its client call
filled in as its comments say (openai 3.x on httpx2), passes there; after one prompt line changes it is
one failure and no error, naming the base prompt and the line.
"""

from __future__ import annotations

import glob
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from openai import OpenAI

from ctxscope.proxy.testing import (
    FakeUpstream,
    JsonReply,
    SseReply,
    capture_proxy,
    response_stream,
    text_message,
)
from tests.cli_support import run_cli
from tests.ctxscope.promote_support import (
    SDK_PROMPT,
    fill_in_sdk_call,
    project_pytest,
    recorded_project,
    recorded_sdk_project,
)

ROOT = Path(__file__).resolve().parents[1].parent
SCRIPT = Path(__file__).with_name("openai3_replay.py")
OPENAI_3 = "openai==3.51.0"
MODEL = "gpt-test"
CUT = {"model": MODEL, "input": "cut", "stream": True}
INSTALL_TIMEOUT_S = 900

pytestmark = pytest.mark.slow


def _pythons() -> list[object]:
    """python3 (the machine's default, 3.11 here) and any 3.13 pyenv build."""
    found: list[object] = []
    default = shutil.which("python3")
    if default:
        found.append(pytest.param(default, id="python3"))
    for candidate in sorted(glob.glob("/root/.pyenv/versions/3.13*/bin/python"))[-1:]:
        found.append(pytest.param(candidate, id="3.13"))
    return found


def _source(tmp: Path) -> Path:
    """A copy of the checkout's package sources: the build leaves no build/ or egg-info in the checkout."""
    source = tmp / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    # ctxscope/proxy, ctxscope/harness and ctxscope/inspector are symlinks: copytree copies what they name
    shutil.copytree(ROOT / "ctxscope", source / "ctxscope", ignore=shutil.ignore_patterns("__pycache__"))
    return source


def _record(path: Path) -> Path:
    """Four answers as openai-python 2.x gets them through the recording proxy (streamed, plain, twice),
    and a fifth stream cut by the upstream."""
    replies = []
    for text in ("hello", "again", "async hello", "async again"):
        events = response_stream(text_message(text), model=MODEL)
        if "again" in text:
            replies.append(JsonReply(events[-1]["response"]))
        else:
            replies.append(SseReply(events))
    with FakeUpstream() as upstream, capture_proxy(upstream.url, path) as capture:
        upstream.reply(*replies)
        client = OpenAI(base_url=capture.url + "/v1", api_key="x", max_retries=0)
        with client:
            for prompt in ("hi", "async hi"):
                list(client.responses.create(model=MODEL, input=prompt, stream=True))
                client.responses.create(model=MODEL, input=prompt.replace("hi", "again"))
        # a stream the upstream cut: replayed, it is cut at the same place (httpx2's RemoteProtocolError)
        upstream.reply(SseReply(response_stream(text_message("cut"), model=MODEL), cut_after=2))
        with (
            httpx.Client(timeout=30) as raw,
            raw.stream("POST", capture.url + "/v1/responses", json=CUT) as cut,
        ):
            with pytest.raises(httpx.RemoteProtocolError):
                list(cut.iter_bytes())
        capture.wait_for(5)
    return path


@pytest.mark.parametrize("python", _pythons())
def test_the_core_installs_beside_openai_3_and_replays_into_httpx2(python: str, tmp_path: Path) -> None:
    version = subprocess.run(
        [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    cassette = _record(tmp_path / "four.jsonl")
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    target = venv / "bin" / "python"
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(target),
            "install",
            "-q",
            "--disable-pip-version-check",
            str(_source(tmp_path)),
            OPENAI_3,
            "pytest",
        ],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )
    assert installed.returncode == 0, f"pip install on Python {version}:\n{installed.stderr[-4000:]}"

    ran = subprocess.run(
        [str(target), str(SCRIPT), str(cassette), MODEL, json.dumps(CUT)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    assert ran.returncode == 0, ran.stderr[-4000:]
    seen = json.loads(ran.stdout.strip().splitlines()[-1])
    assert seen["python"].startswith(version + ".") and seen["openai"].startswith("3.")
    assert seen["not_installed"] == {"mitmproxy": True, "textual": True}
    assert seen["imported_heavy"] == []
    assert seen["seen"] == ["response.completed", "again", "response.completed", "async again", "cut"]
    assert seen["served"] == 5 and seen["problems"] == []

    # the commands of the core run; one that needs the proxy says in one line which extra brings it
    command = str(venv / "bin" / "ctxscope")
    info = subprocess.run([command, "info", str(cassette)], capture_output=True, text=True, timeout=120)
    assert info.returncode == 0 and "exchanges   5 " in info.stdout, info.stdout + info.stderr[-2000:]
    replay = subprocess.run([command, "replay", str(cassette)], capture_output=True, text=True, timeout=120)
    assert replay.returncode == 2, replay.stderr[-2000:]
    assert replay.stderr == (
        "error: the recording proxy (capture, `ctxscope replay`, proxy cassettes) needs mitmproxy, "
        "which the core install leaves out: pip install 'ctxscope[proxy]'\n"
    )

    # the promoted test of an agent session, pasted into a project, runs on the core install
    repo, recording = recorded_project(tmp_path / "project")
    promoted = run_cli("promote", str(recording), "-t", "2", "-o", "tests/cassettes/hi.jsonl", cwd=repo)
    assert promoted.returncode == 0, promoted.stderr
    (repo / "tests" / "test_hi.py").write_text(promoted.stdout, encoding="utf-8")
    passed = project_pytest(repo, python=str(target))
    assert passed.returncode == 0 and "1 passed" in passed.stdout, passed.stdout[-3000:]
    # the test carries the AGENTS.md it replays with (AGENTS_FILES): a line added there fails it
    carried = re.sub(r'("AGENTS.md": "[^"]*)"', lambda m: m.group(1) + 'Never guess.\\n"', promoted.stdout, count=1)
    assert carried != promoted.stdout
    (repo / "tests" / "test_hi.py").write_text(carried, encoding="utf-8")
    failed = project_pytest(repo, python=str(target))
    assert failed.returncode == 1 and "ctxscope cassette hi.jsonl: turn 1 changed: AGENTS.md" in failed.stdout, (
        failed.stdout[-3000:]
    )

    # the promoted test of an openai-python recording, its call filled in, on openai 3.x in the core venv
    project, sdk = recorded_sdk_project(tmp_path / "sdk")
    promoted = run_cli("promote", str(sdk), "-t", "1", "-o", "tests/cassettes/sdk.jsonl", cwd=project)
    assert promoted.returncode == 0 and "in_process=True" in promoted.stdout, promoted.stderr
    (project / "tests" / "test_sdk.py").write_text(fill_in_sdk_call(promoted.stdout, "httpx2"), encoding="utf-8")
    passed = project_pytest(project, python=str(target))
    assert passed.returncode == 0 and passed.stdout.splitlines()[-1].startswith("1 passed"), passed.stdout[-3000:]
    (project / "prompt.md").write_text(SDK_PROMPT.replace("Never guess.", "Always guess."), encoding="utf-8")
    failed = project_pytest(project, python=str(target))
    summary = failed.stdout.splitlines()[-1]
    assert failed.returncode == 1 and summary.startswith("1 failed in") and "error" not in summary, failed.stdout[
        -3000:
    ]
    assert "ctxscope cassette sdk.jsonl: turn 1 changed: " in failed.stdout and "+ Always guess." in failed.stdout
