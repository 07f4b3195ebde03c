"""One figure per fact: every view of every fixture and real capture gives each figure the same number.

The views are the `diff` document (JSON), its text and markdown renderings, `cache` and `context`
(JSON), the OTel export's request spans, the HTML report's embedded data (read back out of the page,
as the browser reads it), the TUI's timeline rows, token panel and turn view, and `ctxscope run`'s
count of other requests. The figures: counted and reported tokens, predicted and reported cached
tokens and the turn the prediction is from, cache breaks and their cost, the items
kept/added/removed, the compaction's counts (which add up to the history), side-request counts, plan
and goal events (none on a side request), the like-with-like fragment pairs of `diff --turn N`, and
search hits for fixed queries. The real captures are the pinned Codex CLI over HTTP
(`tui/codex.jsonl`) and over the WebSocket (`real/codex_ws.jsonl`), and the tour's recording
(`real/tour.jsonl`); the page's own script is held to the same hits and figures in headless Chromium
on the tour.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from ctxscope.inspector.analysis import Analysis, analyse_recording
from ctxscope.inspector.analysis.cache import cache_json, cache_report
from ctxscope.inspector.analysis.changes import change_words
from ctxscope.inspector.analysis.composition import composition_report
from ctxscope.inspector.analysis.fragment_diff import _fields_of, _logs, fragment_diffs
from ctxscope.inspector.analysis.query import search
from ctxscope.inspector.html.cli import write_report
from ctxscope.inspector.otel.spans import recording_spans
from ctxscope.inspector.reports import diff_report, render_markdown, render_text
from ctxscope.inspector.reports.build import turn_detail
from ctxscope.inspector.reports.terminal import Paths
from ctxscope.inspector.tui.viewmodel.lines import short_tokens
from ctxscope.inspector.tui.viewmodel.session import Inspector
from ctxscope.inspector.tui.viewmodel.timeline import TOKEN_LABELS, timeline_row
from ctxscope.inspector.tui.viewmodel.turn import turn_view
from ctxscope.proxy.store import read_recording
from ctxscope.run import RunResult
from tests.inspector.one_account import assert_one_account

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "inspector"
REAL = sorted((FIXTURES / "real").glob("*.jsonl"))
RECORDINGS = sorted(FIXTURES.glob("*.jsonl")) + sorted((FIXTURES / "tui").glob("*.jsonl")) + REAL
QUERIES = ("the", "cwd", "agents", "apply_patch", "plan", "pytest", "greet")
"""Fixed search queries: each view must count the same hits for each."""
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.stem)
def test_the_tui_turn_view_counts_what_the_report_counts(path: Path) -> None:
    analysis = analyse_recording(path)
    report = diff_report(analysis)
    by_number = {r.turn.number: r for r in analysis.turns}
    for doc in report.turns:
        result = by_number[doc.turn]
        target = by_number.get(doc.change.previous) if doc.change.previous is not None else None
        lines = [line.text for line in turn_view(result, target, reason="previous", expanded=set()).lines]
        (head,) = [line for line in lines if line.startswith("input[]")]
        words = change_words(doc.change.kept, doc.change.added, doc.change.removed)
        assert head.startswith(f"input[]  {doc.items} item") and f": {words}" in head, (doc.turn, head)
        items = [line for line in lines if line[:4] in ("  + ", "  - ", "  ~ ", "  = ")]
        if doc.change.removed and target is not None:
            # old and new positions side by side: each line says whose it is
            assert "old #: turn" in head
            assert all(" old #" in line for line in items if line.startswith("  - ")), (doc.turn, items)
            assert all(" new #" in line for line in items if line[:4] in ("  + ", "  ~ ")), (doc.turn, items)
        (answer,) = [line for line in lines if line.startswith("answer")]
        assert answer.startswith(f"answer  {doc.answer.status}")


COST_PRICES = """
[models."gpt-5-codex"]
input = 1.25
cached_input = 0.125
output = 10.0

[models."gpt-4o"]
input = 2.5
cached_input = 1.25
output = 10.0
"""


def _otel_costs(path: Path) -> dict[int, float]:
    """`ctxscope.cost.usd` of each turn's span in an OTLP/JSON export."""
    import json

    doc = json.loads(path.read_text(encoding="utf-8"))
    out: dict[int, float] = {}
    for resource in doc["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                attrs = {a["key"]: a["value"] for a in span.get("attributes", [])}
                if "ctxscope.cost.usd" in attrs:
                    out[int(attrs["ctxscope.turn"]["intValue"])] = attrs["ctxscope.cost.usd"]["doubleValue"]
    return out


@pytest.mark.parametrize("path", [FIXTURES / "compaction.jsonl", FIXTURES / "odd_input.jsonl"], ids=lambda p: p.stem)
def test_every_view_says_the_same_cost(path: Path, tmp_path: Path) -> None:
    """`cost`, `diff --format json`, `info --json` and the OTel export read the turn document's one
    cost figure, at the price table `$CTXSCOPE_PRICES` names."""
    import json
    import os
    import subprocess
    import sys

    prices = tmp_path / "prices.toml"
    prices.write_text(COST_PRICES)
    env = {**os.environ, "CTXSCOPE_PRICES": str(prices)}

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "ctxscope", *args], capture_output=True, text=True, env=env, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    cost = json.loads(run("cost", str(path), "--format", "json"))
    diff = json.loads(run("diff", str(path), "--format", "json"))
    info = json.loads(run("info", str(path), "--json"))
    run("otel", str(path), "-o", str(tmp_path / "spans.json"))
    by_cost = {t["turn"]: t["usd"] for t in cost["turns"]}
    by_diff = {t["turn"]: t["cost"]["usd"] for t in diff["turns"]}
    assert by_cost == by_diff and all(v is not None for v in by_cost.values())
    assert info["cost"]["usd"] == pytest.approx(cost["total"]["usd"], rel=1e-12)
    assert _otel_costs(tmp_path / "spans.json") == pytest.approx(by_cost, rel=1e-12)


@pytest.mark.parametrize("path", [FIXTURES / "subagent.jsonl", FIXTURES / "compaction.jsonl"], ids=lambda p: p.stem)
def test_every_view_names_the_same_agents(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`diff --format json` (its `agents` and each turn's `agent`), `show`, `cost --by agent`, `info` and
    the HTML report's data name each turn's agent and each agent's requests and cost alike."""
    from ctxscope.inspector.html.build import report_data
    from tests.cli_support import run_cli

    prices = tmp_path / "prices.toml"
    prices.write_text(COST_PRICES)
    monkeypatch.setenv("CTXSCOPE_PRICES", str(prices))  # every view, the HTML report's data in-process too

    def run(*args: str) -> str:
        done = run_cli(*args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    diff = json.loads(run("diff", str(path), "--format", "json"))
    agents = diff["agents"]
    root = agents[0]["name"] if agents else None
    spawned = {n: a["name"] for a in agents if a["parent"] is not None for n in a["turns"]}
    assert {t["turn"]: t["agent"] for t in diff["turns"]} == {t["turn"]: spawned.get(t["turn"]) for t in diff["turns"]}
    assert sorted(n for a in agents for n in a["turns"]) == (sorted(t["turn"] for t in diff["turns"]) if agents else [])
    for turn in diff["turns"]:
        shown = json.loads(run("show", str(path), "--turn", str(turn["turn"]), "--format", "json"))
        assert shown["turn"]["agent"] == turn["agent"]
        assert (shown["agent"] or {}).get("name") == (turn["agent"] or root)
    cost = json.loads(run("cost", str(path), "--format", "json"))
    assert {t["turn"]: t["agent"] for t in cost["turns"]} == {
        t["turn"]: t["agent"] or root or "main" for t in diff["turns"]
    }
    by_agent = {a["agent"]: a for a in cost["agents"]}
    for agent in agents:
        assert by_agent[agent["name"]]["requests"] == agent["requests"] == len(agent["turns"])
        assert by_agent[agent["name"]]["usd"] == pytest.approx(agent["usd"], rel=1e-12)
    data = report_data(analyse_recording(path))
    assert [{k: v for k, v in a.items() if k != "cost_text"} for a in data.head["agents"]] == agents
    assert {d["turn"]: d["agent"] for d in data.turns} == {t["turn"]: t["agent"] for t in diff["turns"]}
    info = run("info", str(path))
    for agent in agents:
        money = f"${agent['usd']:,.4f}" if agent["usd"] is not None else "unpriced"
        assert f"{agent['name']}  {', '.join(agent['threads'])}  {agent['requests']} requests  {money}" in info
    assert ("agents      " in info) == bool(agents)


def _block(page: str, block_id: str) -> Any:
    """A gzip-packed JSON block of the page, decoded as the page's script decodes it."""
    found = re.search(rf'<script type="application/x-ctxscope-json\+gzip" id="{block_id}">(.*?)</script>', page, re.S)
    assert found, block_id
    return json.loads(gzip.decompress(base64.b64decode(re.sub(r"\s+", "", found.group(1)))))


def _page(path: Path, out: Path) -> tuple[dict[int, dict[str, Any]], dict[str, str]]:
    """The HTML report's turn documents by number and its table of texts, read out of the page."""
    write_report(path, out)
    page = out.read_text(encoding="utf-8")
    return {t["turn"]: t for t in _block(page, "ctxscope-turns")}, _block(page, "ctxscope-texts")


def _text(report: Any) -> str:
    console = Console(file=io.StringIO(), width=2000, no_color=True, highlight=False, soft_wrap=True)
    render_text(report, console)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    return str(out)


def _panel(analysis: Analysis, number: int) -> dict[str, str]:
    """The TUI token panel's figures by their labels."""
    inspector = Inspector(analysis, other_requests=analysis.other_requests)
    figures: dict[str, str] = {}
    for line in inspector.turn_lines(number, "tokens"):
        text = line.text.strip()
        for label in ("counted total", "reported input", "reported cached", "predicted cached"):
            if text.startswith(label):
                figures[label] = text[len(label) :].split()[0]
    return figures


def _num(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_every_view_gives_each_figure_the_same_number(path: Path, tmp_path: Path) -> None:
    analysis = assert_one_account(path)  # batch == incremental; info == diff == TUI counts
    report = diff_report(analysis)
    wire = report.wire()
    cache = {t["turn"]: t for t in cache_json(cache_report(analysis))["turns"]}
    composition = {c.turn: c for c in composition_report(analysis).turns}
    text, markdown, paths = _text(report), render_markdown(report), Paths(report.root)
    page, texts = _page(path, tmp_path / "report.html")
    inspector = Inspector(analysis, other_requests=analysis.other_requests)
    inspector.mark_cache_breaks()
    breaks = {n for n, entry in inspector.cache.items() if entry.brk is not None}
    otel = {int(s.attributes["ctxscope.turn"]): s.attributes for s in recording_spans(analysis) if s.client}
    assert [t["turn"] for t in wire["turns"]] == sorted(page) == sorted(cache) == sorted(otel)
    assert sorted(composition) == [t["turn"] for t in wire["turns"] if not t["side"]]  # a prewarm fills no window

    for doc in wire["turns"]:
        n, tokens, change = doc["turn"], doc["tokens"], doc["change"]
        result, shown = analysis.turn(n), page[n]
        where = (path.name, n)
        # counted tokens
        assert tokens["total"] == shown["tokens"]["total"], where
        assert sum(tokens["by_kind"].values()) == tokens["total"], where  # the kinds share the total out
        if n in composition:
            assert composition[n].total == tokens["total"], where
        panel = _panel(analysis, n)
        assert panel["counted total"] == _num(tokens["total"]), where
        # reported tokens: the turn's, its answer's and the page's are one
        usage = tokens["usage"]
        assert usage == doc["answer"]["usage"] == shown["tokens"]["usage"] == shown["answer"]["usage"], where
        assert panel["reported input"] == _num(usage["input_tokens"]), where
        assert panel["reported cached"] == _num(usage["cached_tokens"]), where
        # the OTel span's usage and counts are the turn document's
        span = otel[n]
        for key, attribute in (
            ("input_tokens", "gen_ai.usage.input_tokens"),
            ("output_tokens", "gen_ai.usage.output_tokens"),
            ("cached_tokens", "gen_ai.usage.cache_read.input_tokens"),
        ):
            assert span.get(attribute) == usage[key], (where, attribute)
        kinds = {k.removeprefix("ctxscope.tokens."): v for k, v in span.items() if k.startswith("ctxscope.tokens.")}
        assert kinds == tokens["by_kind"], where
        spanned = [span["ctxscope.change.kept"], span["ctxscope.change.added"], span["ctxscope.change.removed"]]
        assert spanned == [change["kept"], change["added"], change["removed"]], where
        assert span["ctxscope.items"] == doc["items"], where
        # predicted cached: one model of the prefix in diff, cache, the page and the TUI
        predicted = tokens["predicted_cached"]
        assert predicted == cache[n]["predicted_cached"] == shown["cache"]["predicted_cached"], where
        assert predicted == shown["tokens"]["predicted_cached"], where
        assert panel["predicted cached"] == _num(predicted), where
        assert tokens["predicted_from"] == cache[n]["best_turn"], where
        assert tokens["shared_prefix"] == cache[n]["best_prefix"], where
        # a cache break: the same in every view, and never one that cost nothing
        assert tokens["cache_break"] == cache[n]["break"] == shown["cache"]["break"], where
        assert (cache[n]["break"] is not None) == (n in breaks), where
        assert cache[n]["break"] is None or cache[n]["break"]["tokens"] > 0, where
        # the timeline's one figure, labelled
        row = timeline_row(result, world_changed=False)
        assert (row.tokens, row.tokens_as) == (tokens["shown"], tokens["shown_as"]), where
        drawn = f"{short_tokens(tokens['shown'])} {TOKEN_LABELS[tokens['shown_as']]} "
        assert drawn in row.line(width=120).text.split("\n")[0], where
        expected = "reported" if usage["input_tokens"] is not None else "counted"
        assert tokens["shown_as"] == expected and shown["tokens"]["shown"] == tokens["shown"], where
        # items kept/added/removed
        assert shown["change"] == change and shown["items"] == doc["items"], where
        words = change_words(change["kept"], change["added"], change["removed"])
        if not doc["side"]:
            assert re.search(rf"turn {n} .*{re.escape(words)} .*{tokens['total']:,} counted", text), where
        row_md = f"| {n} | {doc['thread']} | {change['kind']} | {doc['items']} | "
        row_md += f"{change['kept']}/+{change['added']}/-{change['removed']} | {tokens['total']} | "
        assert row_md in markdown, where
        if usage["input_tokens"] is not None and not doc["side"]:
            said = (
                f"tokens: reported input {usage['input_tokens']:,}, reported cached "
                f"{usage['cached_tokens'] or 0:,}, predicted cached {predicted:,}"
            )
            assert said in text, where
        # compaction counts add up, and read the same everywhere
        compaction = doc["compaction"]
        assert shown["compaction"] is None if compaction is None else shown["compaction"] is not None, where
        if compaction is not None:
            parts = compaction["kept_in_place"] + compaction["summarised"] + compaction["dropped_items"]
            assert parts + compaction["kept"] + compaction["resent"] == compaction["history"], where
            assert paths(compaction["sentence"]) in text, where  # the text writes paths under the root as ./…
            assert compaction["sentence"] == shown["compaction"]["sentence"], where
            assert f"{compaction['summarised']} of {compaction['history']} history item" in compaction["sentence"]
            assert shown["compaction"]["history"] == compaction["history"], where
        # plan and goal events: the page's and the TUI's are the report's; none on a side request
        assert shown["mode_events"] == doc["mode_events"] and shown["goal_events"] == doc["goal_events"]
        said_events = [e["sentence"] for e in doc["mode_events"]] + [e["sentence"] for e in doc["goal_events"]]
        assert all(e in row.marks for e in said_events), (where, row.marks)
        if doc["side"]:
            assert not doc["mode_events"] and not doc["goal_events"], where
        # a goal event is named once: not again in the next turn's world-state sentences
        previous = analysis.turn(n - 1) if n > 1 else None
        if previous is not None and previous.turn.thread == result.turn.thread:
            before = [e["sentence"] for e in wire["turns"][n - 2]["goal_events"]]
            assert not set(before) & set(doc["world_state_changes"]), where
        # fragments are paired like with like; after a compaction they are re-sent
        if change["previous"] is not None:
            against = analysis.turn(change["previous"])
            compacted = result.change.kind == "compaction"
            for pair in fragment_diffs(against.turn.items, result.change.added, compaction=compacted):
                heads = pair.part.label.split(":")[0] == pair.replaces.label.split(":")[0]
                fields = _fields_of(pair.part)
                same = (pair.part.kind == pair.replaces.kind and heads) or (
                    fields == _fields_of(pair.replaces) and not _logs(fields)
                )
                assert same, (where, pair.part.label, pair.replaces.label)
                assert pair.resent == compacted, where
            detail = turn_detail(result, against).model_dump(mode="json", by_alias=True)  # the page's form
            assert shown["fragments_replaced"] == detail["fragments_replaced"], where

    # side requests and other requests: one count per view
    assert wire["side_requests"] == analysis.side_requests
    counted = RunResult(tmp_path / "unused.jsonl")
    for exchange in read_recording(path).exchanges:
        counted.count(exchange)
    others = counted.summarised + counted.other
    assert others == analysis.other_requests, (others, analysis.other_requests)
    folded = [line.text for line in inspector.timeline() if "other request" in line.text]
    assert folded == ([f"  +{others} other request{'s' if others != 1 else ''} (not model turns)"] if others else [])

    # search: one hit per matching place, the page's data and the TUI's search agree
    for query in QUERIES:
        tui = search(analysis, query)
        on_page = [
            (t, p["where"])
            for t in sorted(page)
            for p in page[t]["search"]
            if query in texts[p["ref"]].lower()
        ]
        assert len(tui) == len(on_page), (path.name, query, len(tui), len(on_page))
        assert [h.turn for h in tui] == [t for t, _ in on_page], (path.name, query)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)")
def test_the_page_script_counts_what_the_analysis_counts(tmp_path: Path) -> None:
    """The tour's page in headless Chromium: the hits its script counts for each fixed query, the
    timeline's labelled figure, and a filter moving the detail pane to the first turn it shows."""
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is a dev dependency")
    path = FIXTURES / "real" / "tour.jsonl"
    analysis = analyse_recording(path)
    out = tmp_path / "tour.html"
    write_report(path, out)
    errors: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
        )
        try:
            page = browser.new_context(offline=True).new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(out.as_uri())
            page.wait_for_function("document.getElementById('status').textContent.startsWith('turn 1 of ')")
            first = analysis.turn(1).tokens
            row = page.inner_text("#timeline .row[data-i='0']")
            assert f"{first.shown[0]:,} {first.shown[1]}" in row
            shown = page.inner_text("#turn")
            assert f"predicted cached {first.predicted_cached:,}" in shown
            for query in QUERIES:
                page.fill("#search", query)
                page.press("#search", "Enter")
                expected = len(search(analysis, query))
                if expected:
                    noun = "hit" if expected == 1 else "hits"
                    page.wait_for_function(
                        f"document.getElementById('status').textContent.endsWith(' of {expected} {noun}')"
                    )
                else:
                    page.wait_for_function("!document.getElementById('status').textContent.includes('hit')")
            page.fill("#search", "")
            page.press("#search", "Enter")
            # a filter that hides the shown turn moves the detail pane to its first turn
            compacted = next(t.turn.number for t in analysis.turns if t.change.kind == "compaction")
            page.click("#timeline .row[data-i='1']")
            page.fill("#filter", "kind:compaction")
            page.press("#filter", "Enter")
            page.wait_for_function(f"document.querySelector('#turn h2').textContent.startsWith('Turn {compacted} ')")
            assert page.locator("#timeline .row").count() == 1
        finally:
            browser.close()
    assert errors == []
