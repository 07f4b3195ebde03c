"""The core works with no mitmproxy and no Textual installed; what needs them says which extra to install.

Each check runs in a subprocess whose `sys.modules` maps mitmproxy and textual to None, so importing
them fails exactly as in a venv without the extras (`test_core_install.py` proves that venv for real,
slowly). The replay goes through `CassetteTransport` on a cassette recorded here through the Recorder.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

from tests.proxy.replay.replay_support import Run, codex_body, post, record_session, turn_replies

ROOT = Path(__file__).resolve().parents[2]
BLOCK = "import sys\nsys.modules['mitmproxy'] = None\nsys.modules['textual'] = None\n"
RECORDED = Run(cwd="/home/ann/w/repo")


def _python(code: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCK + textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    return record_session(
        tmp_path / "one.jsonl",
        {"cwd": RECORDED.cwd},
        turn_replies()[:1],
        lambda url: [post(url, codex_body(RECORDED, 1), RECORDED)],
    )


def test_the_core_replays_in_process_without_mitmproxy_or_textual(cassette: Path, tmp_path: Path) -> None:
    ran = _python(
        """
        import json, httpx
        import ctxscope.proxy.pytest_plugin, ctxscope.pytest_plugin, ctxscope.inspector.analysis
        import ctxscope.harness.runtime, ctxscope.cli
        from ctxscope.proxy.replay import CassetteTransport
        transport = CassetteTransport(sys.argv[1])
        with httpx.Client(transport=transport, base_url="http://cassette.invalid") as client:
            answer = client.post("/v1/responses", json=json.loads(sys.argv[2]))
        heavy = [m for m, mod in sys.modules.items() if m.split(".")[0] in ("mitmproxy", "textual") and mod]
        print(answer.status_code, transport.report.served, heavy)
        """,
        tmp_path,
        str(cassette),
        httpx.Request("POST", "http://x", json=codex_body(RECORDED, 1)).content.decode(),
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout == "200 1 []\n"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["replay", "{cassette}"],
            "the recording proxy (capture, `ctxscope replay`, proxy cassettes) needs "
            "mitmproxy, which the core install leaves out: pip install 'ctxscope[proxy]'",
        ),
        (
            ["inspect", "{cassette}"],
            "the inspector TUI needs textual, which the core install leaves out: pip install 'ctxscope[tui]'",
        ),
    ],
)
def test_a_command_that_needs_an_extra_says_which_in_one_line(
    cassette: Path, tmp_path: Path, args: list[str], said: str
) -> None:
    argv = [a.format(cassette=cassette) for a in args]
    ran = _python(
        "from ctxscope.cli import main\nsys.argv = ['ctxscope', *sys.argv[1:]]\nmain()", tmp_path, *argv
    )
    assert (ran.returncode, ran.stderr) == (2, f"error: {said}\n")


def test_a_proxy_cassette_test_without_mitmproxy_fails_in_one_line_naming_the_extra(
    cassette: Path, tmp_path: Path
) -> None:
    (tmp_path / "conftest.py").write_text(BLOCK)
    (tmp_path / "test_uses_proxy.py").write_text(
        "import pytest\n\n"
        f"@pytest.mark.ctxscope_cassette({str(cassette)!r})\n"
        "def test_it(ctxscope_cassette):\n    pass\n"
    )
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    assert ran.returncode == 1 and "1 error" in ran.stdout, ran.stdout[-3000:]
    assert (
        f"\nctxscope cassette {cassette}: the recording proxy (capture, `ctxscope replay`, proxy "
        "cassettes) needs mitmproxy, which the core install leaves out: pip install 'ctxscope[proxy]'; or "
        "replay in the test's process: marker in_process=True and the fixture's .transport\n"
    ) in ran.stdout
    assert "Traceback" not in ran.stdout


def test_the_agent_without_mitmproxy_names_the_extra_and_no_capture(tmp_path: Path) -> None:
    args = [
        "agent",
        "-p",
        "hi",
        "--provider",
        "apikey",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--cwd",
        str(tmp_path),
    ]
    ran = _python(
        "from ctxscope.cli import main\nsys.argv = ['ctxscope', *sys.argv[1:]]\nmain()", tmp_path, *args
    )
    assert ran.returncode == 2, ran.stderr
    assert (
        ran.stderr.endswith(
            "needs mitmproxy, which the core install leaves out: pip install 'ctxscope[proxy]'; "
            "or run the agent without capture: --no-capture\n"
        )
        and ran.stderr.count("\n") == 1
    ), ran.stderr
