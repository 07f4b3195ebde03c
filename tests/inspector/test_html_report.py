"""`ctxscope report`: one self-contained HTML file that shows the recording and carries it.

The page is opened in a real headless Chromium (Debian's, driven by Playwright) with the network
shut: a turn is clicked and its diff and answer are read, a search lands on its hit, and neither a
console error nor a request beyond the file itself happens. The recording inside is read back by
`read_recording`, `diff` and the cassette loader, byte for byte.
"""

from __future__ import annotations

import json
import re
import shutil
import stat
from pathlib import Path

import pytest

from ctxscope.demo import run_demo
from ctxscope.proxy.replay.cassette import load_cassette
from ctxscope.proxy.store import read_recording
from ctxscope.proxy.store.embedded import recording_bytes
from tests.cli_support import run_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo session (7 turns: a cwd change, a model switch), recorded by the harness."""
    root = tmp_path_factory.mktemp("demo")
    return run_demo(root / "work", root / "demo.jsonl").recording


@pytest.fixture(scope="module")
def report(recording: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    result = run_cli("report", str(recording), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "wrote" in result.stdout and "7 turns" in result.stdout
    return out


def test_the_report_is_owner_only_and_references_nothing_outside(report: Path) -> None:
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    page = report.read_text(encoding="utf-8")
    assert not re.search(r"""\b(?:src|href)\s*=""", page), "no src or href at all: nothing to fetch"
    assert not re.search(r"url\(", page) and "@import" not in page
    assert not re.search(r"https?://", page.split('id="ctxscope-head"')[0]), "no URL in the page's code"
    assert "holds only redacted content" in page and "ctxscope " in page


def test_the_recording_inside_is_the_recording(recording: Path, report: Path) -> None:
    assert recording_bytes(report) == recording.read_bytes()
    inside = read_recording(report)
    original = read_recording(recording).exchanges
    assert [e.request_body for e in inside.exchanges] == [e.request_body for e in original]
    from_html = json.loads(run_cli("diff", str(report), "--format", "json").stdout)
    from_jsonl = json.loads(run_cli("diff", str(recording), "--format", "json").stdout)
    from_html.pop("source"), from_jsonl.pop("source")
    assert from_html == from_jsonl
    cassette = load_cassette(report)
    assert cassette.kind == "recording"
    assert [e.request_body for e in cassette.model_entries] == [
        e.request_body for e in load_cassette(recording).model_entries
    ]


def test_turns_range_and_bad_input(recording: Path, tmp_path: Path) -> None:
    out = tmp_path / "part.html"
    assert run_cli("report", str(recording), "-o", str(out), "--turns", "3-5").returncode == 0
    before = recording.read_bytes()
    for args, message in [
        (["--turns", "5-99"], "the recording has turns 1–7"),
        (["--turns", "x"], "write A-B"),
        (["-o", str(recording)], "is the recording itself"),
    ]:
        result = run_cli("report", str(recording), *(args if args[0] == "-o" else ["-o", str(out), *args]))
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert recording.read_bytes() == before
    damaged = tmp_path / "damaged.html"
    damaged.write_text("<!doctype html><html><body>no recording here</body></html>")
    result = run_cli("diff", str(damaged))
    assert result.returncode == 2 and "without an embedded ctxscope recording" in result.stderr


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_the_page_in_a_real_browser(report: Path, tmp_path: Path) -> None:
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is a dev dependency")
    errors: list[str] = []
    requests: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
        )
        try:
            context = browser.new_context(offline=True, viewport={"width": 1400, "height": 900})
            page = context.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(report.as_uri())
            page.wait_for_function("document.getElementById('status').textContent.startsWith('turn 1 of 7')")
            assert "Turn 1 " in page.inner_text("#turn")
            # Click turn 4 (the cwd change): its diff and its answer are on the page.
            page.click("#timeline .row[data-i='3']")
            shown = page.inner_text("#turn")
            assert "Turn 4 " in shown and "cwd" in shown and "answer" in shown
            # The keys: j moves to turn 5; search lands on the hit and n steps by hit.
            page.keyboard.press("j")
            assert "Turn 5 " in page.inner_text("#turn")
            page.keyboard.press("/")
            page.keyboard.type("greet")
            page.keyboard.press("Enter")
            page.wait_for_function("document.getElementById('status').textContent.includes('hit')")
            first = page.inner_text("#status")
            assert page.locator("#turn mark").count() >= 1
            page.locator("#search").blur()
            page.keyboard.press("n")
            assert page.inner_text("#status") != first, "n steps to the next hit"
            # The last turn's answer text is shown.
            page.click("#timeline .row[data-i='6']")
            assert "pkg/greet.py" in page.inner_text("#turn .answer")
            page.screenshot(path=str(tmp_path / "report.png"), full_page=False)
        finally:
            browser.close()
    assert errors == []
    assert all(url.startswith("file://") for url in requests), requests
